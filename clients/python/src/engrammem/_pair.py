"""A sync and an async client behind one adapter: the adapters (LangGraph store, chat history)
write each operation once as a plan that yields ``ClientCall``s, and run it on either client."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import core
from .client import AsyncEngram, Engram

T = TypeVar("T")


@dataclass(frozen=True)
class ClientCall:
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


def call(method: str, *args: Any, **kwargs: Any) -> ClientCall:
    return ClientCall(method, args, kwargs)


class ClientPair:
    """``Engram`` and ``AsyncEngram`` over the same API; made on first use (from ENGRAM_API_URL and
    ENGRAM_API_KEY unless given)."""

    def __init__(self, client: Engram | None = None, async_client: AsyncEngram | None = None,
                 **options: Any) -> None:
        self._client, self._async_client, self._options = client, async_client, options

    @property
    def client(self) -> Engram:
        if self._client is None:
            self._client = Engram(**self._options)
        return self._client

    @property
    def async_client(self) -> AsyncEngram:
        if self._async_client is None:
            self._async_client = AsyncEngram(**self._options)
        return self._async_client

    def run(self, plan: Generator[ClientCall, Any, T]) -> T:
        return core.run_sync(plan, lambda c: getattr(self.client, c.method)(*c.args, **c.kwargs))

    async def arun(self, plan: Generator[ClientCall, Any, T]) -> T:
        async def perform(c: ClientCall) -> Any:
            return await getattr(self.async_client, c.method)(*c.args, **c.kwargs)

        return await core.run_async(plan, perform)

"""How the episode store reads OpenSearch's answers: which failures mean "the store is away",
and the per-item errors of a multi-document request that must not pass for "not found".

Away is more than a refused connection: after a restart the node answers before its shards have
recovered, and a search or get on a shard not yet started fails with 503 (so do a full queue,
429, and a gateway in between, 502 and 504). Callers already know what to do when the store is
away (a write is recorded as pending, a recall step degrades, a saga step is retried); the same
failure taken for an error of the request would spend a catch-up attempt, and an empty answer
would read as "no record", "not stored yet" or "nothing left to erase"."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from opensearchpy.exceptions import ConnectionError as OSConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError
from opensearchpy.helpers.errors import ScanError

from ...errors import StoreUnavailable

AWAY_STATUSES = frozenset({429, 502, 503, 504})


def unavailable(exc: object) -> StoreUnavailable:
    return StoreUnavailable(f"episode store: {exc}")


@contextmanager
def answering() -> Iterator[None]:
    """Run requests to the store; its being away (or a scan's shard failing midway: the result
    would be incomplete) raises ``StoreUnavailable``, any other error passes through."""
    try:
        yield
    except (OSConnectionError, ConnectionTimeout, ScanError) as exc:
        raise unavailable(exc) from exc
    except TransportError as exc:
        if exc.status_code in AWAY_STATUSES:
            raise unavailable(exc) from exc
        raise


def found_docs(docs: Iterable[dict]) -> list[dict]:
    """An ``_mget``'s documents that exist; a document its shard could not look up is the store
    away, not a document that is missing."""
    docs = list(docs)
    for doc in docs:
        if "error" in doc:
            raise unavailable(doc["error"].get("reason") if isinstance(doc["error"], dict) else doc["error"])
    return [d for d in docs if d.get("found")]


def check_bulk(errors: Iterable[dict], gone_ok: bool = True) -> None:
    """A bulk request's item errors: an item whose document is gone already (404) is done when
    ``gone_ok``; any other leaves the request unfinished, for the caller to retry."""
    for error in errors:
        _, item = next(iter(error.items()))
        if gone_ok and item.get("status") == 404:
            continue
        raise StoreUnavailable(f"episode store: bulk write failed: {item.get('error')}")

"""The contract every local server module follows."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..common import PORTS, Process


class Service(ABC):
    """One local server: installed once, started idempotently, probed for health.

    ``health()`` returns the service's entry of ``status --json``: at least
    ``{"healthy": bool, "url": str}`` plus ``user``/``password`` where it has them.
    """

    name: str = ""

    def __init__(self) -> None:
        self.port = PORTS[self.name]
        self.process = Process(self.name)

    @abstractmethod
    def install(self) -> None:
        """Make the server's binaries available; a no-op when they already are."""

    @abstractmethod
    def start(self) -> None:
        """Start the server unless it already runs, and wait until it answers."""

    def stop(self) -> None:
        self.process.stop()

    @abstractmethod
    def health(self) -> dict:
        """Probe the running server; never raise."""

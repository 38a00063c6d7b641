"""The runners of ``INGEST_CHAIN`` (``service.chain``'s, over this one chain)."""

from __future__ import annotations

from ...dependencies import Dependencies
from .. import chain
from .command import IngestCommand
from .plan import INGEST_CHAIN


def run_in_process(deps: Dependencies, command: IngestCommand) -> dict:
    """The whole chain in-process (the API's path): each step's output is the next one's input."""
    return chain.run_in_process(deps, INGEST_CHAIN, command)


def run_step(deps: Dependencies, name: str, event: dict) -> dict:
    """One step as its own Lambda under ``IngestStateMachine``: JSON in, JSON out."""
    return chain.run_step(deps, INGEST_CHAIN, name, event)


def ingest(deps: Dependencies, command: IngestCommand) -> dict:
    """The configured runner (``ENGRAM_INGEST_RUNNER``): in-process, or ``IngestStateMachine``."""
    return chain.run_configured(deps, INGEST_CHAIN, command, lambda: run_in_process(deps, command))

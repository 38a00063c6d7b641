"""The ingestion chain: the command (``command``), its steps (``steps``, the write in ``route``),
one plan (``plan``) and its two runners (``runners``)."""

from .command import IngestCommand
from .plan import INGEST_CHAIN
from .runners import ingest, run_in_process, run_step

__all__ = ["INGEST_CHAIN", "IngestCommand", "ingest", "run_in_process", "run_step"]

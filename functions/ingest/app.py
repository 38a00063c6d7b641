"""The ingestion chain under the Express IngestStateMachine (statemachines/ingest.asl.json):
clean -> extract -> cleanse -> route, each step's JSON output the next one's input
(engram.service.ingestion.INGEST_CHAIN)."""

from engram.handlers import handler
from engram.service.ingestion import run_ingest_step


@handler
def clean(deps, event):
    return run_ingest_step(deps, "clean", event)


@handler
def extract(deps, event):
    return run_ingest_step(deps, "extract", event)


@handler
def cleanse(deps, event):
    return run_ingest_step(deps, "cleanse", event)


@handler
def route(deps, event):
    return run_ingest_step(deps, "route", event)

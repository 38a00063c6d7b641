"""The ingestion chain under the Express IngestStateMachine (statemachines/ingest.asl.json):
clean -> extract -> cleanse -> route, each step's JSON output the next one's input
(engram.service.ingestion.INGEST_CHAIN, run_ingest_step)."""

from engram.handlers import handler, step
from engram.service.ingestion import run_ingest_step

clean = handler(step(run_ingest_step, "clean"))
extract = handler(step(run_ingest_step, "extract"))
cleanse = handler(step(run_ingest_step, "cleanse"))
route = handler(step(run_ingest_step, "route"))

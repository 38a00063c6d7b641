"""The ingestion chain under the Express IngestStateMachine (statemachines/ingest.asl.json):
clean -> extract -> cleanse -> route, each step's JSON output the next one's input
(engram.service.ingest: INGEST_CHAIN in plan, run_step in runners)."""

from engram.handlers import handler, step
from engram.service.ingest import run_step

clean = handler(step(run_step, "clean"))
extract = handler(step(run_step, "extract"))
cleanse = handler(step(run_step, "cleanse"))
route = handler(step(run_step, "route"))

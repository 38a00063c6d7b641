"""The ingestion chain under the Express IngestStateMachine (statemachines/ingest.asl.json):
clean -> extract -> cleanse -> route, each step's JSON output the next one's input
(engram.service.ingest: INGEST_CHAIN in plan, run_step in runners); and the catch-up of the
writes a derived store missed (engram.service.ingest.catch_up)."""

from engram.handlers import handler, step
from engram.service.ingest import run_step
from engram.service.ingest.catch_up import catch_up as catch_up_pending
from engram.service.ingest.catch_up import replay

clean = handler(step(run_step, "clean"))
extract = handler(step(run_step, "extract"))
cleanse = handler(step(run_step, "cleanse"))
route = handler(step(run_step, "route"))


@handler
def catch_up(deps, event):
    """The writes a derived store missed, applied once it answers (CatchUpFunction, every minute,
    one at a time). {"replay": [seq, ...] | "all"}: put dead letters back in line first."""
    if event and event.get("replay") is not None:
        replay(deps, None if event["replay"] == "all" else [int(s) for s in event["replay"]])
    return catch_up_pending(deps, budget_s=event.get("budget_s") if event else None)

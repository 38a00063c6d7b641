"""The erasure saga's steps (statemachines/erasure.asl.json; logic in engram.service.erasure,
whose steps take ``(deps, event)``). Store failures raise StoreUnavailable, the state machine's
cue to retry with backoff."""

from engram.handlers import handler
from engram.service import erasure

validate = handler(erasure.validate)
mark = handler(erasure.mark)
verify = handler(erasure.verify)
record = handler(erasure.record)
failed = handler(erasure.record_failure)


@handler
def delete(deps, event):
    """One store, named by the state machine in ``event["store"]`` (one parallel branch per store)."""
    return erasure.delete_from(deps, event, event.get("store"))

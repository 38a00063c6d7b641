"""The erasure saga's steps (statemachines/erasure.asl.json; logic in engram.service.erasure).
Store failures raise StoreUnavailable, the state machine's cue to retry with backoff."""

from engram.handlers import handler
from engram.service import erasure


@handler
def validate(deps, event):
    return erasure.validate(deps, event)


@handler
def mark(deps, event):
    return erasure.mark(deps, event)


@handler
def delete(deps, event):
    """One store, named by the state machine in ``event["store"]`` (one branch per store)."""
    return erasure.delete_from(deps, event, event.get("store"))


@handler
def verify(deps, event):
    return erasure.verify(deps, event)


@handler
def record(deps, event):
    return erasure.record(deps, event)


@handler
def failed(deps, event):
    return erasure.record_failure(deps, event)

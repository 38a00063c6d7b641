"""The recall steps under the Express RecallStateMachine (statemachines/recall.asl.json), one
handler per step; payloads and the plan are in engram.service.recall (runners.run_step)."""

from engram.handlers import handler
from engram.service.recall import run_step


@handler
def session(deps, event):
    return run_step(deps, "session", event)


@handler
def tasks(deps, event):
    return run_step(deps, "tasks", event)


@handler
def profile(deps, event):
    return run_step(deps, "profile", event)


@handler
def episodes(deps, event):
    return run_step(deps, "episodes", event)


@handler
def archive(deps, event):
    """The originals of the episode hits, when the question asks for verbatim detail."""
    return run_step(deps, "archive", event)


@handler
def fuse(deps, event):
    return run_step(deps, "fuse", event)

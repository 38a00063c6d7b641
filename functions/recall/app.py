"""The recall steps under the Express RecallStateMachine (statemachines/recall.asl.json), one
handler per step of the plan; payloads in engram.service.recall (plan: RecallPlan.chain). ``archive``
reads the originals of the episode hits when the question asks for verbatim detail."""

from engram.handlers import handler, step
from engram.service.recall import run_step

session = handler(step(run_step, "session"))
tasks = handler(step(run_step, "tasks"))
profile = handler(step(run_step, "profile"))
episodes = handler(step(run_step, "episodes"))
archive = handler(step(run_step, "archive"))
fuse = handler(step(run_step, "fuse"))

"""Scheduled jobs: the nightly forgetting run (ForgetStateMachine: a plan, then each shard walked
by invocations that hand each other a cursor) and the health of every store (the StackProbe state
machine)."""

from aws_lambda_powertools.metrics import MetricUnit

from engram.handlers import handler, logger, metrics
from engram.service.forgetting import ForgetShard, forget_shard, plan_forgetting
from engram.service.health import check_stores


@handler
def forget_plan(deps, event):
    """The run's clock and one work item per shard. {"now"?, "tenant"?, "budget_s"?}: on demand, a
    run may be for one tenant and hand over sooner than the function's budget."""
    return plan_forgetting(deps, now=event.get("now"), tenant=event.get("tenant"), budget_s=event.get("budget_s"))


@handler
def forget_shard_step(deps, event):
    """Small talk out of retrieval, repeated types down-weighted, near-duplicates merged, habits:
    for the shard's next users, until the walk ends or the invocation's budget is spent."""
    after = forget_shard(deps, ForgetShard.from_event(event))
    if after.done:
        logger.info("forgetting shard done", extra={"shard": after.shard, **after.totals})
    return after.to_event()


@handler
def health(deps, event):
    report = check_stores(deps)
    metrics.add_metric(name="StoresDown", unit=MetricUnit.Count,
                       value=sum(1 for s in report["stores"].values() if s != "ok"))
    logger.info("store health", extra=report)
    return report

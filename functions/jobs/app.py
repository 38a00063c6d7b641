"""Scheduled jobs: the daily forgetting run (EventBridge) and the health of every store (the
StackProbe state machine)."""

from aws_lambda_powertools.metrics import MetricUnit

from engram.handlers import handler, logger, metrics
from engram.service.forgetting import run_forgetting
from engram.service.health import check_stores


@handler
def forget(deps, event):
    """Small talk out of retrieval, repeated types down-weighted, near-duplicates merged, habits."""
    report = run_forgetting(deps, now=event.get("now"))
    logger.info("forgetting done", extra=report)
    return report


@handler
def health(deps, event):
    report = check_stores(deps)
    metrics.add_metric(name="StoresDown", unit=MetricUnit.Count,
                       value=sum(1 for s in report["stores"].values() if s != "ok"))
    logger.info("store health", extra=report)
    return report

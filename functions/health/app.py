"""Health of every store, for the stack-probe state machine and schedulers."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.health import check_stores

logger = Logger(service="engram-health")
tracer = Tracer(service="engram-health")
metrics = Metrics(namespace="Engram", service="engram-health")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    report = check_stores()
    metrics.add_metric(name="StoresDown", unit=MetricUnit.Count,
                       value=sum(1 for s in report["stores"].values() if s != "ok"))
    logger.info("store health", extra=report)
    return report

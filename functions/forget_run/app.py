"""The daily forgetting job (EventBridge schedule): small talk out of retrieval, repeated types
down-weighted, near-duplicates merged, behaviour patterns aggregated."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.forgetting import run_forgetting

logger = Logger(service="engram-forgetting")
tracer = Tracer(service="engram-forgetting")
metrics = Metrics(namespace="Engram", service="engram-forgetting")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    report = run_forgetting(now=event.get("now"))
    logger.info("forgetting done", extra=report)
    return report

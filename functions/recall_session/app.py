"""Recall step 'session' as its own Lambda (see engram.service.recall_lambda for the payloads)."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.recall_lambda import session_step

logger = Logger(service="engram-recall")
tracer = Tracer(service="engram-recall")
metrics = Metrics(namespace="Engram", service="engram-recall")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return session_step(event)

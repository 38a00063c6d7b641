"""Erasure saga step 'delete_opensearch' (statemachines/erasure.asl.json; logic in engram.service.erasure)."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service import erasure

logger = Logger(service="engram-erasure")
tracer = Tracer(service="engram-erasure")
metrics = Metrics(namespace="Engram", service="engram-erasure")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return erasure.delete_from(event, "opensearch")

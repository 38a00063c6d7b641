"""Ingestion step 'route' as its own Lambda (see engram.service.steps for the payloads)."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.steps import route_step

logger = Logger(service="engram-ingest")
tracer = Tracer(service="engram-ingest")
metrics = Metrics(namespace="Engram", service="engram-ingest")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return route_step(event)

"""Archive step 3: the day's manifest (every object with its SHA-256 and row count)."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.archival import write_manifest

logger = Logger(service="engram-archive")
tracer = Tracer(service="engram-archive")
metrics = Metrics(namespace="Engram", service="engram-archive")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return write_manifest(event["day"], int(event["shards"]), event["results"])

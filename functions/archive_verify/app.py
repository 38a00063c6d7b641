"""Archive step 4: re-read every object of the manifest; ArchiveVerificationFailed if any differs."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.archival import verify

logger = Logger(service="engram-archive")
tracer = Tracer(service="engram-archive")
metrics = Metrics(namespace="Engram", service="engram-archive")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return verify(event["day"])

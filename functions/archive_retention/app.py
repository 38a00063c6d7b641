"""Archive step 5: drop what is safely archived (hypertable chunks past the hot window,
cap-evicted episodes) and nothing else."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.retention import apply_retention

logger = Logger(service="engram-archive")
tracer = Tracer(service="engram-archive")
metrics = Metrics(namespace="Engram", service="engram-archive")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return apply_retention(event.get("now"))

"""Archive step 2 (inside the Map): one shard's turns, events and task changes of the day to
Parquet on S3; only rows no earlier part holds are written."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.service.archival import archive_shard

logger = Logger(service="engram-archive")
tracer = Tracer(service="engram-archive")
metrics = Metrics(namespace="Engram", service="engram-archive")


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    result = archive_shard(event["day"], int(event["shard"]), int(event["shards"]))
    metrics.add_metric(name="ArchivedRows", unit=MetricUnit.Count, value=result["rows_written"])
    return result

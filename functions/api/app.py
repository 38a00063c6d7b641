"""API Gateway (REST, proxy) → the FastAPI app through Mangum."""

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum

from engram.api.app import create_app

logger = Logger(service="engram-api")
tracer = Tracer(service="engram-api")
metrics = Metrics(namespace="Engram", service="engram-api")

asgi = Mangum(create_app(), lifespan="off")


@logger.inject_lambda_context(correlation_id_path="requestContext.requestId")
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict, context: LambdaContext) -> dict:
    return asgi(event, context)

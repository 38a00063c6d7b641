"""API Gateway (REST, proxy) -> the FastAPI app through Mangum."""

from mangum import Mangum

from engram.api.app import create_app
from engram.handlers import handler, lambda_context

# Built at init, as AWS intends; the app reaches the stores through the same bootstrap() per
# request, so no connection is opened before the first one.
asgi = Mangum(create_app(), lifespan="off")


@handler
def lambda_handler(deps, event):
    return asgi(event, lambda_context())

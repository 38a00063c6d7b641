"""The one decorator stack of every Lambda handler (``functions/*/app.py``).

``@handler`` turns ``fn(deps, event)`` into a Lambda handler ``(event, context)``: the Powertools
Logger gets the Lambda context (and API Gateway's ``requestContext.requestId`` as correlation id
when the event has one), the Tracer captures the invocation, Metrics are flushed as EMF at its end,
and ``fn`` is called with the process's dependencies (``engram.bootstrap.bootstrap()``, built on the
first invocation and reused while the environment is warm). Service name and metrics namespace come
from ``POWERTOOLS_SERVICE_NAME`` and ``POWERTOOLS_METRICS_NAMESPACE`` (template.yaml, Globals).

Nothing here connects to anything at import: the stores are reached through ``bootstrap()`` inside
the first invocation, so an import error and a store outage are told apart.

A service entry point that already takes ``(deps, event)`` is its own handler; a chain's step runner
``run(deps, name, event)`` gets one handler per step through ``step``; anything else is a function:

    validate = handler(erasure.validate)
    episodes = handler(step(run_step, "episodes"))

    @handler
    def verify(deps, event):
        return archival.verify(deps, event["day"])
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.middleware_factory import lambda_handler_decorator
from aws_lambda_powertools.utilities.typing import LambdaContext

from .bootstrap import bootstrap
from .dependencies import Dependencies

logger = Logger()
tracer = Tracer()
metrics = Metrics()

_context: ContextVar[LambdaContext | None] = ContextVar("lambda_context", default=None)

Service = Callable[[Dependencies, Any], Any]


def lambda_context() -> LambdaContext | None:
    """The context of the invocation being handled (for adapters that want it, e.g. Mangum)."""
    return _context.get()


@lambda_handler_decorator
def _with_dependencies(fn: Service, event: Any, context: LambdaContext) -> Any:
    token = _context.set(context)
    try:
        return fn(bootstrap(), event)
    finally:
        _context.reset(token)


def step(run: Callable[[Dependencies, str, Any], Any], name: str) -> Service:
    """``run(deps, name, event)`` as ``fn(deps, event)``, named after the step (in logs and traces)."""

    def call(deps: Dependencies, event: Any) -> Any:
        return run(deps, name, event)

    call.__name__ = call.__qualname__ = name
    return call


def handler(fn: Service) -> Callable[[Any, LambdaContext], Any]:
    """``fn(deps, event)`` as a Lambda handler, under the shared Logger, Tracer and Metrics."""
    # Powertools' own order: logger outermost, then tracer, then metrics around the handler.
    # The response is not put on the trace: it holds users' memories, and traces are not erased.
    measured = metrics.log_metrics(_with_dependencies(fn))
    traced = tracer.capture_lambda_handler(measured, capture_response=False)
    return logger.inject_lambda_context(traced, correlation_id_path=correlation_paths.API_GATEWAY_REST,
                                        clear_state=True)

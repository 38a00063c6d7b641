"""The metrics sink: CloudWatch EMF through Powertools Metrics, the one metrics mechanism.

Datapoints join the metric set of ``engram.handlers.metrics`` (Powertools shares one set per
process), which ``log_metrics`` flushes as one EMF line when the invocation ends; Lambda's log
pipeline turns it into CloudWatch metrics in ``POWERTOOLS_METRICS_NAMESPACE`` with the
``service`` dimension ``POWERTOOLS_SERVICE_NAME``. Outside a Lambda (uvicorn, benchmarks, tests)
nothing flushes that set, so there the sink discards: the datapoints would only pile up and spill
onto stdout.
"""

from __future__ import annotations

import logging
import os

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit

from ...domain.recall.metrics import Metric

log = logging.getLogger(__name__)
_UNITS = {"Count": MetricUnit.Count, "Milliseconds": MetricUnit.Milliseconds, "Seconds": MetricUnit.Seconds}


class EmfMetrics:
    def __init__(self, metrics: Metrics | None = None) -> None:
        self._metrics = metrics or Metrics()

    def record(self, metrics: list[Metric]) -> None:
        for metric in metrics:
            try:
                self._metrics.add_metric(name=metric.name, unit=_UNITS[metric.unit], value=metric.value)
            except Exception as exc:  # noqa: BLE001 - a metric must never fail the answer it describes
                log.warning("metric %s not recorded: %s", metric.name, exc)


class DiscardedMetrics:
    def record(self, metrics: list[Metric]) -> None:
        return None


def metrics_sink() -> EmfMetrics | DiscardedMetrics:
    """EMF inside a Lambda (the handler stack flushes it), discarded anywhere else."""
    return EmfMetrics() if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") else DiscardedMetrics()

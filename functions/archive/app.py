"""The nightly archive (statemachines/archive.asl.json): plan -> Map(shard) -> manifest ->
verify -> retention; logic in engram.service.archival and engram.service.retention."""

from aws_lambda_powertools.metrics import MetricUnit

from engram.handlers import handler, metrics
from engram.service import archival
from engram.service.retention import apply_retention

# The day (given, else the day before the execution started) and one work item per shard.
plan = handler(archival.plan_execution)


@handler
def shard(deps, event):
    """One shard's turns, events and task changes of the day to Parquet; only rows no part holds."""
    result = archival.archive_shard(deps, event["day"], int(event["shard"]), int(event["shards"]))
    metrics.add_metric(name="ArchivedRows", unit=MetricUnit.Count, value=result["rows_written"])
    return result


@handler
def manifest(deps, event):
    return archival.write_manifest(deps, event["day"], int(event["shards"]), event["results"])


@handler
def verify(deps, event):
    """Re-read every object of the manifest; ArchiveVerificationFailed if any differs."""
    return archival.verify(deps, event["day"])


@handler
def retention(deps, event):
    """Drop what a verified archive holds (hypertable chunks past the hot window, evicted episodes)."""
    return apply_retention(deps, event.get("now"))

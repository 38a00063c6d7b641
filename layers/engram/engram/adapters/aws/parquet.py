"""The archive's file format: strict Parquet schemas per kind, ZSTD, and reading bytes back."""

from __future__ import annotations

import io
from functools import cache
from typing import TYPE_CHECKING

from ...errors import ArchiveVerificationFailed

# pyarrow is imported when the format is first used, not with this module: the API and the
# ingest and recall steps import this module (through service.archival) but never touch Parquet,
# and importing pyarrow costs a cold start about 80 ms. ``SCHEMAS`` and ``PARTITIONS`` are module
# attributes all the same (``__getattr__``, below).
if TYPE_CHECKING:
    import pyarrow as pa


@cache
def _format() -> tuple[pa.Schema, dict[str, pa.Schema]]:
    """The partition columns of the archive's paths, and each kind's schema."""
    import pyarrow as pa

    def _f(name: str, kind: pa.DataType, nullable: bool = False) -> pa.Field:
        return pa.field(name, kind, nullable=nullable)

    ts, strings = pa.timestamp("us", tz="UTC"), pa.list_(pa.string())
    partitions = pa.schema([("year", pa.int16()), ("month", pa.int8()), ("day", pa.int8()), ("shard", pa.int16())])
    # Strict schemas: not-null wherever the source always has a value. ``sealed`` says whether the
    # sensitive columns hold ``eg1:`` ciphertext under the user's data key (crypto-shredding makes
    # them unreadable) or plaintext (no key store configured).
    schemas = {
        "turns": pa.schema([
            _f("tenant", pa.string()), _f("user_id", pa.string()), _f("session_id", pa.string()),
            _f("device_id", pa.string()), _f("message_id", pa.string()), _f("role", pa.string()),
            _f("content", pa.string(), True),  # null: a child's turn, whose content is never kept
            _f("content_sha256", pa.string()), _f("truncated", pa.bool_()), _f("client_ts", ts),
            _f("received_at", ts), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
        "events": pa.schema([
            _f("tenant", pa.string()), _f("user_id", pa.string()), _f("event_id", pa.string()),
            _f("type", pa.string()), _f("summary", pa.string(), True), _f("text", pa.string(), True),
            _f("context", pa.string(), True), _f("keywords", strings), _f("raw_sha256", pa.string(), True),
            _f("message_ids", strings), _f("session_id", pa.string(), True), _f("device_id", pa.string(), True),
            _f("ts", ts), _f("occurred_at", ts, True), _f("confidence", pa.float64()),
            _f("trust_source", pa.string()), _f("weight", pa.float64()), _f("tags", strings),
            _f("sensitive", pa.bool_()), _f("evicted", pa.bool_()), _f("archived", pa.bool_()),
            _f("merged_count", pa.int32()), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
        "tasks": pa.schema([
            _f("tenant", pa.string()), _f("user_id", pa.string()), _f("task_id", pa.string()),
            _f("status", pa.string()), _f("metadata", pa.string()), _f("duration_ms", pa.int64(), True),
            _f("ts", ts), _f("recorded_at", ts), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
    }
    return partitions, schemas


def __getattr__(name: str):
    if name == "PARTITIONS":
        return _format()[0]
    if name == "SCHEMAS":
        return _format()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def to_table(kind: str, rows: list[dict]) -> pa.Table:
    """Rows as a table of the kind's schema; a null where the schema says not-null is refused."""
    import pyarrow as pa

    schema = _format()[1][kind]
    table = pa.Table.from_pylist(rows, schema=schema)
    for field in schema:
        if not field.nullable and table.column(field.name).null_count:
            raise ArchiveVerificationFailed(f"{kind}.{field.name}: null in a not-null column")
    return table


def parquet_bytes(table: pa.Table) -> bytes:
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    # Sorted input, one row group per 64k rows, dictionary-encoded ids: ZSTD does the rest.
    pq.write_table(table, buf, compression="zstd", compression_level=6, row_group_size=65536,
                   write_statistics=True)
    return buf.getvalue()


def read_parquet(data: bytes) -> pa.Table:
    import pyarrow.parquet as pq

    return pq.read_table(io.BytesIO(data))

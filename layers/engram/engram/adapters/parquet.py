"""The archive's file format: strict Parquet schemas per kind, ZSTD, and reading bytes back."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import ArchiveVerificationFailed

_TS = pa.timestamp("us", tz="UTC")
_LIST = pa.list_(pa.string())
PARTITIONS = pa.schema([("year", pa.int16()), ("month", pa.int8()), ("day", pa.int8()), ("shard", pa.int16())])


def _f(name: str, kind: pa.DataType, nullable: bool = False) -> pa.Field:
    return pa.field(name, kind, nullable=nullable)


# Strict schemas: not-null wherever the source always has a value. ``sealed`` says whether the
# sensitive columns hold ``eg1:`` ciphertext under the user's data key (crypto-shredding makes
# them unreadable) or plaintext (no key store configured).
SCHEMAS: dict[str, pa.Schema] = {
    "turns": pa.schema([
        _f("tenant", pa.string()), _f("user_id", pa.string()), _f("session_id", pa.string()),
        _f("device_id", pa.string()), _f("message_id", pa.string()), _f("role", pa.string()),
        _f("content", pa.string(), True),  # null: a child's turn, whose content is never kept
        _f("content_sha256", pa.string()), _f("truncated", pa.bool_()), _f("client_ts", _TS),
        _f("received_at", _TS), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
    "events": pa.schema([
        _f("tenant", pa.string()), _f("user_id", pa.string()), _f("event_id", pa.string()),
        _f("type", pa.string()), _f("summary", pa.string(), True), _f("text", pa.string(), True),
        _f("context", pa.string(), True), _f("keywords", _LIST), _f("raw_sha256", pa.string(), True),
        _f("message_ids", _LIST), _f("session_id", pa.string(), True), _f("device_id", pa.string(), True),
        _f("ts", _TS), _f("occurred_at", _TS, True), _f("confidence", pa.float64()),
        _f("trust_source", pa.string()), _f("weight", pa.float64()), _f("tags", _LIST),
        _f("sensitive", pa.bool_()), _f("evicted", pa.bool_()), _f("archived", pa.bool_()),
        _f("merged_count", pa.int32()), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
    "tasks": pa.schema([
        _f("tenant", pa.string()), _f("user_id", pa.string()), _f("task_id", pa.string()),
        _f("status", pa.string()), _f("metadata", pa.string()), _f("duration_ms", pa.int64(), True),
        _f("ts", _TS), _f("recorded_at", _TS), _f("sealed", pa.bool_()), _f("row_key", pa.string())]),
}


def to_table(kind: str, rows: list[dict]) -> pa.Table:
    """Rows as a table of the kind's schema; a null where the schema says not-null is refused."""
    schema = SCHEMAS[kind]
    table = pa.Table.from_pylist(rows, schema=schema)
    for field in schema:
        if not field.nullable and table.column(field.name).null_count:
            raise ArchiveVerificationFailed(f"{kind}.{field.name}: null in a not-null column")
    return table


def parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    # Sorted input, one row group per 64k rows, dictionary-encoded ids: ZSTD does the rest.
    pq.write_table(table, buf, compression="zstd", compression_level=6, row_group_size=65536,
                   write_statistics=True)
    return buf.getvalue()


def read_parquet(data: bytes) -> pa.Table:
    return pq.read_table(io.BytesIO(data))

"""ArchiveStore: the day's rows as Parquet (ZSTD) on S3 under Object Lock, and reading them back.

Writes go through boto3 (Object Lock headers, metadata); reads of many partitions go through
``pyarrow.dataset`` over ``pyarrow.fs.S3FileSystem`` so only the partitions (days, shards) and
columns a query needs are fetched.
"""

from __future__ import annotations

import io
import os
from datetime import UTC, date, datetime, timedelta
from functools import cache
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from botocore.exceptions import BotoCoreError, ClientError

from ..config import get_settings
from ..domain.archive import ROOT, object_key, part_number, partition_dir, sha256_hex
from ..errors import ArchiveVerificationFailed, StoreUnavailable
from .aws import aws_client

_TS = pa.timestamp("us", tz="UTC")
_LIST = pa.list_(pa.string())
_PARTITIONS = pa.schema([("year", pa.int16()), ("month", pa.int8()), ("day", pa.int8()), ("shard", pa.int16())])


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


def _endpoint() -> str | None:
    return get_settings().aws_endpoint_url or os.environ.get("AWS_ENDPOINT_URL")


@cache
def filesystem() -> pafs.S3FileSystem:
    settings = get_settings()
    creds = aws_client("s3")._request_signer._credentials  # the same credentials boto3 resolved
    kwargs = {"region": settings.aws_region}
    if creds is not None:
        frozen = creds.get_frozen_credentials()
        kwargs.update(access_key=frozen.access_key, secret_key=frozen.secret_key, session_token=frozen.token)
    endpoint = _endpoint()
    if endpoint:
        url = urlparse(endpoint)
        kwargs.update(endpoint_override=url.netloc, scheme=url.scheme or "http")
    return pafs.S3FileSystem(**kwargs)


def _unavailable(exc: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"archive: {exc}")


class ArchiveStore:
    def __init__(self, bucket: str | None = None) -> None:
        self.bucket = bucket or get_settings().archive_bucket

    @property
    def s3(self):
        return aws_client("s3")

    # -- objects ----------------------------------------------------------------------------

    def put_locked(self, key: str, data: bytes, *, rows: int | None = None, content_type: str) -> dict:
        """Write an object with its own Object Lock retention (GOVERNANCE) and its checksum in
        the metadata. Locked versions cannot be deleted or overwritten in place."""
        sha = sha256_hex(data)
        until = datetime.now(UTC) + timedelta(days=get_settings().archive_lock_days)
        metadata = {"sha256": sha, **({"rows": str(rows)} if rows is not None else {})}
        try:
            out = self.s3.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type,
                                     Metadata=metadata, ObjectLockMode="GOVERNANCE", ObjectLockRetainUntilDate=until)
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(exc) from exc
        return {"key": key, "sha256": sha, "version_id": out.get("VersionId")}

    def head(self, key: str) -> dict | None:
        return self._unless_missing(lambda: self.s3.head_object(Bucket=self.bucket, Key=key))

    def get(self, key: str) -> bytes | None:
        return self._unless_missing(lambda: self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read())

    @staticmethod
    def _unless_missing(call):
        """The call's result, ``None`` for an object that is not there, StoreUnavailable otherwise."""
        try:
            return call()
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return None
            raise _unavailable(exc) from exc
        except BotoCoreError as exc:
            raise _unavailable(exc) from exc

    def parts(self, kind: str, day: date, shard: int) -> list[str]:
        """Keys of the shard's parts for the day, in part order."""
        prefix = partition_dir(kind, day, shard) + "/"
        keys: list[str] = []
        try:
            for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=prefix):
                keys += [o["Key"] for o in page.get("Contents", []) if o["Key"].endswith(".parquet")]
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(exc) from exc
        return sorted(keys, key=part_number)

    def next_key(self, kind: str, day: date, shard: int, existing: list[str]) -> str:
        return object_key(kind, day, shard, max((part_number(k) for k in existing), default=-1) + 1)

    # -- dataset reads (partition pruning + projection) -------------------------------------

    def read(self, kind: str, days: list[date], *, shards: list[int] | None = None, columns: list[str] | None = None,
             filter_: ds.Expression | None = None) -> pa.Table:
        """Rows of ``kind`` for ``days`` (and ``shards``): only those partition directories are
        listed and opened, only ``columns`` are fetched, ``filter_`` is pushed into the scan."""
        fs, base = filesystem(), f"{self.bucket}/{ROOT}/{kind}"
        files: list[str] = []
        for day in sorted(set(days)):
            dirs = ([f"{self.bucket}/{partition_dir(kind, day, s)}" for s in sorted(set(shards))] if shards is not None
                    else [f"{self.bucket}/{partition_dir(kind, day, 0).rsplit('/', 1)[0]}"])
            for directory in dirs:
                try:
                    infos = fs.get_file_info(pafs.FileSelector(directory, recursive=True, allow_not_found=True))
                except OSError as exc:
                    raise _unavailable(exc) from exc
                files += sorted(i.path for i in infos if i.type == pafs.FileType.File and i.path.endswith(".parquet"))
        schema = SCHEMAS[kind]
        if not files:
            names = columns or schema.names
            return pa.Table.from_pylist([], schema=pa.schema([schema.field(n) for n in names if n in schema.names]))
        # Hive partitioning turns year/month/day/shard of the path into columns as well.
        dataset = ds.dataset(files, filesystem=fs, format="parquet", partition_base_dir=base,
                             partitioning=ds.partitioning(_PARTITIONS, flavor="hive"),
                             schema=pa.unify_schemas([schema, _PARTITIONS]))
        return dataset.to_table(columns=columns, filter=filter_)

    @staticmethod
    def match(column: str, values: list[str]) -> ds.Expression:
        return pc.field(column).isin(pa.array(sorted(set(values)), pa.string()))

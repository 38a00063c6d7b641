"""ArchiveStore: the day's rows as Parquet (ZSTD) on S3 under Object Lock, and reading them back.

Writes go through boto3 (Object Lock headers, metadata); reads of many partitions go through
``pyarrow.dataset`` over ``pyarrow.fs.S3FileSystem`` so only the partitions (days, shards) and
columns a query needs are fetched.
"""

from __future__ import annotations

import os
import threading
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from botocore.exceptions import BotoCoreError, ClientError

from ...config import Settings
from ...domain.lifecycle.archive import ROOT, is_part, part_number, partition_dir, sha256_hex
from ...errors import StoreUnavailable
from ..clients import Clients
from . import parquet

# pyarrow is imported by the reads that use it: every function builds this store, few read the
# archive, and the import is a cold start's tenth of a second.
if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs


def _unavailable(exc: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"archive: {exc}")


class ArchiveStore:
    def __init__(self, clients: Clients, settings: Settings) -> None:
        self._clients = clients
        self.bucket = settings.archive_bucket
        self.lock_mode, self.lock_days = settings.archive_lock_mode, settings.archive_lock_days
        self._fs: pafs.S3FileSystem | None = None
        self._fs_lock = threading.Lock()

    @property
    def s3(self):
        return self._clients.aws("s3")

    def filesystem(self) -> pafs.S3FileSystem:
        """pyarrow's S3 filesystem with the credentials and endpoint boto3 resolved."""
        import pyarrow.fs as pafs

        with self._fs_lock:
            if self._fs is None:
                settings = self._clients.settings
                creds = self.s3._request_signer._credentials
                kwargs = {"region": settings.aws_region}
                if creds is not None:
                    frozen = creds.get_frozen_credentials()
                    kwargs.update(access_key=frozen.access_key, secret_key=frozen.secret_key,
                                  session_token=frozen.token)
                endpoint = settings.aws_endpoint_url or os.environ.get("AWS_ENDPOINT_URL")
                if endpoint:
                    url = urlparse(endpoint)
                    kwargs.update(endpoint_override=url.netloc, scheme=url.scheme or "http")
                self._fs = pafs.S3FileSystem(**kwargs)
            return self._fs

    # -- objects ----------------------------------------------------------------------------

    def put_locked(self, key: str, data: bytes, *, rows: int | None = None, content_type: str) -> dict:
        """Write an object with its own Object Lock retention (``ENGRAM_ARCHIVE_LOCK_MODE``, the
        template's ArchiveLockMode) and its checksum in the metadata. Locked versions cannot be
        deleted or overwritten in place (under GOVERNANCE, save by s3:BypassGovernanceRetention)."""
        sha = sha256_hex(data)
        until = datetime.now(UTC) + timedelta(days=self.lock_days)
        metadata = {"sha256": sha, **({"rows": str(rows)} if rows is not None else {})}
        try:
            out = self.s3.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType=content_type,
                                     Metadata=metadata, ObjectLockMode=self.lock_mode,
                                     ObjectLockRetainUntilDate=until)
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(exc) from exc
        return {"key": key, "sha256": sha, "version_id": out.get("VersionId")}

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
                keys += [o["Key"] for o in page.get("Contents", []) if is_part(o["Key"])]
        except (ClientError, BotoCoreError) as exc:
            raise _unavailable(exc) from exc
        return sorted(keys, key=part_number)

    # -- dataset reads (partition pruning + projection) -------------------------------------

    def read(self, kind: str, days: list[date], *, shards: list[int] | None = None, columns: list[str] | None = None,
             where: dict[str, list[str]] | None = None) -> pa.Table:
        """Rows of ``kind`` for ``days`` (and ``shards``): only those partition directories are
        listed and opened, only ``columns`` are fetched, ``where`` is pushed into the scan."""
        import pyarrow as pa
        import pyarrow.dataset as ds
        import pyarrow.fs as pafs

        fs, base = self.filesystem(), f"{self.bucket}/{ROOT}/{kind}"
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
        schema = parquet.SCHEMAS[kind]
        if not files:
            names = columns or schema.names
            return pa.Table.from_pylist([], schema=pa.schema([schema.field(n) for n in names if n in schema.names]))
        # Hive partitioning turns year/month/day/shard of the path into columns as well.
        dataset = ds.dataset(files, filesystem=fs, format="parquet", partition_base_dir=base,
                             partitioning=ds.partitioning(parquet.PARTITIONS, flavor="hive"),
                             schema=pa.unify_schemas([schema, parquet.PARTITIONS]))
        return dataset.to_table(columns=columns, filter=_matching(where))


def _matching(where: dict[str, list[str]] | None) -> ds.Expression | None:
    import pyarrow as pa
    import pyarrow.compute as pc

    expr = None
    for column, values in (where or {}).items():
        term = pc.field(column).isin(pa.array(sorted(set(values)), pa.string()))
        expr = term if expr is None else expr & term
    return expr

"""The S3 archive as the erasure saga sees it: find the objects holding a user's rows, delete the
ones Object Lock allows, report the rest (which crypto-shredding makes unreadable).

Archive objects (issue 6, ``archive/{kind}/year=/month=/day=/shard=S/part-N.parquet``) hold the
rows of every user of a shard, so a user's rows live only in their own shard's objects. An object
holding nothing but this user's rows is deleted version by version when retention allows; an
object shared with other users, or still under retention, stays (WORM), and its sensitive
columns are ``eg1:`` ciphertext under the user's key, which the saga shreds.

A sealed archive names users by a pseudonym under their data key (``service.archive_rows``), one
per user, so "holds only this user's rows" is still "every owner value in the object is one of
theirs": ``owner_ids`` gives them (the pseudonym while the key lives, the id itself for rows
archived in clear). It is asked before the saga shreds the key; afterwards no one can tell.
"""

from __future__ import annotations

import io
from collections.abc import Callable

from botocore.exceptions import BotoCoreError, ClientError

from ...config import Settings
from ...domain.lifecycle.archive import ROOT, is_part
from ...domain.model import Scope
from ...errors import StoreUnavailable
from ..clients import Clients


class ArchiveEraser:
    def __init__(self, clients: Clients, settings: Settings, owner_ids: Callable[[Scope], set[str]]) -> None:
        self._clients = clients
        self.bucket = settings.archive_bucket
        self._owner_ids = owner_ids

    @property
    def s3(self):
        return self._clients.aws("s3")

    def _call(self, operation: str, **kwargs):
        try:
            return getattr(self.s3, operation)(Bucket=self.bucket, **kwargs)
        except BotoCoreError as exc:
            raise StoreUnavailable(f"archive: {exc}") from exc
        except ClientError as exc:
            if exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0) >= 500:
                raise StoreUnavailable(f"archive: {exc}") from exc
            raise

    def objects_of(self, scope: Scope, shard: int | None) -> list[dict]:
        """``[{key, only_user}]`` for every Parquet object of the shard (all shards when None)
        holding the user's rows."""
        mine, found, token = {(scope.tenant, v) for v in self._owner_ids(scope)}, [], None
        while True:
            page = self._call("list_objects_v2", Prefix=f"{ROOT}/", **({"ContinuationToken": token} if token else {}))
            for obj in page.get("Contents", []):
                key = obj["Key"]
                if is_part(key, shard):
                    owners = self._owners(key)
                    if owners & mine:
                        found.append({"key": key, "only_user": owners <= mine})
            if not page.get("IsTruncated"):
                return found
            token = page["NextContinuationToken"]

    def _owners(self, key: str) -> set[tuple[str, str]]:
        import pyarrow.parquet as pq  # on use, not at import: only the erasure saga gets here

        data = self._call("get_object", Key=key)["Body"].read()
        try:
            table = pq.read_table(io.BytesIO(data), columns=["tenant", "user_id"])
        except (KeyError, ValueError, OSError):  # not one of ours: leave it alone
            return set()
        return set(zip(table.column("tenant").to_pylist(), table.column("user_id").to_pylist(), strict=True))

    def delete_all_versions(self, key: str) -> bool:
        """Delete every version of ``key``; False when Object Lock refuses (retention or hold)."""
        versions = self._call("list_object_versions", Prefix=key)
        entries = [v for v in versions.get("Versions", []) + versions.get("DeleteMarkers", []) if v["Key"] == key]
        try:
            for entry in entries:
                self._call("delete_object", Key=key, VersionId=entry["VersionId"])
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in ("AccessDenied", "InvalidRequest", "ObjectLocked"):
                return False
            raise
        return True

"""ExportStore: export documents too large for a Lambda response, on S3 under the KMS data key,
written from a stream by multipart upload and handed out as short-lived pre-signed GET URLs.

The bucket (template.yaml ``ExportBucket``) is not versioned and has no Object Lock, so a delete
is final, which the erasure saga relies on; its lifecycle rule expires exports and unfinished
uploads after a day. Keys come from ``domain.keys.export_key``: under a digest of the owner, with
a random token, so they neither name the user nor can be guessed.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable

from botocore.exceptions import BotoCoreError, ClientError

from ...config import Settings
from ...domain.keys import export_key, export_prefix
from ...domain.model import Scope
from ...errors import StoreUnavailable
from ..clients import Clients

# S3 takes parts of 5 MiB at least (but the last); a part is what the upload holds in memory.
PART_BYTES = 8 * 1024 * 1024
DELETE_BATCH = 1000  # DeleteObjects' limit per request
CONTENT_TYPE = "application/json"
DISPOSITION = 'attachment; filename="engram-export.json"'


class S3ExportStore:
    def __init__(self, clients: Clients, settings: Settings, *, part_bytes: int = PART_BYTES) -> None:
        if part_bytes < 5 * 1024 * 1024:
            raise ValueError("S3 multipart parts are at least 5 MiB")
        self._clients = clients
        self.bucket = settings.export_bucket
        self.kms_key_id = settings.kms_key_id
        self.part_bytes = part_bytes

    @property
    def s3(self):
        # SigV4 is the only signature S3 accepts for SSE-KMS objects, pre-signed GETs included.
        return self._clients.aws("s3", signature_version="s3v4")

    def _call(self, operation: str, **kwargs):
        try:
            return getattr(self.s3, operation)(Bucket=self.bucket, **kwargs)
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"exports: {exc}") from exc

    def _encryption(self) -> dict:
        # Explicit rather than the bucket default: an export is never stored unencrypted, even in
        # a bucket someone configured by hand.
        return {"ServerSideEncryption": "aws:kms", "SSEKMSKeyId": self.kms_key_id, "BucketKeyEnabled": True}

    def put(self, scope: Scope, chunks: Iterable[bytes]) -> dict:
        key = export_key(scope, secrets.token_hex(16))
        buffer, size, upload_id, parts = bytearray(), 0, None, []
        try:
            for chunk in chunks:
                buffer += chunk
                size += len(chunk)
                while len(buffer) >= self.part_bytes:
                    if upload_id is None:
                        upload_id = self._call("create_multipart_upload", Key=key, ContentType=CONTENT_TYPE,
                                               **self._encryption())["UploadId"]
                    parts.append(self._part(key, upload_id, len(parts) + 1, bytes(buffer[:self.part_bytes])))
                    del buffer[:self.part_bytes]
            if upload_id is None:  # smaller than one part: one plain PUT
                self._call("put_object", Key=key, Body=bytes(buffer), ContentType=CONTENT_TYPE, **self._encryption())
            else:
                if buffer:
                    parts.append(self._part(key, upload_id, len(parts) + 1, bytes(buffer)))
                self._call("complete_multipart_upload", Key=key, UploadId=upload_id,
                           MultipartUpload={"Parts": parts})
        except BaseException:
            # The producer's own error (or ours) goes on up; the parts already sent must not stay
            # behind as invisible, billed, half a user's data (the lifecycle rule is the backstop).
            if upload_id is not None:
                with contextlib.suppress(StoreUnavailable):
                    self._call("abort_multipart_upload", Key=key, UploadId=upload_id)
            raise
        return {"key": key, "bytes": size}

    def _part(self, key: str, upload_id: str, number: int, data: bytes) -> dict:
        out = self._call("upload_part", Key=key, UploadId=upload_id, PartNumber=number, Body=data)
        return {"PartNumber": number, "ETag": out["ETag"]}

    def url(self, key: str, ttl_s: int) -> str:
        try:
            return self.s3.generate_presigned_url(
                "get_object", Params={"Bucket": self.bucket, "Key": key, "ResponseContentDisposition": DISPOSITION},
                ExpiresIn=ttl_s)
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"exports: {exc}") from exc

    def _keys_of(self, scope: Scope) -> list[str]:
        keys: list[str] = []
        try:
            for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                           Prefix=export_prefix(scope)):
                keys += [o["Key"] for o in page.get("Contents", [])]
        except (ClientError, BotoCoreError) as exc:
            raise StoreUnavailable(f"exports: {exc}") from exc
        return keys

    def count_user(self, scope: Scope) -> int:
        return len(self._keys_of(scope))

    def delete_user(self, scope: Scope) -> int:
        keys, deleted = self._keys_of(scope), 0
        for start in range(0, len(keys), DELETE_BATCH):
            batch = [{"Key": k} for k in keys[start:start + DELETE_BATCH]]
            out = self._call("delete_objects", Delete={"Objects": batch, "Quiet": False})
            if out.get("Errors"):  # retried by the saga: what was deleted stays deleted
                first = out["Errors"][0]
                raise StoreUnavailable(f"exports: {len(out['Errors'])} not deleted ({first.get('Code')})")
            deleted += len(out.get("Deleted", []))
        return deleted

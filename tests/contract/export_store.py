"""ExportStore: a streamed document stored whole (past one upload part too), nothing left by a
stream that fails, keys that neither name nor mix up owners, and a URL that gives the bytes back.

``download(store, url)`` is how a client without credentials fetches a URL: the bytes, or None
when the URL leads nowhere. A subclass says how (HTTP for S3; the fake reads its own URLs).
"""

from __future__ import annotations

import hashlib
import re

import pytest

from ._base import Contract

TTL_S = 300
MIB = 1024 * 1024


def pieces(total: int, seed: str) -> list[bytes]:
    """``total`` bytes in chunks of uneven sizes (none aligned to a part), UTF-8 included."""
    unit = f'{{"text": "{seed} Grüße, 你好 \\" \\\\"}},'.encode()
    out, size, n = [], 0, 0
    while size < total:
        chunk = unit * (1 + (n * 7919) % 5003)
        chunk = chunk[: total - size] if size + len(chunk) > total else chunk
        out.append(chunk)
        size, n = size + len(chunk), n + 1
    return out


class ExportStoreContract(Contract):
    part = "exports"

    def download(self, store, url: str) -> bytes | None:
        raise NotImplementedError

    def test_a_stream_is_stored_as_one_object_its_url_gives_back(self, store, alice):
        chunks = [b'{"user_id": "alice", ', b'"turns": [', "\"caf\u00e9\"".encode(), b"]}"]
        stored = store.put(alice, iter(chunks))
        assert stored["bytes"] == len(b"".join(chunks))
        assert self.download(store, store.url(stored["key"], TTL_S)) == b"".join(chunks)
        assert store.count_user(alice) == 1

    def test_a_stream_longer_than_an_upload_part_is_stored_whole(self, store, alice):
        chunks = pieces(11 * MIB + 12345, "long")
        stored = store.put(alice, (c for c in chunks))
        got = self.download(store, store.url(stored["key"], TTL_S))
        assert stored["bytes"] == 11 * MIB + 12345 and got is not None and len(got) == stored["bytes"]
        assert hashlib.sha256(got).hexdigest() == hashlib.sha256(b"".join(chunks)).hexdigest()

    def test_a_stream_that_fails_leaves_nothing_and_its_error_goes_on(self, store, alice):
        class Boom(RuntimeError):
            pass

        def failing():
            yield from pieces(9 * MIB, "partial")  # past one part: an upload is under way
            raise Boom("the document could not be produced")

        with pytest.raises(Boom):
            store.put(alice, failing())
        assert store.count_user(alice) == 0

    def test_each_export_gets_its_own_key_that_cannot_be_guessed_and_names_no_one(self, store, owners):
        alice = owners("alice-7f")
        first, second = store.put(alice, [b"{}"]), store.put(alice, [b"{}"])
        assert first["key"] != second["key"] and store.count_user(alice) == 2
        for key in (first["key"], second["key"]):
            assert alice.user_id not in key and alice.tenant not in key
            token = key.rsplit("/", 1)[1].removesuffix(".json")
            assert re.fullmatch(r"[0-9a-f]{32,}", token)  # 128 random bits at least

    def test_owners_are_kept_apart_even_when_their_ids_join_alike(self, store, lookalikes, stranger):
        owners = [*lookalikes, stranger]
        stored = {scope: store.put(scope, [scope.key.encode()]) for scope in owners}
        assert len({s["key"] for s in stored.values()}) == len(owners)
        assert all(store.count_user(scope) == 1 for scope in owners)
        assert store.delete_user(owners[0]) == 1
        assert [store.count_user(scope) for scope in owners] == [0] + [1] * (len(owners) - 1)
        assert self.download(store, store.url(stored[owners[1]]["key"], TTL_S)) == owners[1].key.encode()

    def test_delete_user_removes_every_export_of_the_user_and_no_one_elses(self, store, alice, bob):
        mine = [store.put(alice, [b'{"n": %d}' % i]) for i in range(3)]
        theirs = store.put(bob, [b'{"bob": true}'])
        assert store.delete_user(alice) == 3 and store.count_user(alice) == 0
        assert all(self.download(store, store.url(s["key"], TTL_S)) is None for s in mine)
        assert self.download(store, store.url(theirs["key"], TTL_S)) == b'{"bob": true}'
        assert store.delete_user(alice) == 0 and store.count_user(bob) == 1

    def test_a_url_of_a_key_that_holds_nothing_leads_nowhere(self, store, alice):
        stored = store.put(alice, [b"{}"])
        assert self.download(store, store.url(stored["key"].replace(".json", "-x.json"), TTL_S)) is None

"""KeyStore against LocalStack KMS and PostgreSQL: wrapped keys, cache, crypto-shredding."""

import uuid

import pytest

from engram.adapters import postgres
from engram.adapters.key_store import KeyStore
from engram.domain.model import Scope
from engram.errors import DecryptionFailed, KeyDestroyed

pytestmark = pytest.mark.stack


@pytest.fixture
def scope():
    return Scope(f"tenant-{uuid.uuid4().hex[:8]}", "alice")


def test_seal_open_across_processes_and_only_the_wrapped_key_is_stored(scope):
    token = KeyStore().seal(scope, "allergic to peanuts")
    assert KeyStore().open(scope, token) == "allergic to peanuts"  # a cold store unwraps via KMS
    with postgres.connection() as conn:
        key_id, wrapped = conn.execute("SELECT key_id, wrapped FROM user_keys WHERE tenant = %s AND user_id = %s",
                                       (scope.tenant, scope.user_id)).fetchone()
    assert len(key_id) == 16 and len(bytes(wrapped)) > 32


def test_one_key_per_user_and_users_apart(scope):
    store = KeyStore()
    assert store.data_key(scope) == KeyStore().data_key(scope)
    bob = Scope(scope.tenant, "bob")
    token = store.seal(scope, "x")
    with pytest.raises((DecryptionFailed, KeyDestroyed)):
        store.open(bob, token)


def test_shred_makes_every_copy_unreadable_and_a_new_key_cannot_open_old_copies(scope):
    store, warm = KeyStore(), KeyStore()
    token = store.seal(scope, "Tom is my son")
    blob = store.seal_bytes(scope, b"parquet bytes", "archive")
    assert warm.open(scope, token) == "Tom is my son"
    assert store.shred(scope) is True and store.shred(scope) is False
    for reader in (store, KeyStore()):
        with pytest.raises(KeyDestroyed):
            reader.open(scope, token)
        with pytest.raises(KeyDestroyed):
            reader.open_bytes(scope, blob, "archive")
    assert not store.has_key(scope)
    store.seal(scope, "new life")  # the user comes back: a new key
    with pytest.raises(KeyDestroyed):
        KeyStore().open(scope, token)


def test_cache_is_bounded_and_expires():
    store = KeyStore(max_cached=2, ttl_s=60)
    scopes = [Scope(f"tenant-{uuid.uuid4().hex[:8]}", f"u{i}") for i in range(3)]
    for s in scopes:
        store.data_key(s)
    assert len(store._cache) == 2
    expiring = KeyStore(ttl_s=0)
    expiring.data_key(scopes[0])
    assert not expiring._cache

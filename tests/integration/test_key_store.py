"""KeyStore against LocalStack KMS and PostgreSQL: wrapped keys, cache, crypto-shredding."""

import uuid

import pytest

from engram.adapters.postgres.key_store import EnvelopeKeyStore, KmsKeyWrapper, PgWrappedKeys
from engram.domain.model import Scope
from engram.errors import DecryptionFailed, KeyDestroyed

pytestmark = pytest.mark.stack


@pytest.fixture
def new_store(deps):
    """Another process's key store: its own cache over the same wrapped keys and KMS."""
    def make(ttl_s: float = 300, max_cached: int = 1024) -> EnvelopeKeyStore:
        return EnvelopeKeyStore(PgWrappedKeys(deps.clients), KmsKeyWrapper(deps.clients), ttl_s=ttl_s,
                                max_cached=max_cached)
    return make


@pytest.fixture
def scope():
    return Scope(f"tenant-{uuid.uuid4().hex[:8]}", "alice")


def test_seal_open_across_processes_and_only_the_wrapped_key_is_stored(scope, new_store, deps):
    token = new_store().seal(scope, "allergic to peanuts")
    assert new_store().open(scope, token) == "allergic to peanuts"  # a cold store unwraps via KMS
    with deps.clients.pg() as conn:
        key_id, wrapped = conn.execute("SELECT key_id, wrapped FROM user_keys WHERE tenant = %s AND user_id = %s",
                                       (scope.tenant, scope.user_id)).fetchone()
    assert len(key_id) == 16 and len(bytes(wrapped)) > 32


def test_one_key_per_user_and_users_apart(scope, new_store, deps):
    store = new_store()
    assert store.data_key(scope) == new_store().data_key(scope)
    bob = Scope(scope.tenant, "bob")
    token = store.seal(scope, "x")
    with pytest.raises((DecryptionFailed, KeyDestroyed)):
        store.open(bob, token)


def test_shred_makes_every_copy_unreadable_and_a_new_key_cannot_open_old_copies(scope, new_store, deps):
    store, warm = new_store(), new_store()
    token = store.seal(scope, "Tom is my son")
    blob = store.seal_bytes(scope, b"parquet bytes", "archive")
    assert warm.open(scope, token) == "Tom is my son"
    assert store.shred(scope) is True and store.shred(scope) is False
    for reader in (store, new_store()):
        with pytest.raises(KeyDestroyed):
            reader.open(scope, token)
        with pytest.raises(KeyDestroyed):
            reader.open_bytes(scope, blob, "archive")
    assert not store.has_key(scope)
    store.seal(scope, "new life")  # the user comes back: a new key
    with pytest.raises(KeyDestroyed):
        new_store().open(scope, token)


def test_cache_is_bounded_and_expires(new_store):
    store = new_store(max_cached=2, ttl_s=60)
    scopes = [Scope(f"tenant-{uuid.uuid4().hex[:8]}", f"u{i}") for i in range(3)]
    for s in scopes:
        store.data_key(s)
    assert len(store._cache) == 2
    expiring = new_store(ttl_s=0)
    expiring.data_key(scopes[0])
    assert not expiring._cache

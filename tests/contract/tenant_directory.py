"""TenantDirectory: which tenant an API key belongs to."""

from __future__ import annotations

import uuid

import pytest

from engram.errors import Unauthorized, ValidationFailed

from ._base import Contract, new_tenant


def api_key() -> str:
    return f"key-{uuid.uuid4().hex}"


class TenantDirectoryContract(Contract):
    def test_a_registered_key_names_its_tenant(self, store):
        tenant, key = new_tenant(), api_key()
        store.register(tenant, key)
        assert store.tenant_for(key) == tenant

    def test_an_unknown_key_is_unauthorized(self, store):
        with pytest.raises(Unauthorized) as refused:
            store.tenant_for(api_key())
        assert refused.value.field == "Authorization" and refused.value.status == 401

    def test_registering_a_key_again_moves_it(self, store):
        key, first, second = api_key(), new_tenant(), new_tenant()
        store.register(first, key)
        store.register(second, key)
        assert store.tenant_for(key) == second

    def test_a_tenant_may_have_several_keys(self, store):
        tenant, one, two = new_tenant(), api_key(), api_key()
        store.register(tenant, one)
        store.register(tenant, two)
        assert store.tenant_for(one) == store.tenant_for(two) == tenant
        with pytest.raises(Unauthorized):
            store.tenant_for(one.upper())

    @pytest.mark.parametrize("tenant", ["", "acme eu", "acme|eu", "acme/eu", "x" * 129, None])
    def test_a_tenant_id_is_validated_like_every_other_id(self, store, tenant):
        with pytest.raises(ValidationFailed) as refused:
            store.register(tenant, api_key())
        assert refused.value.field == "tenant"

import uuid

import pytest

from engram.domain.ingest.sanitise import clean_turn
from engram.domain.keys import session_key
from engram.domain.model import Scope
from engram.domain.records import SessionRef
from engram.errors import NotFound, ValidationFailed

pytestmark = pytest.mark.stack


@pytest.fixture
def store(deps):
    return deps.sessions


@pytest.fixture
def ref(store):
    scope = Scope(f"t-{uuid.uuid4().hex[:8]}", "u1")
    yield SessionRef(scope, "phone", "s1")
    store.delete_user(scope)


def turn(i, minute):
    return clean_turn(0, {"role": "user", "content": f"turn {i}", "client_ts": f"2026-05-01T10:{minute:02d}:00Z",
                          "message_id": f"m{i}"}, "s1")


def test_turns_kept_in_client_order_capped_and_expiring(store, ref):
    store.append_turns(ref, [turn(i, 59 - i) for i in range(55)])
    ctx = store.get(ref)
    assert len(ctx.turns) == 50
    assert [t["message_id"] for t in ctx.turns][-1] == "m0"  # latest client time last
    assert 0 < ctx.ttl_s <= 24 * 3600
    assert store.client.ttl(session_key(ref) + ":turns") > 0


def test_repeated_message_is_stored_once(store, ref):
    store.append_turns(ref, [turn(1, 1)])
    store.append_turns(ref, [turn(1, 1)])
    assert len(store.get(ref).turns) == 1


def test_fields_are_versioned_and_roll_back(store, ref):
    assert store.set_fields(ref, {"current_item": "blue kettle"}) == 1
    assert store.set_fields(ref, {"current_item": "red kettle", "alias": {"that one": "red kettle"}}) == 2
    assert store.rollback(ref, steps=1) == 3
    assert store.get(ref).fields == {"current_item": "blue kettle"}
    assert store.rollback(ref, version=2) == 4
    assert store.get(ref).fields["current_item"] == "red kettle"
    with pytest.raises(NotFound):
        store.rollback(ref, version=99)
    with pytest.raises(ValidationFailed):
        store.rollback(ref, steps=0)


def test_devices_and_users_do_not_share_sessions(store, ref):
    store.set_fields(ref, {"x": 1})
    other_device = SessionRef(ref.scope, "laptop", "s1")
    other_user = SessionRef(Scope(ref.scope.tenant, "u2"), "phone", "s1")
    assert store.get(other_device).fields == {}
    assert store.get(other_user).fields == {}
    assert store.delete_user(ref.scope) > 0
    assert store.get(ref).fields == {}

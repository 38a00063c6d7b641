"""The one key encoding (``engram.domain.keys``) and every key built from it: injective over ids
that contain ':', '|', '.' and '-', prefix-consistent, and decodable."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engram.adapters.postgres.key_store import encryption_context
from engram.domain import keys
from engram.domain.lifecycle.archive import task_row_key, turn_row_key
from engram.domain.model import NodeLabel, Scope
from engram.domain.privacy.crypto import associated_data
from engram.domain.records import SessionRef
from tests.unit.lookalikes import SCOPE_ALPHABET, distinct_pairs, id_text, refs

MANY = settings(max_examples=1000, deadline=None, database=None)
parts = st.lists(st.text(max_size=12), max_size=6).map(tuple)
scopes = st.builds(Scope, id_text(SCOPE_ALPHABET), id_text(SCOPE_ALPHABET))


def test_the_encoding_is_length_prefixed():
    assert keys.encode_parts("acme", "alice", "x:y") == "4:acme5:alice3:x:y"
    assert keys.encode_parts() == "" and keys.encode_parts("") == "0:"
    assert keys.encode_parts("alice", "x:y", "z") != keys.encode_parts("alice:x", "y", "z")


def test_parts_must_be_strings():
    with pytest.raises(TypeError):
        keys.encode_parts("a", 1)


@pytest.mark.parametrize("bad", ["a", "1", "1:", "01:a", "2:a", "x:a", "1:a:", "-1:a", "²:a"])
def test_decoding_refuses_what_the_encoding_cannot_produce(bad):
    with pytest.raises(ValueError):
        keys.decode_parts(bad)


@MANY
@given(parts)
def test_decoding_inverts_encoding(p):
    assert keys.decode_parts(keys.encode_parts(*p)) == p


@MANY
@given(parts, parts)
def test_different_parts_never_share_an_encoding(a, b):
    assert (keys.encode_parts(*a) == keys.encode_parts(*b)) == (a == b)


@MANY
@given(parts, parts)
def test_an_encoding_begins_with_another_only_for_leading_parts(a, p):
    assert keys.encode_parts(*a).startswith(keys.encode_parts(*p)) == (a[:len(p)] == p)


@given(st.text(alphabet="ab*?[]\\", max_size=10))
def test_glob_escape_leaves_nothing_special(text):
    escaped, literal, i = keys.glob_escape(text), [], 0
    while i < len(escaped):
        if escaped[i] == "\\":
            literal.append(escaped[i + 1])
            i += 2
        else:
            assert escaped[i] not in "*?[]"
            literal.append(escaped[i])
            i += 1
    assert "".join(literal) == text


# -- every key built from an identity ----------------------------------------------------------------

WHEN = datetime(2026, 5, 1, tzinfo=UTC)


def _norm(name: str) -> str:
    return " ".join(name.lower().split())


def _keys(ref: SessionRef, word: str) -> dict[str, tuple[object, tuple]]:
    """Each key built for ``ref`` (and ``word``, an event, task, message id or object name) with
    the parts it must be a function of, and only of."""
    s = ref.scope
    owner = (s.tenant, s.user_id)
    turn = {"tenant": s.tenant, "user_id": s.user_id, "message_id": word, "client_ts": WHEN}
    task = {"tenant": s.tenant, "user_id": s.user_id, "task_id": word, "status": "CREATED", "ts": WHEN}
    return {
        "Scope.key": (s.key, owner),
        "redis session": (keys.session_key(ref), (*owner, ref.device_id, ref.session_id)),
        "redis index": (keys.session_index_key(s), owner),
        "opensearch routing": (keys.episode_routing(s), owner),
        "opensearch _id": (keys.episode_doc_id(s, word), (*owner, word)),
        "neo4j User.uid": (keys.user_node_key(s), owner),
        "neo4j Person.key": (keys.object_node_key(s, NodeLabel.PERSON, word), (*owner, _norm(word))),
        "neo4j shared key": (keys.object_node_key(s, NodeLabel.PREFERENCE, word), (s.tenant, _norm(word))),
        "erasure user_ref": (keys.erasure_user_ref(s), owner),
        "task lock": (keys.task_lock_key(s, word), (*owner, word)),
        "aes-gcm aad": (associated_data(s.tenant, s.user_id, "turn"), owner),
        "kms context": (encryption_context(s), owner),
        "archive turn row": (turn_row_key(turn), (*owner, word)),
        "archive task row": (task_row_key(task), (*owner, word)),
    }


words = st.sampled_from(["m", "m:1", "m|1", "x.y", "a-b", "Tom", "tom", " tom "])


@MANY
@given(distinct_pairs() | st.tuples(refs(), refs()), words, words)
def test_every_key_is_a_function_of_its_identity_and_nothing_else(pair, w1, w2):
    one, two = _keys(pair[0], w1), _keys(pair[1], w2)
    for name, (key, identity) in one.items():
        other_key, other_identity = two[name]
        assert (key == other_key) == (identity == other_identity), name


@MANY
@given(scopes, refs())
def test_a_users_key_prefix_covers_their_sessions_only(scope, ref):
    owned = keys.session_key(ref).startswith(keys.session_prefix(scope))
    assert owned == (ref.scope == scope)
    assert not keys.session_index_key(ref.scope).startswith(keys.session_prefix(scope))
    assert keys.session_scan_pattern(scope) == keys.glob_escape(keys.session_prefix(scope)) + "*"


@MANY
@given(scopes, scopes, st.text(alphabet="aB ", min_size=1, max_size=5))
def test_a_users_people_are_under_their_prefix_only(one, two, name):
    person = keys.object_node_key(two, NodeLabel.PERSON, name)
    shared = keys.object_node_key(two, NodeLabel.CONCEPT, name)
    assert person.startswith(keys.person_key_prefix(one)) == (one == two)
    assert not shared.startswith(keys.person_key_prefix(one))


@given(refs())
def test_a_sessions_keys_share_one_hash_tag(ref):
    def tag(key: str) -> str:
        start = key.index("{") + 1
        return key[start:key.index("}", start)]

    base = keys.session_key(ref)
    assert {tag(base + suffix) for suffix in ("", ":turns", ":turn", ":versions")} == {tag(base)}
    assert keys.decode_parts(tag(base)) == (ref.scope.tenant, ref.scope.user_id, ref.device_id, ref.session_id)


def test_object_names_are_normalised_before_keying():
    scope = Scope("t", "u")
    assert keys.object_node_key(scope, NodeLabel.PERSON, " Tom  Lee ") == keys.object_node_key(
        scope, NodeLabel.PERSON, "tom lee")


def test_the_erasure_audit_subject_is_no_valid_user_id():
    from engram.domain.ingest.sanitise import ID_PATTERN

    assert not ID_PATTERN.match(keys.erasure_audit_subject("er-0123"))


@pytest.mark.parametrize("part", ["a\x1fb", "\x1f"])
def test_associated_data_refuses_its_separator(part):
    with pytest.raises(ValueError):
        associated_data(part, "u")
    with pytest.raises(ValueError):
        associated_data("t", "u", part)

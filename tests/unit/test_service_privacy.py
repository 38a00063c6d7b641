"""Sensitive values at rest: sealed with the user's key, revealed for the user, shown redacted
(never an error) once the key is shredded."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.model import Predicate, Role, TrustSource, Turn
from engram.domain.privacy import crypto
from engram.domain.records import Fact
from engram.service.export import export_document
from engram.service.privacy import REDACTED, protect_fact, reveal_item, reveal_turn, seal_turns
from engram.service.profile import profile
from tests.unit.support import say

WHEN = datetime(2026, 11, 20, 9, tzinfo=UTC)


def fact(predicate: Predicate, obj: str) -> Fact:
    return Fact(predicate=predicate, object=obj, confidence=0.7, source=TrustSource.RULE, message_ids=("m1",))


def turn(message_id: str, content: str) -> Turn:
    return Turn(message_id, Role.USER, content, WHEN, "sha")


def test_a_sensitive_fact_is_blinded_and_sealed(deps, alice):
    protected = protect_fact(deps.keys, alice, fact(Predicate.HAS_CHILD, "Tom"))
    assert protected.object.startswith("sealed:") and "Tom" not in protected.object
    assert crypto.is_sealed(protected.sealed) and "Tom" not in protected.sealed
    assert protected.object == protect_fact(deps.keys, alice, fact(Predicate.HAS_CHILD, "tom")).object


def test_a_plain_fact_is_left_as_it_is(deps, alice):
    plain = fact(Predicate.HAS_PREFERENCE, "jazz")
    assert protect_fact(deps.keys, alice, plain) is plain
    assert not deps.keys.has_key(alice)  # no key is made for nothing


def test_placeholders_differ_between_users(deps, alice, bob):
    mine = protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "peanuts")).object
    theirs = protect_fact(deps.keys, bob, fact(Predicate.ALLERGIC_TO, "peanuts")).object
    assert mine != theirs


def test_reveal_item_gives_the_name_and_drops_the_ciphertext(deps, alice):
    protected = protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "peanuts"))
    item = {"id": "e-1", "predicate": "allergic_to", "object": protected.object, "sealed": protected.sealed}
    assert reveal_item(deps.keys, alice, item) == {"id": "e-1", "predicate": "allergic_to", "object": "peanuts"}


def test_another_users_ciphertext_does_not_reveal(deps, alice, bob):
    protected = protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "peanuts"))
    shown = reveal_item(deps.keys, bob, {"object": protected.object, "sealed": protected.sealed})
    assert shown == {"object": REDACTED, "redacted": True}


def test_after_the_shred_an_item_is_redacted_not_an_error(deps, alice):
    protected = protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "peanuts"))
    assert deps.keys.shred(alice) is True
    shown = reveal_item(deps.keys, alice, {"object": protected.object, "sealed": protected.sealed})
    assert shown == {"object": REDACTED, "redacted": True}
    assert deps.keys.shred(alice) is False  # idempotent


def test_seal_turns_seals_only_the_sensitive_ones(deps, alice):
    sealed = seal_turns(deps.keys, alice, [turn("m1", "I'm allergic to peanuts."), turn("m2", "hello")], {"m1"})
    assert crypto.is_sealed(sealed[0].content) and sealed[1].content == "hello"
    assert sealed[0].message_id == "m1" and sealed[0].client_ts == WHEN


def test_reveal_turn_opens_a_sealed_row_and_passes_a_plain_one(deps, alice):
    [sealed] = seal_turns(deps.keys, alice, [turn("m1", "I'm allergic to peanuts.")], {"m1"})
    row = {"message_id": "m1", "content": sealed.content}
    assert reveal_turn(deps.keys, alice, row) == {"message_id": "m1", "content": "I'm allergic to peanuts.",
                                                  "sealed": True}
    plain = {"message_id": "m2", "content": "hello"}
    assert reveal_turn(deps.keys, alice, plain) is plain
    assert reveal_turn(deps.keys, alice, {"message_id": "m3", "content": None})["content"] is None


def test_after_the_shred_a_turn_is_redacted(deps, alice):
    [sealed] = seal_turns(deps.keys, alice, [turn("m1", "secret")], {"m1"})
    deps.keys.shred(alice)
    shown = reveal_turn(deps.keys, alice, {"message_id": "m1", "content": sealed.content})
    assert shown == {"message_id": "m1", "content": REDACTED, "sealed": True, "redacted": True}


def test_a_tampered_ciphertext_is_redacted_too(deps, alice):
    [sealed] = seal_turns(deps.keys, alice, [turn("m1", "secret")], {"m1"})
    token = sealed.content[:-4] + ("AAAA" if not sealed.content.endswith("AAAA") else "BBBB")
    assert reveal_turn(deps.keys, alice, {"content": token})["redacted"] is True


def test_a_returning_users_new_key_cannot_open_the_old_values(deps, alice):
    protected = protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "peanuts"))
    deps.keys.shred(alice)
    protect_fact(deps.keys, alice, fact(Predicate.ALLERGIC_TO, "shellfish"))  # a new key is made
    assert reveal_item(deps.keys, alice, {"sealed": protected.sealed, "object": "x"})["object"] == REDACTED


# -- through the read paths --------------------------------------------------------------------

@pytest.fixture
def shredded(deps, consenting):
    say(deps, consenting, "I'm allergic to peanuts.", "I love jazz music.")
    deps.keys.shred(consenting)
    return consenting


def test_the_profile_of_a_shredded_user_is_redacted_not_failed(deps, shredded):
    shown = {i["type"]: i["object"] for i in profile(deps, shredded)["items"]}
    assert shown == {"allergic_to": REDACTED, "has_preference": "jazz music"}


def test_the_export_of_a_shredded_user_is_redacted_not_failed(deps, shredded):
    document = export_document(deps, shredded)
    allergy = next(p for p in document["profile"] if p["type"] == "allergic_to")
    assert allergy["object"] == REDACTED and allergy["redacted"] is True
    turns = {t["message_id"]: t for t in document["turns"]}
    assert turns["s1-202611200900-0"]["content"] == REDACTED and turns["s1-202611200900-0"]["redacted"] is True
    assert turns["s1-202611200900-1"]["content"] == "I love jazz music."

"""ProfileGraph: facts as bi-temporal edges; reinforcement, contradiction, contest by trust."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.model import Predicate as P
from engram.domain.model import TrustSource as Src
from engram.domain.profile.trust import reinforce
from engram.domain.records import Fact
from engram.errors import NotFound

from ._base import Contract

T0 = datetime(2026, 4, 1, 8, 0, tzinfo=UTC)


def fact(predicate: P, obj: str, confidence: float = 0.8, source: Src = Src.USER, **kw) -> Fact:
    return Fact(predicate, obj, confidence, source, **kw)


def current(store, scope) -> set[tuple[str, str]]:
    return {(i["predicate"], i["object"]) for i in store.items(scope)}


class ProfileGraphContract(Contract):
    def test_a_new_fact_is_created_as_a_current_edge(self, store, alice):
        action, before, after = store.upsert_fact(alice, fact(P.LIVES_IN, "Lisbon", 0.9, message_ids=("m1",),
                                                              tags=("from-chat",), valid_from=T0,
                                                              observed_at=T0 + timedelta(hours=1)))
        assert (action, before) == ("created", None)
        assert {k: after[k] for k in ("predicate", "object", "label", "confidence", "source", "valid_from",
                                      "valid_to", "message_ids", "tags", "weight", "sensitive", "sealed",
                                      "counter_evidence", "confirmed_at")} == {
            "predicate": "lives_in", "object": "Lisbon", "label": "Concept", "confidence": 0.9, "source": "user",
            "valid_from": T0, "valid_to": None, "message_ids": ["m1"], "tags": ["from-chat"], "weight": 1.0,
            "sensitive": False, "sealed": None, "counter_evidence": [], "confirmed_at": T0 + timedelta(hours=1)}
        assert after["id"].startswith("e-") and after["created_at"] == after["updated_at"]
        assert store.item(alice, after["id"]) == after

    def test_every_kind_of_belief_is_stored_and_read_back(self, store, alice):
        # A predicate added to the vocabulary is an edge type the store has never seen.
        for predicate in P:
            store.upsert_fact(alice, fact(predicate, f"value of {predicate.value}"))
        assert current(store, alice) == {(p.value, f"value of {p.value}") for p in P}
        assert [i["predicate"] for i in store.items(alice, predicates=(P.HAS_BIRTHDAY,))] == ["has_birthday"]

    def test_sensitive_predicates_and_sealed_names_are_kept(self, store, alice):
        _, _, after = store.upsert_fact(alice, fact(P.ALLERGIC_TO, "[concept:1a2b]", sealed="eg1:abc"))
        assert (after["sensitive"], after["sealed"], after["label"]) == (True, "eg1:abc", "Concept")
        _, _, child = store.upsert_fact(alice, fact(P.HAS_CHILD, "Tom"))
        assert (child["label"], child["sensitive"]) == ("Person", True)

    def test_the_same_fact_again_reinforces_the_edge(self, store, alice):
        _, _, first = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "green tea", 0.6, message_ids=("m1",)))
        action, before, after = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "Green  Tea", 0.9,
                                                              message_ids=("m1", "m2")))
        assert action == "reinforced" and before == first and after["id"] == first["id"]
        assert after["confidence"] == pytest.approx(reinforce(0.6, 0.9))
        assert after["message_ids"] == ["m1", "m2"] and after["object"] == "green tea"
        assert len(store.items(alice, include_history=True)) == 1

    def test_a_statement_already_heard_changes_nothing(self, store, alice):
        _, _, first = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "coffee", 0.7, message_ids=("m1",)))
        store.upsert_fact(alice, fact(P.DISLIKES, "coffee", 0.7, message_ids=("m2",)))  # closes the like
        action, before, after = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "coffee", 0.9, message_ids=("m1",)))
        assert action == "unchanged" and before == after and after["id"] == first["id"]
        assert after["valid_to"] is not None, "a late retry does not reopen what a later statement closed"
        assert [(i["predicate"], i["object"]) for i in store.items(alice)] == [("dislikes", "coffee")]

    def test_reinforcement_keeps_the_stronger_source(self, store, alice):
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "jazz", 0.9, Src.USER))
        assert store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "jazz", 0.5, Src.LLM))[2]["source"] == "user"
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "blues", 0.5, Src.LLM))
        assert store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "blues", 0.9, Src.SYSTEM))[2]["source"] == "system"

    def test_confirmation_time_only_moves_forward(self, store, alice):
        store.upsert_fact(alice, fact(P.MASTERS, "chess", observed_at=T0))
        later = store.upsert_fact(alice, fact(P.MASTERS, "chess", observed_at=T0 + timedelta(days=3)))[2]
        assert later["confirmed_at"] == T0 + timedelta(days=3)
        earlier = store.upsert_fact(alice, fact(P.MASTERS, "chess", observed_at=T0 - timedelta(days=3)))[2]
        assert earlier["confirmed_at"] == T0 + timedelta(days=3)

    def test_a_new_value_of_a_functional_predicate_closes_the_old_edge(self, store, alice):
        _, _, paris = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", valid_from=T0))
        moved = T0 + timedelta(days=30)
        action, before, rome = store.upsert_fact(alice, fact(P.LIVES_IN, "Rome", valid_from=moved))
        assert (action, before, rome["valid_to"]) == ("created", None, None)
        assert current(store, alice) == {("lives_in", "Rome")}
        closed = store.item(alice, paris["id"])
        assert closed["valid_to"] == moved and closed["updated_at"] >= paris["updated_at"]
        assert {i["id"] for i in store.items(alice, include_history=True)} == {paris["id"], rome["id"]}

    def test_a_change_dated_before_the_old_edge_began_closes_it_when_it_began(self, store, alice):
        _, _, paris = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", valid_from=T0))
        store.upsert_fact(alice, fact(P.LIVES_IN, "Lyon", valid_from=T0 - timedelta(days=30)))
        assert store.item(alice, paris["id"])["valid_to"] == T0
        assert current(store, alice) == {("lives_in", "Lyon")}

    def test_a_non_functional_predicate_keeps_both_values(self, store, alice):
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "tea"))
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "coffee"))
        assert current(store, alice) == {("has_preference", "tea"), ("has_preference", "coffee")}

    def test_a_dislike_closes_the_hobby_and_the_taste_of_the_same_thing(self, store, alice):
        # Their objects are nodes of different labels (Behavior, Preference): matched by name, not node.
        store.upsert_fact(alice, fact(P.HAS_HOBBY, "hiking"))
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "hiking"))
        store.upsert_fact(alice, fact(P.HAS_HOBBY, "chess"))
        store.upsert_fact(alice, fact(P.DISLIKES, "Hiking"))
        assert current(store, alice) == {("dislikes", "hiking"), ("has_hobby", "chess")}
        store.upsert_fact(alice, fact(P.HAS_HOBBY, "hiking"))
        assert current(store, alice) == {("has_hobby", "hiking"), ("has_hobby", "chess")}

    def test_the_opposite_predicate_closes_the_liked_edge(self, store, alice):
        _, _, liked = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "coriander", valid_from=T0))
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "basil"))
        action, _, disliked = store.upsert_fact(alice, fact(P.DISLIKES, "Coriander",
                                                            valid_from=T0 + timedelta(days=1)))
        assert action == "created" and disliked["label"] == "Preference"
        assert current(store, alice) == {("dislikes", "coriander"), ("has_preference", "basil")}
        assert store.item(alice, liked["id"])["valid_to"] == T0 + timedelta(days=1)

    def test_an_ending_closes_the_edge_to_its_object_and_is_kept_closed(self, store, alice):
        _, _, paris = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", valid_from=T0, message_ids=("m1",)))
        _, _, jazz = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "jazz", valid_from=T0))
        ended = T0 + timedelta(days=2)
        action, before, end = store.upsert_fact(alice, fact(P.LIVES_IN, "paris", valid_from=ended,
                                                            message_ids=("m2",), tags=("ended",)))
        assert (action, before, end["valid_to"], end["tags"]) == ("created", None, ended, ["ended"])
        assert store.item(alice, paris["id"])["valid_to"] == ended
        assert current(store, alice) == {("has_preference", "jazz")}
        # An ending of something never believed is history only; it closes no other object's edge.
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "blues", valid_from=ended, tags=("ended",)))
        assert current(store, alice) == {("has_preference", "jazz")}
        assert store.item(alice, jazz["id"])["valid_to"] is None

    def test_an_ending_from_a_weaker_source_does_not_close_a_stronger_edge(self, store, alice):
        _, _, paris = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", 0.9, Src.USER))
        action, _, end = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", 0.6, Src.LLM, valid_from=T0,
                                                       tags=("ended",)))
        assert action == "contested" and "contested" in end["tags"] and end["valid_to"] == T0
        assert store.item(alice, paris["id"])["valid_to"] is None

    def test_a_weaker_source_is_contested_and_the_stronger_edge_stays(self, store, alice):
        _, _, paris = store.upsert_fact(alice, fact(P.LIVES_IN, "Paris", 0.9, Src.USER))
        action, before, guess = store.upsert_fact(alice, fact(P.LIVES_IN, "Rome", 0.6, Src.LLM, valid_from=T0))
        assert (action, before) == ("contested", None)
        assert guess["valid_to"] == T0 and "contested" in guess["tags"]
        assert current(store, alice) == {("lives_in", "Paris")}
        assert store.item(alice, paris["id"])["valid_to"] is None
        assert len(store.items(alice, include_history=True)) == 2

    def test_an_equally_trusted_newer_claim_wins(self, store, alice):
        store.upsert_fact(alice, fact(P.WORKS_AS, "teacher", 0.9, Src.RULE))
        assert store.upsert_fact(alice, fact(P.WORKS_AS, "nurse", 0.4, Src.RULE))[0] == "created"
        assert current(store, alice) == {("works_as", "nurse")}

    def test_objects_are_shared_within_a_tenant_under_their_first_spelling(self, store, alice, bob):
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "Espresso"))
        assert store.upsert_fact(bob, fact(P.HAS_PREFERENCE, "espresso"))[2]["object"] == "Espresso"

    def test_objects_are_not_shared_across_tenants(self, store, alice, stranger):
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "Espresso"))
        assert store.upsert_fact(stranger, fact(P.HAS_PREFERENCE, "espresso"))[2]["object"] == "espresso"

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_another_owner_sees_none_of_the_profile(self, store, alice, request, who):
        other = request.getfixturevalue(who)
        _, _, edge = store.upsert_fact(alice, fact(P.HAS_CHILD, "Tom"))
        assert store.items(other, include_history=True) == [] and store.count_user(other) == 0
        for call in (store.item, store.delete_item):
            with pytest.raises(NotFound) as missing:
                call(other, edge["id"])
            assert missing.value.field == "item_id"
        with pytest.raises(NotFound):
            store.update_item(other, edge["id"], {"confidence": 0.1})
        assert store.item(alice, edge["id"])["confidence"] == 0.8

    def test_items_are_ordered_by_confidence_times_weight(self, store, alice):
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "a", 0.9, weight=0.5))   # 0.45
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "b", 0.6))               # 0.6
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "c", 0.3, weight=2.0))   # 0.6, newer
        store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "d", 0.2))               # 0.2
        assert [i["object"] for i in store.items(alice)] == ["c", "b", "a", "d"]
        assert [i["object"] for i in store.items(alice, limit=2)] == ["c", "b"]

    def test_items_of_some_predicates_only(self, store, alice, bob):
        store.upsert_fact(alice, fact(P.HAS_NAME, "Dana"))
        store.upsert_fact(alice, fact(P.LIVES_IN, "Lisbon"))
        store.upsert_fact(alice, fact(P.WORKS_AS, "nurse", 0.9))
        store.upsert_fact(bob, fact(P.HAS_NAME, "Bob"))
        assert [i["object"] for i in store.items(alice, predicates=[P.HAS_NAME])] == ["Dana"]
        assert [i["object"] for i in store.items(alice, predicates=(P.WORKS_AS, P.HAS_NAME))] == ["nurse", "Dana"]
        assert store.items(alice, predicates=[]) == [] and store.items(alice, predicates=[P.HAS_CHILD]) == []
        store.upsert_fact(alice, fact(P.HAS_NAME, "Dee", 0.9))  # a name is functional: Dana's edge closes
        assert [i["object"] for i in store.items(alice, predicates=[P.HAS_NAME])] == ["Dee"]
        history = store.items(alice, predicates=[P.HAS_NAME], include_history=True)
        assert {i["object"] for i in history} == {"Dana", "Dee"}

    def test_an_unknown_item_is_not_found(self, store, alice):
        with pytest.raises(NotFound) as missing:
            store.item(alice, "e-nope")
        assert missing.value.field == "item_id"

    def test_update_item_applies_a_correction_and_returns_both_sides(self, store, alice):
        _, _, edge = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "sushi", 0.5))
        before, after = store.update_item(alice, edge["id"], {"confidence": 0.95, "tags": ["corrected"],
                                                              "source": "human"})
        assert before == edge
        assert (after["confidence"], after["tags"], after["source"]) == (0.95, ["corrected"], "human")
        assert after["updated_at"] >= edge["updated_at"] and store.item(alice, edge["id"]) == after

    def test_update_item_can_close_an_edge(self, store, alice):
        _, _, edge = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "sushi"))
        store.update_item(alice, edge["id"], {"valid_to": T0})
        assert store.items(alice) == [] and store.items(alice, include_history=True)[0]["valid_to"] == T0

    def test_delete_item_returns_what_was_deleted(self, store, alice):
        _, _, edge = store.upsert_fact(alice, fact(P.HAS_PREFERENCE, "sushi"))
        assert store.delete_item(alice, edge["id"]) == edge
        assert store.items(alice, include_history=True) == []
        with pytest.raises(NotFound):
            store.delete_item(alice, edge["id"])

    def test_delete_user_removes_the_user_their_people_and_orphaned_objects(self, store, alice, bob):
        store.upsert_fact(alice, fact(P.LIVES_IN, "Osaka"))
        store.upsert_fact(alice, fact(P.HAS_CHILD, "Tom"))
        store.upsert_fact(bob, fact(P.LIVES_IN, "Osaka"))
        store.upsert_fact(bob, fact(P.HAS_CHILD, "Tom"))
        assert (store.count_user(alice), store.count_user(bob)) == (2, 2)
        assert store.delete_user(alice) == 2          # the user node and their Tom; Osaka is still Bob's
        assert store.count_user(alice) == 0 and store.items(alice, include_history=True) == []
        assert current(store, bob) == {("lives_in", "Osaka"), ("has_child", "Tom")}
        assert store.delete_user(bob) == 3            # now Osaka goes too
        assert store.delete_user(bob) == 0

    def test_count_user_is_zero_for_an_unknown_user(self, store, alice):
        assert store.count_user(alice) == 0

    def test_owners_whose_ids_join_alike_have_their_own_profiles_and_people(self, store, lookalikes):
        for i, owner in enumerate(lookalikes):
            store.upsert_fact(owner, fact(P.HAS_CHILD, "Tom", tags=(f"owner-{i}",)))
            store.upsert_fact(owner, fact(P.LIVES_IN, f"City {i}"))
        for i, owner in enumerate(lookalikes):
            assert current(store, owner) == {("has_child", "Tom"), ("lives_in", f"City {i}")}
            assert store.count_user(owner) == 2  # the user node and their own Tom
        assert store.delete_user(lookalikes[0]) == 3  # user, Tom, and the city only they lived in
        assert [store.count_user(o) for o in lookalikes] == [0, 2, 2, 2]
        for i, owner in enumerate(lookalikes[1:], start=1):
            [tom] = [e for e in store.items(owner) if e["predicate"] == "has_child"]
            assert tom["tags"] == [f"owner-{i}"]

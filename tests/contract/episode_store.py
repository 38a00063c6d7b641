"""EpisodeStore: a user's typed events, their tiers, k-NN and lexical search, the cap, and the
nightly jobs' cross-user reads and writes."""

from __future__ import annotations

import math
import sys
import threading
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from engram.adapters.opensearch.episode_store import NOT_RECALLED

from ._base import Contract, at, far_day

DIM = 384


def vec(**components: float) -> list[float]:
    """A unit vector from named axes: ``vec(a=1, b=1)``; axes a..z are dimensions 0..25."""
    v = [0.0] * DIM
    for axis, value in components.items():
        v[ord(axis) - ord("a")] = value
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def doc(event_id: str | None = None, *, ts: str = "2026-05-01T10:00:00Z", vector: list[float] | None = None,
        **fields) -> dict:
    base = {"event_id": event_id or f"ev-{uuid.uuid4().hex[:16]}", "type": "preference", "summary": "",
            "text": "", "context": "", "keywords": [], "raw_sha256": "0" * 64, "message_ids": ["m1"],
            "session_id": "s1", "device_id": "phone", "ts": ts, "occurred_at": ts, "confidence": 0.8,
            "trust_source": "rule", "weight": 1.0, "tags": [], "sensitive": False, "evicted": False,
            "archived": False, "merged_count": 1, "updated_at": ts, **fields}
    if vector is not None:
        base["vector"] = vector
    return base


def ids(docs: list[dict]) -> list[str]:
    return [d["event_id"] for d in docs]


class EpisodeStoreContract(Contract):
    # -- put, get, update -------------------------------------------------------------------

    def test_put_then_get_returns_the_doc_with_its_owner_and_vector(self, store, alice):
        d = doc(text="I love mango", vector=vec(a=1))
        store.put(alice, [d])
        got = store.get(alice, d["event_id"])
        assert got == {**d, "tenant": alice.tenant, "user_id": alice.user_id}

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_another_owner_cannot_get_it(self, store, alice, request, who):
        d = doc(text="secret")
        store.put(alice, [d])
        assert store.get(request.getfixturevalue(who), d["event_id"]) is None
        assert store.get(alice, "ev-missing") is None

    def test_put_again_overwrites_by_event_id(self, store, alice):
        d = doc(text="first")
        store.put(alice, [d])
        store.put(alice, [{**d, "text": "second"}])
        assert store.count(alice, tier="all") == 1 and store.get(alice, d["event_id"])["text"] == "second"

    def test_put_drops_the_named_events_of_its_owner_only(self, store, alice, bob):
        kept, gone = doc(text="kept"), doc(text="folded")
        store.put(alice, [kept, gone])
        store.put(bob, [gone])
        store.put(alice, [], drop=[gone["event_id"], "ev-never-stored"])
        assert store.get(alice, gone["event_id"]) is None and store.get(alice, kept["event_id"]) is not None
        assert store.get(bob, gone["event_id"]) is not None

    def test_put_of_nothing_is_fine(self, store, alice):
        store.put(alice, [])
        assert store.count(alice, tier="all") == 0

    def test_update_merges_fields_and_a_missing_event_is_a_no_op(self, store, alice):
        d = doc(text="kept", weight=1.0)
        store.put(alice, [d])
        store.update(alice, d["event_id"], {"weight": 0.25, "tags": ["x"]})
        store.update(alice, "ev-not-there", {"weight": 0.1})
        got = store.get(alice, d["event_id"])
        assert (got["weight"], got["tags"], got["text"]) == (0.25, ["x"], "kept")
        assert store.get(alice, "ev-not-there") is None

    def test_update_through_another_owner_changes_nothing(self, store, alice, bob):
        d = doc(text="mine", weight=1.0)
        store.put(alice, [d])
        store.update(bob, d["event_id"], {"weight": 0.0})
        assert store.get(alice, d["event_id"])["weight"] == 1.0 and store.get(bob, d["event_id"]) is None

    def test_the_same_event_id_in_two_tenants_is_two_events(self, store, alice, stranger):
        store.put(alice, [doc("ev-shared", text="alice's")])
        store.put(stranger, [doc("ev-shared", text="stranger's")])
        assert store.get(alice, "ev-shared")["text"] == "alice's"
        assert store.get(stranger, "ev-shared")["text"] == "stranger's"

    # -- tiers --------------------------------------------------------------------------------

    def test_tiers_hide_evicted_and_archived_events(self, store, alice):
        store.put(alice, [doc(), doc(evicted=True), doc(archived=True), doc(evicted=True, archived=True)])
        assert [store.count(alice, tier=t) for t in ("hot", "retrievable", "all")] == [1, 2, 4]
        assert store.count(alice) == 1  # hot by default

    def test_counts_are_per_owner(self, store, alice, bob, stranger):
        store.put(alice, [doc(), doc()])
        store.put(bob, [doc()])
        assert (store.count(alice), store.count(bob), store.count(stranger)) == (2, 1, 0)

    # -- k-NN ---------------------------------------------------------------------------------

    def test_nearest_of_type_scores_by_cosine_and_filters_the_type(self, store, alice):
        near, far, other_type = doc(vector=vec(a=1, b=0.2)), doc(vector=vec(b=1)), doc(type="health",
                                                                                       vector=vec(a=1))
        store.put(alice, [near, far, other_type])
        [hits] = store.nearest_of_type(alice, [(vec(a=1), "preference")], 5)
        assert ids(hits) == [near["event_id"], far["event_id"]]
        cos_near = 1 / math.sqrt(1.04)
        assert hits[0]["_score"] == pytest.approx((1 + cos_near) / 2, abs=1e-3)
        assert hits[1]["_score"] == pytest.approx(0.5, abs=1e-3)
        assert all("vector" not in h for h in hits)

    def test_nearest_of_type_answers_each_query_and_honours_k(self, store, alice):
        store.put(alice, [doc(vector=vec(a=1)), doc(vector=vec(a=1, b=1)), doc(type="plan", vector=vec(c=1))])
        pref, plan, none = store.nearest_of_type(alice, [(vec(a=1), "preference"), (vec(c=1), "plan"),
                                                         (vec(a=1), "emotion")], 1)
        assert len(pref) == 1 and pref[0]["_score"] == pytest.approx(1.0, abs=1e-3)
        assert len(plan) == 1 and none == []
        assert store.nearest_of_type(alice, [], 3) == []

    def test_knn_sees_evicted_but_not_archived_events(self, store, alice):
        evicted, archived = doc(vector=vec(a=1), evicted=True), doc(vector=vec(a=1), archived=True)
        store.put(alice, [evicted, archived])
        [hits] = store.nearest_of_type(alice, [(vec(a=1), "preference")], 5)
        assert ids(hits) == [evicted["event_id"]]

    @pytest.mark.parametrize("who", ["bob", "stranger"])
    def test_knn_never_returns_another_owners_events(self, store, alice, request, who):
        store.put(request.getfixturevalue(who), [doc(vector=vec(a=1), text="mango")])
        [hits] = store.nearest_of_type(alice, [(vec(a=1), "preference")], 5)
        dense, (lexical, total, _) = store.nearest(alice, vec(a=1), 5), store.lexical(alice, "mango", 5)
        assert hits == [] and dense == [] and lexical == [] and total == 0

    # -- recall's candidates: nearest (k-NN) and lexical ---------------------------------------

    def test_nearest_hits_are_scored_without_vectors(self, store, alice):
        a, b = doc(vector=vec(a=1)), doc(vector=vec(a=1, b=1))
        store.put(alice, [a, b])
        dense = store.nearest(alice, vec(a=1), 1)
        assert ids(dense) == [a["event_id"]] and dense[0]["_score"] == pytest.approx(1.0, abs=1e-3)
        assert "vector" not in dense[0]

    def test_lexical_needs_no_vector(self, store, alice):
        store.put(alice, [doc(text="mango lassi", vector=vec(a=1))])
        lexical, _, _ = store.lexical(alice, "mango", 5)
        assert len(lexical) == 1

    def test_recall_candidates_come_without_what_no_recall_reads(self, store, alice):
        full = doc(text="mango lassi", context="What do you drink?", keywords=["mango"], vector=vec(a=1))
        store.put(alice, [full])
        recalled = [store.nearest(alice, vec(a=1), 1)[0], store.lexical(alice, "mango", 1)[0][0],
                    store.get_fresh(alice, [full["event_id"]])[0]]
        for hit in recalled:
            assert not set(hit) & set(NOT_RECALLED)
            assert (hit["event_id"], hit["text"], hit["message_ids"], hit["ts"]) == (
                full["event_id"], "mango lassi", full["message_ids"], full["ts"])

    def test_lexical_hits_match_words_and_come_without_vectors(self, store, alice):
        hit = doc(text="I am allergic to peanuts", vector=vec(a=1))
        summary = doc(summary="peanuts allergy", vector=vec(b=1))
        miss = doc(text="The weather in Lisbon", vector=vec(c=1))
        store.put(alice, [hit, summary, miss])
        lexical, _, _ = store.lexical(alice, "peanuts", 10)
        assert set(ids(lexical)) == {hit["event_id"], summary["event_id"]}
        assert all(d["_score"] > 0 and "vector" not in d for d in lexical)

    # -- the user's own term statistics -----------------------------------------------------

    def test_term_counts_are_this_users_document_frequencies(self, store, alice, bob):
        store.put(alice, [doc(text="Caroline: I love mango"), doc(text="Caroline: a mango smoothie"),
                          doc(text="Caroline: kayak trip"), doc(text="我对花粉过敏"),
                          doc(text="Caroline: old news", archived=True)])
        store.put(bob, [doc(text="mango mango kayak"), doc(text="花粉")])
        total, df = store.term_counts(alice, ["caroline", "mango", "kayak", "paris", "花粉", "粉过"])
        assert total == 4
        assert df == {"caroline": 3, "mango": 2, "kayak": 1, "paris": 0, "花粉": 1, "粉过": 1}
        assert store.term_counts(alice, []) == (4, {})

    def test_lexical_matches_keywords_exactly_and_ignores_stop_words(self, store, alice):
        tagged = doc(text="something else", keywords=["sushi"])
        store.put(alice, [tagged, doc(text="the cat")])
        assert ids(store.lexical(alice, "Sushi", 5)[0]) == [tagged["event_id"]]
        assert store.lexical(alice, "the", 5)[0] == []

    def test_lexical_ranks_the_better_match_first_and_honours_its_size(self, store, alice):
        both = doc(text="mango smoothie recipe", summary="mango smoothie")
        one = doc(text="a smoothie with banana and oats and milk and honey")
        store.put(alice, [one, both])
        lexical, _, _ = store.lexical(alice, "mango smoothie", 5)
        assert ids(lexical) == [both["event_id"], one["event_id"]]
        assert len(store.lexical(alice, "mango smoothie", 1)[0]) == 1

    def test_recent_events_are_the_users_newest_retrievable_ones_without_vectors(self, store, alice, bob):
        old, mid, new = (doc(text=t, ts=f"2026-05-0{d}T10:00:00Z", vector=vec(a=1))
                         for t, d in (("old", 1), ("mid", 2), ("new", 3)))
        hello = doc(text="hi!", type="greeting", ts="2026-05-04T10:00:00Z")
        store.put(alice, [mid, old, new, hello, doc(text="gone", archived=True, ts="2026-05-05T10:00:00Z")])
        store.put(bob, [doc(text="bob's", ts="2026-05-06T10:00:00Z")])
        assert ids(store.recent(alice, 10)) == [hello["event_id"], new["event_id"], mid["event_id"], old["event_id"]]
        recent = store.recent(alice, 2, skip_types=("greeting", "small_talk"))
        assert ids(recent) == [new["event_id"], mid["event_id"]]
        assert all("vector" not in d and "context" not in d for d in recent)

    def test_lexical_skips_archived_but_finds_evicted_events(self, store, alice):
        evicted = doc(text="kayak trip", evicted=True)
        store.put(alice, [evicted, doc(text="kayak lesson", archived=True)])
        assert ids(store.lexical(alice, "kayak", 5)[0]) == [evicted["event_id"]]

    def test_lexical_brings_the_term_counts_and_nearest_the_cosine_order(self, store, alice, bob):
        smoothie, kayak = doc(text="mango smoothie recipe", vector=vec(a=1)), doc(text="kayak trip", vector=vec(b=1))
        store.put(alice, [smoothie, kayak, doc(text="mango farm", vector=vec(a=1, b=1), archived=True)])
        store.put(bob, [doc(text="mango mango", vector=vec(a=1))])
        hits, total, df = store.lexical(alice, "mango kayak", 5, count_terms=["mango", "kayak", "paris"])
        assert set(ids(hits)) == {smoothie["event_id"], kayak["event_id"]} and all(h["_score"] > 0 for h in hits)
        assert (total, df) == store.term_counts(alice, ["mango", "kayak", "paris"]) == (2, {"mango": 1, "kayak": 1,
                                                                                          "paris": 0})
        nearest = store.nearest(alice, vec(a=1), 5)
        assert ids(nearest) == [smoothie["event_id"], kayak["event_id"]] and all("vector" not in h for h in nearest)
        assert [h["_score"] for h in nearest] == pytest.approx([1.0, 0.5], abs=1e-3)
        assert store.lexical(alice, "mango", 5)[1:] == (2, {})  # no terms: the events alone
        assert store.lexical(bob, "kayak", 5) == ([], 1, {})

    # -- the cap ------------------------------------------------------------------------------

    def test_evict_over_cap_evicts_the_weakest_first(self, store, alice):
        strong = doc(weight=1.0, confidence=0.9)
        light = doc(weight=0.2, confidence=0.9)
        unsure = doc(weight=1.0, confidence=0.3)
        old = doc(weight=1.0, confidence=0.9, ts="2026-01-01T00:00:00Z")
        store.put(alice, [strong, light, unsure, old])
        evicted = store.evict_over_cap(alice, 1)
        assert evicted == [light["event_id"], unsure["event_id"], old["event_id"]]
        assert store.count(alice, tier="hot") == 1 and store.count(alice, tier="retrievable") == 4
        assert store.get(alice, light["event_id"])["evicted"] is True
        assert store.get(alice, strong["event_id"])["evicted"] is False

    def test_evict_under_the_cap_does_nothing_and_ignores_other_tiers(self, store, alice, bob):
        store.put(alice, [doc(), doc(evicted=True), doc(archived=True)])
        store.put(bob, [doc(), doc(), doc()])
        assert store.evict_over_cap(alice, 1) == []
        assert store.count(bob) == 3

    # -- listing and deleting -----------------------------------------------------------------

    def test_all_for_user_lists_every_tier_by_time_without_vectors(self, store, alice, bob):
        late = doc(ts="2026-05-03T00:00:00Z", archived=True, vector=vec(a=1))
        early = doc(ts="2026-05-01T00:00:00Z", evicted=True)
        store.put(alice, [late, early, doc(ts="2026-05-02T00:00:00Z")])
        store.put(bob, [doc()])
        listed = store.all_for_user(alice)
        assert len(listed) == 3 and listed[0]["event_id"] == early["event_id"]
        assert listed[-1]["event_id"] == late["event_id"] and all("vector" not in d for d in listed)

    def test_for_forgetting_lists_retrievable_events_with_vectors_by_time(self, store, alice):
        b, a = doc(ts="2026-05-02T00:00:00Z", vector=vec(b=1)), doc(ts="2026-05-01T00:00:00Z", vector=vec(a=1),
                                                                   evicted=True)
        store.put(alice, [b, a, doc(archived=True)])
        listed = store.for_forgetting(alice)
        assert ids(listed) == [a["event_id"], b["event_id"]] and listed[0]["vector"] == pytest.approx(vec(a=1))

    def test_delete_user_deletes_every_tier_of_that_user_only(self, store, alice, bob):
        store.put(alice, [doc(), doc(evicted=True), doc(archived=True)])
        store.put(bob, [doc()])
        assert store.delete_user(alice) == 3
        assert store.count(alice, tier="all") == 0 and store.count(bob) == 1
        assert store.delete_user(alice) == 0

    def test_delete_matching_by_type_and_time(self, store, alice, bob):
        old_talk = doc(type="small_talk", ts="2026-01-01T00:00:00Z", archived=True)
        new_talk = doc(type="small_talk", ts="2026-06-01T00:00:00Z")
        old_plan = doc(type="plan", ts="2026-01-01T00:00:00Z")
        store.put(alice, [old_talk, new_talk, old_plan])
        store.put(bob, [doc(type="small_talk", ts="2026-01-01T00:00:00Z")])
        cutoff = datetime(2026, 3, 1, tzinfo=UTC)
        assert store.delete_matching(alice, type_="small_talk", before=cutoff) == 1
        assert store.delete_matching(alice, before=cutoff) == 1
        assert store.delete_matching(alice, type_="small_talk") == 1
        assert store.count(alice, tier="all") == 0 and store.count(bob, tier="all") == 1

    # -- across users (nightly jobs) ------------------------------------------------------------

    def test_events_between_reads_every_user_and_tier_in_the_window(self, store, alice, stranger):
        day = far_day()
        start, end = at(day, 0), at(day, 0) + timedelta(days=1)
        inside = [doc(ts=f"{day.isoformat()}T00:00:00Z", vector=vec(a=1)),
                  doc(ts=f"{day.isoformat()}T23:59:59Z", archived=True)]
        theirs = doc(ts=f"{day.isoformat()}T12:00:00Z", evicted=True)
        after = doc(ts=end.isoformat().replace("+00:00", "Z"))
        store.put(alice, [*inside, after])
        store.put(stranger, [theirs])
        found = store.events_between(start.isoformat(), end.isoformat())
        mine = [d for d in found if d["tenant"] in (alice.tenant, stranger.tenant)]
        assert set(ids(mine)) == {*ids(inside), theirs["event_id"]}
        assert all("vector" not in d for d in mine)
        assert {(d["tenant"], d["user_id"]) for d in mine} == {(alice.tenant, "alice"), (stranger.tenant, "alice")}

    def test_evicted_lists_evicted_events_of_every_user(self, store, alice, bob):
        mine, theirs = doc(evicted=True, vector=vec(a=1)), doc(evicted=True, archived=True)
        store.put(alice, [mine, doc()])
        store.put(bob, [theirs])
        found = [d for d in store.evicted() if d["tenant"] == alice.tenant]
        assert set(ids(found)) == {mine["event_id"], theirs["event_id"]}
        assert all("vector" not in d and d["evicted"] is True for d in found)

    def test_bulk_update_writes_through_each_owner_and_skips_missing_events(self, store, alice, bob):
        a, b = doc(weight=1.0), doc(weight=1.0)
        store.put(alice, [a])
        store.put(bob, [b])
        store.bulk_update([(alice, a["event_id"], {"weight": 0.3, "archived": True}),
                           (bob, b["event_id"], {"tags": ["merged"]}), (alice, "ev-missing", {"weight": 0})])
        assert store.get(alice, a["event_id"])["weight"] == 0.3 and store.count(alice, tier="retrievable") == 0
        assert store.get(bob, b["event_id"])["tags"] == ["merged"]
        store.bulk_update([])

    def test_delete_ids_counts_what_it_deleted(self, store, alice, bob):
        a1, a2, b = doc(), doc(), doc()
        store.put(alice, [a1, a2])
        store.put(bob, [b])
        assert store.delete_ids([(alice, a1["event_id"]), (bob, b["event_id"]), (alice, "ev-missing")]) == 2
        assert ids(store.all_for_user(alice)) == [a2["event_id"]] and store.count(bob, tier="all") == 0
        assert store.delete_ids([]) == 0

    def test_delete_ids_through_another_owner_deletes_nothing(self, store, alice, bob):
        a = doc()
        store.put(alice, [a])
        assert store.delete_ids([(bob, a["event_id"])]) == 0
        assert store.get(alice, a["event_id"]) is not None

    # -- owners whose ids join alike ------------------------------------------------------------

    def test_owners_whose_ids_join_alike_keep_their_own_events(self, store, lookalikes):
        for i, owner in enumerate(lookalikes):
            store.put(owner, [doc("ev-same", text=f"owner {i}", vector=vec(a=1)), doc(text=f"only {i}")])
        for i, owner in enumerate(lookalikes):
            assert store.get(owner, "ev-same")["text"] == f"owner {i}"
            assert {d["text"] for d in store.all_for_user(owner)} == {f"owner {i}", f"only {i}"}
            [near] = store.nearest_of_type(owner, [(vec(a=1), "preference")], 10)
            assert ids(near) == ["ev-same"] and near[0]["text"] == f"owner {i}"
        store.update(lookalikes[1], "ev-same", {"weight": 0.5})
        assert [store.get(o, "ev-same")["weight"] for o in lookalikes] == [1.0, 0.5, 1.0, 1.0]
        assert store.delete_user(lookalikes[0]) == 2 and store.delete_ids([(lookalikes[2], "ev-same")]) == 1
        assert [store.count(o, tier="all") for o in lookalikes] == [0, 2, 1, 2]

    # -- redaction (child mode) -------------------------------------------------------------

    def test_redact_content_blanks_every_tier_and_drops_the_vectors(self, store, alice, bob):
        blanks = {"summary": "", "text": "", "context": "", "keywords": [], "sensitive": False}
        hot = doc(text="I love dinosaurs", summary="I love dinosaurs", context="Hi Lily", keywords=["dinosaurs"],
                  sensitive=True, vector=vec(a=1))
        evicted = doc(text="my secret den", vector=vec(b=1), evicted=True)
        archived = doc(summary="thanks!", archived=True)
        theirs = doc(hot["event_id"], text="I love dinosaurs", vector=vec(a=1))
        store.put(alice, [hot, evicted, archived])
        store.put(bob, [theirs])
        assert store.redact_content(alice, blanks) == 3
        for d in (hot, evicted, archived):
            assert store.get(alice, d["event_id"]) == {**{k: v for k, v in d.items() if k != "vector"}, **blanks,
                                                       "tenant": alice.tenant, "user_id": alice.user_id}
        assert store.nearest_of_type(alice, [(vec(a=1), "preference")], 5) == [[]]
        assert store.nearest(alice, vec(a=1), 5) == [] and store.lexical(alice, "dinosaurs secret", 5)[0] == []
        assert store.redact_content(alice, blanks) == 0
        assert store.get(bob, theirs["event_id"]) == {**theirs, "tenant": bob.tenant, "user_id": bob.user_id}

    def test_concurrent_updates_of_one_event_all_apply_and_none_fails(self, store, alice):
        # Writers of one user repeating a sentence merge into the same event at once.
        d = doc()
        store.put(alice, [d])
        errors: list[str] = []

        def bump(i: int) -> None:
            try:
                for j in range(5):
                    store.update(alice, d["event_id"], {"merged_count": i * 10 + j})
            except Exception as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(repr(exc)[:200])

        threads = [threading.Thread(target=bump, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Contention may at worst ask the client to retry (StoreUnavailable, a 503), never fail.
        assert all(e.startswith("StoreUnavailable") for e in errors), errors
        assert store.get(alice, d["event_id"])["merged_count"] in {i * 10 + j for i in range(4) for j in range(5)}

    def test_reads_beside_writes_of_one_user_never_fail(self, store, alice):
        # Ingestion writes each group of episodes on a pool while the request's thread searches
        # the same user's events for repeats: a read must see a whole store, never a torn one.
        groups = [[doc(text=f"group {g} item {i}", vector=vec(a=1, b=g + i)) for i in range(5)] for g in range(12)]
        store.put(alice, [doc(text=f"before {i}", vector=vec(a=1, c=i)) for i in range(200)])
        done, errors = threading.Event(), []

        def guarded(fn) -> None:
            try:
                fn()
            except Exception as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(repr(exc)[:200])
                done.set()

        def write() -> None:
            for group in groups:
                store.put(alice, group)
            done.set()

        def read() -> None:
            while not done.is_set():
                store.nearest_of_type(alice, [(vec(a=1), "preference")], 5)
                store.lexical(alice, "group item", 5)
                store.evict_over_cap(alice, 10_000)

        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)   # interleave the threads as densely as the interpreter can
        try:
            threads = [threading.Thread(target=guarded, args=(fn,)) for fn in (write, read, read)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            sys.setswitchinterval(switch)
        assert errors == [], errors
        assert store.count(alice, tier="all") == 200 + sum(len(g) for g in groups)

    def test_get_fresh_reads_by_id_what_is_there_now_for_its_owner_only(self, store, alice, bob):
        kept, gone, archived = doc(), doc(), doc()
        store.put(alice, [kept, gone, archived])
        store.delete_ids([(alice, gone["event_id"])])
        store.update(alice, archived["event_id"], {"archived": True})
        store.update(alice, kept["event_id"], {"weight": 0.5})
        found = store.get_fresh(alice, [kept["event_id"], gone["event_id"], archived["event_id"], "ev-never"])
        assert [(d["event_id"], d["weight"]) for d in found] == [(kept["event_id"], 0.5)]
        assert "vector" not in found[0]
        assert store.get_fresh(bob, [kept["event_id"]]) == [] and store.get_fresh(alice, []) == []

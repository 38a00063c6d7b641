"""The last step of ingestion: route what was learned to the store that owns it.

Order is the safety argument: the turn log (durable) first, so an accepted turn survives any
later failure; every later write is idempotent, so the client's retry finishes the job.
"""

from __future__ import annotations

from concurrent import futures
from dataclasses import replace
from datetime import UTC, datetime

from ...dependencies import Dependencies
from ...domain.ingest.pending import Layer
from ...domain.ingest.sanitise import format_timestamp as _iso
from ...domain.keys import digest_parts
from ...domain.model import EventType, Role, Scope
from ...domain.privacy import crypto
from ...domain.profile.trust import reinforce
from ...domain.recall.lexical import repeats_wording
from ...domain.records import AuditEntry, Fact, SessionRef, UserState
from ...domain.working.tasks import TaskStatus
from ...errors import Conflict, StoreUnavailable
from ..privacy import protect_fact, reveal_episode, seal_episode, seal_turns
from ..users import write_lease
from .derived import Derivation, derive
from .steps import ExtractedBatch, ExtractedTurn

# Lucene's cosinesimil score is (1 + cos) / 2: 0.975 means cosine >= 0.95, a near-duplicate.
MERGE_SCORE = 0.975
CONTEXT_CHARS = 300


def _digest(*parts: str, size: int = 24) -> str:
    return digest_parts(*parts)[:size]


def event_id(scope: Scope, message_id: str) -> str:
    return f"ev-{_digest(scope.tenant, scope.user_id, message_id)}"


def task_id_for(scope: Scope, message_id: str) -> str:
    return f"t-{_digest(scope.tenant, scope.user_id, message_id, size=16)}"


def _event_doc(batch: ExtractedBatch, item: ExtractedTurn, child: bool, context: str,
               reply_to: str | None = None) -> dict:
    event, turn = item.event, item.turn
    return {
        "event_id": event_id(batch.scope, turn.message_id), "type": event.type.value,
        # Child mode: the event's type and time only, never what the child said.
        "summary": "" if child else event.summary, "text": "" if child else turn.substance or turn.content,
        # A long answer keeps its substance here (``Turn.substance``); the working memory its head.
        "context": "" if child else context,
        "keywords": [] if child else list(event.keywords), "blind_terms": [], "raw_sha256": turn.raw_sha256,
        "message_ids": [turn.message_id], "session_id": batch.session_id, "device_id": batch.device_id,
        "ts": _iso(turn.client_ts), "occurred_at": _iso(event.occurred_at or turn.client_ts),
        "confidence": event.confidence, "trust_source": event.source.value, "weight": event.weight,
        "tags": list(event.tags), "sensitive": event.sensitive and not child, "evicted": False, "archived": False,
        "merged_count": 1, "updated_at": _iso(datetime.now(UTC)),
        # An assistant's answer names the request it answered: a question about either finds both.
        **({"reply_to": reply_to} if reply_to else {}),
    }


def _previous_turns(deps: Dependencies, ref: SessionRef, turns: list,
                    sealed_ids: set[str]) -> tuple[dict[str, str], dict[str, str]]:
    """For each turn, the text of the turn before it in the session (this batch or earlier; found
    lexically beside the turn's own words); empty after a sealed turn, whose words must not reach
    a neighbour's event in clear. For each assistant turn that follows one of the user's, the
    request it answered (its message id)."""
    try:
        earlier = [t for t in deps.sessions.get(ref).turns if t["client_ts"] < _iso(turns[0].client_ts)]
    except StoreUnavailable:  # working memory down: the batch's first turn is embedded without its lead-in
        earlier = []
    previous, previous_id, previous_role = "", None, None
    if earlier:
        logged = deps.turns.turns(ref.scope, [earlier[-1]["message_id"]])
        previous = "" if any(crypto.is_sealed(row["content"]) for row in logged) else earlier[-1]["content"]
        previous_id, previous_role = earlier[-1]["message_id"], earlier[-1].get("role")
    out, answered = {}, {}
    for turn in turns:
        out[turn.message_id] = previous[:CONTEXT_CHARS]
        if turn.role is Role.ASSISTANT and previous_role == Role.USER.value and previous_id:
            answered[turn.message_id] = previous_id
        previous = "" if turn.message_id in sealed_ids else turn.content
        previous_id, previous_role = turn.message_id, turn.role.value
    return out, answered


def _fold_duplicates(docs: list[dict], hits: list[list[dict]]) -> tuple[dict, dict, list[AuditEntry]]:
    """Which of ``docs`` (each beside its nearest stored event of its type) repeat an event, in
    meaning (cosine >= 0.95) and in wording (``lexical.repeats_wording``), and fold into it
    (raising its confidence): where each folded doc went, the merged events' new fields
    and the audit entries of the merges. Two docs of one batch that repeat the same event both
    fold into it; a doc of the batch itself (already searchable when the index refreshes on
    every write) is no target: nothing folds into a doc that may be folded away."""
    merged_into, merges, targets, audit = {}, {}, {}, []
    ours = {d["event_id"] for d in docs}
    for doc, found in zip(docs, hits, strict=True):
        if (not found or found[0]["_score"] < MERGE_SCORE or found[0]["event_id"] in ours
                or not repeats_wording(doc.get("text") or "", found[0].get("text") or "")):
            continue
        target = targets.setdefault(found[0]["event_id"], found[0])
        merged_into[doc["event_id"]] = target["event_id"]
        if set(doc["message_ids"]) <= set(target["message_ids"]):
            continue  # a retry of a merge that already happened
        after = {"confidence": reinforce(target["confidence"], doc["confidence"]),
                 "message_ids": sorted(set(target["message_ids"]) | set(doc["message_ids"])),
                 "merged_count": target.get("merged_count", 1) + 1, "updated_at": doc["updated_at"],
                 "ts": max(target["ts"], doc["ts"])}
        audit.append(AuditEntry("ingest", "merge", "episodes", target["event_id"], doc["trust_source"],
                                after["confidence"], {"confidence": target["confidence"]}, after))
        merges[target["event_id"]] = after
        targets[target["event_id"]] = {**target, **after}
    return merged_into, merges, audit


def route(batch: ExtractedBatch, deps: Dependencies) -> dict:
    """Write one cleansed batch under the user's write lease; returns the API's ingest response."""
    with write_lease(deps, batch.scope) as state:
        return _write(batch, deps, state)


# The writes of a batch run here while the request's thread embeds: those that need no vector,
# and each group of episodes as soon as it is embedded.
_WRITES = ("ingest-writes", 16)  # the process's pool for them (``deps.runtime``): its name and size


def _write(batch: ExtractedBatch, deps: Dependencies, state: UserState) -> dict:
    scope = batch.scope
    child = state.child_mode
    # Content hashes are keyed by the user's data key everywhere they are stored (turn log,
    # events, archive): a plain SHA-256 of a short sentence confirms a guess, even after a shred.
    batch = replace(batch, items=tuple(
        replace(i, turn=replace(i.turn, raw_sha256=deps.keys.digest(scope, i.turn.content))) for i in batch.items))
    turns = [item.turn for item in batch.items]
    # The raw text of a sensitive turn (health, relations) is kept for the archive sealed.
    sensitive_ids = {item.turn.message_id for item in batch.items if item.event is not None and item.event.sensitive}
    # The commit point: once the turn log holds the batch it is accepted, whatever a derived store
    # does next (a write it misses is pending, and caught up from here).
    new_ids = deps.turns.append(scope, batch.session_id, batch.device_id,
                                seal_turns(deps.keys, scope, turns, sensitive_ids) if sensitive_ids and not child
                                else turns, keep_content=not child)
    derivation = Derivation(batch, state, frozenset(new_ids), frozenset(deps.pending.layers(scope)))
    # The episodes (embedded here group by group, each group written beside; repeats folded; the
    # cap) and, beside them, working memory, tasks and the graph. Both are done before the lease
    # ends (the finally below waits for the other side whatever happens).
    beside = deps.runtime.submit(_WRITES, _write_beside, deps, derivation)
    try:
        extracted, audit, pending = derive(deps, Layer.EPISODES, derivation, write_episodes)
    finally:
        futures.wait([beside])
    more_extracted, more_audit, more_pending = beside.result()
    deps.audit.append(scope, audit + more_audit)
    return {"accepted": len(turns), "message_ids": [t.message_id for t in turns],
            "extracted": extracted + more_extracted, "pending": sorted(pending + more_pending)}


def write_episodes(deps: Dependencies, derivation: Derivation) -> tuple[list[dict], list[AuditEntry]]:
    batch, state = derivation.batch, derivation.state
    child = state.child_mode
    items = [item for item in batch.items if item.event is not None]
    if not items:
        return [], []
    sealed = {item.turn.message_id for item in items if item.event.sensitive} if not child else set()
    ref = SessionRef(batch.scope, batch.device_id, batch.session_id)
    context, answered = _previous_turns(deps, ref, [item.turn for item in batch.items], sealed)
    return _write_episodes(batch, deps, child, context, answered, items, set(derivation.new_ids))


def _write_episodes(batch: ExtractedBatch, deps: Dependencies, child: bool, context: dict[str, str],
                    answered: dict[str, str], items: list[ExtractedTurn],
                    new_ids: set[str]) -> tuple[list[dict], list[AuditEntry]]:
    scope = batch.scope
    docs = [_event_doc(batch, item, child, context.get(item.turn.message_id, ""), answered.get(item.turn.message_id))
            for item in items]
    # A retry (the turn log had the message) must not overwrite what happened to its event since:
    # merges, feedback, forgetting. An event the first attempt never stored (it crashed after the
    # turn log) is written now: the retry finishes the job.
    stored = {d["event_id"] for d in docs if d["message_ids"][0] not in new_ids
              and deps.episodes.get(scope, d["event_id"]) is not None}
    fresh = [d for d in docs if d["event_id"] not in stored]
    merged_into, merges, audit = _index_in_groups(deps, scope, fresh, embed=not child)
    to_index = [d for d in fresh if d["event_id"] not in merged_into]
    extracted = [{"memory_id": merged_into.get(doc["event_id"], doc["event_id"]), "kind": "episode",
                  "type": doc["type"], "summary": doc["summary"], "confidence": doc["confidence"], "tags": doc["tags"]}
                 for doc in docs]
    for doc in to_index:
        audit.append(AuditEntry("ingest", "create", "episodes", doc["event_id"], doc["trust_source"],
                                doc["confidence"], None, {"type": doc["type"], "message_ids": doc["message_ids"]}))
    for evicted in deps.episodes.evict_over_cap(scope, deps.settings.episodes_per_user):
        audit.append(AuditEntry("system", "evict", "episodes", evicted, "system", None, None, {"evicted": True}))
    return extracted, audit


def _index_in_groups(deps: Dependencies, scope: Scope, docs: list[dict],
                     embed: bool) -> tuple[dict, dict, list[AuditEntry]]:
    """Embed ``docs`` group by group; each group is indexed at once (and, with a vector, checked
    for the events it repeats) while the next is embedded. The repeats found are then folded in
    one more bulk request: their docs deleted, their targets merged. A crash before the fold
    leaves the repeat as an event of its own: a duplicate, never a lost memory."""
    pending, checked = [], []
    # Embedded ``embed_group`` at a time: a group's duplicate check and bulk write run while the
    # next group is embedded, so a request waits for the embedder and for one group's writes.
    size = deps.settings.embed_group if embed else max(len(docs), 1)
    try:
        for start in range(0, len(docs), size):
            group = docs[start:start + size]
            if embed:
                # Each turn alone: its neighbours lend it their relevance at recall
                # (``RecallRecipe.neighbour_weight``), which a turn's context written into its
                # vector blurred (an answer embedded with its request matched both, and neither well).
                texts = [d["text"] for d in group]
                for doc, vector in zip(group, deps.embedder.embed(texts), strict=True):
                    doc["vector"] = vector
                checked.append((group, deps.runtime.submit(_WRITES, deps.episodes.nearest_of_type, scope,
                                                           [(d["vector"], d["type"]) for d in group], 1)))
            pending.append(deps.runtime.submit(_WRITES, _put_group, deps, scope, group))
    finally:  # nothing of this request is left running when it answers, whatever happened
        futures.wait(pending + [found for _, found in checked])
    for written in pending:
        written.result()
    docs_checked = [d for group, _ in checked for d in group]
    # A sealed event's words are compared in clear (``repeats_wording``), as its owner would read
    # them: only a hit close enough to fold is opened, and only its text.
    hits = [[reveal_episode(deps.keys, scope, h, fields=("text",), keywords=False) if h["_score"] >= MERGE_SCORE
             else h for h in hit] for _, found in checked for hit in found.result()]
    merged_into, merges, audit = _fold_duplicates(docs_checked, hits)
    if merged_into:
        deps.episodes.put(scope, [], merges=merges, drop=list(merged_into))
    return merged_into, merges, audit


def _put_group(deps: Dependencies, scope: Scope, group: list[dict]) -> None:
    deps.episodes.put(scope, [seal_episode(deps.keys, scope, d) if d["sensitive"] else d for d in group])
    if deps.settings.episode_refresh == "false":
        # Searchable at the next refresh; until then a recall reads them by id. A sealed event's
        # vector stays in the index alone. (A doc folded away later is simply not found.)
        deps.sessions.note_fresh(scope, [(d["event_id"], None if d["sensitive"] else d.get("vector"))
                                         for d in group])


def _write_beside(deps: Dependencies, derivation: Derivation) -> tuple[list[dict], list[AuditEntry], list[str]]:
    """Working memory, tasks (in PostgreSQL, beside the turn log) and the profile graph."""
    extracted, audit, pending = derive(deps, Layer.WORKING_MEMORY, derivation, write_working_memory)
    task_extracted, task_audit = _write_tasks(deps, derivation)
    more_extracted, more_audit, more_pending = derive(deps, Layer.PROFILE, derivation, write_profile)
    return extracted + task_extracted + more_extracted, audit + task_audit + more_audit, pending + more_pending


def write_working_memory(deps: Dependencies, derivation: Derivation) -> tuple[list[dict], list[AuditEntry]]:
    batch = derivation.batch
    deps.sessions.append_turns(SessionRef(batch.scope, batch.device_id, batch.session_id),
                               [item.turn for item in batch.items])
    return [], []


def _write_tasks(deps: Dependencies, derivation: Derivation) -> tuple[list[dict], list[AuditEntry]]:
    scope, child = derivation.batch.scope, derivation.state.child_mode
    extracted, audit = [], []
    for item in derivation.batch.items:
        if item.event is None or item.event.type is not EventType.TASK:
            continue
        task_id = task_id_for(scope, item.turn.message_id)
        try:
            deps.tasks.record(scope, task_id, TaskStatus.CREATED,
                              {"title": "" if child else item.event.summary,
                               "message_ids": [item.turn.message_id]}, item.turn.client_ts)
            audit.append(AuditEntry("ingest", "create", "tasks", task_id, "rule", None, None,
                                    {"status": TaskStatus.CREATED.value}))
        except Conflict:
            pass  # the task exists: this is a retry
        extracted.append({"memory_id": task_id, "kind": "task", "type": "task",
                          "summary": "" if child else item.event.summary, "confidence": item.event.confidence,
                          "tags": list(item.event.tags)})
    return extracted, audit


def write_profile(deps: Dependencies, derivation: Derivation) -> tuple[list[dict], list[AuditEntry]]:
    """With long-term consent, and never for a child: as the user's state is when this runs."""
    scope, state = derivation.batch.scope, derivation.state
    extracted, audit = [], []
    if not state.long_term_consent or state.child_mode:
        return extracted, audit
    for item in (i for i in derivation.batch.items if i.event is not None):
        for fact in (f for f in item.facts if f.is_fact):
            action, before, after = deps.graph.upsert_fact(scope, protect_fact(deps.keys, scope, Fact(
                predicate=fact.predicate, object=fact.object, confidence=fact.confidence, source=fact.source,
                message_ids=(fact.message_id,), valid_from=fact.occurred_at,
                observed_at=item.turn.client_ts, tags=fact.tags,
                weight=fact.weight)))
            if action != "unchanged":
                audit.append(AuditEntry("ingest", action, "graph", after["id"], fact.source.value,
                                        after["confidence"], before and _audit_view(before),
                                        _audit_view(after)))
            extracted.append({"memory_id": after["id"], "kind": "profile", "type": fact.predicate.value,
                              "summary": fact.summary, "confidence": after["confidence"],
                              "tags": after["tags"]})
    return extracted, audit


# What the catch-up writes each layer with: the same writers as at ingest.
WRITERS = {Layer.WORKING_MEMORY: write_working_memory, Layer.EPISODES: write_episodes, Layer.PROFILE: write_profile}


def _audit_view(item: dict) -> dict:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in item.items()
            if k in ("predicate", "object", "confidence", "source", "valid_from", "valid_to", "message_ids")}

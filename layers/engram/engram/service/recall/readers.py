"""What the episodes step reads, the large layer (the small ones' readers are ``small_layers``):
one store in, ``RecallItem``s out. ``plan.RECALL_PLAN`` names the steps, orders them and gives
them deadlines; a runner executes it."""

from __future__ import annotations

import dataclasses
import time
from concurrent import futures
from datetime import datetime

from ...dependencies import Dependencies
from ...domain.lifecycle.decay import decay_confidence, needs_confirmation
from ...domain.model import EventType, Predicate, Scope
from ...domain.privacy.blind_index import index_terms
from ...domain.recall.cues import in_users_voice, own_names, without_names
from ...domain.recall.fusion import (
    RRF_K,
    RecallItem,
    RecallRecipe,
    across_languages,
    background_cosine,
    calibrated_cosine,
    checkable,
    convex_scores,
    dominant_script,
    lateness_of,
    reciprocal_rank_fusion,
    unit_cosine,
)
from ...domain.recall.glossary import Gloss, gloss_overlap, gloss_weights, load_glossary
from ...domain.recall.lexical import (
    Tokens,
    background_names,
    bm25,
    chinese_words,
    evidence_weights,
    query_terms,
    topic_terms,
    topic_words,
    weighted_overlap,
    weights,
    what_is_asked,
)
from ...domain.recall.neighbours import adjacent, with_neighbours
from ...domain.recall.query import QueryIntent, content_terms, lexical_text
from ...domain.recall.relations import relation_terms, relations_in, unsaid_relations
from ...errors import EngramError, StoreUnavailable
from ..privacy import reveal_episode, reveal_items

# Events the per-user cap pushed out of the hot tier still answer, a little behind the rest.
COLD_TIER_FACTOR = 0.9
# The lexical candidates, the user's term counts and fresh list are read beside the query's embedding.
_BESIDE = ("recall-beside", 12)  # the process's pool for them (``deps.runtime``): its name and size
# How long the episodes step waits for the names the user gave (the graph, read beside the
# lexical search): a question naming nobody never waits, and a slow graph costs a name check,
# never the step.
_OWN_NAMES_WAIT_S = 0.3
# Enough of the user's nearest events to tell the script they write in.
_SCRIPT_SAMPLE = 20
# Episodes are things that happened; only these types are beliefs that fade.
_EPISODE_DECAY = {"preference": "preference", "dislike": "preference", "emotion": "emotion"}
_NO_SUBSTANCE = ("greeting", "small_talk")
# The user as a whole is what they said: the assistant's answers are not about them.
_NOT_ABOUT_THE_USER = (*_NO_SUBSTANCE, EventType.ASSISTANT.value)


def _parse(ts: str) -> datetime:
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def _glosses(topic: str, han_words: tuple[str, ...], asked_in: str) -> tuple[Gloss, ...]:
    glossary = load_glossary()
    return glossary.latin_for(han_words) if asked_in == "han" else glossary.han_for(topic)


def _result_within(future, seconds: float, default):
    done, _ = futures.wait([future], timeout=seconds)
    return future.result() if done else default


def _fresh_events(deps: Dependencies, scope: Scope) -> list[tuple[str, list[float] | None]]:
    """Events written in the last seconds, which the index may not show yet. Without them a recall
    misses only what was said in the last second: never a reason to fail the step."""
    if deps.settings.episode_refresh != "false":
        return []
    try:
        return deps.sessions.fresh(scope)
    except StoreUnavailable:
        return []


def _given_names(deps: Dependencies, scope: Scope) -> list[str]:
    """The names the user gave as their own; none when the graph cannot say (a recall never
    fails for a name check)."""
    try:
        return [e["object"] for e in reveal_items(
            deps.keys, scope, deps.graph.items(scope, predicates=(Predicate.HAS_NAME,), limit=5))]
    except EngramError:  # down, or a key that cannot open a sealed name
        return []


def read_episodes(deps: Dependencies, scope: Scope, intent: QueryIntent, now: datetime, recipe: RecallRecipe,
                  timings: dict | None = None, signals: dict | None = None) -> list[RecallItem]:
    """Hybrid retrieval: k-NN and lexical candidates in one request, scored by cosine and by
    BM25 with this user's own term statistics (``domain.recall.lexical``), fused, then shaped by time (a
    named date, "last time") and by each event's weight (feedback, tentativeness).

    The topic is what is searched: a memory cue ("do you remember") is how the user asks, and
    embedding it would pull the query towards every turn about remembering. An event less
    relevant than ``recipe.relevance_floor`` is not an answer, however few others there are."""
    if intent.overview:
        # "What do you remember about me?" shares no words with what the user said: every event
        # is about it. Another person's name ("...about Sam?") is searched for as usual.
        given = deps.runtime.submit(_BESIDE, _given_names, deps, scope) if intent.names else None
        own = own_names(intent.names, _result_within(given, _OWN_NAMES_WAIT_S, [])) if given else frozenset()
        if set(intent.names) <= own:
            if own and signals is not None:
                signals["own_names"] = sorted(own)
            return recent_events(deps, scope, now)
    t0 = time.perf_counter()
    topic = intent.topic or intent.text
    terms = query_terms(topic)
    han_words = chinese_words(topic)  # what a Chinese question is about, as words (the guard's)
    relations = relations_in(topic) if intent.memory_dependent else []  # "my sister", "我弟弟"
    # What needs no vector is asked while the question is embedded (I/O beside CPU): the lexical
    # candidates with the user's term counts, in one round trip, and the fresh list. Sealed
    # (sensitive) events are found lexically by their keyed term tokens only: the user's key is
    # read (or found absent) first, on the same thread.
    def lexical_side() -> tuple[list[dict], int, dict[str, int]]:
        blind = deps.keys.blind_terms(scope, index_terms(topic), create=False)
        return deps.episodes.lexical(scope, lexical_text(topic), recipe.lexical_candidates, blind=blind,
                                     count_terms=list(dict.fromkeys([*terms, *han_words, *relation_terms(relations)])))

    searching = deps.runtime.submit(_BESIDE, lexical_side)
    fresh = deps.runtime.submit(_BESIDE, _fresh_events, deps, scope)
    given = deps.runtime.submit(_BESIDE, _given_names, deps, scope) if intent.names else None
    # A name said all over the user's memory (their own) is who is talking, not what is asked;
    # in a short question it outweighs the topic and finds "See you, Nate!". A question that names
    # anyone is embedded once the counts say whose names those are (one embedding, not two: under
    # load a second one costs more than waiting for the counts); one that names nobody, meanwhile.
    # The user's own name, as they gave it, is background too: their memories seldom say it.
    own = own_names(intent.names, _result_within(given, _OWN_NAMES_WAIT_S, [])) if given else frozenset()
    embedded = topic
    if intent.names and not recipe.embed_background_names:
        _, user_docs, df = searching.result()
        embedded = without_names(topic, sorted(background_names(intent.names, df, user_docs) | own))
        if not content_terms(embedded):
            embedded = topic
    vector = deps.embedder.embed_query([in_users_voice(embedded)])[0] if recipe.dense_weight > 0 else None
    t1 = time.perf_counter()
    knn = deps.episodes.nearest(scope, vector, recipe.candidates) if vector is not None else []
    lexical, user_docs, df = searching.result()
    background = background_names(intent.names, df, user_docs) | own
    t2 = time.perf_counter()
    if timings is not None:
        timings["embed_query"], timings["search"] = (t1 - t0) * 1000, (t2 - t1) * 1000
    docs = {d["event_id"]: reveal_episode(deps.keys, scope, d) for d in lexical + knn}
    fresh_vectors = dict(fresh.result())
    unseen = [i for i in fresh_vectors if i not in docs]
    for doc in deps.episodes.get_fresh(scope, unseen) if unseen else []:
        docs[doc["event_id"]] = reveal_episode(deps.keys, scope, doc)
    texts = {i: d.get("text") or d.get("summary") or "" for i, d in docs.items()}
    # The script the user's memories are in, read from the nearest of them: a word or a name in
    # the other one can only be matched by meaning.
    script = dominant_script(texts[d["event_id"]] for d in knn[:_SCRIPT_SAMPLE]) if knn else "latin"
    asked_in = dominant_script([topic])  # the question's script: its thresholds are its language's
    other_script = asked_in != script
    across = other_script and deps.embedder.translation_cosine is not None
    # Across scripts the question's words are looked up in a dictionary: the candidates and counts
    # of their translations, in a second search (only such questions pay for it).
    glosses = _glosses(topic, han_words, asked_in) if other_script else ()
    if glosses:
        glossed = list(dict.fromkeys(w for g in glosses for w in g))
        asked = lexical_text(" ".join(glossed))
        found, _, glossed_df = deps.episodes.lexical(
            scope, asked, recipe.lexical_candidates, count_terms=glossed,
            blind=deps.keys.blind_terms(scope, index_terms(asked), create=False))  # sealed ones too
        df = {**df, **glossed_df}
        for d in found:
            if d["event_id"] not in docs:
                docs[d["event_id"]] = doc = reveal_episode(deps.keys, scope, d)
                texts[d["event_id"]] = doc.get("text") or doc.get("summary") or ""
    # On one scale whatever the model: 0 where its unrelated pairs sit, 1 for the same text.
    unrelated = deps.embedder.unrelated_cosine
    # Lexical hits come without vectors: one the k-NN side did not return takes its lowest cosine.
    raw = {d["event_id"]: 2 * d["_score"] - 1 for d in knn}
    if vector is not None:  # events the index does not show yet: the same cosine, here
        raw |= {i: unit_cosine(vector, fresh_vectors[i], 0.0) for i in unseen if i in docs and fresh_vectors[i]}
    # Measured against this user's other memories for the question: what an event is worth in the
    # fusion with BM25, and the relevance the guard and the floor read.
    # Across languages a model puts unrelated pairs elsewhere (e5: higher): a user with few events
    # leans on that level, not on the one within a language.
    prior = deps.embedder.unrelated_across_cosine if across else None
    baseline = background_cosine(list(raw.values()), unrelated if prior is None else prior,
                                 recipe.background_prior_docs)
    evidence_cosine = {i: calibrated_cosine(c, baseline) for i, c in raw.items()}
    # A name is evidence that an event is about whom is asked (the guard's relevance), not what
    # ranks the events that name them (``what_is_asked``).
    evidence = evidence_weights(weights(terms, df, user_docs))
    term_weights = weights(what_is_asked(terms, intent.names), df, user_docs)
    glossed_weights = gloss_weights(glosses, df, user_docs)
    if glosses:
        # The translations, and a Chinese question's own words: a user who mostly speaks English
        # may still have said some things in Chinese, and "那个Python例子" has a Latin word English
        # memories hold. An English question's words in Chinese memories are stray Latin: noise.
        asked_words = list(term_weights) if asked_in == "han" else []
        term_weights = weights([*asked_words, *(w for g in glosses for w in g)], df, user_docs)
    average = sum(len(t) for t in texts.values()) / max(len(texts), 1) / 5  # ~5 characters a word
    tokens = {i: Tokens.of(text) for i, text in texts.items()}
    bm25_scores = {i: score for i, text in tokens.items() if (score := bm25(term_weights, text, average)) > 0}
    if recipe.fusion == "rrf":
        best = (recipe.dense_weight + recipe.lexical_weight) / (RRF_K + 1)
        scores = {i: v / best for i, v in reciprocal_rank_fusion(
            [([d["event_id"] for d in knn], recipe.dense_weight),
             (sorted(bm25_scores, key=bm25_scores.__getitem__, reverse=True), recipe.lexical_weight)]).items()}
    else:
        # Words do not match across scripts: what an English question shares with Chinese turns
        # lexically is digits and stray Latin, noise that outranked the answer; only translations do.
        # And a model that does not read both languages (translation_cosine None) ranks them by noise.
        scores = convex_scores(evidence_cosine, bm25_scores,
                               0.0 if glosses and not across else recipe.dense_weight,
                               0.0 if other_script and not glosses else recipe.lexical_weight)
    # An assistant's answer and the request among the candidates it answered: answer -> request.
    asked = {mid: i for i, d in docs.items() if d["type"] != EventType.ASSISTANT for mid in d["message_ids"]}
    threads = {i: asked[d["reply_to"]] for i, d in docs.items() if d.get("reply_to") in asked}
    answers: dict[str, str] = {}  # an answer found through its request
    if intent.about_assistant:
        # "What did you recommend for my flight?" is worded like the request, not the answer: an
        # answer is as relevant as the request it answered, and then ranks above it.
        answers = threads
        for i, request in threads.items():
            scores[i] = max(scores.get(i, 0.0), scores.get(request, 0.0))
    # A turn next to a strong match is likelier the answer than one as weak elsewhere.
    scores = with_neighbours(scores, adjacent({i: (d.get("session_id") or "", d["ts"]) for i, d in docs.items()}),
                             recipe.neighbour_weight)
    # A name the user says everywhere (their own) is not what is asked about; another one is, and
    # an event without it is not a record of it, however close its wording.
    foreground = [n for n in intent.names if n not in background]
    unchecked = [n for n in foreground if not checkable(n, script)]
    foreground = [n for n in foreground if n not in unchecked]
    if signals is not None:
        if own or unchecked or background:
            # Not asked of a record: the user's own names, the names all over their memories (who is
            # talking or talked to: the answer to "What book did the assistant pick for Harold?"
            # asked of Harold's memory does not say "Harold"), and names in a script their memories
            # are not in.
            signals["own_names"] = sorted(own | set(unchecked) | set(background))
        signals["han"] = asked_in == "han"
        if relations:
            signals["unsaid_relations"] = unsaid_relations(relations, df, (t.text for t in tokens.values()),
                                                           memories_in_han=script == "han")
        # Crosses a Lambda boundary as JSON (``TopicWords.from_fields`` reads it back).
        signals["topic_words"] = dataclasses.asdict(topic_words(topic_terms(terms, han_words), intent.names, df,
                                                                user_docs, tokens.values(),
                                                                memories_in_han=script == "han"))
    stretch = across_languages(unrelated, deps.embedder.translation_cosine) if across else 1.0
    relevances = {i: max(stretch * evidence_cosine.get(i, 0.0), weighted_overlap(evidence, tokens[i]),
                         gloss_overlap(glossed_weights, tokens[i])) for i in docs}
    by_recency = sorted(docs, key=lambda i: docs[i]["ts"], reverse=True)
    # "now" in a question that names its own time ("what was he doing in August?") is that time's.
    lateness = (lateness_of({i: _parse(d["ts"]).timestamp() for i, d in docs.items()})
                if intent.current and not intent.window else {})
    items = []
    for event_id, doc in docs.items():
        score = scores.get(event_id, 0.0)
        when = _parse(doc.get("occurred_at") or doc["ts"])
        # Time shapes the order among relevant events; it never lifts an irrelevant one.
        in_window = bool(intent.window) and intent.window[0] <= when <= intent.window[1]
        if in_window:
            score *= 1 + recipe.window_boost
        if intent.recency:
            score *= 1 + recipe.recency_weight / (1 + by_recency.index(event_id))
        score *= 1 + recipe.current_weight * lateness.get(event_id, 0.0)
        score *= 0.5 + 0.5 * min(doc.get("weight", 1.0), 1.0)
        if intent.about_assistant and doc["type"] == EventType.ASSISTANT:
            score *= 1 + recipe.assistant_boost
        elif doc["type"] == EventType.ASSISTANT:
            score *= recipe.assistant_factor
        if doc.get("evicted"):
            score *= COLD_TIER_FACTOR
        # An answer found through its request is as relevant as the request.
        relevance = max(relevances[event_id], relevances[answers.get(event_id, event_id)])
        if in_window:
            # Said on the day the question names: the time is evidence it is the one asked about,
            # as a shared word is (a multiple, so an unrelated event of that day stays irrelevant).
            relevance = min(1.0, relevance * (1 + recipe.window_boost))
        # Across scripts cosines spread too little for a floor to tell noise from an answer: the
        # order still does, and the guard still reads the relevance.
        if relevance < recipe.relevance_floor and not other_script:
            continue
        thread = threads.get(event_id)
        if foreground and not any(tokens[e].frequency(n) for n in foreground for e in (event_id, thread) if e):
            # Not about the one asked about, or about them as "he" or "my husband": ranked after
            # those that name them. Dropped, as on LoCoMo (two humans naming each other), they
            # cost a conversation with an assistant its answers ("What does Theo do?").
            # Only a person the user has named is spoken of as "he": a name they never said keeps
            # every event out ("What is Tom's job?" gets none of the user's own), as does "What do
            # you know about Sam?".
            if recipe.unnamed_factor <= 0 or intent.overview or not any(df.get(n) for n in foreground):
                continue
            score *= recipe.unnamed_factor
        if doc["type"] in _NO_SUBSTANCE:
            # "Hello! How are you today?" embedded alone is near every question; only a word of
            # the question in it ("你好 我空腹血糖 8.3") makes a greeting a record of it.
            relevance = min(relevance, weighted_overlap(evidence, tokens[event_id]))
        items.append(_episode_item(doc, now, score, relevance, texts[thread] if thread else ""))
    return sorted(items, key=lambda i: i.score, reverse=True)


def _episode_item(doc: dict, now: datetime, score: float, relevance: float, thread: str = "") -> RecallItem:
    decay_class = _EPISODE_DECAY.get(doc["type"])
    decayed = (decay_confidence(doc["confidence"], _parse(doc["ts"]), now, decay_class) if decay_class
               else doc["confidence"])
    return RecallItem(
        memory_id=doc["event_id"], layer="episode", type=doc["type"],
        text=doc.get("text") or doc.get("summary") or f"({doc['type']} event)", confidence=doc["confidence"],
        decayed_confidence=decayed, trust_source=doc["trust_source"],
        needs_confirmation=needs_confirmation(decayed) if decay_class else False,
        valid_from=doc.get("occurred_at") or doc["ts"], valid_to=None, score=score, relevance=relevance,
        provenance={"message_ids": doc["message_ids"], "session_id": doc.get("session_id"),
                    "device_id": doc.get("device_id"), "ts": doc["ts"]},
        extra={"tags": doc.get("tags", [])}, thread=thread)


# A question about the user as a whole reads their newest events of substance; each is a record.
_OVERVIEW_EVENTS = 20
_OVERVIEW_RELEVANCE = 0.5


def recent_events(deps: Dependencies, scope: Scope, now: datetime) -> list[RecallItem]:
    """The user's newest events (no greetings or small talk), newest first: what a question about
    the user as a whole gets besides their beliefs."""
    items = []
    for rank, found in enumerate(deps.episodes.recent(scope, _OVERVIEW_EVENTS, skip_types=_NOT_ABOUT_THE_USER)):
        doc = reveal_episode(deps.keys, scope, found)
        score = _OVERVIEW_RELEVANCE * (0.5 + 0.5 * min(doc.get("weight", 1.0), 1.0)) / (1 + 0.05 * rank)
        items.append(_episode_item(doc, now, score, _OVERVIEW_RELEVANCE))
    return items

"""The guard's check of a question whose topic the user mostly never said: which of the answer's
top events are about it all the same (``heard_events``)."""

from __future__ import annotations

from ...dependencies import Dependencies
from ...domain.recall.fusion import RecallItem, RecallRecipe, best_cosine, counted_records, record_candidates
from ...domain.recall.lexical import TopicWords
from ...domain.recall.query import QueryIntent


def heard_events(deps: Dependencies, intent: QueryIntent, recipe: RecallRecipe, items: list[RecallItem],
                 topic: dict, topic_han: bool = False) -> list[str] | None:
    """For a memory question whose topic was mostly never said (``TopicWords.mostly_unsaid``), the
    events among ``items`` (the answer's top ones) that are about it all the same: one holding a
    word of it the user did say or a time it names, else one close to an unsaid word embedded
    alone (the few most relevant candidates, in one batch each side). None: no check applies.
    The guard counts no other event as a record (``fusion.counted_records``)."""
    words = TopicWords.from_fields(topic)
    if not words.mostly_unsaid(recipe.unheard_share, reads_han=deps.embedder.translation_cosine is not None):
        return None
    threshold = recipe.record_threshold(words.all_unsaid, han=topic_han)
    # Only what may be a record is asked (``counted_records``): an assistant's reply that repeats the
    # word ("氨氯地平是很常用的降压药") would leave the user's own turn unchecked, then not count itself.
    candidates = record_candidates(counted_records(items, None, intent.about_assistant), threshold, intent.names,
                                   recipe.unheard_checked)
    heard = [i.memory_id for i in candidates if words.said_in(i.text)]
    if heard or not candidates:
        return heard  # one is enough for the guard: no embedding
    vectors = deps.embedder.embed_query(words.plain_unsaid())
    texts = deps.embedder.embed([i.text for i in candidates])
    unrelated = deps.embedder.unrelated_cosine
    return [i.memory_id for i, text in zip(candidates, texts, strict=True)
            if best_cosine(vectors, text, unrelated) >= recipe.unheard_closeness]

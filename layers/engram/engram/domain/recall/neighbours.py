"""A turn's neighbours in its conversation lend it relevance: the answer to the request a question
matches, the user's "yes, since March" after the assistant's question, the second half of a fact
said over two turns."""

from __future__ import annotations

from collections.abc import Mapping


def adjacent(said: Mapping[str, tuple[str, str]]) -> dict[str, list[str]]:
    """Which candidates sit next to each other: ``said`` maps each to (session, timestamp); in a
    session, each to the one said just before and just after it among the candidates. A turn
    between them that is no candidate is skipped, so two turns around it count as neighbours: the
    conversation's own order, read from what was found (the nearest turns of a strong match are
    mostly found too)."""
    by_session: dict[str, list[tuple[str, str]]] = {}
    for item_id, (session, ts) in said.items():
        by_session.setdefault(session, []).append((ts, item_id))
    out: dict[str, list[str]] = {item_id: [] for item_id in said}
    for turns in by_session.values():
        ordered = [item_id for _, item_id in sorted(turns)]
        for before, after in zip(ordered, ordered[1:], strict=False):
            out[before].append(after)
            out[after].append(before)
    return out


def with_neighbours(scores: Mapping[str, float], neighbours: Mapping[str, list[str]],
                    weight: float) -> dict[str, float]:
    """Each candidate's score plus ``weight`` times its best neighbour's (candidates without a
    score count 0): a turn next to a strong match rises above one as weak in a conversation
    elsewhere. Never lowers a score; ``weight`` 0 changes nothing."""
    if weight <= 0:
        return dict(scores)
    ids = scores.keys() | neighbours.keys()
    return {i: scores.get(i, 0.0) + weight * max((scores.get(n, 0.0) for n in neighbours.get(i, ())), default=0.0)
            for i in ids}

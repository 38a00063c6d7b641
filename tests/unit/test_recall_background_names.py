"""The user's own name is who is talking, not what is asked: a question is embedded without the
names said all over the user's memory, and with the ones it asks about."""

from __future__ import annotations

import dataclasses

from engram.domain.recall.cues import without_names
from engram.domain.recall.fusion import HYBRID
from engram.domain.recall.query import analyse
from engram.service.recall.readers import read_episodes
from tests.unit.support import T0, say


def test_without_names_takes_out_the_names_and_their_possessives_only():
    assert without_names("What state did Nate visit with Nate's dogs?", ["nate"]) == "What state did visit with dogs?"
    assert without_names("Did Natalie call?", ["nate"]) == "Did Natalie call?"
    assert without_names("王老师推荐了什么书", ["王老师"]) == "推荐了什么书"
    assert without_names("Where is Lisbon?", []) == "Where is Lisbon?"


class Recording:
    """The embedder, remembering the vector it gave each text."""

    def __init__(self, embedder) -> None:
        self.inner, self.made = embedder, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed_query(self, texts):
        vectors = self.inner.embed_query(texts)
        self.made += list(zip(texts, vectors, strict=True))
        return vectors


def _searched(deps, scope, question: str, monkeypatch) -> str:
    """The text whose vector the k-NN search was given."""
    recording, searched = Recording(deps.embedder), []
    original = deps.episodes.nearest

    def spy(scope_, vector, *args, **kwargs):
        searched.extend(t for t, v in recording.made if v == vector)
        return original(scope_, vector, *args, **kwargs)

    monkeypatch.setattr(deps.episodes, "nearest", spy)
    read_episodes(dataclasses.replace(deps, embedder=recording), scope, analyse(question, T0), T0, HYBRID)
    monkeypatch.undo()
    return searched[0]


def test_the_users_own_name_is_not_embedded_but_a_name_asked_about_is(deps, consenting, monkeypatch):
    say(deps, consenting, *[f"Nate: {t}" for t in ("See you soon!", "I took my turtles to the beach in Tampa.",
                                                   "Take care!", "My gaming team won again.", "Thanks, Joanna!")])
    say(deps, consenting, "Nate: Jon called about the tournament.", prefix="b")
    assert _searched(deps, consenting, "What state did Nate visit?", monkeypatch) == "What state did visit?"
    # Jon is in one event of six: what the question is about, so it stays in what is searched.
    assert "Jon" in _searched(deps, consenting, "What did Nate tell Jon?", monkeypatch)
    # With nothing left to ask once the name is gone, the question is searched as asked.
    assert _searched(deps, consenting, "Who is Nate?", monkeypatch) == "Who is Nate?"

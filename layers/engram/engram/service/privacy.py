"""Sensitive fields at rest: what is sealed with the user's data key, and how reads reveal it.

Graph: an edge whose predicate is ``sensitive`` (health, relations) points at an object node
named by a keyed placeholder (``crypto.blind_name``: stable per user and name, so reinforcement,
functional closing and dedupe still work on node keys) and carries the real name sealed in
``r.sealed``. Nobody reading Neo4j alone learns that Alice is allergic to peanuts or who her son is.
Turn log: the raw text of a turn the extractor marked sensitive is stored sealed (``eg1:``), and
the archive copies it as it is, so the archive needs no second pass.
Episodes: a sensitive event keeps no plaintext in OpenSearch: its ``text``, ``summary`` and
``context`` are ``eg1:`` tokens, its ``keywords`` one token, and ``blind_terms`` holds keyed tokens of
its words (``domain.privacy.blind_index``) so a lexical search still finds it; the vector stays (recall
needs it; it is not text, and it goes with the event on erasure).
Reads reveal for the user; once the key is shredded they show ``REDACTED`` instead of failing.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import replace

from ..domain.model import PREDICATES, Scope, Turn
from ..domain.privacy import crypto
from ..domain.privacy.blind_index import index_terms
from ..domain.records import Fact
from ..errors import DecryptionFailed, KeyDestroyed
from ..ports import KeyStore

REDACTED = "[redacted: key destroyed]"
GRAPH, TURN = "graph", "turn"
# Purposes of an episode's sealed fields; the archive copies these tokens as they are.
EPISODE_FIELDS = {"text": "episode:text", "summary": "episode:summary", "context": "episode:context"}
EPISODE_KEYWORDS = "episode:keywords"


def protect_fact(keys: KeyStore, scope: Scope, fact: Fact) -> Fact:
    spec = PREDICATES[fact.predicate]
    if not spec.sensitive:
        return fact
    return replace(fact, object=keys.blind(scope, spec.target.value, fact.object),
                   sealed=keys.seal(scope, fact.object, GRAPH))


def _open(keys: KeyStore, scope: Scope, token: str, purpose: str) -> tuple[str, bool]:
    try:
        return keys.open(scope, token, purpose), False
    except (KeyDestroyed, DecryptionFailed):
        return REDACTED, True


def reveal_item(keys: KeyStore, scope: Scope, item: dict) -> dict:
    """A graph item with its real object name (or the redaction), never the ciphertext."""
    out = {k: v for k, v in item.items() if k != "sealed"}
    if item.get("sealed"):
        out["object"], redacted = _open(keys, scope, item["sealed"], GRAPH)
        if redacted:
            out["redacted"] = True
    return out


def reveal_items(keys: KeyStore, scope: Scope, items: list[dict]) -> list[dict]:
    return [reveal_item(keys, scope, i) for i in items]


def seal_turns(keys: KeyStore, scope: Scope, turns: list[Turn], sensitive_ids: set[str]) -> list[Turn]:
    return [replace(t, content=keys.seal(scope, t.content, TURN)) if t.message_id in sensitive_ids else t
            for t in turns]


def reveal_turn(keys: KeyStore, scope: Scope, row: dict) -> dict:
    if not crypto.is_sealed(row.get("content")):
        return row
    content, redacted = _open(keys, scope, row["content"], TURN)
    return {**row, "content": content, "sealed": True, **({"redacted": True} if redacted else {})}


def seal_episode(keys: KeyStore, scope: Scope, doc: dict) -> dict:
    """A sensitive event as OpenSearch may hold it (see the module's docstring)."""
    words = " ".join([doc.get("text") or "", doc.get("summary") or "", *(doc.get("keywords") or [])])
    sealed = {name: keys.seal(scope, doc[name], purpose) if doc.get(name) else ""
              for name, purpose in EPISODE_FIELDS.items()}
    keywords = [keys.seal(scope, json.dumps(list(doc["keywords"])), EPISODE_KEYWORDS)] if doc.get("keywords") else []
    return {**doc, **sealed, "keywords": keywords, "blind_terms": keys.blind_terms(scope, index_terms(words))}


def reveal_episode(keys: KeyStore, scope: Scope, doc: dict, fields: Collection[str] = tuple(EPISODE_FIELDS),
                   keywords: bool = True) -> dict:
    """An event with its fields in clear for its owner (or the redaction once the key is gone).
    A reader that needs only some of them opens only those (``fields``, ``keywords``): the others
    stay sealed in what it gets."""
    if not any(crypto.is_sealed(doc.get(name)) for name in EPISODE_FIELDS):
        return doc
    out = {k: v for k, v in doc.items() if k != "blind_terms"}
    redacted = False
    for name, purpose in EPISODE_FIELDS.items():
        if name in fields and crypto.is_sealed(doc.get(name)):
            out[name], gone = _open(keys, scope, doc[name], purpose)
            redacted |= gone
    words = doc.get("keywords") or []
    if keywords and words and crypto.is_sealed(words[0]):
        opened, gone = _open(keys, scope, words[0], EPISODE_KEYWORDS)
        out["keywords"] = [] if gone else json.loads(opened)
        redacted |= gone
    return {**out, "redacted": True} if redacted else out

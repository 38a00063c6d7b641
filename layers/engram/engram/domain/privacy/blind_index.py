"""Blind-index terms: what a sealed event can still be found by, without its words in clear.

A sensitive event keeps no plaintext in OpenSearch; its text is sealed. To keep lexical recall on
it ("penicillin" finds "Penicillin gives me a rash"), each normalised term of its text is stored
as a keyed token (``crypto.blind_term``: HMAC under the user's data key), and a query's terms are
turned into tokens the same way. Equal words give equal tokens for one user only; without the key
(and after the shred) a token says nothing, not even across users.

Normalisation is deliberately coarse (lower case, a plural ``s`` dropped, CJK as character
bigrams, as the index's own CJK analyser reads it), since a token can only match exactly.
"""

from __future__ import annotations

import re

from ..recall.query import STOPWORDS

MAX_TERMS = 64
_LATIN = re.compile(r"[a-z0-9][a-z0-9'-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _stem(word: str) -> str:
    word = word.strip("'-")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word


def index_terms(text: str) -> list[str]:
    """The distinct terms of ``text`` a blind index holds (at most ``MAX_TERMS``, first first)."""
    lowered = text.lower()
    terms = [_stem(w) for w in _LATIN.findall(lowered)]
    terms = [t for t in terms if len(t) > 2 and t not in STOPWORDS]
    for run in _CJK_RUN.findall(lowered):
        terms += [run] if len(run) == 1 else [run[i:i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(terms))[:MAX_TERMS]

"""Blind-index terms and keyed digests: equal words of one user match, nothing matches across
users or without the key, and CJK text is indexed as the analyser reads it."""

from __future__ import annotations

import hashlib
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from engram.domain.privacy import crypto
from engram.domain.privacy.blind_index import MAX_TERMS, index_terms
from engram.domain.privacy.crypto import DataKey


def key() -> DataKey:
    return DataKey(os.urandom(crypto.KEY_ID_BYTES), os.urandom(32))


def test_terms_are_normalised_words_and_cjk_bigrams():
    assert index_terms("Penicillin gives me RASHES, and peanuts!") == ["penicillin", "give", "rashe", "peanut"]
    assert index_terms("我对青霉素过敏") == ["我对", "对青", "青霉", "霉素", "素过", "过敏"]
    assert index_terms("the and of") == [] and index_terms("") == []


def test_a_query_word_meets_the_stored_word():
    stored, asked = set(index_terms("I'm allergic to peanuts")), set(index_terms("peanut allergy?"))
    assert "peanut" in stored & asked
    assert {"青霉"} <= set(index_terms("青霉素")) & set(index_terms("我对青霉素过敏"))


@settings(max_examples=200)
@given(st.text(max_size=2000))
def test_any_text_gives_a_bounded_list_of_distinct_terms(text):
    terms = index_terms(text)
    assert len(terms) <= MAX_TERMS and len(set(terms)) == len(terms) and all(terms)


@settings(max_examples=100)
@given(st.text(min_size=1, max_size=50))
def test_tokens_match_per_user_only(term):
    alice, bob = key(), key()
    assert crypto.blind_term(alice, term) == crypto.blind_term(alice, term)
    assert crypto.blind_term(alice, term) != crypto.blind_term(bob, term)
    assert crypto.keyed_digest(alice, "content", term) != hashlib.sha256(term.encode()).hexdigest()
    assert crypto.keyed_digest(alice, "content", term) != crypto.keyed_digest(bob, "content", term)

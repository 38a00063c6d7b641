"""Embedder: unit vectors, the same for the same text, closer for texts that share meaning."""

from __future__ import annotations

import numpy as np
import pytest

from ._base import Contract


class EmbedderContract(Contract):
    def test_vectors_are_unit_length_and_384_wide(self, store):
        vectors = store.embed(["I love mango ice cream", "我喜欢吃芒果", ""])
        assert len(vectors) == 3
        for v in vectors:
            assert len(v) == 384 and np.linalg.norm(v) == pytest.approx(1.0, abs=1e-4)

    def test_the_same_text_gives_the_same_vector(self, store):
        one, two = store.embed(["my sister lives in Kyoto", "my sister lives in Kyoto"])
        assert np.dot(one, two) == pytest.approx(1.0, abs=1e-4)

    def test_related_texts_are_closer_than_unrelated_ones(self, store):
        base, near, far = store.embed(["I love mango ice cream", "I really love mango ice cream",
                                       "the quarterly tax filing deadline"])
        # Ranks, not absolute cosines: some models (e5) put unrelated pairs near 0.7.
        assert np.dot(base, near) > 0.8 and np.dot(base, near) > np.dot(base, far) + 0.05

    def test_a_question_is_nearest_the_passage_that_answers_it(self, store):
        passages = store.embed(["I am allergic to peanuts", "My cat is called Pixel", "我住在深圳"])
        (query,) = store.embed_query(["my cat's name is Pixel?"])
        assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-4)
        assert int(np.argmax(np.asarray(passages) @ np.asarray(query))) == 1
        assert store.embed_query([]) == []

    def test_nothing_to_embed_is_nothing(self, store):
        assert store.embed([]) == []
        store.warm_up()

    def test_a_translation_sits_where_the_model_says(self, store):
        # The level the recall stretches relevance by across languages: a model that claims one
        # puts an English question's Chinese answer near it, above unrelated Chinese text.
        if store.translation_cosine is None:
            return
        assert store.unrelated_cosine < store.translation_cosine < 1.0
        (query,) = store.embed_query(["What subject did I teach before I retired?"])
        answer, other = store.embed(["我退休前在小学教了三十四年语文", "周末我和女儿去公园放风筝"])
        assert np.dot(query, answer) == pytest.approx(store.translation_cosine, abs=0.06)
        assert np.dot(query, answer) > np.dot(query, other) + 0.03
        assert store.unrelated_across_cosine is not None
        assert np.dot(query, other) == pytest.approx(store.unrelated_across_cosine, abs=0.05)

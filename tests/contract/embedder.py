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
        assert np.dot(base, near) > 0.8 and np.dot(base, near) > np.dot(base, far) + 0.3

    def test_nothing_to_embed_is_nothing(self, store):
        assert store.embed([]) == []
        store.warm_up()

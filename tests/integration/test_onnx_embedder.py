"""MiniLM on onnxruntime from the build's export (``local.onnx.export``, made by
``local/bootstrap-venv``): the port's contract, and the same vectors as sentence-transformers, so
the default backend ("auto": ONNX when exported) can stand in for torch over vectors torch stored.
No server is needed; the export and torch are."""

from __future__ import annotations

import numpy as np
import pytest

from engram.adapters.embedders.onnx import MAX_TOKENS, OnnxEmbedder
from engram.adapters.embedders.sentence_transformers import SentenceEmbedder, onnx_export_in
from engram.config import Settings
from local.bench import corpus
from tests.contract.embedder import EmbedderContract

ONNX_DIR = Settings().embed_onnx_dir
if not onnx_export_in(ONNX_DIR):
    pytest.skip(f"no ONNX export in {ONNX_DIR}: local/bootstrap-venv makes it", allow_module_level=True)


@pytest.fixture(scope="module")
def deps():  # the contract's fixture; an embedder needs no store
    return None


class TestOnnxEmbedder(EmbedderContract):
    def make(self, deps):
        return OnnxEmbedder(ONNX_DIR)


def test_fp32_vectors_are_sentence_transformers_vectors():
    # More texts than one batch (64), of mixed lengths (padding inside a batch), one longer than
    # the model reads (both cut it at MAX_TOKENS), an empty one, Chinese and accents.
    texts = [t["content"] for t in corpus.turns(150)] + [
        "", "word " * (2 * MAX_TOKENS), "我养了一只猫，叫 Pixel。", "Émile's café — naïve résumé 🐱"]
    onnx = np.asarray(OnnxEmbedder(ONNX_DIR).embed(texts))
    torch = np.asarray(SentenceEmbedder().embed(texts))
    cosines = (onnx * torch).sum(axis=1)
    assert onnx.shape == torch.shape == (len(texts), 384)
    assert cosines.min() > 0.9999, f"text {int(cosines.argmin())}: cosine {cosines.min():.6f}"

"""Which embedder ``ENGRAM_EMBED_BACKEND`` gives (``adapters.embedders.sentence_transformers.embedder_for``):
"auto", the default, is MiniLM on onnxruntime when its export is complete in ``ENGRAM_EMBED_ONNX_DIR``
and on sentence-transformers otherwise. Choosing loads nothing: no model, no torch, no onnxruntime."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from engram.adapters.embedders.e5 import E5Embedder
from engram.adapters.embedders.onnx import OnnxEmbedder
from engram.adapters.embedders.sentence_transformers import SentenceEmbedder, embedder_for
from engram.config import Settings

needs_onnxruntime = pytest.mark.skipif(importlib.util.find_spec("onnxruntime") is None,
                                       reason="onnxruntime is not installed (the embed extra)")


@pytest.fixture
def exported(tmp_path):
    for name in ("model.onnx", "model_int8.onnx", "tokenizer.json"):
        (tmp_path / name).write_bytes(b"stand-in")
    return tmp_path


def test_auto_is_the_default():
    assert Settings.model_fields["embed_backend"].default == "auto"


@needs_onnxruntime
@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"])
def test_auto_embeds_minilm_on_onnx_when_it_is_exported(exported, model):
    embedder = embedder_for(model, "auto", str(exported))
    assert isinstance(embedder, OnnxEmbedder) and embedder.path == exported / "model.onnx"


def test_auto_is_torch_without_a_finished_export(tmp_path):
    assert isinstance(embedder_for("all-MiniLM-L6-v2", "auto", str(tmp_path / "absent")), SentenceEmbedder)
    (tmp_path / "model.onnx").write_bytes(b"half an export: the tokenizer is moved in last")
    assert isinstance(embedder_for("all-MiniLM-L6-v2", "auto", str(tmp_path)), SentenceEmbedder)


def test_auto_keeps_other_models_on_their_own_adapter(exported):
    assert isinstance(embedder_for("multilingual-e5-small", "auto", str(exported)), E5Embedder)
    other = embedder_for("paraphrase-MiniLM-L3-v2", "auto", str(exported))  # the export is MiniLM-L6's
    assert isinstance(other, SentenceEmbedder) and other.model_name == "paraphrase-MiniLM-L3-v2"


def test_an_explicit_backend_is_kept(exported):
    assert isinstance(embedder_for("all-MiniLM-L6-v2", "torch", str(exported)), SentenceEmbedder)
    int8 = embedder_for("all-MiniLM-L6-v2", "onnx-int8", str(exported))
    assert isinstance(int8, OnnxEmbedder) and int8.path == exported / "model_int8.onnx"


def test_choosing_loads_no_model_runtime(exported):
    code = ("import sys; from engram.adapters.embedders.sentence_transformers import embedder_for; "
            f"embedder_for('all-MiniLM-L6-v2', 'auto', {str(exported)!r}); "
            "embedder_for('all-MiniLM-L6-v2', 'torch', None); "
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'onnxruntime') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

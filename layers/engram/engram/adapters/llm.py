"""Optional LLM extractor behind one interface; the product runs on rules alone without it.

Whatever a model returns is untrusted: it is accepted only as a JSON list whose items name a
type from the closed enum (and, for facts, a predicate the vocabulary knows). Anything else is
dropped, never invented into the schema.
"""

from __future__ import annotations

import json
import urllib.request

from ..config import Settings
from ..domain.extraction import keywords
from ..domain.model import PREDICATES, EventType, Extraction, TrustSource, Turn, resolve_predicate

LLM_CONFIDENCE = 0.5  # SPEC: AI inference
PROMPT = (
    "Extract facts the USER states about themself from the message. Answer with JSON only: a list of "
    'objects {"type": one of %s, "predicate": optional relation word, "object": optional value, '
    '"summary": short text}. Nothing about other people\'s own attributes; no guesses.'
)


def parse_llm_output(text: str, turn: Turn) -> list[Extraction]:
    """Strict reading of a model's answer; returns only what fits the closed vocabularies."""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return []
    if isinstance(data, dict):
        data = data.get("facts", [data])
    out = []
    for item in data if isinstance(data, list) else []:
        if not isinstance(item, dict) or item.get("type") not in EventType._value2member_map_:
            continue
        predicate = resolve_predicate(str(item["predicate"])) if item.get("predicate") else None
        if item.get("predicate") and predicate is None:
            continue
        obj = str(item["object"])[:200] if item.get("object") else None
        summary = str(item.get("summary") or obj or "")[:300]
        if not summary:
            continue
        fact = predicate is not None and obj is not None
        # A health or relation fact marks its event sensitive, whoever found it: that is what
        # seals the turn at rest (routing), as it does for a rule's find.
        out.append(Extraction(type=EventType(item["type"]), summary=summary, message_id=turn.message_id,
                              confidence=LLM_CONFIDENCE, source=TrustSource.LLM,
                              predicate=predicate if fact else None, object=obj if fact else None,
                              sensitive=fact and PREDICATES[predicate].sensitive, keywords=keywords(summary)))
    return out


class OpenAICompatibleExtractor:
    """Any ``/chat/completions`` endpoint (OpenAI, vLLM, Ollama, a Bedrock gateway)."""

    def __init__(self, base_url: str, model: str, api_key: str | None, timeout_s: float = 5.0) -> None:
        self.base_url, self.model, self.api_key, self.timeout_s = base_url.rstrip("/"), model, api_key, timeout_s

    def extract(self, turn: Turn) -> list[Extraction]:
        body = {"model": self.model, "temperature": 0, "messages": [
            {"role": "system", "content": PROMPT % [t.value for t in EventType]},
            {"role": "user", "content": turn.content}]}
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json",
                                                  **({"Authorization": f"Bearer {self.api_key}"}
                                                     if self.api_key else {})})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310 - configured URL
                answer = json.load(response)["choices"][0]["message"]["content"]
        except (OSError, ValueError, KeyError, IndexError):
            return []  # the LLM is an optional helper: rules already ran
        return parse_llm_output(answer, turn)


def configured_extractor(settings: Settings) -> OpenAICompatibleExtractor | None:
    if not settings.llm_url:
        return None
    return OpenAICompatibleExtractor(settings.llm_url, settings.llm_model, settings.llm_api_key)

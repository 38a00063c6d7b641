"""Retroactive consent, as one user's story told through the API: with long-term consent they say
ordinary and sensitive things and the agent records a task (``remember``); then consent is
withdrawn, or child mode turned on, and every store is searched for what they said.

``tests/unit/test_service_consent_retroactive.py`` tells it over the fakes, and
``tests/integration/test_consent_retroactive.py`` over the real stores. Each check looks at the
stores themselves (what someone with the databases would see), not only at what the API shows.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta

from engram.domain.model import Scope
from engram.domain.privacy import crypto
from engram.domain.privacy.consent import CHILD_EVENT_BLANKS
from engram.domain.records import SessionRef

SESSION, DEVICE = "s1", "tablet"
# Within the hot window, so recall looks in the turn log, not only in the archive.
T0 = (datetime.now(UTC) - timedelta(hours=2)).replace(microsecond=0)
SAID = (("m1", "user", "My name is Alice Moreau and I love origami."),
        ("m2", "user", "I'm allergic to hazelnuts."),            # sensitive: sealed at rest, in the graph blinded
        ("m3", "user", "Remind me to water the bonsai"),         # a task
        ("m4", "assistant", "Sure, I will remind you about the bonsai."),
        ("m5", "user", "I went kayaking at Lake Tahoe yesterday."))
TASK = ("trip-1", {"title": "Pack for Lisbon", "priority": 2})
LATER = ("m6", "user", "I love pottery.")
# Words of what was said (lower case): none may be found once it is taken back.
SAID_WORDS = ("moreau", "origami", "hazelnut", "bonsai", "kayak", "tahoe", "lisbon")
PROFILE_WORDS = ("moreau", "origami", "hazelnut")   # what the graph learned
QUERIES = ("What is my name?", "What am I allergic to?", "bonsai", "kayaking at Lake Tahoe", "Lisbon trip",
           "what exactly did I say last time about origami")


@dataclass(frozen=True)
class User:
    client: object    # a FastAPI TestClient
    headers: dict
    scope: Scope
    keys_before: set = field(default_factory=set)  # data key ids seen before a take-back

    def call(self, method: str, path: str, **kwargs):
        return self.client.request(method, f"/v1/users/{self.scope.user_id}{path}", headers=self.headers, **kwargs)

    def consent(self, long_term: bool, age: int | None = None) -> dict:
        response = self.call("PUT", "/consent", json={"long_term": long_term, **({"age": age} if age else {})})
        assert response.status_code == 200, response.text
        return response.json()

    def say(self, *turns: tuple[str, str, str], start: int = 0) -> dict:
        messages = [{"role": role, "content": text, "message_id": mid,
                     "client_ts": (T0 + timedelta(minutes=start + i)).isoformat()}
                    for i, (mid, role, text) in enumerate(turns)]
        response = self.call("POST", "/messages", json={"session_id": SESSION, "device_id": DEVICE,
                                                        "messages": messages})
        assert response.status_code == 200, response.text
        return response.json()


def remember(user: User) -> None:
    user.consent(True)
    user.say(*SAID)
    task_id, metadata = TASK
    assert user.call("POST", f"/tasks/{task_id}/events", json={"status": "CREATED", "metadata": metadata}
                     ).status_code == 201


def words_in(value: object, words: tuple[str, ...] = SAID_WORDS) -> list[str]:
    text = json.dumps(value, default=str, ensure_ascii=False).lower()
    return [w for w in words if w in text]


def stored(deps, scope: Scope) -> dict:
    """Everything the stores hold of the user, as they hold it (sealed values sealed, vectors in)."""
    return {"episodes": [deps.episodes.get(scope, e["event_id"]) for e in deps.episodes.all_for_user(scope)],
            "turns": deps.turns.turns(scope),
            "sessions": [asdict(deps.sessions.get(ref)) for ref in deps.sessions.sessions_of(scope)],
            "graph": deps.graph.items(scope, include_history=True),
            "tasks": {t.task_id: t.metadata for t in deps.tasks.history(scope)},
            "audit": deps.audit.entries(scope)}


def shown(user: User) -> dict:
    """Everything the API shows of the user: profile, recall for each query, export, working memory."""
    return {"profile": user.call("GET", "/profile").json(),
            "recall": [user.call("POST", "/recall", json={"query": q, "session_id": SESSION, "device_id": DEVICE}
                                 ).json()["items"] for q in QUERIES],
            "export": user.call("GET", "/export").json(),
            "context": user.call("GET", f"/sessions/{SESSION}/context?device_id={DEVICE}").json()}


def assert_remembered(deps, user: User) -> None:
    """Before anything is taken back, it is all there: the later checks could fail."""
    held, seen = stored(deps, user.scope), shown(user)
    assert len(held["graph"]) >= 3 and all(e.get("vector") for e in held["episodes"])
    assert crypto.is_sealed({t["message_id"]: t["content"] for t in held["turns"]}["m2"])
    assert words_in(held) == list(SAID_WORDS) and words_in(seen) == list(SAID_WORDS)
    assert words_in(seen["profile"]) == list(PROFILE_WORDS)
    user.keys_before.add(deps.keys.data_key(user.scope).key_id)


def assert_only_what_child_mode_keeps(deps, user: User) -> None:
    held = stored(deps, user.scope)
    assert words_in(held) == [] and words_in(shown(user)) == []
    assert held["graph"] == [] and deps.graph.count_user(user.scope) == 0
    said = (*SAID, LATER) if len(held["turns"]) > len(SAID) else SAID
    for event in held["episodes"]:
        assert {k: event[k] for k in CHILD_EVENT_BLANKS} == CHILD_EVENT_BLANKS and "vector" not in event
        assert event["type"] and event["ts"] and event["message_ids"]
    assert [(t["message_id"], t["role"], t["content"]) for t in held["turns"]] == [(m, r, None) for m, r, _ in said]
    [session] = held["sessions"]
    assert [(t["message_id"], t["role"], t["content"]) for t in session["turns"]] == [(m, r, "") for m, r, _ in said]
    [made] = [task for task in held["tasks"] if task != TASK[0]]
    assert held["tasks"] == {made: {"title": "", "message_ids": ["m3"]}, TASK[0]: {"title": ""}}
    # Rotated: what the old key sealed is unreadable (a later write may have made a new one).
    now = deps.keys.existing_key(user.scope)
    assert now is None or now.key_id not in user.keys_before


def taken_back(deps, scope: Scope) -> list[dict]:
    """The audit's record of each take-back (counts only)."""
    return [e["after"] for e in deps.audit.entries(scope) if e["action"] == "take_back"]


def ref(scope: Scope) -> SessionRef:
    return SessionRef(scope, DEVICE, SESSION)

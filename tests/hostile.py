"""The hostile-input corpus: requests no client should send, and what the API must answer.

Every case is sent as one user's request between an earlier history (``seed``) and later requests
(``assert_user_still_works``): the answer is never a 5xx, it is a 4xx naming the field where the
client is at fault (or the 2xx the contract promises, e.g. a turn whose relative time cannot be
normalised is stored with a tag), and the user's earlier data and later requests are unaffected.
``tests/unit/test_hostile_input.py`` runs the whole corpus over the fakes;
``tests/integration/test_hostile_input_stores.py`` runs the cases marked ``stores`` over the real
stores, where PostgreSQL, Neo4j and OpenSearch have limits of their own.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

T0 = "2026-11-20T09:00:00Z"
NOW = "2026-11-21T00:00:00Z"
SESSION = "sessions/s1/context?device_id=phone"


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str                       # under /v1/users/{user}/ unless it starts with /
    body: object = None             # JSON, sent with NaN/Infinity and lone surrogates as written
    raw: bytes | None = None        # or these bytes, as they are
    headers: dict = field(default_factory=dict)
    status: int = 400
    field: str | None = None        # the field a 4xx must name (None: not checked)
    stores: bool = False            # also run over the real stores
    check: Callable[[dict], None] | None = None  # more about a 2xx answer


def msg(content: str = "I love jazz", client_ts: object = T0, **more) -> dict:
    return {"role": "user", "content": content, "client_ts": client_ts, **more}


def ingest(*messages: dict, **more) -> dict:
    return {"session_id": "s1", "device_id": "phone", "messages": list(messages), **more}


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def _tagged_unresolved(out: dict) -> None:
    tags = {t for e in out["extracted"] for t in e["tags"]}
    assert "time_unresolved" in tags and "time_resolved" not in tags, out


def _batch_kept(out: dict) -> None:
    _tagged_unresolved(out)
    assert out["accepted"] == 2 and out["message_ids"] == ["bad-time", "fine"], out


def _ts(value: object, status: int = 400, stores: bool = False) -> Case:
    return Case(f"client_ts {value!r}"[:60], "POST", "messages", ingest(msg(client_ts=value)), status=status,
                field="messages[0].client_ts", stores=stores)


CORPUS: list[Case] = [
    # -- times outside the documented range, or no time at all ------------------------------------
    _ts("0001-01-01T00:00:00+01:00", stores=True),
    _ts("9999-12-31T23:59:59-01:00", stores=True),
    _ts("1969-12-31T23:59:59Z"),
    _ts("2200-01-01T00:00:00Z"),
    _ts(10**30), _ts(-1), _ts(1777600800), _ts("9" * 40), _ts("١٧٧٧٦٠٠٨٠٠٠٠٠"), _ts("²"),
    _ts(1.7776008e12), _ts("NaN"), _ts(True), _ts(None), _ts([T0]),
    _ts("2026-02-30T00:00:00Z"), _ts("2026-05-14T09:00:00+24:00"), _ts("2026-05-14T09:00:00"),
    _ts("2026-05-14T09:00:00Z" + " " * 60, status=413),
    Case("client_ts NaN literal", "POST", "messages", raw=b'{"session_id": "s1", "device_id": "phone", '
         b'"messages": [{"role": "user", "content": "hi", "client_ts": NaN}]}', field="messages[0].client_ts"),
    Case("task ts in year 1", "POST", "tasks/t1/events", {"status": "CREATED", "ts": "0001-01-01T00:00:00+01:00"},
         field="ts", stores=True),
    Case("task ts epoch overflow", "POST", "tasks/t1/events", {"status": "CREATED", "ts": 2**70}, field="ts"),
    Case("recall now in year 1", "POST", "recall", {"query": "what did I say yesterday?",
                                                    "now": "0001-01-01T00:00:00+00:00"}, field="now", stores=True),
    Case("recall now in 9999", "POST", "recall", {"query": "tomorrow", "now": "9999-12-31T23:00:00Z"}, field="now"),
    Case("recall now as float", "POST", "recall", {"query": "x", "now": 1.5e12}, field="now"),
    Case("forget before year 1", "DELETE", "memories?before=0001-01-01T00:00:00%2B01:00", field="before",
         stores=True),
    Case("forget before 9999", "DELETE", "memories?before=9999-12-31T23:59:59-01:00", field="before"),
    Case("forget before 1e400", "DELETE", "memories?before=1e400", field="before"),
    Case("forget before huge epoch", "DELETE", "memories?before=" + "9" * 30, field="before"),
    Case("forget before NUL", "DELETE", "memories?before=2026%00", field="before"),
    # -- relative times no calendar can hold: stored as said, tagged, the batch kept ----------------
    Case("800000 days ago, and a fine turn", "POST", "messages",
         ingest(msg("I met her 800000 days ago", message_id="bad-time"), msg("I love jazz", message_id="fine")),
         status=200, stores=True, check=_batch_kept),
    Case("in 10^20 days", "POST", "messages", ingest(msg("see you in 99999999999999999999 days")), status=200,
         stores=True, check=_tagged_unresolved),
    Case("10^9 weeks ago", "POST", "messages", ingest(msg("I moved here 999999999 weeks ago")), status=200,
         check=_tagged_unresolved),
    Case("10^9 months ago", "POST", "messages", ingest(msg("I started 999999999 months ago")), status=200,
         check=_tagged_unresolved),
    Case("5000-digit count", "POST", "messages", ingest(msg("1" * 5000 + " days ago we met")), status=200,
         stores=True, check=_tagged_unresolved),
    Case("800000天前", "POST", "messages", ingest(msg("我们800000天前见过")), status=200, check=_tagged_unresolved),
    Case("yesterday of 1970-01-01", "POST", "messages", ingest(msg("yesterday I met her", "1970-01-01T00:00:00Z")),
         status=200, stores=True, check=_tagged_unresolved),
    Case("day after tomorrow of 2199-12-31", "POST", "messages",
         ingest(msg("the day after tomorrow I fly", "2199-12-31T23:00:00Z")), status=200, check=_tagged_unresolved),
    Case("last frİday", "POST", "messages", ingest(msg("last frİday I met her")), status=200),
    Case("recall 800000 days ago", "POST", "recall", {"query": "when did we meet 800000 days ago?", "now": NOW},
         status=200, stores=True),
    Case("recall yesterday of 1970", "POST", "recall", {"query": "what did I say yesterday?",
                                                        "now": "1970-01-01T00:00:00Z"}, status=200, stores=True),
    Case("recall next month of 2199-12", "POST", "recall", {"query": "what is on next month?",
                                                            "now": "2199-12-31T23:59:59Z"}, status=200),
    # -- NUL and lone surrogates, everywhere text goes -------------------------------------------
    Case("NUL in content", "POST", "messages", ingest(msg("a\x00b")), field="messages[0].content", stores=True),
    Case("lone high surrogate in content", "POST", "messages", ingest(msg("a\ud800b")),
         field="messages[0].content", stores=True),
    Case("lone low surrogate at the end", "POST", "messages", ingest(msg("a", "2026-11-20T09:00:00Z"),
                                                                      msg("b\udfff")), field="messages[1].content"),
    Case("raw UTF-8 of a surrogate", "POST", "messages",
         raw=b'{"session_id": "s1", "device_id": "phone", "messages": [{"role": "user", "content": "\xed\xa0\x80", '
             b'"client_ts": "2026-11-20T09:00:00Z"}]}', field="messages[0].content"),
    Case("invalid UTF-8", "POST", "recall", raw=b'{"query": "\xff\xfe"}', field="body"),
    Case("a surrogate pair is fine", "POST", "messages", ingest(msg("I love \ud83c\udfb7 jazz")), status=200,
         stores=True),
    Case("NUL in task metadata", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": {"note": "a\x00"}},
         field="metadata", stores=True),
    Case("NUL in a metadata key", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": {"a\x00": 1}},
         field="metadata", stores=True),
    Case("surrogate deep in metadata", "POST", "tasks/t1/events",
         {"status": "CREATED", "metadata": {"a": [{"b": "\udc00"}]}}, field="metadata", stores=True),
    Case("NUL in a session field", "PUT", SESSION, {"fields": {"note": "x\x00"}}, field="fields", stores=True),
    Case("surrogate in a field name", "PUT", SESSION, {"fields": {"\ud800": 1}}, field="fields", stores=True),
    Case("NUL in a query", "POST", "recall", {"query": "tea\x00"}, field="query", stores=True),
    Case("surrogate in a query", "POST", "recall", {"query": "tea\udc00"}, field="query", stores=True),
    Case("NUL in device kind", "POST", "devices", {"device_id": "d2", "kind": "ph\x00ne"}, field="kind",
         stores=True),
    Case("surrogate in a profile object", "PATCH", "profile/items/p1", {"object": "\ud800"}, field="object"),
    Case("NUL in a message id", "POST", "messages", ingest(msg(message_id="m\x00")), field="messages[0].message_id"),
    Case("NUL in session_id", "POST", "messages", {**ingest(msg()), "session_id": "s\x00"}, field="session_id"),
    Case("surrogate in a path id", "GET", "/v1/users/%ED%A0%80/profile", field="user_id"),
    Case("NUL in a path id", "GET", "/v1/users/a%00b/profile", field="user_id", stores=True),
    Case("NUL in device_id", "GET", "sessions/s1/context?device_id=ph%00ne", field="device_id", stores=True),
    # -- NaN, Infinity and numbers that overflow ---------------------------------------------------
    Case("NaN in task metadata", "POST", "tasks/t1/events", raw=b'{"status": "CREATED", "metadata": {"eta": NaN}}',
         field="metadata", stores=True),
    Case("-Infinity deep in metadata", "POST", "tasks/t1/events",
         raw=b'{"status": "CREATED", "metadata": {"a": [1, {"b": -Infinity}]}}', field="metadata"),
    Case("Infinity in a session field", "PUT", SESSION, raw=b'{"fields": {"score": Infinity}}', field="fields",
         stores=True),
    Case("1e400 in a session field", "PUT", SESSION, raw=b'{"fields": {"score": 1e400}}', field="fields"),
    Case("2^64 in metadata", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": {"n": 2**64}},
         field="metadata", stores=True),
    Case("a 5000-digit integer", "PUT", SESSION, raw=b'{"fields": {"n": ' + b"9" * 5000 + b"}}", field="body"),
    Case("NaN as k", "POST", "recall", raw=b'{"query": "x", "k": NaN}', field="k"),
    Case("k of 10^30", "POST", "recall", {"query": "x", "k": 10**30}, field="k"),
    Case("NaN as age", "PUT", "consent", raw=b'{"long_term": true, "age": NaN}', field="age"),
    Case("age of 10^30", "PUT", "consent", {"long_term": True, "age": 10**30}, field="age"),
    Case("Infinity as confidence", "PATCH", "profile/items/p1", raw=b'{"confidence": Infinity}', field="confidence"),
    Case("NaN as a rollback version", "POST", "sessions/s1/rollback?device_id=phone", raw=b'{"version": NaN}',
         field="version"),
    Case("rollback version 2^40", "POST", "sessions/s1/rollback?device_id=phone", {"version": 2**40},
         field="version"),
    Case("limit of 10^30", "GET", "tasks?limit=" + "9" * 30, field="limit"),
    Case("limit of NaN", "GET", "tasks?limit=NaN", field="limit"),
    # -- huge and deeply nested JSON, oversized fields -----------------------------------------------
    Case("fields nested 9 levels", "PUT", SESSION, {"fields": {"a": nested(9)}}, field="fields"),
    Case("metadata nested 9 levels", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": {"a": nested(9)}},
         field="metadata"),
    Case("a body nested 100000 levels", "PUT", SESSION, raw=b'{"fields": {"a": ' + b"[" * 100_000 + b"]" * 100_000
         + b"}}", field="body"),
    Case("metadata over 16 KiB", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": {"a": "x" * 17_000}},
         status=413, field="metadata", stores=True),
    Case("65 session fields", "PUT", SESSION, {"fields": {f"f{i}": i for i in range(65)}}, status=413,
         field="fields"),
    Case("a 65-character field name", "PUT", SESSION, {"fields": {"k" * 65: 1}}, status=413, field="fields"),
    Case("33 aliases", "PUT", SESSION, {"fields": {"aliases": {f"a{i}": "x" for i in range(33)}}}, status=413,
         field="fields"),
    Case("an alias to a number", "PUT", SESSION, {"fields": {"aliases": {"that one": 5}}}, field="fields"),
    Case("content of 8001 characters", "POST", "messages", ingest(msg("x" * 8001)), status=413,
         field="messages[0].content"),
    Case("101 messages", "POST", "messages", ingest(*[msg(f"x{i}") for i in range(101)]), status=413,
         field="messages"),
    Case("a 7 MB body", "POST", "recall", raw=b'{"query": "' + b"x" * 7_000_000 + b'"}', status=413, field="body",
         stores=True),
    Case("a query of 2001 characters", "POST", "recall", {"query": "x" * 2001}, status=413, field="query"),
    Case("a 2000-character CJK query", "POST", "recall", {"query": "记" * 2000, "now": NOW}, status=200,
         stores=True),
    Case("a 2000-character query of 1000 words", "POST", "recall", {"query": "ab " * 666, "now": NOW}, status=200,
         stores=True),
    Case("device kind of 65 characters", "POST", "devices", {"device_id": "d2", "kind": "k" * 65}, status=413,
         field="kind"),
    Case("profile object of 201 characters", "PATCH", "profile/items/p1", {"object": "o" * 201}, status=413,
         field="object"),
    Case("a 129-character user id", "GET", "/v1/users/" + "u" * 129 + "/profile", status=413, field="user_id"),
    # -- wrong types, unknown fields, malformed bodies -------------------------------------------------
    Case("messages not a list", "POST", "messages", ingest() | {"messages": "hi"}, field="messages"),
    Case("a message that is a string", "POST", "messages", ingest("hi"), field="messages[0]"),
    Case("role as a number", "POST", "messages", ingest(msg(role=5)), field="messages[0].role"),
    Case("an unknown top-level field", "POST", "messages", ingest(msg(), admin=True), field="admin"),
    Case("an unknown message field", "POST", "messages", ingest(msg(mood="happy")), field="messages[0].mood"),
    Case("a body that is an array", "POST", "recall", [1, 2], field="body"),
    Case("a body that is null", "POST", "recall", raw=b"null", field="body"),
    Case("a body that is not JSON", "POST", "recall", raw=b"{not json", field="body"),
    Case("an empty body", "POST", "recall", raw=b"", field="body"),
    Case("text/plain", "POST", "recall", raw=b'{"query": "x"}', headers={"Content-Type": "text/plain"},
         field="body"),
    Case("long_term as a string", "PUT", "consent", {"long_term": "true"}, field="long_term"),
    Case("useful as 1", "POST", "memories/ev-1/feedback", {"useful": 1}, field="useful"),
    Case("an unknown task status", "POST", "tasks/t1/events", {"status": "DONE"}, field="status"),
    Case("metadata as a list", "POST", "tasks/t1/events", {"status": "CREATED", "metadata": [1]}, field="metadata"),
    Case("rollback with version and steps", "POST", "sessions/s1/rollback?device_id=phone",
         {"version": 1, "steps": 1}, field="version"),
    Case("rollback with neither", "POST", "sessions/s1/rollback?device_id=phone", {}, field="version"),
    Case("k of 0", "POST", "recall", {"query": "x", "k": 0}, field="k"),
    Case("k as a string", "POST", "recall", {"query": "x", "k": "5"}, field="k"),
    Case("a session without its device", "POST", "recall", {"query": "x", "session_id": "s1"}, field="device_id"),
    Case("a blank query", "POST", "recall", {"query": "   "}, field="query"),
    # -- bad query parameters, path ids, headers ---------------------------------------------------------
    Case("history=maybe", "GET", "profile?history=maybe", field="history"),
    Case("status=closed", "GET", "tasks?status=closed", field="status"),
    Case("limit=-1", "GET", "tasks?limit=-1", field="limit"),
    Case("an unknown memory type", "DELETE", "memories?type=bogus", field="type"),
    Case("forget with neither type nor before", "DELETE", "memories", field="type"),
    Case("forget an unknown episode id", "DELETE", "memories/ev-0000", status=404, field="memory_id", stores=True),
    Case("forget an unknown task-like id", "DELETE", "memories/no-such-task", status=404, field="memory_id",
         stores=True),
    Case("forget a 129-character memory id", "DELETE", "memories/" + "e" * 129, status=413, field="memory_id"),
    Case("forget a memory id with NUL", "DELETE", "memories/ev-%00", field="memory_id"),
    Case("clear a session with a bad device id", "DELETE", "sessions/s1?device_id=a%20b", field="device_id"),
    Case("clear a session with a 129-character id", "DELETE", "sessions/" + "s" * 129, status=413,
         field="session_id"),
    Case("context without device_id", "GET", "sessions/s1/context", field="device_id"),
    Case("a user id with a space", "GET", "/v1/users/a%20b/profile", field="user_id"),
    Case("a task id with a slash", "POST", "tasks/a%2Fb/events", {"status": "CREATED"}, status=404),
    Case("a bad erasure job id", "GET", "/v1/erasure-jobs/%20", field="job_id"),
    Case("an unknown route", "GET", "/v1/users/{user}/secrets", status=404),
    Case("a wrong method", "PUT", "profile", {}, status=405),
    Case("a 256-character Idempotency-Key", "POST", "tasks/t1/events", {"status": "CREATED"},
         headers={"Idempotency-Key": "k" * 256}, status=413, field="Idempotency-Key"),
    Case("an empty Idempotency-Key", "POST", "tasks/t1/events", {"status": "CREATED"},
         headers={"Idempotency-Key": ""}, field="Idempotency-Key"),
    Case("an Idempotency-Key with a space", "POST", "tasks/t1/events", {"status": "CREATED"},
         headers={"Idempotency-Key": "a b"}, field="Idempotency-Key", stores=True),
    Case("an Idempotency-Key with a control character", "POST", "tasks/t1/events", {"status": "CREATED"},
         headers={"Idempotency-Key": "a\x01b"}, field="Idempotency-Key", stores=True),
    Case("an Idempotency-Key in Latin-1", "PUT", SESSION, {"fields": {"a": 1}},
         headers={"Idempotency-Key": "clé"}, field="Idempotency-Key", stores=True),
    Case("an API key with a control character", "GET", "profile", headers={"Authorization": "Bearer k\x7f"},
         status=401, field="Authorization", stores=True),
    Case("an API key of 10000 characters", "GET", "profile", headers={"Authorization": "Bearer " + "k" * 10_000},
         status=401, field="Authorization", stores=True),
    Case("an API key in Latin-1", "GET", "profile", headers={"Authorization": "Bearer clé"}, status=401,
         field="Authorization", stores=True),
]


def request_of(case: Case, user: str) -> dict:
    """``case`` as keyword arguments of a TestClient ``request``."""
    path = case.path.replace("{user}", user) if case.path.startswith("/") else f"/v1/users/{user}/{case.path}"
    headers = {"Content-Type": "application/json", **case.headers}
    if case.raw is not None:
        content = case.raw
    elif case.body is not None:
        content = json.dumps(case.body).encode()  # NaN, Infinity, lone surrogates (as \\udXXX) pass as written
    else:
        content, headers = None, case.headers
    # httpx encodes str header values as ASCII; a client may send any byte, so send them as Latin-1
    encoded = {k: v.encode("latin-1") for k, v in headers.items()}
    return {"method": case.method, "url": path, "content": content, "headers": encoded}


def send(client, case: Case, user: str, headers: dict | None = None):
    request = request_of(case, user)
    request["headers"] = {**{k: v.encode() for k, v in (headers or {}).items()}, **request["headers"]}
    return client.request(**request)


def assert_answered(case: Case, response) -> None:
    """No 5xx; the expected status; a 4xx in the error shape, naming the field."""
    assert response.status_code < 500, f"{case.name}: {response.status_code} {response.text[:300]}"
    assert response.status_code == case.status, f"{case.name}: {response.status_code} {response.text[:300]}"
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"] and error["message"], case.name
        if case.field is not None:
            assert error.get("field") == case.field, f"{case.name}: field {error.get('field')!r}, {error['message']}"
    elif case.check is not None:
        case.check(response.json())


def seed(client, user: str, headers: dict | None = None) -> None:
    """The user's earlier history: a turn, a session field, a task."""
    base, h = f"/v1/users/{user}", headers or {}
    assert client.post(f"{base}/messages", headers=h, json=ingest(msg("I love green tea", message_id="seed-1"))
                       ).status_code == 200
    assert client.put(f"{base}/{SESSION}", headers=h, json={"fields": {"current_item": "green tea"}}).status_code == 200
    assert client.post(f"{base}/tasks/seed-task/events", headers=h, json={"status": "CREATED"}).status_code == 201


def assert_user_still_works(client, user: str, headers: dict | None = None) -> None:
    """The earlier history is intact and later requests of the user work."""
    base, h = f"/v1/users/{user}", headers or {}
    context = client.get(f"{base}/{SESSION}", headers=h)
    assert context.status_code == 200, context.text
    assert "seed-1" in [t["message_id"] for t in context.json()["turns"]]
    assert context.json()["fields"].get("current_item") == "green tea"
    assert client.get(f"{base}/profile", headers=h).status_code == 200
    tasks = client.get(f"{base}/tasks?status=all", headers=h)
    assert tasks.status_code == 200 and "seed-task" in [t["task_id"] for t in tasks.json()["tasks"]]
    recall = client.post(f"{base}/recall", headers=h, json={"query": "What do I love to drink?", "now": NOW})
    assert recall.status_code == 200, recall.text
    assert any("green tea" in i["text"] for i in recall.json()["items"]), recall.json()
    later = client.post(f"{base}/messages", headers=h, json=ingest(msg("I love oolong too", message_id="later-1")))
    assert later.status_code == 200 and later.json()["accepted"] == 1, later.text


def corpus(stores_only: bool = False) -> list:
    import pytest

    return [pytest.param(c, id=c.name) for c in CORPUS if c.stores or not stores_only]

"""docs/api.md, the HTTP contract, kept in step with the app's OpenAPI schema (built in-process, no
server): every route the app serves has its section there, with its parameters, the fields of its
request and answer, and its success status; every route the doc names is served; and every route
of the minimum contract (../shared/API.md, beside the repository when it is there) is served and
documented. A route added without its section fails here."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from engram.api.app import create_app
from tests.fakes import fake_deps

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"
MINIMUM = ROOT.parent / "shared" / "API.md"
METHODS = ("get", "post", "put", "patch", "delete")
# A route as a doc writes it: `METHOD /v1/path` (a query string after it is not part of the path).
_NAMED = re.compile(r"\b(GET|POST|PUT|PATCH|DELETE) (/v1/[^\s`?|]*)")
_SECTION = re.compile(r"^###\s+`(GET|POST|PUT|PATCH|DELETE) (/v1/[^`]+)`\s*$", re.M)
_CODE = re.compile(r"`([^`]+)`")
_WORD = re.compile(r"[A-Za-z0-9_-]+")
_NOT_DOCUMENTED = {"authorization"}  # the same header on every route, described once


def openapi() -> dict:
    return create_app(fake_deps()).openapi()


def operations(spec: dict) -> dict[tuple[str, str], dict]:
    return {(method.upper(), path): op for path, ops in spec["paths"].items()
            for method, op in ops.items() if method in METHODS}


def sections(text: str) -> dict[tuple[str, str], str]:
    """Each route's section: its ``### `METHOD /path``` heading (which names the path's
    parameters) and what follows, up to the next heading."""
    out: dict[tuple[str, str], str] = {}
    for head in _SECTION.finditer(text):
        following = re.compile(r"^#{1,3} ", re.M).search(text, head.end())
        key = (head.group(1), head.group(2))
        # a repeated heading is reported by ``problems``
        out[key] = out.get(key, "") + text[head.start():following.start() if following else len(text)]
    return out


def _properties(spec: dict, schema: dict, seen: frozenset[str] = frozenset()) -> set[str]:
    """Every property name in ``schema``, through references, lists, maps and alternatives."""
    names: set[str] = set()
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        if name in seen:
            return names
        return _properties(spec, spec["components"]["schemas"][name], seen | {name})
    for key, sub in schema.get("properties", {}).items():
        names.add(key)
        names |= _properties(spec, sub, seen)
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            names |= _properties(spec, sub, seen)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            names |= _properties(spec, schema[key], seen)
    return names


def documented_names(spec: dict, op: dict) -> set[str]:
    """What a route's section must name: its parameters (headers but the API key), the fields of
    its request body and of its success answers."""
    names = {p["name"] for p in op.get("parameters", []) if p["name"].lower() not in _NOT_DOCUMENTED}
    for media in op.get("requestBody", {}).get("content", {}).values():
        names |= _properties(spec, media.get("schema", {}))
    for status, answer in op.get("responses", {}).items():
        if status.startswith(("2", "3")):
            for media in answer.get("content", {}).values():
                names |= _properties(spec, media.get("schema", {}))
    return names


def success_statuses(op: dict) -> set[str]:
    return {status for status in op.get("responses", {}) if status.startswith(("2", "3"))}


def _code_words(text: str) -> set[str]:
    return {word.lower() for span in _CODE.findall(text) for word in _WORD.findall(span)}


def problems(spec: dict, text: str) -> list[str]:
    """Every way ``text`` (docs/api.md) and the schema disagree; empty when they agree."""
    served = operations(spec)
    found = sections(text)
    out = []
    heads = [(m.group(1), m.group(2)) for m in _SECTION.finditer(text)]
    out += [f"{m} {p}: more than one section" for m, p in sorted({h for h in heads if heads.count(h) > 1})]
    for key in sorted(served.keys() - found.keys()):
        out.append(f"{key[0]} {key[1]}: served, but no section `### \\`{key[0]} {key[1]}\\``")
    for method, path in sorted({(m, p) for m, p in _NAMED.findall(text)} - served.keys()):
        out.append(f"{method} {path}: named in the doc, but the app serves no such route")
    for key in sorted(served.keys() & found.keys()):
        op, section = served[key], found[key]
        words = _code_words(section)
        missing = sorted(n for n in documented_names(spec, op) if n.lower() not in words)
        if missing:
            out.append(f"{key[0]} {key[1]}: the section does not name {', '.join(missing)}")
        for status in sorted(success_statuses(op)):
            if not re.search(rf"\b{status}\b", section):
                out.append(f"{key[0]} {key[1]}: the section does not give its {status}")
    return out


@pytest.fixture(scope="module")
def spec() -> dict:
    return openapi()


def test_every_route_is_documented_with_its_fields_and_every_documented_route_is_served(spec):
    assert problems(spec, DOC.read_text("utf-8")) == []


def test_a_route_added_without_its_section_fails(spec):
    changed = copy.deepcopy(spec)
    changed["paths"]["/v1/users/{user_id}/dreams"] = {"get": {"responses": {"200": {}}}}
    assert problems(changed, DOC.read_text("utf-8")) == [
        "GET /v1/users/{user_id}/dreams: served, but no section `### \\`GET /v1/users/{user_id}/dreams\\``"]


def test_a_field_or_status_the_doc_does_not_name_fails(spec):
    changed = copy.deepcopy(spec)
    changed["components"]["schemas"]["RecallResponse"]["properties"]["dream_score"] = {"type": "number"}
    changed["paths"]["/v1/users/{user_id}/recall"]["post"]["responses"]["299"] = {"description": "new"}
    found = problems(changed, DOC.read_text("utf-8"))
    assert "POST /v1/users/{user_id}/recall: the section does not name dream_score" in found
    assert "POST /v1/users/{user_id}/recall: the section does not give its 299" in found


def test_a_documented_route_the_app_does_not_serve_fails(spec):
    text = DOC.read_text("utf-8") + "\n### `GET /v1/users/{user_id}/dreams`\n\n`200 {dreams}`\n"
    assert problems(spec, text) == [
        "GET /v1/users/{user_id}/dreams: named in the doc, but the app serves no such route"]


def test_the_minimum_contract_is_served_and_documented(spec):
    if not MINIMUM.exists():
        pytest.skip(f"{MINIMUM} is not beside this checkout")
    minimum = set(_NAMED.findall(MINIMUM.read_text("utf-8")))
    assert len(minimum) >= 18, "the minimum contract's route table was not read"
    assert minimum - operations(spec).keys() == set()
    assert minimum - sections(DOC.read_text("utf-8")).keys() == set()

"""The engrammem client's operation table and models checked against an OpenAPI document (the
in-process app's in tests/unit, the deployed one's in tests/e2e), so the client cannot drift."""

from __future__ import annotations

from engrammem.core import OPERATIONS


def _component(schema: dict, node: dict | None) -> dict | None:
    ref = ((node or {}).get("content", {}).get("application/json", {}).get("schema", {})).get("$ref")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]] if ref else None


def _required(model) -> set[str]:
    return {name for name, f in model.model_fields.items() if f.is_required()}


def drift(schema: dict) -> list[str]:
    """Every difference between the client and ``schema``; empty when they agree."""
    problems = []
    for name, op in OPERATIONS.items():
        entry = schema["paths"].get(op.path, {}).get(op.method.lower())
        if entry is None:
            problems.append(f"{name}: {op.method} {op.path} is not in the schema")
            continue
        headers = {p["name"] for p in entry.get("parameters", []) if p["in"] == "header"}
        if op.idempotency_key != ("Idempotency-Key" in headers):
            problems.append(f"{name}: Idempotency-Key accepted={'Idempotency-Key' in headers}, client sends "
                            f"one={op.idempotency_key}")
        body = _component(schema, entry.get("requestBody"))
        if (body is None) != (op.body is None):
            problems.append(f"{name}: request body in schema={body is not None}, in client={op.body is not None}")
        elif body is not None:
            if set(body["properties"]) != set(op.body.model_fields):
                problems.append(f"{name}: request fields {sorted(body['properties'])} != "
                                f"{sorted(op.body.model_fields)}")
            if set(body.get("required", [])) != _required(op.body):
                problems.append(f"{name}: required {sorted(body.get('required', []))} != {sorted(_required(op.body))}")
        if op.response is None:
            continue
        status = next(s for s in ("200", "201", "202") if s in entry["responses"])
        out = _component(schema, entry["responses"][status])
        if out is None:
            problems.append(f"{name}: no response model in the schema")
            continue
        if set(out["properties"]) != set(op.response.model_fields):
            problems.append(f"{name}: response fields {sorted(out['properties'])} != "
                            f"{sorted(op.response.model_fields)}")
        if not _required(op.response) <= set(out.get("required", [])):
            problems.append(f"{name}: client requires {sorted(_required(op.response) - set(out.get('required', [])))}"
                            " which the schema does not")
    return problems

"""Erasure (GDPR art. 17) as a saga: each function below is one step of
``statemachines/erasure.asl.json``, run by its own Lambda (``functions/erasure_*``).

validate -> mark (writes refused with 409) -> delete in parallel from redis, opensearch,
postgres, neo4j and the archive (which also shreds the user's data key) -> verify (residue per
store) -> record. Every step is idempotent (deleting what is gone deletes nothing), so Step
Functions may retry any of them and a new job for the same user simply completes. Every step
leaves an audit record under a pseudonymous subject (``erasure:<job_id>``): the user's own audit
trail is erased with them; the record that an erasure happened names no one.
"""

from __future__ import annotations

import json
import logging

from botocore.exceptions import BotoCoreError, ClientError

from ..adapters.archive_erasure import ArchiveEraser
from ..adapters.audit_log import AuditEntry
from ..adapters.aws import aws_client
from ..adapters.erasure_store import ErasureStore
from ..config import get_settings
from ..domain.cleaning import format_timestamp as _iso
from ..domain.cleaning import validate_id
from ..domain.model import Scope
from ..errors import StoreUnavailable, ValidationFailed
from .stores import Stores, default_stores

STORES = ("redis", "opensearch", "postgres", "neo4j", "archive")
log = logging.getLogger(__name__)


def _scope(event: dict) -> Scope:
    return Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))


def _audit(stores: Stores, event: dict, step: str, after: dict) -> None:
    stores.audit.append(Scope(event["tenant"], f"erasure:{event['job_id']}"),
                        [AuditEntry("erasure", f"erasure_{step}", step, event["job_id"], "system", None, None, after)])


# -- API -------------------------------------------------------------------------------------------

def request_erasure(scope: Scope, jobs: ErasureStore | None = None) -> dict:
    """Start (or return the running) erasure job of the user."""
    jobs = jobs or ErasureStore()
    arn = get_settings().erasure_state_machine_arn
    if not arn:  # checked first: a misconfigured API must not leave the user blocked
        raise StoreUnavailable("erasure is not configured (ENGRAM_ERASURE_STATE_MACHINE_ARN)")
    job, new = jobs.open_job(scope)
    # Refuse writes from the moment the request is accepted, not only once the saga reaches Mark.
    known = jobs.mark_erasing(scope)
    if new:  # mark_erasing leaves a marker row, so whether the user existed is decided here
        jobs.set_step(job["job_id"], "request", {"status": "SUCCEEDED", "known": known})
    if new:
        payload = {"job_id": job["job_id"], "tenant": scope.tenant, "user_id": scope.user_id}
        try:
            started = aws_client("stepfunctions").start_execution(stateMachineArn=arn, name=job["job_id"],
                                                                  input=json.dumps(payload))
        except (BotoCoreError, ClientError) as exc:
            jobs.finish(job["job_id"], "FAILED", error={"step": "start", "cause": type(exc).__name__})
            raise StoreUnavailable(f"could not start the erasure saga: {exc}") from exc
        jobs.set_execution(job["job_id"], started["executionArn"])
    return {"job_id": job["job_id"], "status": "RUNNING"}


def job_view(tenant: str, job_id: str, jobs: ErasureStore | None = None) -> dict:
    job = (jobs or ErasureStore()).job(tenant, job_id)
    steps = {name: detail.get("status") for name, detail in job["steps"].items()}
    return {"job_id": job["job_id"], "status": job["status"], "steps": steps, "residue": job["residue"],
            "details": job["steps"], "error": job["error"], "created_at": _iso(job["created_at"]),
            "finished_at": _iso(job["finished_at"])}


# -- saga steps ------------------------------------------------------------------------------------

def validate(event: dict, stores: Stores | None = None) -> dict:
    stores = stores or default_stores()
    scope = _scope(event)
    if not isinstance(event.get("job_id"), str):
        raise ValidationFailed("job_id is required", field="job_id")
    requested = ErasureStore().job(scope.tenant, event["job_id"])["steps"].get("request", {})
    known = requested.get("known", stores.users.state(scope).known)
    ErasureStore().set_step(event["job_id"], "validate", {"status": "SUCCEEDED", "known": known})
    _audit(stores, event, "validate", {"known": known})
    return {"known": known}


def mark(event: dict, stores: Stores | None = None) -> dict:
    stores = stores or default_stores()
    known = ErasureStore().mark_erasing(_scope(event))
    ErasureStore().set_step(event["job_id"], "mark", {"status": "SUCCEEDED"})
    _audit(stores, event, "mark", {"erasing": True})
    return {"erasing": True, "known": known}


def _delete(store: str, scope: Scope, stores: Stores) -> dict:
    if store == "redis":
        return {"deleted": stores.sessions.delete_user(scope)}
    if store == "opensearch":
        return {"deleted": stores.episodes.delete_user(scope)}
    if store == "postgres":
        rows = ErasureStore().delete_rows(scope)
        return {"deleted": sum(rows.values()), "tables": rows}
    if store == "neo4j":
        return {"deleted": stores.graph.delete_user(scope)}
    if store == "archive":
        eraser = ArchiveEraser()
        found = eraser.objects_of(scope, _shard(scope))
        deleted = [o["key"] for o in found if o["only_user"] and eraser.delete_all_versions(o["key"])]
        retained = [o["key"] for o in found if o["key"] not in deleted]
        # Shredding last: the key is what makes the retained copies unreadable.
        shredded = stores.keys.shred(scope)
        return {"deleted": len(deleted), "retained_unreadable": retained, "key_shredded": shredded}
    raise ValidationFailed(f"unknown store {store}", field="store")


def _shard(scope: Scope) -> int | None:
    """The user's archive shard by the archive's own rule (issue 6); None: look in every shard."""
    try:
        from ..domain.archive import shard_of
    except ImportError:
        return None
    return shard_of(scope.tenant, scope.user_id, get_settings().archive_shards)


def delete_from(event: dict, store: str, stores: Stores | None = None) -> dict:
    """Delete the user from one store. A store that is down raises ``StoreUnavailable``, the
    state machine's cue to retry with backoff."""
    stores = stores or default_stores()
    scope = _scope(event)
    try:
        detail = _delete(store, scope, stores)
    except (OSError, ConnectionError) as exc:  # a driver's own transport error: transient too
        raise StoreUnavailable(f"{store}: {exc}") from exc
    detail = {"status": "SUCCEEDED", **detail}
    ErasureStore().set_step(event["job_id"], store, detail)
    _audit(stores, event, f"delete_{store}", detail)
    return {"store": store, **detail}


def residue(scope: Scope, stores: Stores) -> dict[str, int]:
    rows = ErasureStore().count_rows(scope)
    return {
        "redis": stores.sessions.count_user(scope),
        "opensearch": stores.episodes.count(scope, tier="all"),
        "postgres": sum(n for table, n in rows.items() if table != "user_keys"),
        "neo4j": stores.graph.count_user(scope),
        # The archive keeps WORM copies; what must be gone is the key that could read them.
        "archive": rows.get("user_keys", 0),
    }


def verify(event: dict, stores: Stores | None = None) -> dict:
    stores = stores or default_stores()
    found = residue(_scope(event), stores)
    jobs = ErasureStore()
    steps = jobs.job(event["tenant"], event["job_id"])["steps"]
    failed = [s for s in STORES if steps.get(s, {}).get("status") != "SUCCEEDED"]
    ok = not failed and not any(found.values())
    jobs.set_step(event["job_id"], "verify", {"status": "SUCCEEDED" if ok else "FAILED", "residue": found})
    _audit(stores, event, "verify", {"residue": found, "failed_steps": failed})
    return {"ok": ok, "residue": found, "failed_steps": failed}


def record(event: dict, stores: Stores | None = None) -> dict:
    stores = stores or default_stores()
    scope = _scope(event)
    jobs = ErasureStore()
    jobs.drop_user(scope)  # writes are accepted again: a returning user starts from nothing
    found = (event.get("verify") or {}).get("residue") or residue(scope, stores)
    jobs.set_step(event["job_id"], "record", {"status": "SUCCEEDED"})
    jobs.finish(event["job_id"], "SUCCEEDED", residue=found)
    _audit(stores, event, "record", {"status": "SUCCEEDED", "residue": found})
    return {"status": "SUCCEEDED"}


def record_failure(event: dict, stores: Stores | None = None) -> dict:
    """Catch handler. A failed store step is recorded and the saga goes on (what the other
    branches did is kept); ``final`` ends the job FAILED with the step named, and alerts."""
    stores = stores or default_stores()
    step, error = event.get("step", "unknown"), event.get("error") or {}
    cause = {"step": step, "error": error.get("Error"), "cause": str(error.get("Cause", ""))[:1000]}
    jobs = ErasureStore()
    verified = event.get("verify") or {}
    if event.get("final"):
        # Name the store steps that failed (a verify that errors because that same store is
        # still down would otherwise hide the cause); the failing step itself if none did.
        steps = jobs.job(event["tenant"], event["job_id"])["steps"]
        failed = (verified.get("failed_steps")
                  or [s for s in STORES if steps.get(s, {}).get("status") == "FAILED"] or [step])
        jobs.finish(event["job_id"], "FAILED", residue=verified.get("residue"), error={**cause, "failed": failed})
    else:
        jobs.set_step(event["job_id"], step, {"status": "FAILED", "error": cause["error"]})
    _audit(stores, event, f"failed_{step}", cause)
    _alert(event, cause)
    return {"store": step, "status": "FAILED", "error": cause["error"]}


def _alert(event: dict, cause: dict) -> None:
    """An EventBridge event an operator's rule turns into a page; never fails the saga."""
    try:
        aws_client("events").put_events(Entries=[{
            "Source": "engram.erasure", "DetailType": "ErasureStepFailed",
            "EventBusName": get_settings().alert_event_bus,
            "Detail": json.dumps({"job_id": event["job_id"], "tenant": event["tenant"], **cause})}])
    except (BotoCoreError, ClientError) as exc:
        log.warning("erasure alert not sent for %s: %s", event.get("job_id"), exc)


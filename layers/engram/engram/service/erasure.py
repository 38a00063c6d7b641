"""Erasure (GDPR art. 17) as a saga: each function below is one step of
``statemachines/erasure.asl.json``, run by its own Lambda (``functions/erasure/app.py``).

validate -> mark (writes refused with 409) -> delete in parallel from every holder of the user's
data (``deps.holders``: redis, opensearch, postgres, neo4j, and the archive, which also deletes
the user's stored exports and shreds their data key) -> verify (residue per holder) -> record.
Every step is idempotent (deleting what is gone deletes nothing), so Step Functions may retry
any of them and a new job for the same user simply completes. Every step leaves an audit record
under a pseudonymous subject (``domain.keys.erasure_audit_subject``, which no valid user id can
equal): the user's own audit trail is erased with them; the record that an erasure happened
names no one.
"""

from __future__ import annotations

import time

from ..dependencies import Dependencies
from ..domain.ingest.sanitise import format_timestamp as _iso
from ..domain.ingest.sanitise import validate_id
from ..domain.keys import erasure_audit_subject
from ..domain.model import Scope
from ..domain.records import AuditEntry
from ..errors import StoreUnavailable, ValidationFailed, WritesInFlight


def _scope(event: dict) -> Scope:
    return Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))


def _audit(deps: Dependencies, event: dict, step: str, after: dict) -> None:
    deps.audit.append(Scope(event["tenant"], erasure_audit_subject(event["job_id"])),
                        [AuditEntry("erasure", f"erasure_{step}", step, event["job_id"], "system", None, None, after)])


# -- API -------------------------------------------------------------------------------------------

def request_erasure(deps: Dependencies, scope: Scope) -> dict:
    """Start (or return the running) erasure job of the user."""
    jobs = deps.erasure_jobs
    arn = deps.settings.erasure_state_machine_arn
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
            execution_arn = deps.workflows.start(arn, job["job_id"], payload)
        except StoreUnavailable as exc:
            jobs.finish(job["job_id"], "FAILED", error={"step": "start", "cause": type(exc).__name__})
            raise StoreUnavailable(f"could not start the erasure saga: {exc.message}") from exc
        jobs.set_execution(job["job_id"], execution_arn)
    return {"job_id": job["job_id"], "status": "RUNNING"}


def job_view(deps: Dependencies, tenant: str, job_id: str) -> dict:
    job = deps.erasure_jobs.job(tenant, job_id)
    steps = {name: detail.get("status") for name, detail in job["steps"].items()}
    return {"job_id": job["job_id"], "status": job["status"], "steps": steps, "residue": job["residue"],
            "details": job["steps"], "error": job["error"], "created_at": _iso(job["created_at"]),
            "finished_at": _iso(job["finished_at"])}


# -- saga steps ------------------------------------------------------------------------------------

def validate(deps: Dependencies, event: dict) -> dict:
    scope = _scope(event)
    if not isinstance(event.get("job_id"), str):
        raise ValidationFailed("job_id is required", field="job_id")
    requested = deps.erasure_jobs.job(scope.tenant, event["job_id"])["steps"].get("request", {})
    known = requested.get("known", deps.users.state(scope).known)
    deps.erasure_jobs.set_step(event["job_id"], "validate", {"status": "SUCCEEDED", "known": known})
    _audit(deps, event, "validate", {"known": known})
    return {"known": known}


def mark(deps: Dependencies, event: dict) -> dict:
    """Refuse the user's writes, then wait for the writes that began before: the delete steps
    start only once no write lease of the user is left (``service.users.write_lease``)."""
    scope = _scope(event)
    known = deps.erasure_jobs.mark_erasing(scope)
    waited = _drain(deps, scope)
    deps.erasure_jobs.set_step(event["job_id"], "mark", {"status": "SUCCEEDED", "drain_s": waited})
    _audit(deps, event, "mark", {"erasing": True, "drain_s": waited})
    return {"erasing": True, "known": known}


def _drain(deps: Dependencies, scope: Scope) -> float:
    started = time.monotonic()
    until = started + deps.settings.erasure_drain_s
    while (held := deps.fence.in_flight(scope)) > 0:
        if time.monotonic() >= until:
            raise WritesInFlight(f"{held} write(s) of the user still in flight")
        time.sleep(0.05)
    return round(time.monotonic() - started, 3)


def delete_from(deps: Dependencies, event: dict, store: str) -> dict:
    """Delete the user from one holder, ``store`` (its name: the state machine's branch passes
    it). A store that is down raises ``StoreUnavailable``, the state machine's cue to retry with
    backoff."""
    scope = _scope(event)
    holder = deps.holders.get(store)
    if holder is None:
        raise ValidationFailed(f"unknown store {store}", field="store")
    try:
        detail = holder.delete(scope)
    except (OSError, ConnectionError) as exc:  # a driver's own transport error: transient too
        raise StoreUnavailable(f"{store}: {exc}") from exc
    detail = {"status": "SUCCEEDED", **detail}
    deps.erasure_jobs.set_step(event["job_id"], store, detail)
    _audit(deps, event, f"delete_{store}", detail)
    return {"store": store, **detail}


def residue(scope: Scope, deps: Dependencies) -> dict[str, int]:
    return {holder.name: holder.residue(scope) for holder in deps.holders}


def verify(deps: Dependencies, event: dict) -> dict:
    found = residue(_scope(event), deps)
    jobs = deps.erasure_jobs
    steps = jobs.job(event["tenant"], event["job_id"])["steps"]
    failed = [s for s in deps.holders.names if steps.get(s, {}).get("status") != "SUCCEEDED"]
    ok = not failed and not any(found.values())
    jobs.set_step(event["job_id"], "verify", {"status": "SUCCEEDED" if ok else "FAILED", "residue": found})
    _audit(deps, event, "verify", {"residue": found, "failed_steps": failed})
    return {"ok": ok, "residue": found, "failed_steps": failed}


def record(deps: Dependencies, event: dict) -> dict:
    scope = _scope(event)
    jobs = deps.erasure_jobs
    jobs.drop_user(scope)  # writes are accepted again: a returning user starts from nothing
    found = (event.get("verify") or {}).get("residue") or residue(scope, deps)
    jobs.set_step(event["job_id"], "record", {"status": "SUCCEEDED"})
    jobs.finish(event["job_id"], "SUCCEEDED", residue=found)
    _audit(deps, event, "record", {"status": "SUCCEEDED", "residue": found})
    return {"status": "SUCCEEDED"}


def record_failure(deps: Dependencies, event: dict) -> dict:
    """Catch handler. A failed store step is recorded and the saga goes on (what the other
    branches did is kept); ``final`` ends the job FAILED with the step named, and alerts."""
    step, error = event.get("step", "unknown"), event.get("error") or {}
    cause = {"step": step, "error": error.get("Error"), "cause": str(error.get("Cause", ""))[:1000]}
    jobs = deps.erasure_jobs
    verified = event.get("verify") or {}
    if event.get("final"):
        # Name the store steps that failed (a verify that errors because that same store is
        # still down would otherwise hide the cause); the failing step itself if none did.
        steps = jobs.job(event["tenant"], event["job_id"])["steps"]
        failed = (verified.get("failed_steps")
                  or [s for s in deps.holders.names if steps.get(s, {}).get("status") == "FAILED"]
                  or [step])
        jobs.finish(event["job_id"], "FAILED", residue=verified.get("residue"), error={**cause, "failed": failed})
    else:
        jobs.set_step(event["job_id"], step, {"status": "FAILED", "error": cause["error"]})
    _audit(deps, event, f"failed_{step}", cause)
    _alert(deps, event, cause)
    return {"store": step, "status": "FAILED", "error": cause["error"]}


def _alert(deps: Dependencies, event: dict, cause: dict) -> None:
    deps.alerts.publish("engram.erasure", "ErasureStepFailed", {"job_id": event["job_id"], "tenant": event["tenant"],
                                                                 **cause})

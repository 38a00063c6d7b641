"""The registry of what holds a user's data (``service.holders``, built by ``bootstrap``): no port
keyed by user is left out of it, the erasure state machine has one branch per holder, every
holder does what it says (or says why not), and erasure, export, retroactive consent and the
contract tests' wipe all go through it."""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import pytest

from engram import ports
from engram.api.schemas import ExportDocument
from engram.bootstrap import user_data_holders
from engram.dependencies import Dependencies
from engram.domain.model import Scope
from engram.domain.privacy.consent import Permissions
from engram.domain.records import SessionRef
from engram.errors import StoreUnavailable
from engram.service import erasure
from engram.service.archival import archive_day
from engram.service.export import deliver, export_document
from engram.service.retroactive import take_back
from engram.service.tasks import record_task_event
from engram.service.users import link_device, set_consent
from local.stackctl.deploy import load_template
from tests.contract._base import wipe
from tests.fakes import fake_deps
from tests.unit.support import T0, run_saga, say
from tests.unit.support import start_erasure as start

ROOT = Path(__file__).resolve().parents[2]
ARN = "arn:aws:states:us-east-1:000000000000:stateMachine:erasure"
NOW = datetime(2026, 11, 21, tzinfo=UTC)
CHILD = Permissions(long_term=False, child_mode=True, version=2)


@pytest.fixture
def deps(settings):
    return fake_deps(settings.model_copy(update={"erasure_state_machine_arn": ARN}))


def remember_everywhere(deps, scope: Scope) -> None:
    """Something of the user in every holder: session, events, turns, tasks, graph, key, archive
    objects and a stored export."""
    set_consent(deps, scope, True, None)
    link_device(deps, scope, "phone", "ios")
    say(deps, scope, "I'm allergic to peanuts.", "I love jazz music.", "Remind me to call the dentist")
    deps.sessions.set_fields(SessionRef(scope, "phone", "s1"), {"current_item": "jazz"})
    record_task_event(deps, scope, "t-own", "CREATED", {"title": "own"}, "2026-11-20T10:00:00Z")
    archive_day(deps, T0.date())
    deliver(deps, scope, delivery="url")


# -- no store keyed by user is forgotten -----------------------------------------------------------

def _keyed_by_user(port: type) -> bool:
    """Whether a method of ``port`` takes a user (a ``Scope``, alone or among others)."""
    methods = [m for name, m in vars(port).items() if inspect.isfunction(m) and not name.startswith("_")]
    return any(re.search(r"\bScope\b", str(p.annotation))
               for m in methods for p in inspect.signature(m).parameters.values())


def parts_keyed_by_user(deps_type: type = Dependencies) -> set[str]:
    """The parts of ``deps_type`` whose port has a method taking a user: what they keep, they keep
    per user."""
    return {f.name for f in fields(deps_type)
            if any(_keyed_by_user(getattr(ports, port)) for port in re.findall(r"\bports\.(\w+)", str(f.type)))}


def unregistered(deps_type: type, holders) -> set[str]:
    return parts_keyed_by_user(deps_type) - {part for holder in holders for part in holder.holds}


def test_every_part_keyed_by_user_has_a_holder(deps):
    assert unregistered(Dependencies, deps.holders) == set()
    assert {"sessions", "episodes", "graph", "turns", "erasure_jobs", "keys", "exports"} <= parts_keyed_by_user()
    registered = {part for holder in deps.holders for part in holder.holds}
    assert registered <= {f.name for f in fields(Dependencies)}, "a holder names a part Dependencies lacks"


class Reminders(Protocol):
    def remind(self, scope: Scope, text: str) -> None: ...


def test_a_new_store_keyed_by_user_and_not_registered_is_named(deps, monkeypatch):
    # What adding a port to engram.ports and a part to Dependencies, and no holder, looks like.
    monkeypatch.setattr(ports, "Reminders", Reminders, raising=False)

    @dataclass(frozen=True, eq=False)
    class WithReminders(Dependencies):
        reminders: ports.Reminders | None = None

    assert unregistered(WithReminders, deps.holders) == {"reminders"}


def test_a_part_answered_for_twice_or_a_name_taken_twice_is_refused(deps):
    with pytest.raises(ValueError, match="registered twice: redis, sessions"):
        deps.holders.plus(type(deps.holders.get("redis"))(deps))


# -- the erasure state machine: one branch per holder, in the registry's order ---------------------

def test_the_erasure_state_machine_has_one_delete_branch_per_holder(deps):
    asl = json.loads((ROOT / "statemachines" / "erasure.asl.json").read_text())
    template = load_template(ROOT / "template.yaml")["Resources"]
    machine = template["ErasureStateMachine"]["Properties"]
    invoked = {p["LambdaInvokePolicy"]["FunctionName"]["Ref"] for p in machine["Policies"]}
    branches = asl["States"]["DeleteEverywhere"]["Branches"]
    assert [b["StartAt"].removeprefix("Delete_") for b in branches] == list(deps.holders.names)
    for name, branch in zip(deps.holders.names, branches, strict=True):
        task, failed = branch["States"][f"Delete_{name}"], branch["States"][f"Delete_{name}_Failed"]
        assert task["Parameters"]["store"] == name
        # The Python exception's class name is the Retry contract.
        assert StoreUnavailable.__name__ in task["Retry"][0]["ErrorEquals"]
        assert [c["Next"] for c in task["Catch"]] == [f"Delete_{name}_Failed"]
        assert (failed["Parameters"]["step"], failed["Parameters"]["final"]) == (name, False)
        function = machine["DefinitionSubstitutions"][task["Resource"].strip("${}")]["Fn::GetAtt"][0]
        props = template[function]["Properties"]
        assert (props["CodeUri"], props["Handler"]) == ("functions/erasure/", "app.delete") and function in invoked


# -- each holder does what it says, or says why not -----------------------------------------------

def test_each_holder_holds_the_user_and_deletes_them(deps, alice):
    remember_everywhere(deps, alice)
    deps.erasure_jobs.mark_erasing(alice)  # PostgreSQL keeps the rows of a user not being erased
    for holder in deps.holders:
        assert holder.residue(alice) > 0, holder.name
        assert holder.delete(alice)["deleted"] >= 0 and holder.residue(alice) == 0, holder.name


def _content(sections: dict) -> list:
    """The items of export sections (an object is one item)."""
    produced = [produce() for produce in sections.values()]
    return [item for value in produced for item in ([value] if isinstance(value, dict) else value)]


def test_each_holder_exports_and_takes_back_unless_it_says_why_not(deps, alice):
    remember_everywhere(deps, alice)
    for holder in deps.holders:
        assert set(holder.waives) <= {"export", "redact"} and all(holder.waives.values()), holder.name
        assert bool(_content(holder.export(alice, NOW))) is ("export" not in holder.waives), holder.name
        assert any(holder.redact(alice, CHILD).values()) is ("redact" not in holder.waives), holder.name


def test_the_export_sections_are_the_published_document(deps, alice):
    head = ("format", "user_id", "exported_at")
    sections = [name for holder in deps.holders for name in holder.export(alice, NOW)]
    assert sorted(sections) == sorted(set(ExportDocument.model_fields) - set(head))


# -- erasure, export, retroactive consent and the wipe go through the registry ----------------------

class Extra:
    """A holder the composition root did not list: what a new store would be once registered."""

    name, holds, waives = "extra", (), {}

    def __init__(self) -> None:
        self.held: set[Scope] = set()
        self.asked: list[tuple[str, Scope]] = []

    def delete(self, scope):
        self.asked.append(("delete", scope))
        deleted = int(scope in self.held)
        self.held.discard(scope)
        return {"deleted": deleted}

    def residue(self, scope):
        return int(scope in self.held)

    def redact(self, scope, permissions):
        self.asked.append(("redact", scope))
        return {"extra_things": 1}

    def export(self, scope, now):
        return {"extra": lambda: ["kept by the extra store"]}


@pytest.fixture
def extra(deps):
    holder = Extra()
    return holder, deps.with_(holders_of=lambda d: user_data_holders(d).plus(holder))


def test_the_saga_deletes_from_a_registered_holder_and_verify_counts_it(extra, alice):
    holder, deps = extra
    remember_everywhere(deps, alice)
    holder.held.add(alice)
    event = start(deps, alice)
    erasure.validate(deps, event)
    erasure.mark(deps, event)
    for name in user_data_holders(deps).names:  # every step but the extra holder's
        erasure.delete_from(deps, event, name)
    unfinished = erasure.verify(deps, event)
    assert unfinished["failed_steps"] == ["extra"] and unfinished["residue"]["extra"] == 1
    assert run_saga(deps, event)["residue"] == dict.fromkeys(deps.holders.names, 0)
    assert ("delete", alice) in holder.asked


def test_export_and_take_back_go_through_a_registered_holder(extra, alice):
    holder, deps = extra
    remember_everywhere(deps, alice)
    assert export_document(deps, alice, NOW)["extra"] == ["kept by the extra store"]
    assert take_back(deps, alice, CHILD)["extra_things"] == 1 and ("redact", alice) in holder.asked


def test_the_contract_wipe_goes_through_a_registered_holder(extra, alice):
    holder, deps = extra
    remember_everywhere(deps, alice)
    holder.held.add(alice)
    wipe(deps, alice)
    assert not any(erasure.residue(alice, deps).values()) and not deps.users.state(alice).known

"""Both chains (ingestion, recall) are one kind of thing, run by one set of runners
(``engram.service.chain``): each is a ``Chain`` of ``Step``s, each step is the handler of the same
name in ``functions/<chain>/app.py``, and that handler's function is what the chain's state machine
calls in the state of that step. The runners themselves, on a chain of toy steps."""

from __future__ import annotations

import ast
import json
import threading
import time
from pathlib import Path

import pytest

from engram.errors import ValidationFailed
from engram.service import chain
from engram.service.chain import Chain, Parallel, Step
from engram.service.ingest import INGEST_CHAIN
from engram.service.recall import RECALL_PLAN
from local.stackctl.deploy import load_template
from tests.fakes import fake_deps

ROOT = Path(__file__).resolve().parents[2]
CHAINS = {"ingest": INGEST_CHAIN, "recall": RECALL_PLAN.chain}


def _handlers(workflow: str) -> set[str]:
    tree = ast.parse((ROOT / "functions" / workflow / "app.py").read_text("utf-8"))
    return {target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
            if isinstance(target, ast.Name)}


def _task_functions(definition: dict) -> list[str]:
    """The ``${...FunctionArn}`` of every Task state, Parallel branches included."""
    out = []
    for state in definition["States"].values():
        if state["Type"] == "Task":
            out.append(state["Resource"].removeprefix("${").removesuffix("}"))
        for branch in state.get("Branches", []):
            out += _task_functions(branch)
    return out


@pytest.mark.parametrize("name", CHAINS)
def test_each_chain_is_a_chain_of_steps_named_by_its_settings(name):
    defined = CHAINS[name]
    assert isinstance(defined, Chain) and defined.name == name
    assert all(type(step) is Step for step in defined)
    assert len({step.name for step in defined}) == len(defined.steps())


@pytest.mark.parametrize("name", CHAINS)
def test_each_step_is_a_lambda_its_state_machine_calls(name):
    template = load_template(ROOT / "template.yaml")["Resources"]
    machine = template[f"{name.capitalize()}StateMachine"]["Properties"]
    definition = json.loads((ROOT / machine["DefinitionUri"]).read_text("utf-8"))
    substitutions = machine["DefinitionSubstitutions"]
    called = {template[substitutions[arn]["Fn::GetAtt"][0]]["Properties"]["Handler"].removeprefix("app.")
              for arn in _task_functions(definition)}
    steps = {step.name for step in CHAINS[name]}
    assert called == steps
    assert steps <= _handlers(name)


# -- the runners, on toy steps --------------------------------------------------------------------

def _add(n: int) -> Step:
    return Step(f"add{n}", lambda _deps, value: value + n, decode=int)


def test_in_process_each_output_is_the_next_input_and_a_parallel_node_joins_in_order():
    toy = Chain("toy", (_add(1), Parallel("both", (_add(10), _add(100)), join=lambda value, outs: [value, *outs]),
                        Step("total", lambda _deps, outs: sum(outs), decode=list)))
    assert chain.run_in_process(fake_deps(), toy, 1) == 2 + 12 + 102
    assert [step.name for step in toy] == ["add1", "add10", "add100", "total"]


def test_a_step_past_its_deadline_is_answered_for_by_late_and_the_others_are_kept():
    release = threading.Event()

    def slow(_deps, value):
        release.wait(5)
        return value

    toy = Chain("toy", (Parallel("layers", (
        Step("slow", slow, decode=int, deadline_ms=lambda _v: 50, late=lambda value, ms: ("late", value, ms)),
        Step("quick", lambda _deps, value: value * 2, decode=int, deadline_ms=lambda _v: 1000)),
        join=lambda _value, outs: outs),))
    started = time.perf_counter()
    try:
        assert chain.run_in_process(fake_deps(), toy, 3) == [("late", 3, 50.0), 6]
    finally:
        release.set()
    assert time.perf_counter() - started < 2


def test_one_step_as_a_lambda_decodes_its_input_and_encodes_its_output():
    prepared = []
    toy = Chain("toy", (Step("twice", lambda _deps, value: value * 2, decode=int, encode=lambda out: {"out": out},
                             prepare=prepared.append),))
    deps = fake_deps()
    assert chain.run_step(deps, toy, "twice", "21") == {"out": 42}
    assert prepared == [deps]


def test_the_configured_runner_hands_the_command_to_the_state_machine_and_needs_its_arn(settings):
    class Command:
        def to_json(self) -> dict:
            return {"asked": True}

    toy = Chain("ingest", (_add(1),))
    deps = fake_deps(settings.model_copy(update={"ingest_runner": "stepfunctions",
                                                 "ingest_state_machine_arn": "arn:sm:toy"}))
    deps.workflows.runner = lambda arn, payload: {"arn": arn, **payload}
    assert chain.run_configured(deps, toy, Command(), lambda: {"in_process": True}) == {"arn": "arn:sm:toy",
                                                                                          "asked": True}
    unset = fake_deps(settings.model_copy(update={"ingest_runner": "stepfunctions"}))
    with pytest.raises(ValidationFailed, match="ENGRAM_INGEST_STATE_MACHINE_ARN") as caught:
        chain.run_configured(unset, toy, Command(), lambda: {})
    assert caught.value.field == "runner"
    assert chain.run_configured(fake_deps(settings), toy, Command(), lambda: {"in_process": True}) == {
        "in_process": True}

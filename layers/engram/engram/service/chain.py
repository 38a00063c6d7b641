"""One way to define a chain of steps and one set of runners, for every chain (ingestion, recall).

A chain is its steps in order, defined once (``Chain``); a ``Parallel`` node runs its steps side by
side on the same input. Two runners execute that one definition:

* in-process (``run_in_process``): each node's output is the next node's input; a step with a
  deadline runs on a thread pool and is settled within it (``Step.late`` answers for a step that
  missed it, which finishes in the background);
* one Lambda per step (``run_step``) under the chain's Express state machine
  (``statemachines/<chain>.asl.json``, one state per step, named after it): the step's input is
  decoded from the JSON its state hands over and its output encoded back; the state machine joins
  what ``run_in_process`` joins (ResultPath, Parallel, Choice). ``run_on_step_functions`` starts
  it and waits for the answer.

``run_configured`` runs a command through whichever ``ENGRAM_<CHAIN>_RUNNER`` names. Exceptions are
raised as they are, whichever runner: their class names are the state machines' Retry/Catch contract.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, Protocol

from ..dependencies import Dependencies
from ..domain.codec import to_jsonable
from ..errors import ValidationFailed


class Command(Protocol):
    """A chain's validated input; its JSON form is the state machine's input."""

    def to_json(self) -> dict: ...


def _no_deadline(_value: Any) -> None:
    return None


@dataclass(frozen=True)
class Step:
    name: str                                     # its handler in functions/<chain>/app.py and its state
    run: Callable[[Dependencies, Any], Any]       # input -> output
    decode: Callable[[Any], Any]                  # its input from the JSON its Lambda is given
    encode: Callable[[Any], Any] = to_jsonable    # its output as the JSON its state passes on
    # In-process: the milliseconds it is given for this input (None: as long as it takes, on the
    # caller's thread) and its output when it took longer.
    deadline_ms: Callable[[Any], float | None] = _no_deadline
    late: Callable[[Any, float], Any] | None = None
    # What it needs once per process before its first deadline starts (a Lambda's own init).
    prepare: Callable[[Dependencies], None] | None = None


@dataclass(frozen=True)
class Parallel:
    name: str
    steps: tuple[Step, ...]
    join: Callable[[Any, list], Any]  # (input, the steps' outputs in order) -> the next node's input


@dataclass(frozen=True)
class Chain:
    name: str  # its settings (ENGRAM_<NAME>_RUNNER, _STATE_MACHINE_ARN) and its state machine
    nodes: tuple[Step | Parallel, ...]

    def steps(self) -> tuple[Step, ...]:
        return tuple(s for node in self.nodes for s in (node.steps if isinstance(node, Parallel) else (node,)))

    def step(self, name: str) -> Step:
        return next(s for s in self.steps() if s.name == name)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps())


def prepare(deps: Dependencies, chain: Chain) -> None:
    """What every step needs before its first deadline, outside all of them."""
    for step in chain:
        if step.prepare is not None:
            step.prepare(deps)


def run_in_process(deps: Dependencies, chain: Chain, value: Any) -> Any:
    """The whole chain in this process, from the first step's input to the last step's output."""
    for node in chain.nodes:
        if isinstance(node, Parallel):
            value = node.join(value, _settled(deps, chain, node.steps, value))
        else:
            value = _settled(deps, chain, (node,), value)[0]
    return value


def _settled(deps: Dependencies, chain: Chain, steps: tuple[Step, ...], value: Any) -> list:
    deadlines = [step.deadline_ms(value) for step in steps]
    if len(steps) == 1 and deadlines[0] is None:
        return [steps[0].run(deps, value)]
    started = time.perf_counter()
    futures = [deps.runtime.pool(chain.name, 8).submit(step.run, deps, value) for step in steps]
    out = []
    for step, deadline_ms, future in zip(steps, deadlines, futures, strict=True):
        if deadline_ms is None:
            out.append(future.result())
            continue
        # Each step's deadline counts from when they all started, not from when it is waited for.
        left_s = deadline_ms / 1000 - (time.perf_counter() - started)
        try:
            out.append(future.result(timeout=max(left_s, 0.001)))
        except FutureTimeout:
            out.append(step.late(value, float(deadline_ms)))
    return out


def run_step(deps: Dependencies, chain: Chain, name: str, event: Any) -> Any:
    """One step as its own Lambda: JSON in (what its state hands over), JSON out."""
    step = chain.step(name)
    value = step.decode(event)
    if step.prepare is not None:
        step.prepare(deps)
    return step.encode(step.run(deps, value))


def run_on_step_functions(deps: Dependencies, chain: Chain, command: Command) -> dict:
    setting = f"ENGRAM_{chain.name.upper()}"
    arn = getattr(deps.settings, f"{chain.name}_state_machine_arn")
    if not arn:
        raise ValidationFailed(f"{setting}_RUNNER=stepfunctions needs {setting}_STATE_MACHINE_ARN", field="runner")
    return deps.workflows.run_sync(arn, command.to_json())


def run_configured(deps: Dependencies, chain: Chain, command: Command, in_process: Callable[[], dict]) -> dict:
    """``command`` through the chain's configured runner: ``in_process()`` (the default), or the
    chain's state machine (``ENGRAM_<CHAIN>_RUNNER=stepfunctions``)."""
    if getattr(deps.settings, f"{chain.name}_runner") == "stepfunctions":
        return run_on_step_functions(deps, chain, command)
    return in_process()

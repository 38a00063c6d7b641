"""Property-based run over the app's own strict OpenAPI schema, on the real stores: no input may
produce a 5xx. Every operation gets ``FUZZ_EXAMPLES`` examples (schemathesis' examples, coverage
and fuzzing phases, positive and negative data), then a stateful run follows the schema's links
(``engram.api.links``: an ingest's session and memories, a task's next event, a profile item, an
erasure job) so ids that exist are fed back in.

``date-time`` values come from inside the documented range (so requests get past the edge into the
stores), from its ends and datetime's own (where an offset overflows), and from anywhere RFC 3339
allows (years 0000-9999): all but the first must be refused cleanly, naming the field.
Erasure sagas are recorded, not started: the saga is tested by test_erasure_saga.py, and hundreds
of executions would swamp LocalStack without exercising the API any further.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.formats import get_default_format_strategies

from engram.api.app import create_app
from engram.bootstrap import bootstrap
from tests.fakes.gateways import RecordingWorkflows

pytestmark = pytest.mark.stack

FUZZ_EXAMPLES = int(os.environ.get("ENGRAM_FUZZ_EXAMPLES", "200"))
ROLES = ("writer", "eraser")
# An erasure request marks its user for good (writes get 409): erasures, and the jobs they lead
# to, run under a tenant of their own, so the fuzzed users of every other operation stay writable.
ERASURE_OPERATIONS = {"POST /v1/users/{user_id}/erasure", "GET /v1/erasure-jobs/{job_id}"}
CHECKS = [not_a_server_error]
SETTINGS = settings(max_examples=FUZZ_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                    database=None)

_offsets = st.sampled_from([UTC, timezone(timedelta(hours=14)), timezone(-timedelta(hours=14)),
                            timezone(-timedelta(hours=11, minutes=30))])


def _times(low: datetime, high: datetime) -> st.SearchStrategy[str]:
    return st.datetimes(min_value=low, max_value=high, timezones=_offsets).map(
        lambda d: d.isoformat().replace("+00:00", "Z"))


DATE_TIMES = st.one_of(
    _times(datetime(1970, 1, 2), datetime(2199, 12, 30)),  # inside the documented range: into the stores
    _times(datetime(1969, 12, 31), datetime(1970, 1, 1, 12)),  # the range's own ends
    _times(datetime(2199, 12, 31), datetime(2200, 1, 1, 12)),
    _times(datetime(1, 1, 1), datetime(1, 1, 2)),  # datetime's ends, where an offset overflows
    _times(datetime(9999, 12, 31), datetime.max),
    get_default_format_strategies()["date-time"],  # anything RFC 3339 allows
)
schemathesis.openapi.format("date-time", DATE_TIMES)


def _deps():
    deps = bootstrap()
    arn = "arn:aws:states:us-east-1:000000000000:stateMachine:fuzz-erasure"
    update = {"erasure_state_machine_arn": arn, "ingest_runner": "inprocess", "recall_runner": "inprocess"}
    return deps.with_(workflows=RecordingWorkflows(), settings=deps.settings.model_copy(update=update))


DEPS = _deps()
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(DEPS))


def new_tenants() -> dict[str, str]:
    """A fresh tenant per role, registered; their API keys by role."""
    keys = {role: f"fuzz-key-{uuid.uuid4().hex}" for role in ROLES}
    for role, key in keys.items():
        DEPS.tenants.register(f"fuzz-{role}-{uuid.uuid4().hex[:10]}", key)
    return keys


def auth(case, keys: dict[str, str]) -> dict:
    return {"Authorization": f"Bearer {keys['eraser' if case.operation.label in ERASURE_OPERATIONS else 'writer']}"}


@pytest.fixture(scope="module")
def keys() -> dict[str, str]:
    return new_tenants()


@schema.parametrize()
@SETTINGS
def test_no_input_produces_a_server_error(case, keys):
    response = case.call(headers=auth(case, keys))
    case.validate_response(response, checks=CHECKS)


class APIWorkflow(schema.as_state_machine()):
    """Sequences of calls along the schema's links, each answer's ids feeding the next call. Each
    sequence starts in tenants of its own: the same calls meet the same state, as Hypothesis
    requires of a state machine it replays."""

    def setup(self):
        self.keys = new_tenants()

    def get_call_kwargs(self, case):
        return {"headers": auth(case, self.keys)}

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        case.validate_response(response, checks=CHECKS)


TestAPIWorkflow = APIWorkflow.TestCase
TestAPIWorkflow.settings = settings(SETTINGS, stateful_step_count=10)

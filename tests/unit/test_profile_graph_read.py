"""``ProfileGraph._read`` is one auto-commit query in a read session (no managed transaction's
BEGIN/COMMIT round trips), retried once on a fresh connection when the pooled one was dropped."""

from __future__ import annotations

import neo4j
import pytest
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from engram.adapters.neo4j.profile_graph import ProfileGraph
from engram.domain.model import Scope
from engram.errors import StoreUnavailable


class _Driver:
    def __init__(self, failures: list[Exception]) -> None:
        self.failures, self.sessions, self.runs = failures, [], []

    @property
    def neo4j(self) -> _Driver:  # stands in for Clients too
        return self

    def session(self, **config):
        self.sessions.append(config)
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, query, params):
        self.runs.append((query, params))
        if self.failures:
            raise self.failures.pop(0)
        return iter([{"n": 1}])


def test_a_read_is_one_auto_commit_query_in_a_read_session():
    driver = _Driver([])
    assert ProfileGraph(driver).count_user(Scope("t", "alice")) == 1
    assert driver.sessions == [{"default_access_mode": neo4j.READ_ACCESS}] and len(driver.runs) == 1


@pytest.mark.parametrize("dropped", [SessionExpired("gone"), ServiceUnavailable("restarted")])
def test_a_dropped_connection_is_retried_once(dropped):
    driver = _Driver([dropped])
    assert ProfileGraph(driver).count_user(Scope("t", "alice")) == 1
    assert len(driver.runs) == 2


def test_a_server_still_down_on_the_retry_is_store_unavailable():
    driver = _Driver([ServiceUnavailable("down"), ServiceUnavailable("still down")])
    with pytest.raises(StoreUnavailable, match="profile graph"):
        ProfileGraph(driver).count_user(Scope("t", "alice"))
    assert len(driver.runs) == 2

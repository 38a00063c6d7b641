"""AlertPublisher (EventBridge): best effort, never raises."""

from __future__ import annotations

from ._base import Contract


class AlertPublisherContract(Contract):
    def make_on_missing_bus(self, deps):
        """A publisher whose event bus does not exist."""
        raise NotImplementedError

    def test_publishing_returns_nothing(self, store):
        assert store.publish("engram.contract", "ContractCheck", {"job_id": "er-1", "n": [1]}) is None

    def test_publishing_to_a_missing_bus_does_not_raise(self, deps):
        assert self.make_on_missing_bus(deps).publish("engram.contract", "ContractCheck", {}) is None

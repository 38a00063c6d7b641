"""Step Functions and EventBridge: starting sagas, running express chains, raising alerts."""

from __future__ import annotations

import json
import logging

from botocore.exceptions import BotoCoreError, ClientError

from ...errors import StoreUnavailable, error_named
from ..clients import Clients

log = logging.getLogger(__name__)


class StepFunctionsGateway:
    def __init__(self, clients: Clients) -> None:
        self._clients = clients

    def start(self, state_machine_arn: str, name: str, payload: dict) -> str:
        try:
            started = self._clients.aws("stepfunctions").start_execution(
                stateMachineArn=state_machine_arn, name=name, input=json.dumps(payload))
        except (BotoCoreError, ClientError) as exc:
            raise StoreUnavailable(f"step functions: {exc}") from exc
        return started["executionArn"]

    def run_sync(self, state_machine_arn: str, payload: dict) -> dict:
        """Run an EXPRESS state machine and return its output; a failed run is StoreUnavailable."""
        # The sync endpoint has its own host prefix ("sync-"), which a local endpoint cannot serve.
        sfn = self._clients.aws("stepfunctions", inject_host_prefix=False)
        try:
            result = sfn.start_sync_execution(stateMachineArn=state_machine_arn, input=json.dumps(payload))
        except (BotoCoreError, ClientError) as exc:
            raise StoreUnavailable(f"step functions: {exc}") from exc
        if result["status"] != "SUCCEEDED":
            # A step's own refusal (ValidationFailed, Conflict, ...) keeps its class and status.
            cause = result.get("cause") or ""
            try:
                parsed = json.loads(cause)
            except ValueError:
                parsed = None
            message = parsed.get("errorMessage", "") if isinstance(parsed, dict) else str(cause)[:300]
            raise error_named(result.get("error"), message or f"step functions: {result.get('error')}")
        return json.loads(result["output"])


class EventBridgeAlerts:
    def __init__(self, clients: Clients, bus: str) -> None:
        self._clients, self.bus = clients, bus

    def publish(self, source: str, detail_type: str, detail: dict) -> None:
        """An event an operator's rule turns into a page; never raises (an alert is best effort)."""
        try:
            self._clients.aws("events").put_events(Entries=[{
                "Source": source, "DetailType": detail_type, "EventBusName": self.bus, "Detail": json.dumps(detail)}])
        except (BotoCoreError, ClientError) as exc:
            log.warning("alert %s not sent: %s", detail_type, exc)

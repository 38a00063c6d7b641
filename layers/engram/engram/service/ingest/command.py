"""What an ingest is asked to do, validated: the command the API builds and the chain's input."""

from __future__ import annotations

from dataclasses import dataclass

from ...domain.ingest.sanitise import message_json, read_message, validate_id
from ...domain.limits import MAX_MESSAGES
from ...domain.model import Message, Scope
from ...errors import PayloadTooLarge, ValidationFailed


@dataclass(frozen=True)
class IngestCommand:
    """A batch of one session's messages for one user, every field checked: one bad message
    refuses the whole batch, naming its field, before anything is written. Its JSON form is the
    ``IngestStateMachine`` input: ``{"tenant", "user_id", "body"}``, the body as sent over HTTP."""

    scope: Scope
    session_id: str
    device_id: str
    messages: tuple[Message, ...]

    @classmethod
    def parse(cls, scope: Scope, session_id: object, device_id: object, messages: object) -> IngestCommand:
        # The scope too: whichever way in, an id that could reach a store key unchecked is refused.
        validate_id(scope.tenant, "tenant")
        validate_id(scope.user_id, "user_id")
        session_id = validate_id(session_id, "session_id")
        device_id = validate_id(device_id, "device_id")
        if not isinstance(messages, list) or not messages:
            raise ValidationFailed("messages must be a non-empty list", field="messages")
        if len(messages) > MAX_MESSAGES:
            raise PayloadTooLarge(f"at most {MAX_MESSAGES} messages per request", field="messages")
        return cls(scope, session_id, device_id, tuple(read_message(i, m) for i, m in enumerate(messages)))

    @classmethod
    def from_body(cls, scope: Scope, body: object) -> IngestCommand:
        """From a ``POST /v1/users/{user_id}/messages`` body, as sent."""
        if not isinstance(body, dict):
            raise ValidationFailed("body must be a JSON object", field="body")
        return cls.parse(scope, body.get("session_id"), body.get("device_id"), body.get("messages"))

    @classmethod
    def from_json(cls, event: object) -> IngestCommand:
        if not isinstance(event, dict):
            raise ValidationFailed("the ingest request must be an object", field="body")
        scope = Scope(validate_id(event.get("tenant"), "tenant"), validate_id(event.get("user_id"), "user_id"))
        return cls.from_body(scope, event.get("body"))

    def to_json(self) -> dict:
        return {"tenant": self.scope.tenant, "user_id": self.scope.user_id, "body": {
            "session_id": self.session_id, "device_id": self.device_id,
            "messages": [message_json(m) for m in self.messages]}}

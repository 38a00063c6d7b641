"""Step 1 of ingestion: make a turn safe and uniform without changing what it says."""

from __future__ import annotations

import hashlib
import html
import re
from datetime import UTC, datetime

from ...errors import PayloadTooLarge, ValidationFailed
from ..limits import (
    EPOCH_MS_MAX,
    EPOCH_MS_MIN,
    MAX_CONTENT_CHARS,
    MAX_ID_CHARS,
    TIME_RANGE_TEXT,
    in_time_range,
    text_problem,
)
from ..model import Message, Role, Turn

ID_PATTERN = re.compile(rf"^[A-Za-z0-9._:-]{{1,{MAX_ID_CHARS}}}$")
ID_TEXT = f"1-{MAX_ID_CHARS} characters of [A-Za-z0-9._:-]"
ASSISTANT_CAP = 500
# What an episode keeps of a long answer (about the 512 tokens the embedder reads of English): the
# recommendation in "Options from least to most effort: 1. ..." is past the first 500 characters,
# which is all the working memory keeps.
SUBSTANCE_CAP = 2000
TRUNCATION_MARKER = " […truncated: full text in history]"
_SPACES = re.compile(r"[ \t\f\v\u00a0\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_TIME_FORMS = "ISO 8601 with offset or epoch milliseconds"


def validate_id(value: object, field: str) -> str:
    if not isinstance(value, str) or not ID_PATTERN.match(value):
        raise ValidationFailed(f"{field} must be {ID_TEXT}", field=field)
    return value


def to_utc(value: object) -> datetime:
    """ISO 8601 with an offset, or epoch milliseconds, as aware UTC inside the documented range
    (``domain.limits``); anything else raises ValueError saying why (without a field name)."""
    if isinstance(value, str):
        text = value.strip()
        if text.isascii() and text.isdigit():
            value = int(text) if len(text) <= 19 else EPOCH_MS_MAX
        else:
            return _from_iso(text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"must be {_TIME_FORMS}")
    if not EPOCH_MS_MIN <= value < EPOCH_MS_MAX:  # also refuses NaN and the infinities
        raise ValueError(f"epoch milliseconds must be from {EPOCH_MS_MIN} to {EPOCH_MS_MAX} (exclusive)")
    return datetime.fromtimestamp(value / 1000, tz=UTC)


def _from_iso(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise ValueError(f"must be {_TIME_FORMS}")
    try:
        when = parsed.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is in year 0 in UTC
        when = None
    if when is None or not in_time_range(when):
        raise ValueError(f"must be {TIME_RANGE_TEXT}")
    return when


def parse_timestamp(value: object, field: str) -> datetime:
    """``to_utc`` with a refusal (400) that names ``field``."""
    try:
        return to_utc(value)
    except ValueError as exc:
        raise ValidationFailed(f"{field} {exc}", field=field) from None


def format_timestamp(value: datetime | str | None) -> str | None:
    """The API's form of a time: ISO 8601 in UTC with a ``Z``; a string is taken as already so."""
    if value is None or isinstance(value, str):
        return value
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def normalise_text(text: str) -> str:
    """Trim, collapse runs of spaces and tabs, keep newlines (they carry structure)."""
    lines = [_SPACES.sub(" ", line).strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def clean_turn(index: int, message: object, session_id: str) -> Turn:
    """Validate and clean one incoming message; ``index`` names the field in errors."""
    return clean_message(read_message(index, message), session_id)


def read_message(index: int, message: object) -> Message:
    """One incoming message, checked: anything that would be refused is refused here, naming the
    field (``messages[<index>].<field>``), so cleaning it afterwards cannot fail."""
    where = f"messages[{index}]"
    if not isinstance(message, dict):
        raise ValidationFailed(f"{where} must be an object", field=where)
    role_value = message.get("role")
    try:
        role = Role(role_value)
    except ValueError:
        raise ValidationFailed(f"{where}.role must be 'user' or 'assistant'", field=f"{where}.role") from None
    content = message.get("content")
    if not isinstance(content, str):
        raise ValidationFailed(f"{where}.content must be a string", field=f"{where}.content")
    if problem := text_problem(content):
        raise ValidationFailed(f"{where}.content {problem}", field=f"{where}.content")
    if len(content) > MAX_CONTENT_CHARS:
        raise PayloadTooLarge(f"{where}.content exceeds {MAX_CONTENT_CHARS} characters", field=f"{where}.content")
    if not normalise_text(content):
        raise ValidationFailed(f"{where}.content is empty", field=f"{where}.content")
    if "client_ts" not in message:
        raise ValidationFailed(f"{where}.client_ts is required", field=f"{where}.client_ts")
    client_ts = parse_timestamp(message["client_ts"], f"{where}.client_ts")
    message_id = message.get("message_id")
    if message_id is not None:
        message_id = validate_id(message_id, f"{where}.message_id")
    return Message(role, content, client_ts, message_id)


def clean_message(message: Message, session_id: str) -> Turn:
    """A checked message as the turn that is stored: its text normalised and escaped, an
    assistant's long answer cut, its id derived when the client sent none."""
    text = normalise_text(message.content)
    raw_sha256 = hashlib.sha256(message.content.encode()).hexdigest()
    message_id = message.message_id
    if message_id is None:
        message_id = derive_message_id(session_id, message.client_ts, raw_sha256)
    truncated = message.role is Role.ASSISTANT and len(text) > ASSISTANT_CAP
    substance = (html.escape(text[:SUBSTANCE_CAP] + (TRUNCATION_MARKER if len(text) > SUBSTANCE_CAP else ""),
                             quote=False) if truncated else "")
    if truncated:
        text = text[:ASSISTANT_CAP] + TRUNCATION_MARKER
    return Turn(
        message_id=message_id,
        role=message.role,
        content=html.escape(text, quote=False),
        client_ts=message.client_ts,
        raw_sha256=raw_sha256,
        truncated=truncated,
        substance=substance,
    )


def message_json(message: Message) -> dict:
    """A checked message as a client would send it (what ``read_message`` reads back the same)."""
    out = {"role": message.role.value, "content": message.content, "client_ts": format_timestamp(message.client_ts)}
    if message.message_id is not None:
        out["message_id"] = message.message_id
    return out


def order_turns(turns: list[Turn]) -> list[Turn]:
    """By the client's clock, not arrival: devices reconnect and send late."""
    return sorted(turns, key=lambda t: (t.client_ts, t.message_id))


def derive_message_id(session_id: str, client_ts: datetime, raw_sha256: str) -> str:
    """A stable id for a message the client sent without one, so retries collapse onto it."""
    digest = hashlib.sha256(f"{session_id}|{client_ts.isoformat()}|{raw_sha256}".encode()).hexdigest()
    return f"m-{digest[:24]}"

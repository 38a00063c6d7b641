"""What the client raises: the API's own error (status, ``code``, ``field``) or a transport failure."""

from __future__ import annotations


class EngramError(Exception):
    """Base of everything this package raises on purpose."""


class EngramAPIError(EngramError):
    """The API answered with an error: ``{"error": {"code", "message", "field"}}``."""

    def __init__(self, status: int, code: str, message: str, field: str | None = None) -> None:
        self.status, self.code, self.message, self.field = status, code, message, field
        where = f" (field {field})" if field else ""
        super().__init__(f"{status} {code}: {message}{where}")


class EngramTransportError(EngramError):
    """The API could not be reached (connection refused, timeout), after the retries allowed."""

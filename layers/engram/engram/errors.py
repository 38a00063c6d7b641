"""One error hierarchy. The class name is also the Step Functions Retry/Catch contract,
and ``status``/``code`` are what the HTTP layer turns an error into."""

from __future__ import annotations


class EngramError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field

    def to_body(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.field:
            error["field"] = self.field
        return {"error": error}


class ValidationFailed(EngramError):
    status, code = 400, "invalid_request"


class Unauthorized(EngramError):
    status, code = 401, "unauthorized"


class Forbidden(EngramError):
    status, code = 403, "forbidden"


class NotFound(EngramError):
    status, code = 404, "not_found"


class Conflict(EngramError):
    status, code = 409, "conflict"


class PayloadTooLarge(EngramError):
    status, code = 413, "payload_too_large"


class Unprocessable(EngramError):
    status, code = 422, "unprocessable"


class StoreUnavailable(EngramError):
    """A store needed for this operation did not answer; transient, safe to retry."""

    status, code = 503, "store_unavailable"


class WritesInFlight(EngramError):
    """The erasure saga's mark step found write leases of the user still held: Step Functions
    retries the step (its Retry names this class) until they end or expire."""

    status, code = 503, "writes_in_flight"


class DecryptionFailed(EngramError):
    """A ciphertext did not authenticate (tampered, truncated, or bound to another owner)."""

    status, code = 500, "decryption_failed"


class KeyDestroyed(EngramError):
    """The data key that sealed a value is gone (crypto-shredded by an erasure): the value is
    unreadable for good. Readers show a redaction instead of failing."""

    status, code = 410, "key_destroyed"


# --- archival (issue 6): these names are the archive state machine's Retry/Catch contract ----

class ArchiveVerificationFailed(EngramError):
    """An archived object does not match its manifest (checksum, rows or schema): never retried."""

    status, code = 500, "archive_verification_failed"


class ArchiveNotVerified(EngramError):
    """Retention was asked to drop data of a day that has no verified archive."""

    status, code = 409, "archive_not_verified"


def error_named(name: str | None, message: str) -> EngramError:
    """The error a failed step raised, rebuilt from its class name (the Step Functions ``error``
    of a Lambda task); an unknown name is a store failure."""
    def subclasses(cls: type) -> list[type]:
        return [cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))]
    found = next((c for c in subclasses(EngramError) if c.__name__ == name), None)
    return (found or StoreUnavailable)(message)

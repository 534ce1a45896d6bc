"""Domain errors shared by every service.

Each carries the HTTP status the API maps it to (``casino.api.exception_handler``) and,
for bad input, the field at fault. Nothing a client sends may surface as a 500.
"""


class DomainError(Exception):
    """Base class: ``message`` for people, ``field`` for the input at fault (or None)."""

    status = 400
    code = "invalid"

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class InvalidInput(DomainError):
    """The request is malformed or breaks a rule (HTTP 400)."""


class InsufficientChips(InvalidInput):
    """A stake or redemption larger than what the patron (or the cage) holds (HTTP 400)."""

    code = "insufficient_funds"


class NotFound(DomainError):
    status = 404
    code = "not_found"


class Conflict(DomainError):
    """The request is valid but clashes with the current state (HTTP 409)."""

    status = 409
    code = "conflict"


class StateConflict(Conflict):
    """An FSM transition not allowed from the current state (e.g. a bet after rien ne va plus)."""

    code = "state_conflict"


class VersionConflict(Conflict):
    """The stream moved on since the caller read it (optimistic concurrency)."""

    code = "version_conflict"


class IdempotencyKeyReused(Conflict):
    """The idempotency key was already used for a different request."""

    code = "idempotency_key_reused"


class UnbalancedPostings(InvalidInput):
    """The postings of one event do not sum to zero per currency (DESIGN.md §The ledger)."""

    code = "unbalanced_postings"

"""Domain errors shared by every service.

Each carries the HTTP status the API maps it to (``core.errors.exception_handler``) and,
for bad input, the field at fault. Nothing a client sends may surface as a 500.
"""

from basis.refusals import REFUSAL_KINDS


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


class SchemaChanged(Conflict):
    """A prepared statement of this connection was planned before a migration changed a table
    it reads, inside a transaction that is now lost (HTTP 409: retry; the rollback forgets the
    connection's prepared statements, so the retry runs). Raised by ``core.rawsql`` and by
    ``ledger.store.append``'s prepared tip read."""

    code = "busy"


STALE_PLAN = "cached plan must not change result type"  # PostgreSQL's words for it


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


class BetRefused(InvalidInput):
    """A bet refused over a limit (HTTP 400, the same body as any invalid input: ``error``
    ``"invalid"``, ``field`` ``stake_cents`` or ``ante_cents``).

    ``kind`` is one of ``KINDS``: the table's minimum or maximum, a black jack box's maximum,
    a stake the table's chips cannot make, an even chance alone where the table wants it with
    other bets (English roulette's second variant), the patron's own responsible-gaming
    self-limit, a stake larger than the chips he holds (``ChipsRefused``), or a bet on a coup
    whose betting is closed or at a closed table (``BettingClosedRefused``). ``stake_cents`` is the stake the limit
    refused (integer cents); ``table`` (code), ``round_id`` and ``patron`` (code) say where and
    whose, when the refusing code knows them. The command's transaction rolls back as for any
    refusal (nothing reaches the ledger); the API records the refusal afterwards, outside the
    ledger (``games.services.refusals.bet_refusal_record``), for the pit boss's floor.
    """

    KINDS = tuple(REFUSAL_KINDS)

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        stake_cents: int,
        field: str | None = "stake_cents",
        table: str | None = None,
        round_id: str | None = None,
        patron: str | None = None,
    ):
        if kind not in self.KINDS:
            raise ValueError(f"unknown refusal kind {kind!r}")
        super().__init__(message, field=field)
        self.kind = kind
        self.stake_cents = stake_cents
        self.table = table
        self.round_id = str(round_id) if round_id is not None else None
        self.patron = patron


class ChipsRefused(BetRefused, InsufficientChips):
    """A bet refused because the patron holds fewer chips (value or colour) than its stake: a
    ``BetRefused`` of kind ``insufficient_chips`` the floor records, answered as any
    ``InsufficientChips`` (HTTP 400, ``error`` ``"insufficient_funds"``)."""

    def __init__(self, message: str, **where):
        super().__init__(message, kind="insufficient_chips", **where)


class BettingClosedRefused(BetRefused, StateConflict):
    """A well-formed bet on a coup that no longer takes bets (``betting_closed``: rien ne va plus,
    dealt or settled) or at a closed table (``table_closed``): a ``BetRefused`` the floor
    records, answered as any ``StateConflict`` (HTTP 409, ``error`` ``"state_conflict"``,
    field ``round``)."""

    def __init__(self, message: str, *, kind: str = "betting_closed", field: str | None = "round", **where):
        super().__init__(message, kind=kind, field=field, **where)

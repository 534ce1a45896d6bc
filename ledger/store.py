"""The one write path into the ledger: ``append``.

Why writers are serialised: consumers (projectors, exports) read events in ``position``
order and remember the last position they applied. If two transactions could take
positions 101 and 102 and commit in the other order, a reader could see 102, move its
checkpoint past 101, and never apply 101 (eventsourcing's "late commit" problem, cases C16).
So every append takes one transaction-scoped lock (PostgreSQL: ``pg_advisory_xact_lock``;
SQLite: the database write lock taken by ``BEGIN IMMEDIATE``) before it reads the head,
and keeps it until commit. Positions are then gap-free and in commit order, and the hash
chain is computed over a head that cannot move underneath us.

Services call ``lock_writers()`` first thing in their transaction (``ledger.commands``), so
the balances they check (a patron's chips, the cage's cash) cannot change before they commit.
"""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import connection, transaction
from django.db.models import Max, Sum
from django.utils import timezone

from .errors import InvalidInput, UnbalancedPostings, VersionConflict
from .gaming_day import current_gaming_day
from .hashing import GENESIS_HASH, canonical_json, event_hash
from .models import Event, Posting

# The largest amount one posting may carry: 10 billion EUR in cents. Sums of many postings
# then still fit the 64-bit columns and Python ints never reach the database overflowing.
MAX_CENTS = 10**12

# Arbitrary 64-bit key for the advisory lock: "LEDGER" in ASCII.
_WRITER_LOCK_KEY = 0x4C4544474552


@dataclass(frozen=True)
class Leg:
    """One posting to be written: ``amount_cents`` debit (+) or credit (−), integer cents."""

    account: str
    amount_cents: int
    currency: str = "EUR"


@dataclass(frozen=True)
class NewEvent:
    """An event to append. ``data`` is JSON without floats and without personal data."""

    type: str
    data: dict
    postings: Sequence[Leg] = field(default_factory=tuple)
    schema_version: int = 1
    occurred_at: datetime | None = None


def lock_writers() -> None:
    """Take the ledger writer lock until the current transaction ends (see module docstring)."""
    if not connection.in_atomic_block:
        raise RuntimeError("the ledger writer lock needs a transaction")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_WRITER_LOCK_KEY])
    # SQLite: the connection runs BEGIN IMMEDIATE (settings), which already holds the
    # database's single write lock for the whole transaction.


def stream_version(stream: str) -> int:
    """The current version of ``stream`` (0 when it has no event yet)."""
    return Event.objects.filter(stream=stream).aggregate(v=Max("version"))["v"] or 0


def balance(account: str, currency: str = "EUR") -> int:
    """Authoritative balance of ``account`` in cents, summed from its postings (not the projection)."""
    total = Posting.objects.filter(account=account, currency=currency).aggregate(s=Sum("amount_cents"))["s"]
    return total or 0


def head() -> tuple[int, str]:
    """``(position, hash)`` of the last event, ``(0, GENESIS_HASH)`` for an empty ledger."""
    last = Event.objects.order_by("-position").values_list("position", "hash").first()
    return last if last else (0, GENESIS_HASH)


def _db_now() -> datetime:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT clock_timestamp()")
            return cursor.fetchone()[0].astimezone(UTC)
    return timezone.now()


def check_balanced(legs: Sequence[Leg], *, event_type: str) -> None:
    """Raise ``UnbalancedPostings`` unless ``legs`` are well-formed and sum to zero per currency."""
    totals: dict[str, int] = defaultdict(int)
    for leg in legs:
        if type(leg.amount_cents) is not int:
            raise UnbalancedPostings(f"{event_type}: amount of {leg.account} is not integer cents", field="postings")
        if not -MAX_CENTS <= leg.amount_cents <= MAX_CENTS:
            raise UnbalancedPostings(f"{event_type}: amount of {leg.account} is out of range", field="postings")
        if leg.amount_cents == 0:
            raise UnbalancedPostings(f"{event_type}: zero posting to {leg.account}", field="postings")
        if not leg.account or len(leg.currency) != 3 or not leg.currency.isupper():
            raise UnbalancedPostings(f"{event_type}: malformed posting {leg!r}", field="postings")
        totals[leg.currency] += leg.amount_cents
    unbalanced = {currency: total for currency, total in totals.items() if total}
    if unbalanced:
        raise UnbalancedPostings(
            f"{event_type}: postings do not sum to zero per currency: {unbalanced}", field="postings"
        )


def append(
    *,
    stream: str,
    expected_version: int,
    events: Sequence[NewEvent],
    actor: str,
    correlation_id: str = "",
    causation_id: str = "",
    idempotency_key: str | None = None,
) -> list[Event]:
    """Append ``events`` to ``stream`` at ``expected_version`` + 1, + 2, …; returns the saved rows.

    Must run inside the caller's transaction (the service's). ``idempotency_key`` goes on the
    first event of the batch. Raises ``VersionConflict`` when the stream is not at
    ``expected_version``, ``UnbalancedPostings`` when an event's postings do not sum to zero
    per currency, ``InvalidInput`` for data that is not canonical JSON. Nothing is written
    when it raises.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("ledger.append must run inside the service's transaction")
    if not events:
        raise InvalidInput("nothing to append", field="events")
    if type(expected_version) is not int or expected_version < 0:
        raise InvalidInput("expected_version must be a non-negative integer", field="expected_version")
    for new in events:
        check_balanced(new.postings, event_type=new.type)
        try:
            canonical_json(new.data)
        except TypeError as exc:
            raise InvalidInput(f"{new.type}: {exc}", field="data") from exc

    lock_writers()
    current = stream_version(stream)
    if current != expected_version:
        raise VersionConflict(
            f"stream {stream} is at version {current}, not the expected {expected_version}",
            field="expected_version",
        )
    position, prev_hash = head()
    recorded_at = _db_now()
    saved: list[Event] = []
    postings: list[Posting] = []
    for offset, new in enumerate(events):
        position += 1
        occurred_at = new.occurred_at or recorded_at
        envelope = dict(
            position=position,
            stream=stream,
            version=expected_version + offset + 1,
            type=new.type,
            schema_version=new.schema_version,
            data=new.data,
            occurred_at=occurred_at,
            recorded_at=recorded_at,
            gaming_day=current_gaming_day(occurred_at),
            actor=actor,
            correlation_id=correlation_id,
            causation_id=causation_id,
            idempotency_key=idempotency_key if offset == 0 else None,
            prev_hash=prev_hash,
        )
        legs = [(leg.account, leg.amount_cents, leg.currency) for leg in new.postings]
        prev_hash = event_hash(**envelope, postings=legs)
        saved.append(Event(**envelope, hash=prev_hash))
        postings += [Posting(event_id=position, account=a, amount_cents=c, currency=cur) for a, c, cur in legs]
    with transaction.atomic():  # a savepoint: a failing trigger leaves the caller's work intact
        # Postings go in before their events: each event's insert trigger checks that its
        # postings sum to zero, and the posting trigger refuses legs added to an existing event.
        Posting.objects.bulk_create(postings)
        Event.objects.bulk_create(saved)
    return saved

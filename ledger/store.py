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

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import connection, transaction
from django.db.models import Max, Sum
from django.utils import timezone

from .errors import InvalidInput, UnbalancedPostings, VersionConflict
from .gaming_day import current_gaming_day
from .hashing import GENESIS_HASH, event_hash
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
    writer_locked: bool = False,
) -> list[Event]:
    """Append ``events`` to ``stream`` at ``expected_version`` + 1, + 2, …; returns the saved rows.

    Must run inside the caller's transaction (the service's). ``idempotency_key`` goes on the
    first event of the batch. Raises ``VersionConflict`` when the stream is not at
    ``expected_version``, ``UnbalancedPostings`` when an event's postings do not sum to zero
    per currency, ``InvalidInput`` for data that is not canonical JSON. Nothing is written
    when it raises. ``writer_locked``: the caller took ``lock_writers()`` earlier in this same
    transaction (``ledger_command`` does), so the lock is not asked for again.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("ledger.append must run inside the service's transaction")
    if not events:
        raise InvalidInput("nothing to append", field="events")
    if type(expected_version) is not int or expected_version < 0:
        raise InvalidInput("expected_version must be a non-negative integer", field="expected_version")
    for new in events:
        check_balanced(new.postings, event_type=new.type)
    # The data's canonical JSON is checked (no float, string keys) by ``event_hash`` below,
    # before anything is written: walking it twice cost 5 % of a coup's append (issue 11).

    if not writer_locked:
        lock_writers()
    current, position, prev_hash, recorded_at = _tip(stream)
    if current != expected_version:
        raise VersionConflict(
            f"stream {stream} is at version {current}, not the expected {expected_version}",
            field="expected_version",
        )
    saved: list[Event] = []
    postings: list[tuple[int, str, int, str]] = []
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
        try:
            prev_hash = event_hash(**envelope, postings=legs)
        except TypeError as exc:
            raise InvalidInput(f"{new.type}: {exc}", field="data") from exc
        saved.append(Event(**envelope, hash=prev_hash))
        postings += [(position, *leg) for leg in legs]
    with transaction.atomic():  # a savepoint: a failing trigger leaves the caller's work intact
        # Postings go in before their events: each event's insert trigger checks that its
        # postings sum to zero, and the posting trigger refuses legs added to an existing event.
        if connection.vendor == "postgresql":
            _write_postgresql(saved, postings)
        else:
            Posting.objects.bulk_create(
                [Posting(event_id=e, account=a, amount_cents=c, currency=cur) for e, a, c, cur in postings]
            )
            Event.objects.bulk_create(saved)
    for event in saved:  # as bulk_create leaves them: saved rows of this database
        event._state.adding, event._state.db = False, connection.alias
    return saved


def _tip(stream: str) -> tuple[int, int, str, datetime]:
    """``(stream version, head position, head hash, database time)`` read under the writer lock.

    PostgreSQL: one statement instead of three (a round trip is a good part of a one-event
    append). It must be a statement *after* ``lock_writers``: in READ COMMITTED each statement
    reads a snapshot taken when it starts, so a read in the locking statement could miss the
    commit of the writer we waited for, and fork the chain.
    """
    if connection.vendor != "postgresql":
        return stream_version(stream), *head(), _db_now()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT max(version) FROM ledger_event WHERE stream = %s), last.position, last.hash, "
            "clock_timestamp() FROM (SELECT 1) AS one LEFT JOIN "
            "(SELECT position, hash FROM ledger_event ORDER BY position DESC LIMIT 1) AS last ON true",
            [stream],
        )
        version, position, hash_, now = cursor.fetchone()
    return version or 0, position or 0, hash_ or GENESIS_HASH, now.astimezone(UTC)


# Event columns in the order ``_write_postgresql`` sends them.
_EVENT_COLUMNS = (
    "position", "stream", "version", "type", "schema_version", "data", "occurred_at", "recorded_at",
    "gaming_day", "actor", "correlation_id", "causation_id", "idempotency_key", "prev_hash", "hash",
)  # fmt: skip
# From this many events on, COPY beats a multi-row INSERT (COPY costs two round trips, an
# INSERT one); a roulette settlement of 30,000 bets is one append (issue 11).
_COPY_FROM = 200


def _write_postgresql(events: list[Event], postings: list[tuple[int, str, int, str]]) -> None:
    """Insert the rows with plain SQL: ``bulk_create`` spent 60 % of a coup's append building
    model instances and SQL (issue 11). The triggers run on these rows exactly as before."""
    # ``event_hash`` has checked every event's data already: plain ``json.dumps`` is enough here.
    rows = [tuple(json.dumps(e.data) if c == "data" else getattr(e, c) for c in _EVENT_COLUMNS) for e in events]
    posting_sql = "ledger_posting (event_id, account, amount_cents, currency)"
    event_sql = f"ledger_event ({', '.join(_EVENT_COLUMNS)})"
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor, for COPY
        if len(events) >= _COPY_FROM:
            with connection.wrap_database_errors:  # psycopg's errors as Django's, like execute()
                for table, values in ((posting_sql, postings), (event_sql, rows)):
                    if values:
                        with raw.copy(f"COPY {table} FROM STDIN") as copy:
                            for row in values:
                                copy.write_row(row)
            return
        # Up to _COPY_FROM events: the postings' and the events' INSERTs go as one string, one
        # round trip (Django's psycopg cursor binds parameters client-side, so it may hold two
        # statements; the first failing stops the second and the savepoint undoes both).
        statements, params = [], []
        for table, values in ((posting_sql, postings), (event_sql, rows)):
            if values:
                one = "(" + ", ".join(["%s"] * len(values[0])) + ")"
                statements.append(f"INSERT INTO {table} VALUES {', '.join([one] * len(values))}")
                params += [value for row in values for value in row]
        cursor.execute("; ".join(statements), params)

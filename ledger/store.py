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
from datetime import UTC, date, datetime
from operator import itemgetter

import psycopg
from django.db import Error, connection, transaction
from django.db.models import Max, Sum
from django.db.models.base import ModelState
from django.utils import timezone

from .errors import InvalidInput, StateConflict, UnbalancedPostings, VersionConflict
from .gaming_day import current_gaming_day, gaming_day_stream
from .hashing import GENESIS_HASH, event_hash_and_data
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


@dataclass(frozen=True)
class Tip:
    """Where a stream and the ledger stand: the stream's version (0: no event yet), the last
    event's position and hash (0 and ``GENESIS_HASH`` for an empty ledger), and the database's
    time (UTC), which becomes the appended events' ``recorded_at``. ``day``: the gaming day the
    reader asked about (``tip_params``), and ``day_closed``: whether it was closed then."""

    version: int
    position: int
    hash: str
    now: datetime
    day: date | None = None
    day_closed: bool = False

    @classmethod
    def from_row(cls, row: Sequence, day: date | None = None) -> "Tip":
        """From the five values ``TIP_SQL`` selects, for ``tip_params(stream, day)``."""
        version, position, hash_, now, closed = row
        return cls(version or 0, position or 0, hash_ or GENESIS_HASH, now.astimezone(UTC), day, bool(closed))


# Five columns giving a ``Tip``, for the two ``%s`` that ``tip_params`` fills. A service that
# reads its state in one statement under the writer lock may select these in it too and pass
# the ``Tip`` to ``append`` (PostgreSQL): the append's own read of the tip, a round trip of a
# one-event command, is saved (issue 11). The last column tells whether the gaming day the
# events will most likely fall on is closed (``append`` refuses postings on a closed day), so
# that check costs no round trip either.
TIP_SQL = (
    "(SELECT max(version) FROM ledger_event WHERE stream = %s), "
    "(SELECT position FROM ledger_event ORDER BY position DESC LIMIT 1), "
    "(SELECT hash FROM ledger_event ORDER BY position DESC LIMIT 1), clock_timestamp(), "
    "EXISTS (SELECT 1 FROM ledger_event WHERE stream = %s AND type = 'GamingDayClosed')"
)


def tip_params(stream: str, day: date) -> list[str]:
    """``TIP_SQL``'s parameters: the stream, and the close stream of ``day`` (the gaming day by
    this process's clock; ``append`` checks again if the database's clock says otherwise)."""
    return [stream, gaming_day_stream(day)]


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
    also: Sequence[tuple[str, Sequence]] = (),
    tip: Tip | None = None,
) -> list[Event]:
    """Append ``events`` to ``stream`` at ``expected_version`` + 1, + 2, …; returns the saved rows.

    Must run inside the caller's transaction (the service's). ``idempotency_key`` goes on the
    first event of the batch. Raises ``VersionConflict`` when the stream is not at
    ``expected_version``, ``UnbalancedPostings`` when an event's postings do not sum to zero
    per currency, ``InvalidInput`` for data that is not canonical JSON, ``StateConflict`` (409)
    when an event with postings falls on a closed gaming day. Nothing is written
    when it raises. ``writer_locked``: the caller took ``lock_writers()`` earlier in this same
    transaction (``ledger_command`` does), so the lock is not asked for again. ``also``:
    ``(sql, params)`` statements the command writes beside its events (its read-model rows,
    ``casino.rawsql``), run after them in the same savepoint, on PostgreSQL in the same round
    trip; a failing one undoes the append too. ``tip``: the ``Tip`` of ``stream`` the caller
    read (``TIP_SQL``) under the writer lock in this transaction with nothing appended since
    (``writer_locked`` must be true); ignored on SQLite.
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

    postgres = connection.vendor == "postgresql"
    savepoint_open = False
    if postgres and tip is not None:
        if not writer_locked:
            raise RuntimeError("a tip read by the caller is only good under the writer lock")
    elif postgres:
        # One round trip: the lock (unless held), the tip, and the savepoint the rows go in.
        tip, savepoint_open = _tip_postgresql(stream, lock=not writer_locked), True
    else:
        if not writer_locked:
            lock_writers()
        tip = Tip(stream_version(stream), *head(), _db_now())
    current, position, prev_hash, recorded_at = tip.version, tip.position, tip.hash, tip.now
    try:
        if current != expected_version:
            raise VersionConflict(
                f"stream {stream} is at version {current}, not the expected {expected_version}",
                field="expected_version",
            )
        saved, data_texts, postings = _chain(events, stream, expected_version, position, prev_hash, recorded_at, actor,
                                 correlation_id, causation_id, idempotency_key)  # fmt: skip
        _refuse_closed_days(saved, events, tip)
        if postgres:
            if not savepoint_open and len(saved) >= _COPY_FROM:
                with connection.cursor() as cursor:
                    cursor.execute(f"SAVEPOINT {_SAVEPOINT}")
                savepoint_open = True
            # With the caller's tip, a one-event write opens the savepoint in its own string.
            _write_postgresql(saved, data_texts, postings, also, open_savepoint=not savepoint_open)
        else:
            with transaction.atomic():  # a savepoint: a failing trigger leaves the caller's work intact
                Posting.objects.bulk_create(
                    [Posting(event_id=e, account=a, amount_cents=c, currency=cur) for e, a, c, cur in postings]
                )
                Event.objects.bulk_create(saved)
                with connection.cursor() as cursor:
                    for sql, params in also:
                        cursor.execute(sql, params)
    except BaseException:
        if postgres and (savepoint_open or _failed_in_transaction()):
            # A failed one-event write string had opened the savepoint (its first statement)
            # before the failing one; a write string never sent (refused before, or its values
            # refused by the driver) opened nothing, and the transaction is still good.
            _rollback_savepoint()
        raise
    return saved


def closed_gaming_days(days: set[date]) -> set[date]:
    """Those of ``days`` that are closed (``GamingDayClosed`` on the day's stream): one query."""
    streams = Event.objects.filter(
        stream__in=[gaming_day_stream(day) for day in days], type="GamingDayClosed"
    ).values_list("stream", flat=True)
    return {date.fromisoformat(stream.split("/", 1)[1]) for stream in streams}


def _refuse_closed_days(saved: list[Event], events: Sequence[NewEvent], tip: Tip) -> None:
    """``StateConflict`` (409, field ``gaming_day``) when an event that moves money (has postings)
    falls on a closed gaming day (``GamingDayClosed`` on its day's stream): a closed day keeps
    the figures it was closed and sealed with, whatever service would post to it. Events
    without postings (the seal, the identity registry) may still be recorded on it."""
    days = {event.gaming_day for event, new in zip(saved, events, strict=True) if new.postings}
    if not days:
        return
    closed = {tip.day} & days if tip.day_closed else set()
    unknown = days - {tip.day}
    if unknown:
        closed |= closed_gaming_days(unknown)
    if closed:
        first = min(closed)
        moving = next(new.type for event, new in zip(saved, events, strict=True) if event.gaming_day == first)
        raise StateConflict(
            f"gaming day {first} is closed: no money moves on it any more ({moving} refused)", field="gaming_day"
        )


def _chain(
    events: Sequence[NewEvent],
    stream: str,
    expected_version: int,
    position: int,
    prev_hash: str,
    recorded_at: datetime,
    actor: str,
    correlation_id: str,
    causation_id: str,
    idempotency_key: str | None,
) -> tuple[list[Event], list[str], list[tuple[int, str, int, str]]]:
    """The events' rows, hash-chained from ``(position, prev_hash)``, the canonical JSON of each
    one's data (what its column receives), and their postings' rows."""
    saved: list[Event] = []
    data_texts: list[str] = []
    postings: list[tuple[int, str, int, str]] = []
    alias = connection.alias
    recorded_day = current_gaming_day(recorded_at)  # most events of a batch occur as recorded
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
            gaming_day=recorded_day if occurred_at is recorded_at else current_gaming_day(occurred_at),
            actor=actor,
            correlation_id=correlation_id,
            causation_id=causation_id,
            idempotency_key=idempotency_key if offset == 0 else None,
            prev_hash=prev_hash,
        )
        legs = [(leg.account, leg.amount_cents, leg.currency) for leg in new.postings]
        try:
            prev_hash, data_text = event_hash_and_data(**envelope, postings=legs)
        except TypeError as exc:
            raise InvalidInput(f"{new.type}: {exc}", field="data") from exc
        saved.append(_saved_row(envelope, prev_hash, alias))
        data_texts.append(data_text)
        postings += [(position, *leg) for leg in legs]
    return saved, data_texts, postings


def _saved_row(envelope: dict, hash_: str, alias: str) -> Event:
    """An ``Event`` as the database will hold it, built the way ``Model.from_db`` does: the
    model's ``__init__`` took a tenth of a coup's append (issue 11). Every field's attname is
    its name (no foreign key), so the envelope is the instance's whole state."""
    event = Event.__new__(Event)
    event.__dict__.update(envelope, hash=hash_)
    event._state = ModelState()
    event._state.adding, event._state.db = False, alias
    return event


_SAVEPOINT = "ledger_append"


def _tip_postgresql(stream: str, *, lock: bool) -> Tip:
    """The stream's ``Tip`` read under the writer lock,
    and the savepoint ``_write_postgresql`` writes in, in one round trip (a round trip is a good
    part of a one-event append; issue 11).

    The lock and the tip are separate statements of one simple query: in READ COMMITTED each
    statement takes its snapshot when it starts, so the tip is read *after* the lock is
    granted and sees the commit of the writer we waited for (reading it in the locking
    statement could miss that commit and fork the chain).
    """
    day = current_gaming_day()
    statements, params = [f"SELECT {TIP_SQL}", f"SAVEPOINT {_SAVEPOINT}"], tip_params(stream, day)
    if lock:
        statements.insert(0, "SELECT pg_advisory_xact_lock(%s)")
        params.insert(0, _WRITER_LOCK_KEY)
    with connection.cursor() as cursor:
        cursor.execute("; ".join(statements), params)
        if lock:
            cursor.cursor.nextset()  # past the lock's empty result, to the tip's
        return Tip.from_row(cursor.fetchone(), day)


def _failed_in_transaction() -> bool:
    """The server refused a statement of this transaction (psycopg's view of it)."""
    return connection.connection is not None and (
        connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
    )


def _rollback_savepoint() -> None:
    """Undo what the append wrote (the caller's earlier work stays) and drop its savepoint."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}; RELEASE SAVEPOINT {_SAVEPOINT}")
    except Error:  # the connection itself failed: the whole transaction is lost anyway
        pass


# Event columns in the order ``_write_postgresql`` sends them.
_EVENT_COLUMNS = (
    "position", "stream", "version", "type", "schema_version", "data", "occurred_at", "recorded_at",
    "gaming_day", "actor", "correlation_id", "causation_id", "idempotency_key", "prev_hash", "hash",
)  # fmt: skip
_event_values = itemgetter(*_EVENT_COLUMNS)
_DATA_COLUMN = _EVENT_COLUMNS.index("data")
# From this many events on, COPY beats a multi-row INSERT: COPY costs two round trips a table,
# but an INSERT of many rows spends milliseconds binding its parameters client-side (a
# 50-event coup: 2.2 ms by COPY, 4.6 ms by INSERT; issue 11).
_COPY_FROM = 2


def _write_postgresql(
    events: list[Event],
    data_texts: list[str],
    postings: list[tuple[int, str, int, str]],
    also: Sequence[tuple[str, Sequence]],
    *,
    open_savepoint: bool = False,
) -> None:
    """Insert the rows with plain SQL inside the savepoint ``_tip_postgresql`` opened (or, with
    ``open_savepoint``, that this one-event write string opens first), then the caller's
    ``also`` statements, then release it (``bulk_create`` spent 60 % of a coup's append building model instances and
    SQL; issue 11). Postings go in before their events: each event insert is checked against
    its postings (sum to zero per currency), and a posting for an existing event is refused."""
    # Each event's data goes in as the canonical JSON its hash was computed over.
    rows = []
    for event, text in zip(events, data_texts, strict=True):
        row = list(_event_values(event.__dict__))
        row[_DATA_COLUMN] = text
        rows.append(row)
    posting_sql = "ledger_posting (event_id, account, amount_cents, currency)"
    event_sql = f"ledger_event ({', '.join(_EVENT_COLUMNS)})"
    # The caller's statements and the release follow the rows in one string (Django's psycopg
    # cursor binds parameters client-side, so it may hold several statements; the first failing
    # stops the rest, and ``append`` rolls back to the savepoint).
    statements, params = [sql for sql, _ in also], [value for _, values in also for value in values]
    statements.append(f"RELEASE SAVEPOINT {_SAVEPOINT}")
    with connection.cursor() as cursor:
        if len(events) >= _COPY_FROM:
            raw = cursor.cursor  # psycopg's own cursor, for COPY
            with connection.wrap_database_errors:  # psycopg's errors as Django's, like execute()
                for table, values in ((posting_sql, postings), (event_sql, rows)):
                    if values:
                        with raw.copy(f"COPY {table} FROM STDIN") as copy:
                            for row in values:
                                copy.write_row(row)
            cursor.execute("; ".join(statements), params)
            return
        # One event: its INSERTs go first in that same string, one round trip in all.
        inserts, values_ = [], []
        for table, values in ((posting_sql, postings), (event_sql, rows)):
            if values:
                one = "(" + ", ".join(["%s"] * len(values[0])) + ")"
                inserts.append(f"INSERT INTO {table} VALUES {', '.join([one] * len(values))}")
                values_ += [value for row in values for value in row]
        opening = [f"SAVEPOINT {_SAVEPOINT}"] if open_savepoint else []
        cursor.execute("; ".join([*opening, *inserts, *statements]), values_ + params)

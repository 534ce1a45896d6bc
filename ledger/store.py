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

import functools
import gc
import json
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from operator import itemgetter

import psycopg
from django.conf import settings
from django.db import Error, NotSupportedError, connection, transaction
from django.db.models import Max, Sum
from django.db.models.base import ModelState
from django.utils import timezone

from . import metrics, replica
from .errors import STALE_PLAN, InvalidInput, SchemaChanged, StateConflict, UnbalancedPostings, VersionConflict
from .event_seals import SEAL_FIELDS, authenticity, seal, sealed_rows
from .gaming_day import current_gaming_day, gaming_day_stream
from .hashing import GENESIS_HASH, event_hash_and_data, reject_floats
from .jsoncodec import canonical
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
# one-event command, is saved. The last column tells whether the gaming day the
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
    """The current version of ``stream`` (0 when it has no event yet), as far as its events are
    the application's (``ledger.disowned``); an append at it numbers after any other."""
    return Event.objects.filter(stream=stream).aggregate(v=Max("version"))["v"] or 0


def _stored_version(stream: str) -> int:
    """The highest version any row of ``stream`` holds (0: none), whoever wrote it."""
    return Event.chain.filter(stream=stream).aggregate(v=Max("version"))["v"] or 0


def balance(account: str, currency: str = "EUR") -> int:
    """Authoritative balance of ``account`` in cents, summed from its postings (not the projection)."""
    total = Posting.objects.filter(account=account, currency=currency).aggregate(s=Sum("amount_cents"))["s"]
    return total or 0


def head() -> tuple[int, str]:
    """``(position, hash)`` of the last event, ``(0, GENESIS_HASH)`` for an empty ledger."""
    last = Event.chain.order_by("-position").values_list("position", "hash").first()
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


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for a bulk write (a settlement's thousands of
    events), restarting it after.

    Each few hundred new tuples, dicts or lists start a collection, and the older generations'
    rescan every object the write holds: a 30,000-bet settlement spent about a second of its
    four in collections (py-spy). Events, postings and rows make no reference
    cycles: reference counting frees them as before. Nested use keeps the outer pause."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _measured(append_events):
    """Time each append and count its events (``ledger.metrics``; an append whose transaction
    later rolls back is counted too: it held the writer lock all the same)."""

    @functools.wraps(append_events)
    def measured(*args, **kwargs):
        started = time.perf_counter()
        events = kwargs.get("events")
        if isinstance(events, Sequence) and len(events) >= _COPY_FROM:  # a settlement: see collector_paused
            with collector_paused():
                saved = append_events(*args, **kwargs)
        else:
            saved = append_events(*args, **kwargs)
        metrics.ledger_append_seconds.observe(time.perf_counter() - started)
        metrics.ledger_events_appended.inc(len(saved))
        if saved and replica.configured():
            last = saved[-1].position
            transaction.on_commit(lambda: replica.wrote(last))  # read your writes (ledger.replica)
        return saved

    return measured


@_measured
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
    per currency, ``InvalidInput`` for data that is not canonical JSON (or null) and for an
    envelope value the ledger could not store as hashed (text fields that are not ``str``, a
    schema version outside 0-32767, a naive ``occurred_at``), ``StateConflict`` (409) when an
    event with postings falls on a closed gaming day, ``SchemaChanged`` (409, retry) when a
    migration changed the ledger's table since this connection prepared its read. Nothing is
    written when it raises. ``writer_locked``: the caller took ``lock_writers()`` earlier in
    this same transaction (``ledger_command`` does), so the lock is not asked for again. ``also``:
    ``(sql, params)`` statements (one statement each) the command writes beside its events (its
    read-model rows, ``core.rawsql``), run after them in the same savepoint, on PostgreSQL in
    the same round trip; a failing one undoes the append too. ``tip``: the ``Tip`` of
    ``stream`` the caller read (``TIP_SQL``) under the writer lock in this transaction with
    nothing appended since (``writer_locked`` must be true); ignored on SQLite.
    """
    if not connection.in_atomic_block:
        raise RuntimeError("ledger.append must run inside the service's transaction")
    if not events:
        raise InvalidInput("nothing to append", field="events")
    if type(expected_version) is not int or expected_version < 0:
        raise InvalidInput("expected_version must be a non-negative integer", field="expected_version")
    _check_envelope(stream=stream, actor=actor, correlation_id=correlation_id, causation_id=causation_id)
    if idempotency_key is not None and type(idempotency_key) is not str:
        raise InvalidInput("idempotency_key must be text", field="idempotency_key")
    postgres = connection.vendor == "postgresql"
    if postgres and len(events) >= _COPY_FROM:
        return _append_streamed(stream, expected_version, events, actor, correlation_id, causation_id,
                                idempotency_key, writer_locked, also, tip)  # fmt: skip
    events = [_checked(new) for new in events]

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
        tip = Tip(_stored_version(stream), *head(), _db_now())
    try:
        expected_version = _numbered_from(stream, expected_version, tip.version)
        envelopes, postings = _plan(events, stream, expected_version, tip, actor, correlation_id, causation_id,
                                    idempotency_key)  # fmt: skip
        _refuse_closed_days(envelopes, events, tip)
        if postgres:
            # With the caller's tip the write opens the savepoint itself, as its first statement.
            opened_here, savepoint_open = not savepoint_open, True
            return _write_postgresql(envelopes, postings, tip.hash, also, events, open_savepoint=opened_here)
        saved, _ = _hash_chain(envelopes, tip.hash, events)
        with transaction.atomic():  # a savepoint: a failing trigger leaves the caller's work intact
            Posting.chain.bulk_create(
                [Posting(event_id=e, account=a, amount_cents=c, currency=cur) for e, a, c, cur in postings]
            )
            Event.chain.bulk_create(saved)
            with connection.cursor() as cursor:
                for sql, params in also:
                    cursor.execute(sql, params)
        return saved
    except BaseException:
        if savepoint_open:
            _rollback_savepoint()
        raise


def _checked(new: NewEvent) -> NewEvent:
    """``new``, its postings balanced and its data free of floats (checked before anything is
    sent: the hashes come after the postings go). Data holding a subclass of the JSON types (an
    Enum, a QueryDict) is replaced by the plain values the standard library writes for it, which
    are then what is hashed and stored alike (``reject_floats`` and the standard library read a
    container through its items() and __iter__; orjson, which hashes plain data, would read its
    storage). Raises ``InvalidInput`` (``data``) for data canonical JSON cannot hold."""
    _check_event(new)
    check_balanced(new.postings, event_type=new.type)
    try:
        if not reject_floats(new.data):
            return replace(new, data=json.loads(canonical(new.data)))
    except (TypeError, ValueError, RecursionError) as exc:
        raise InvalidInput(f"{new.type}: {exc}", field="data") from exc
    return new


def _check_envelope(**texts: object) -> None:
    """``InvalidInput`` naming the first of ``texts`` that is not a ``str``: the hash is computed
    over the value as given, so anything the column would turn into text (an int, a UUID)
    would be stored as something other than what was hashed."""
    for name, value in texts.items():
        if type(value) is not str:
            raise InvalidInput(f"{name} must be text, not {type(value).__name__}", field=name)


def _check_event(new: NewEvent) -> None:
    """``InvalidInput`` for an event whose type, schema version, data or moment the ledger could
    not store as it hashes them (see ``_check_envelope``)."""
    if type(new.type) is not str or not new.type:
        raise InvalidInput("an event's type is non-empty text", field="type")
    if type(new.schema_version) is not int or not 0 <= new.schema_version <= 32767:
        raise InvalidInput(f"{new.type}: schema_version is a whole number from 0 to 32767", field="schema_version")
    if new.data is None:
        raise InvalidInput(f"{new.type}: data is a JSON value, not null", field="data")
    moment = new.occurred_at
    if moment is not None and (type(moment) is not datetime or moment.utcoffset() is None):
        raise InvalidInput(f"{new.type}: occurred_at is a datetime with its time zone", field="occurred_at")


def closed_gaming_days(days: set[date]) -> set[date]:
    """Those of ``days`` that are closed (``GamingDayClosed`` on the day's stream): one query while
    none is. A close the application did not seal (``ledger.event_seals``: INSERTed around it)
    closes nothing: one such row would otherwise stop every append of the day."""
    rows = Event.chain.filter(stream__in=[gaming_day_stream(day) for day in days], type="GamingDayClosed").values_list(
        *SEAL_FIELDS, "stream"
    )
    return {date.fromisoformat(stream.split("/", 1)[1]) for (stream,) in sealed_rows(rows)}


# What may still be recorded on a closed gaming day: its seal (``ledger.seal``), made right after
# the close and dated on the day it seals, and the staff's sign-ins and sign-outs (``staff/auth``:
# an auditor must be able to sign in to read the closed day; refusing them would lock everyone
# out until the next day starts). Nothing else: an event stamped with a closed day would sit
# outside the sealed range the day was closed and signed with.
AFTER_CLOSE_TYPES = frozenset({"GamingDaySealed", "StaffLoggedIn", "StaffLoggedOut", "StaffLoginFailed"})


def _refuse_closed_days(envelopes: list[dict], events: Sequence[NewEvent], tip: Tip) -> None:
    """``StateConflict`` (409, field ``gaming_day``) when any event falls on a closed gaming day
    (``GamingDayClosed`` on its day's stream), whatever service sends it: a closed day keeps the
    figures and the sealed range it was closed with. Money ("no money moves on it any more") or
    not (a role change, a patron registered, a coup's result: "nothing more is recorded on it"),
    the message names the refused event's type and, for an event of the clock's own day, the
    ``GAMING_DAY_START`` that stamped it (a shell with another start than the server's stamps
    today's events with yesterday's day). Only ``AFTER_CLOSE_TYPES`` (the seal, sign-ins) pass."""
    days = {
        envelope["gaming_day"]
        for envelope, new in zip(envelopes, events, strict=True)
        if new.type not in AFTER_CLOSE_TYPES
    }
    if not days:
        return
    # The tip's flag says only that a close is on the stream; whether the application sealed it
    # (a forged one closes nothing) is asked again, a query only when the day looks closed.
    closed = closed_gaming_days({tip.day} & days) if tip.day_closed and tip.day in days else set()
    unknown = days - {tip.day}
    if unknown:
        closed |= closed_gaming_days(unknown)
    if not closed:
        return
    first = min(closed)
    refused = next(
        new
        for env, new in zip(envelopes, events, strict=True)
        if env["gaming_day"] == first and new.type not in AFTER_CLOSE_TYPES
    )
    if refused.postings:
        why = f"no money moves on it any more ({refused.type} refused)"
    else:
        why = f"nothing more is recorded on it ({refused.type} refused)"
    if first == current_gaming_day(tip.now):  # stamped by the clock: the day start decided it
        start = getattr(settings, "GAMING_DAY_START", "06:00")
        why += f"; the next gaming day starts at {start} ({settings.CASINO_TIMEZONE}, GAMING_DAY_START)"
    raise StateConflict(f"gaming day {first} is closed: {why}", field="gaming_day")


def _numbered_from(stream: str, expected: int, at: int) -> int:
    """The version after which the new events are numbered: ``expected`` when the stream is
    ``at`` it; ``at`` when every event above ``expected`` is one the application did not write
    (``ledger.event_seals``: INSERTed around it, it must not stop the stream's next command,
    nor take its version). Raises ``VersionConflict`` otherwise."""
    if at == expected:
        return expected
    if at > expected:
        above = Event.chain.filter(stream=stream, version__gt=expected).values_list(*SEAL_FIELDS)
        if not any(authentic for _, authentic in authenticity(above.iterator(chunk_size=500))):
            return at
    raise VersionConflict(f"stream {stream} is at version {at}, not the expected {expected}", field="expected_version")


def _plan(
    events: Sequence[NewEvent],
    stream: str,
    expected_version: int,
    tip: Tip,
    actor: str,
    correlation_id: str,
    causation_id: str,
    idempotency_key: str | None,
) -> tuple[list[dict], list[tuple[int, str, int, str]]]:
    """The events' envelopes (every column but the two hashes), numbered from the tip, and their
    postings' rows ``(event position, account, amount_cents, currency)``: all a write needs
    before the hash chain, which ``_hash_chain`` adds."""
    envelopes: list[dict] = []
    postings: list[tuple[int, str, int, str]] = []
    position, recorded_at = tip.position, tip.now
    recorded_day = current_gaming_day(recorded_at)  # most events of a batch occur as recorded
    for offset, new in enumerate(events):
        position += 1
        occurred_at = new.occurred_at or recorded_at
        envelopes.append(
            dict(
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
            )
        )
        postings += [(position, leg.account, leg.amount_cents, leg.currency) for leg in new.postings]
    return envelopes, postings


def _hash_chain(envelopes: list[dict], prev_hash: str, events: Sequence[NewEvent]) -> tuple[list[Event], list[str]]:
    """The saved rows, hash-chained from ``prev_hash``, and the canonical JSON of each one's data
    (what its column receives). The data were checked for floats in ``append``. Raises
    ``InvalidInput`` for data that cannot be serialised (a lone surrogate, an int of more
    digits than Python writes out, nesting deeper than its recursion limit)."""
    saved: list[Event] = []
    data_texts: list[str] = []
    alias = connection.alias
    for envelope, new in zip(envelopes, events, strict=True):
        legs = [(leg.account, leg.amount_cents, leg.currency) for leg in new.postings]
        try:
            hash_, data_text = event_hash_and_data(**envelope, prev_hash=prev_hash, postings=legs, stored=True)
        except (TypeError, ValueError, RecursionError, UnicodeEncodeError) as exc:
            # an int too long to write out, data nested too deep, a lone surrogate
            raise InvalidInput(f"{new.type}: {exc}", field="data") from exc
        saved.append(_saved_row(envelope, prev_hash, hash_, alias))
        data_texts.append(data_text)
        prev_hash = hash_
    return saved, data_texts


def _saved_row(envelope: dict, prev_hash: str, hash_: str, alias: str) -> Event:
    """An ``Event`` as the database will hold it, built the way ``Model.from_db`` does: the
    model's ``__init__`` took a tenth of a coup's append. Every field's attname is
    its name (no foreign key), so the envelope and the hashes are the instance's whole state."""
    event = Event.__new__(Event)
    event.__dict__.update(envelope, prev_hash=prev_hash, hash=hash_, seal=seal(hash_))
    event._state = ModelState()
    event._state.adding, event._state.db = False, alias
    return event


_SAVEPOINT = "ledger_append"
_LOCK_SQL = "SELECT pg_advisory_xact_lock(%s)"


def _tip_postgresql(stream: str, *, lock: bool) -> Tip:
    """The stream's ``Tip`` read under the writer lock, and the savepoint ``_write_postgresql``
    writes in, in one round trip (a pipeline), the two reads prepared once per connection
    (planning them was a third of the read).

    The lock and the tip are separate statements: in READ COMMITTED each statement takes its
    snapshot when it starts, so the tip is read *after* the lock is granted and sees the
    commit of the writer we waited for (reading it in the locking statement could miss that
    commit and fork the chain).
    """
    day = current_gaming_day()
    raw = connection.connection
    try:
        with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor, psycopg.Cursor(raw) as tip_cursor:
            with raw.pipeline():
                if lock:
                    cursor.execute(_LOCK_SQL, [_WRITER_LOCK_KEY], prepare=True)
                tip_cursor.execute(_TIP_SELECT, tip_params(stream, day), prepare=True)
                cursor.execute(f"SAVEPOINT {_SAVEPOINT}")
            return Tip.from_row(tip_cursor.fetchone(), day)
    except NotSupportedError as exc:
        if STALE_PLAN in str(exc):  # a migration changed ledger_event since this connection prepared it
            raise SchemaChanged("the ledger's schema changed under this request; retry it") from exc
        raise


_TIP_SELECT = f"SELECT {TIP_SQL}"


def _rollback_savepoint() -> None:
    """Undo what the append wrote (the caller's earlier work stays) and drop its savepoint."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"ROLLBACK TO SAVEPOINT {_SAVEPOINT}; RELEASE SAVEPOINT {_SAVEPOINT}")
    except Error:  # the connection itself failed: the whole transaction is lost anyway
        pass


# The rows go in as one JSON document a table, unpacked by the server: one statement each
# (the statement-level checks run once), sent in one pipeline with the release, so a coup's
# write is one round trip where COPY took five.
_POSTINGS_SQL = (
    "INSERT INTO ledger_posting (event_id, account, amount_cents, currency) SELECT e, a, c, u "
    "FROM json_to_recordset(%s::json) AS r(e bigint, a text, c bigint, u text)"
)
_EVENT_COLUMNS = (
    "position", "stream", "version", "type", "schema_version", "data", "occurred_at", "recorded_at",
    "gaming_day", "actor", "correlation_id", "causation_id", "idempotency_key", "prev_hash", "hash", "seal",
)  # fmt: skip
_EVENT_TYPES = (
    "bigint", "text", "integer", "text", "smallint", "jsonb", "timestamptz", "timestamptz",
    "date", "text", "text", "text", "text", "text", "text", "text",
)  # fmt: skip
_EVENTS_SQL = (
    f"INSERT INTO ledger_event ({', '.join(_EVENT_COLUMNS)}) SELECT {', '.join(_EVENT_COLUMNS)} "
    f"FROM json_to_recordset(%s::json) AS r("
    f"{', '.join(f'{name} {kind}' for name, kind in zip(_EVENT_COLUMNS, _EVENT_TYPES, strict=True))})"
)
_event_values = itemgetter(*_EVENT_COLUMNS)
_DATA_COLUMN = _EVENT_COLUMNS.index("data")
_string = json.encoder.encode_basestring  # a str as its JSON literal (C)


def _write_postgresql(
    envelopes: list[dict],
    postings: list[tuple[int, str, int, str]],
    prev_hash: str,
    also: Sequence[tuple[str, Sequence]],
    events: Sequence[NewEvent],
    *,
    open_savepoint: bool = False,
) -> list[Event]:
    """Write the events and their postings inside the savepoint ``_tip_postgresql`` opened (or,
    with ``open_savepoint``, that this write opens first), then the caller's ``also``
    statements, then release it. Returns the saved rows.

    Postings go in before their events: each event insert is checked against its postings (sum
    to zero per currency), and a posting for an existing event is refused. They need no hash,
    so they are sent first and the server writes them while the chain is computed here (the
    two cores work at once). A batch of fewer than ``_COPY_FROM`` events goes as one
    JSON document a table in one pipeline (one round trip, where COPY took five); a larger one
    (a roulette settlement) goes by ``_append_streamed``'s COPY, which the server ingests faster
    than JSON once round trips no longer count (a 9,000-bet settle: 1.07-1.10 s by COPY against
    1.31-1.33 s by JSON)."""
    raw = connection.connection
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
        with raw.pipeline():
            if open_savepoint:
                cursor.execute(f"SAVEPOINT {_SAVEPOINT}")
            if postings:
                cursor.execute(_POSTINGS_SQL, [_postings_json(postings)], prepare=True)
            saved, data_texts = _hash_chain(envelopes, prev_hash, events)
            cursor.execute(_EVENTS_SQL, [_events_json(saved, data_texts)], prepare=True)
            _run_also(raw, also)
            cursor.execute(f"RELEASE SAVEPOINT {_SAVEPOINT}")
    return saved


# From this many events on, COPY (see ``_write_postgresql``).
_COPY_FROM = 500


def _append_streamed(
    stream: str,
    expected_version: int,
    events: Sequence[NewEvent],
    actor: str,
    correlation_id: str,
    causation_id: str,
    idempotency_key: str | None,
    writer_locked: bool,
    also: Sequence[tuple[str, Sequence]],
    tip: Tip | None,
) -> list[Event]:
    """``append`` of ``_COPY_FROM`` events or more on PostgreSQL (a roulette settlement): the
    same checks, refusals and rows, streamed by ``_copy_streamed``. Everything is written
    inside a savepoint, so that a refusal found once rows were sent (a bad event, a closed
    gaming day) still leaves nothing written."""
    savepoint_open = False
    if tip is not None:
        if not writer_locked:
            raise RuntimeError("a tip read by the caller is only good under the writer lock")
    else:
        tip, savepoint_open = _tip_postgresql(stream, lock=not writer_locked), True
    try:
        expected_version = _numbered_from(stream, expected_version, tip.version)
        raw = connection.connection
        with connection.wrap_database_errors, psycopg.Cursor(raw) as cursor:
            if not savepoint_open:
                cursor.execute(f"SAVEPOINT {_SAVEPOINT}")
                savepoint_open = True
            envelope = (stream, expected_version, tip, actor, correlation_id, causation_id, idempotency_key)
            saved = _copy_streamed(cursor, events, envelope)
            _run_also(raw, also)
            cursor.execute(f"RELEASE SAVEPOINT {_SAVEPOINT}")
        return saved
    except BaseException:
        if savepoint_open:
            _rollback_savepoint()
        raise


def _copy_streamed(cursor: psycopg.Cursor, events: Sequence[NewEvent], envelope: tuple) -> list[Event]:
    """COPY the postings, then the events, each ``_COPY_CHUNK`` events' rows sent as soon as
    they are built, so that the server writes while the next ones are checked, numbered and
    hashed (building everything before the first row was sent left the server idle
    for a third of a second of a 30,000-bet settlement, then the client idle while the server
    wrote). The hashes are computed in order, during the events' COPY (the postings' COPY
    needs no hash). ``envelope``: ``(stream, expected_version, tip, actor, correlation_id,
    causation_id, idempotency_key)`` as ``_plan`` takes them.

    The rows go as COPY's text: psycopg's ``write_row`` formats each value of each row in
    Python, which was a fifth of a 30,000-bet settlement. A batch's texts repeat
    (accounts, the stream, the actor, the moment): each is escaped once. Raises what
    ``append`` raises; the caller's savepoint undoes the rows already sent."""
    stream, expected_version, tip, actor, correlation_id, causation_id, idempotency_key = envelope
    checked: list[NewEvent] = []
    envelopes: list[dict] = []
    text = _CopyText()
    with cursor.copy("COPY ledger_posting (event_id, account, amount_cents, currency) FROM STDIN") as copy:
        for start in range(0, len(events), _COPY_CHUNK):
            chunk = [_checked(new) for new in events[start : start + _COPY_CHUNK]]
            numbered = replace(tip, position=tip.position + start)
            planned, postings = _plan(chunk, stream, expected_version + start, numbered, actor, correlation_id,
                                      causation_id, idempotency_key if start == 0 else None)  # fmt: skip
            checked += chunk
            envelopes += planned
            if postings:
                copy.write(
                    "".join([f"{event}\t{text(account)}\t{cents}\t{text(currency)}\n"
                             for event, account, cents, currency in postings])
                )  # fmt: skip
    _refuse_closed_days(envelopes, checked, tip)  # may query: after the COPY
    saved: list[Event] = []
    prev_hash = tip.hash
    with cursor.copy(f"COPY ledger_event ({', '.join(_EVENT_COLUMNS)}) FROM STDIN") as copy:
        for start in range(0, len(envelopes), _COPY_CHUNK):
            rows, data_texts = _hash_chain(envelopes[start : start + _COPY_CHUNK], prev_hash,
                                           checked[start : start + _COPY_CHUNK])  # fmt: skip
            prev_hash = rows[-1].hash
            saved += rows
            copy.write("".join([_event_copy_line(event.__dict__, data, text)
                                for event, data in zip(rows, data_texts, strict=True)]))  # fmt: skip
    return saved


_COPY_CHUNK = 1_000
# COPY's text format: a backslash, a tab (the delimiter), a newline or a carriage return in a
# value is written escaped; NULL is \N.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_escaped(value: str) -> str:
    """``value`` as a field of COPY's text format."""
    if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
        return value.translate(_COPY_ESCAPES)
    return value


class _CopyText(dict):
    """The COPY text of a ``str`` (``None``: NULL), each distinct value escaped once."""

    def __call__(self, value: str | None) -> str:
        try:
            return self[value]
        except KeyError:
            text = self[value] = "\\N" if value is None else _copy_escaped(value)
            return text

    def moment(self, value: datetime | date) -> str:
        try:
            return self[value]
        except KeyError:
            text = self[value] = value.isoformat()
            return text


def _event_copy_line(e: dict, data_text: str, text: _CopyText) -> str:
    """One event's row in COPY's text format, its data the canonical text it was hashed as."""
    return (
        f"{e['position']}\t{text(e['stream'])}\t{e['version']}\t{text(e['type'])}\t{e['schema_version']}\t"
        f"{_copy_escaped(data_text)}\t{text.moment(e['occurred_at'])}\t{text.moment(e['recorded_at'])}\t"
        f"{text.moment(e['gaming_day'])}\t{text(e['actor'])}\t{text(e['correlation_id'])}\t"
        f"{text(e['causation_id'])}\t{text(e['idempotency_key'])}\t{_copy_escaped(e['prev_hash'])}\t"
        f"{e['hash']}\t{e['seal']}\n"
    )


def _run_also(raw: psycopg.Connection, also: Sequence[tuple[str, Sequence]]) -> None:
    """The caller's statements, bound client-side as Django's own cursor binds them."""
    if also:
        with psycopg.ClientCursor(raw) as cursor:
            for sql, params in also:
                cursor.execute(sql, params)


def _postings_json(postings: list[tuple[int, str, int, str]]) -> str:
    return "[" + ",".join(
        f'{{"e":{event},"a":{_string(account)},"c":{cents},"u":{_string(currency)}}}'
        for event, account, cents, currency in postings
    ) + "]"  # fmt: skip


def _events_json(saved: list[Event], data_texts: list[str]) -> str:
    """The rows as JSON objects keyed by column; the data as the canonical text it was hashed as."""
    rows = []
    for event, data_text in zip(saved, data_texts, strict=True):
        e = event.__dict__
        key = e["idempotency_key"]
        rows.append(
            f'{{"position":{e["position"]},"stream":{_string(e["stream"])},"version":{e["version"]},'
            f'"type":{_string(e["type"])},"schema_version":{e["schema_version"]},"data":{data_text},'
            f'"occurred_at":"{e["occurred_at"].isoformat()}","recorded_at":"{e["recorded_at"].isoformat()}",'
            f'"gaming_day":"{e["gaming_day"].isoformat()}","actor":{_string(e["actor"])},'
            f'"correlation_id":{_string(e["correlation_id"])},"causation_id":{_string(e["causation_id"])},'
            f'"idempotency_key":{"null" if key is None else _string(key)},'
            f'"prev_hash":{_string(e["prev_hash"])},"hash":"{e["hash"]}","seal":"{e["seal"]}"}}'
        )
    return "[" + ",".join(rows) + "]"

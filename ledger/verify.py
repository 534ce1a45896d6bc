"""Check the hash chain end to end (``manage.py ledger verify``).

Recomputes every event's hash from its stored envelope and postings, and checks that
positions are gap-free from 1, that each ``prev_hash`` is the previous event's hash, and that
each event's postings sum to zero per currency. A row changed or removed behind the
triggers' back (by a superuser, or on disk) is found and its position named.

That much a forger who recomputes every hash after his edit, or who deletes the last events,
passes. Given the signed checkpoints (``ledger.checkpoints``, kept outside the database), the
walk also checks that the event at each checkpoint's position has the hash signed there, and
that the ledger reaches the last checkpoint: a rewritten chain and a cut tail are found. Events
cut after the last checkpoint leave records naming their positions (``ledger.tail_witnesses``):
the ledger must reach those too. An event added at the tail with a correct hash, by someone
holding only the database, lacks the application's seal (``ledger.event_seals``): found too.
"""

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import NamedTuple

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import Min
from psycopg.types.datetime import TimestamptzLoader

from . import checkpoints, tail_witnesses, verification_records
from .checkpoints import Checkpoint
from .event_seals import seal_fault
from .hashing import GENESIS_HASH, event_hash
from .jsoncodec import JsonbBytesLoader, loads
from .models import Event

log = logging.getLogger(__name__)

BATCH = 2000


class _Stored(NamedTuple):
    position: int
    stream: str
    version: int
    type: str
    schema_version: int
    data: object
    occurred_at: datetime
    recorded_at: datetime
    gaming_day: date
    actor: str
    correlation_id: str
    causation_id: str
    idempotency_key: str | None
    prev_hash: str
    hash: str
    seal: str


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    checked: int
    head_position: int
    head_hash: str
    first_bad_position: int | None = None
    reason: str = ""
    checkpoints: int = 0  # checkpoints matched


def verify_chain(
    batch: int = BATCH,
    checkpoints: Sequence[Checkpoint] | None = None,
    on_batch: Callable[[int], None] | None = None,
) -> VerifyResult:
    """Walk the whole ledger in position order; stop at the first fault. ``checkpoints``
    (``ledger.checkpoints.load_checkpoints()``, signatures already checked): the hash at each
    one's position must be the one it signed, and the ledger must reach the last one.
    ``on_batch(events)`` is told after each batch verified (a progress bar)."""
    anchors: dict[int, list[Checkpoint]] = defaultdict(list)
    for checkpoint in checkpoints or ():
        anchors[checkpoint.position].append(checkpoint)
    expected_position, prev_hash, checked, matched = 1, GENESIS_HASH, 0, 0
    # From below the lowest row, not from 0: a row at position 0 or below (a CHECK refuses
    # one; a superuser can drop it) is then read and named, not skipped by "position > 0".
    lowest = Event.chain.aggregate(lowest=Min("position"))["lowest"]
    last_position = min(0, lowest - 1) if lowest is not None else 0
    while True:
        events = _events_after(last_position, batch)
        if not events:
            return _tail(checked, last_position, prev_hash, matched, anchors)
        legs = _legs_between(events[0].position, events[-1].position)
        for event in events:
            fault = _fault(event, expected_position, prev_hash, legs.get(event.position, []))
            if fault:
                return VerifyResult(
                    False, checked, last_position, prev_hash, min(event.position, expected_position), fault, matched
                )
            for checkpoint in anchors.get(event.position, ()):
                if checkpoint.hash != event.hash:
                    return VerifyResult(
                        False,
                        checked,
                        last_position,
                        prev_hash,
                        event.position,
                        f"hash is not the one signed by checkpoint {checkpoint.file} of {checkpoint.written_at} "
                        f"(the chain was rewritten at or before position {event.position})",
                        matched,
                    )
                matched += 1
            checked += 1
            expected_position, prev_hash, last_position = event.position + 1, event.hash, event.position
        if on_batch is not None:
            on_batch(len(events))


def withheld_from_this_role() -> int | None:
    """The first position the connected role may not read yet, or None: the auditor's role reads
    the ledger only below the first face-down card of a coup still in play
    (``casino_guard.ledger_withheld_from``, deploy/postgres_roles.sql); every other role reads it all."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        # Row security is active for every role but the owner (the everyone policy too): the
        # withholding policy names the roles it holds back; any other reads the whole ledger.
        cursor.execute(
            "SELECT row_security_active('public.ledger_event'),"
            " to_regprocedure('casino_guard.ledger_withheld_from()') IS NOT NULL,"
            " EXISTS (SELECT 1 FROM pg_policy p CROSS JOIN unnest(p.polroles) AS r(oid)"
            "  WHERE p.polrelid = 'public.ledger_event'::regclass AND p.polname = 'casino_auditor_coups_in_play'"
            "  AND r.oid <> 0 AND pg_has_role(current_user, r.oid, 'MEMBER'))"
        )
        active, defined, held_back = cursor.fetchone()
        if not (active and defined and held_back):
            return None
        cursor.execute("SELECT casino_guard.ledger_withheld_from()")
        return cursor.fetchone()[0]


def _tail(checked: int, last_position: int, last_hash: str, matched: int, anchors: dict) -> VerifyResult:
    withheld = withheld_from_this_role()
    if withheld is not None and withheld == last_position + 1:
        # What lies beyond (events, checkpoints, records) is a coup in play this role may not read
        # yet: the chain is verified as far as it reads; verify again once the coup is over.
        return VerifyResult(
            True,
            checked,
            last_position,
            last_hash,
            checkpoints=matched,
            reason=f"positions from {withheld} are withheld from this role until the coup in play there is over",
        )
    beyond = [c for position in anchors if position > last_position for c in anchors[position]]
    if beyond:
        last = max(beyond, key=lambda c: c.position)
        return VerifyResult(
            False,
            checked,
            last_position,
            last_hash,
            last_position + 1,
            f"the ledger ends at position {last_position}, but checkpoint {last.file} of {last.written_at} "
            f"signed position {last.position}: events were removed from the end",
            matched,
        )
    witnesses = tail_witnesses.beyond(last_position)
    if witnesses:
        return VerifyResult(
            False,
            checked,
            last_position,
            last_hash,
            last_position + 1,
            f"the ledger ends at position {last_position}, but {'; '.join(map(str, witnesses))}: "
            "events were removed from the end",
            matched,
        )
    return VerifyResult(True, checked, last_position, last_hash, checkpoints=matched)


# Plain SQL into tuples, not the ORM: building model instances was a third of verify, and the
# ORM's per-row converters another tenth. Only the JSON text is decoded here.
# PostgreSQL: the tables named with their schema, whatever the connection's search path (a
# schema of look-alike views ahead of public must not answer for the ledger; ``ledger.guarded``
# reports one). SQLite has one schema.
_EVENT_SQL = (
    f"SELECT {', '.join(_Stored._fields)} FROM public.ledger_event WHERE position > %s ORDER BY position LIMIT %s"
)
_POSTING_SQL = (
    "SELECT event_id, account, amount_cents, currency FROM {schema}ledger_posting WHERE event_id BETWEEN %s AND %s"
)


def _events_after(position: int, batch: int) -> list[_Stored]:
    if connection.vendor == "postgresql":
        data_at = _Stored._fields.index("data")
        connection.ensure_connection()
        with connection.wrap_database_errors, psycopg.ClientCursor(connection.connection) as cursor:
            # psycopg's own (C) timestamp loader: Django's time-zone loader parses each
            # timestamp in Python, a tenth of verify. Both give aware datetimes,
            # and the hash normalises them to UTC.
            cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
            cursor.adapters.register_loader("jsonb", JsonbBytesLoader)  # bytes, for orjson (``loads``)
            cursor.execute(_EVENT_SQL, [position, batch])
            rows = cursor.fetchall()
        return [_Stored(*row[:data_at], _json(row[data_at]), *row[data_at + 1 :]) for row in rows]
    # SQLite hands back text: let the ORM's converters type it (no speed target there).
    return [
        _Stored(*row)
        for row in Event.chain.filter(position__gt=position).order_by("position").values_list(*_Stored._fields)[:batch]
    ]


def _json(value: object) -> object:
    return loads(value) if isinstance(value, (str, bytes)) else value


def _legs_between(first: int, last: int) -> dict[int, list[tuple[str, int, str]]]:
    legs: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
    with connection.cursor() as cursor:
        schema = "public." if connection.vendor == "postgresql" else ""
        cursor.execute(_POSTING_SQL.format(schema=schema), [first, last])
        for event_id, account, amount, currency in cursor.fetchall():
            legs[event_id].append((account, amount, currency))
    return legs


def verify_and_record() -> VerifyResult:
    """The whole chain verified against this ledger's checkpoints (``checkpoints.examine``) and
    the result recorded (``record_verification``). A checkpoint directory that cannot be trusted
    is logged and the chain verified without anchors."""
    try:
        anchors = checkpoints.examine().mine
    except checkpoints.CheckpointFault as fault:
        log.error("ledger checkpoints UNTRUSTED, chain verified without them: %s", fault)
        anchors = []
    result = verify_chain(checkpoints=anchors)
    if not result.ok:
        log.error("ledger BROKEN at position %s: %s", result.first_bad_position, result.reason)
    else:
        result = with_state_faults(result, state_faults())
    record_verification(result)
    return result


def state_faults(*, identity_rows: list | None = None) -> list[str]:
    """What the chain's walk cannot see, in words: balance rows that are not the sum of their
    postings (a projection no hash covers, read by every page), audit lines that are not their
    events' (``ledger.audit_check``) and accounts or patrons whose
    rows their identity events did not make (``ledger.identity``). ``identity_rows``: the
    mismatches when the caller reviewed them already (the auditor's undecided ones left out)."""
    from . import identity
    from .audit_check import check_audit_trails
    from .balance_check import check_balances

    if identity_rows is None:
        identity_rows = identity.review()[0]
        if not settings.STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT:
            # Where accounts no event created may log in (so for the tests' own accounts, and for
            # an upgraded database until ``manage.py staff_baseline``), the scheduled walk does not
            # fail on one; ``ledger verify``, asked by a person, still names it.
            identity_rows = [m for m in identity_rows if not (m.kind == "staff account" and m.field == "(no event)")]
    faults = [f"balances DIFFER FROM THE POSTINGS: {difference}" for difference in check_balances()]
    faults += [f"audit trail DIFFERS FROM THE EVENTS: {difference}" for difference in check_audit_trails()]
    faults += [f"identity CHANGED OUTSIDE THE LEDGER: {mismatch}" for mismatch in identity_rows]
    return faults


def with_state_faults(result: VerifyResult, faults: list[str]) -> VerifyResult:
    """``result`` of a whole chain, failed by ``faults`` (``state_faults``) if there are any: the
    verification recorded then says so (the banner, readiness, the auditor's page), whoever ran
    it, so a check that found a forgery never records "intact" over it."""
    if not result.ok or not faults:
        return result
    shown = "; ".join(faults[:3]) + (f"; and {len(faults) - 3} more" if len(faults) > 3 else "")
    log.error("ledger state differs from the events: %s", shown)
    return replace(result, ok=False, reason=f"{verification_records.BALANCES_FAULT}: {shown}")


def record_verification(result: VerifyResult) -> bool:
    """Keep ``result`` as the latest verification (``ChainVerification``): the readiness probe
    answers 503 while the latest found the chain broken (``ledger.health.chain``). False when
    this role may not write it (the auditor's read-only role verifies too): nothing recorded."""
    try:
        with transaction.atomic():
            verification_records.record(
                ok=result.ok,
                checked=result.checked,
                head_position=result.head_position,
                first_bad_position=result.first_bad_position,
                reason=result.reason,
            )
    except DatabaseError:
        return False
    return True


def _fault(event: _Stored, expected_position: int, prev_hash: str, legs: list[tuple[str, int, str]]) -> str:
    if event.position != expected_position:
        return f"position {expected_position} is missing (next found: {event.position})"
    if event.prev_hash != prev_hash:
        return "prev_hash does not match the previous event's hash"
    totals: dict[str, int] = defaultdict(int)
    for _, amount, currency in legs:
        totals[currency] += amount
    if any(totals.values()):
        return f"postings do not sum to zero: {dict(totals)}"
    recomputed = event_hash(
        position=event.position,
        stream=event.stream,
        version=event.version,
        type=event.type,
        schema_version=event.schema_version,
        data=event.data,
        occurred_at=event.occurred_at,
        recorded_at=event.recorded_at,
        gaming_day=event.gaming_day,
        actor=event.actor,
        correlation_id=event.correlation_id,
        causation_id=event.causation_id,
        idempotency_key=event.idempotency_key,
        prev_hash=event.prev_hash,
        postings=legs,
        stored=True,
    )
    if recomputed != event.hash:
        return "hash does not match the event's content (altered)"
    return seal_fault(event.position, event.hash, event.seal)

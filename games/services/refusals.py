"""Bets refused over a limit, recorded for the pit boss's floor, outside the ledger.

A bet over the table's minimum or maximum, a black jack box's maximum or the patron's own
self-limit is bad input: the command's transaction rolls back and the ledger gets nothing (no
half-written coup). The refusing code raises ``ledger.errors.BetRefused`` (the engines raise
``basis.errors.LimitRefused``, which ``refused`` turns into it; the self-limit check
raises it itself). The API's exception handler (``core.errors``) then sends
``core.signals.bet_refused``, whose receiver calls ``bet_refusal_record`` once, after that
transaction is gone, which writes a ``BetRefusal`` row in a transaction of its own: the refusal
survives while the ledger and the coup stay untouched.
The client gets the same 400 as before either way.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from django.db import DatabaseError, IntegrityError, transaction

from basis.errors import LimitRefused, RuleError
from ledger.commands import idempotency_key_valid
from ledger.errors import BetRefused, InvalidInput
from ledger.gaming_day import current_gaming_day
from ledger.hashing import fingerprint as request_fingerprint

from ..models import BetRefusal, Round

logger = logging.getLogger(__name__)


def refused(
    exc: RuleError,
    *,
    table: str,
    round_id: object,
    patron: str,
    stake_cents: int,
    field: str | None = None,
) -> InvalidInput:
    """The service's error for an engine's refusal ``exc``: a ``BetRefused`` carrying ``table``
    (code), ``round_id``, ``patron`` (code) and ``stake_cents`` when ``exc`` is a table limit
    (``LimitRefused``), else a plain ``InvalidInput``. Both name ``field`` (default: the
    engine's own field) and carry the engine's message, so the client's 400 is the same."""
    name = field or exc.field
    if isinstance(exc, LimitRefused):
        return BetRefused(
            exc.message,
            kind=exc.kind,
            stake_cents=stake_cents,
            field=name,
            table=table,
            round_id=str(round_id),
            patron=patron,
        )
    return InvalidInput(exc.message, field=name)


def bet_refusal_record(
    refusal: BetRefused, *, actor: str, idempotency_key: object = None, now: datetime | None = None
) -> dict | None:
    """Record ``refusal`` as a ``BetRefusal`` row, in its own transaction; call it after the
    refused command's transaction rolled back (the API's exception handler does).

    ``idempotency_key``: the refused request's ``Idempotency-Key``. A refused command appends
    nothing, so a client retrying it with the same key is refused again; the refusal is
    recorded the first time only (the retry gets the first row's summary, ``"retry": true``),
    so the floor counts one refused bet, not one per attempt. A retry is the same key for the
    same refusal from the same sender (``fingerprint``: actor, table, coup, patron, stake,
    kind); the key reused for another refusal, or by another sender, records that one too. A
    key the ledger would not accept (not 1 to 200 characters, or holding NUL) is not kept.

    The table is ``refusal.table``, else the table of ``refusal.round_id``; a refusal with
    neither (nothing to show on a floor) is not recorded. ``now`` (aware; default the clock)
    gives ``created_at`` (UTC) and the gaming day. Returns ``{"id", "table", "round", "patron",
    "stake_cents", "kind", "gaming_day", "retry"}`` or ``None`` when not recorded. Never raises for a
    database failure: the client's answer is the refusal itself, so the failure is logged and
    the 400 stands.
    """
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    key = idempotency_key if idempotency_key_valid(idempotency_key) else None
    actor = actor or "anonymous"
    try:
        table = refusal.table
        if table is None and refusal.round_id is not None:
            table = Round.objects.filter(pk=refusal.round_id).values_list("table__code", flat=True).first()
        if table is None:
            logger.warning("bet refusal without a table or coup not recorded: %s", refusal.message)
            return None
        fingerprint = _fingerprint(refusal, table, actor)
        retried = BetRefusal.objects.filter(idempotency_key=key, fingerprint=fingerprint) if key is not None else None
        if retried is not None and (first := retried.first()) is not None:
            return _summary(first, retry=True)
        with transaction.atomic():
            row = BetRefusal.objects.create(
                table_code=table,
                round_id=refusal.round_id,
                patron_code=refusal.patron or "",
                stake_cents=refusal.stake_cents,
                kind=refusal.kind,
                message=refusal.message,
                actor=actor,
                created_at=moment,
                gaming_day=current_gaming_day(moment),
                idempotency_key=key,
                fingerprint=fingerprint,
            )
    except IntegrityError:
        # The same retry arriving twice at once: the other one recorded it.
        first = retried.first() if retried is not None else None
        return _summary(first, retry=True) if first is not None else None
    except DatabaseError:
        logger.exception("could not record a bet refusal at %s: %s", refusal.table, refusal.message)
        return None
    return _summary(row)


def _fingerprint(refusal: BetRefused, table: str, actor: str) -> str:
    """Who sent which refused bet: what makes a second attempt under one key a retry (the same
    SHA-256 the ledger's commands use to tell a retry from a reused key)."""
    sent = {"round": str(refusal.round_id or ""), "patron": refusal.patron or "", "kind": refusal.kind}
    return request_fingerprint({"actor": actor, "table": table, "stake_cents": refusal.stake_cents, **sent})


def _summary(row: BetRefusal, *, retry: bool = False) -> dict:
    return {
        "id": row.pk,
        "table": row.table_code,
        "round": str(row.round_id) if row.round_id is not None else None,
        "patron": row.patron_code,
        "stake_cents": row.stake_cents,
        "kind": row.kind,
        "gaming_day": row.gaming_day.isoformat(),
        "retry": retry,
    }


def record_refusal_signal(sender, *, exc: BetRefused, actor: str, idempotency_key: object = None, **kwargs) -> None:
    """Receiver of ``core.signals.bet_refused``: records the refusal (``bet_refusal_record``)."""
    bet_refusal_record(exc, actor=actor, idempotency_key=idempotency_key)

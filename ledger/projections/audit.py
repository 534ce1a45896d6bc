"""Audit trails: a readable timeline per patron, per table and per round.

Every event that names a ``patron``, a ``table`` or a ``round`` in its data gets one line in
each of those timelines, with its position and hash so an auditor can go back to the ledger.
"""

from collections.abc import Callable

from django.db import connection

from ..models import AuditEntry
from . import Batch, register


def eur(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d} EUR"


def _position(data: dict) -> str:
    """Where a bet lies: a roulette spot (``straight 17``, ``even_chance red``), a card game's
    bet (``banker``, ``rouge``) or its box / seat (``box 3``, ``box 3 (behind)``, ``seat 2``)."""
    position = data.get("position") or {}
    if "game" in position:
        if "bet" in position:
            return str(position["bet"])
        if "box" in position:
            return f"box {position['box']}" + ("" if position.get("seated", True) else " (behind)")
        if "seat" in position:
            return f"seat {position['seat']}"
    spot = position.get("chance") or position.get("which")
    if spot is None:
        spot = "-".join(str(n) for n in position.get("numbers", []))
    return f"{position.get('type', '?')} {spot}".strip()


SUMMARIES: dict[str, Callable[[dict], str]] = {
    "PatronRegistered": lambda d: f"patron {d['patron']} registered ({d['kind']})",
    "CageOpened": lambda d: f"cage opened: cash {eur(d['counted_cash_cents'])}, chips {eur(d['counted_chips_cents'])}",
    "ChipsPurchased": lambda d: f"{d['patron']} bought {eur(d['amount_cents'])} of chips at the cage",
    "ChipsRedeemed": lambda d: f"{d['patron']} redeemed {eur(d['amount_cents'])} of chips at the cage",
    "TableOpened": lambda d: f"table {d['table']} opened ({d['game']}), opener {eur(d['opener_cents'])}",
    "TableClosed": lambda d: f"table {d['table']} closed, closer {eur(d['closer_cents'])}",
    "CashBuyIn": lambda d: f"{d['patron']} bought in for {eur(d['amount_cents'])} cash at {d['table']}",
    "ColourChipsBought": lambda d: (
        f"{d['patron']} bought {d['chips']} {d['colour']} chips of {eur(d['unit_value_cents'])} at {d['table']}"
    ),
    "ColourChipsChangedBack": lambda d: (
        f"{d['patron']} changed {eur(d['amount_cents'])} of {d['colour']} chips back (change inverse)"
    ),
    "RoundOpened": lambda d: f"coup {d['number']} of {d['table']} open for bets",
    "BettingClosed": lambda d: "rien ne va plus",
    "ResultRecorded": lambda d: f"result: {d.get('number', d)}",
    "BetPlaced": lambda d: (
        f"{d['patron']} bets {eur(d['stake_cents'])} on {_position(d)} ({d['chips']} chips)"
        + (f", part of {d['announce']}" if d.get("announce") else "")
    ),
    "BetSettled": lambda d: (
        f"{d['patron']}'s {eur(d['stake_cents'])} on {_position(d)}: {d['outcome']}, returns {eur(d['return_cents'])}"
    ),
    "BetReturned": lambda d: f"{d['patron']}'s {eur(d['stake_cents'])} returned (void coup)",
    "RoundSettled": lambda d: (
        f"coup settled: staked {eur(d['staked_cents'])}, returned {eur(d['returned_cents'])},"
        f" house {eur(d['house_win_cents'])}"
    ),
    "RoundVoided": lambda d: f"coup void: {d['reason']}",
}


def summary(event_type: str, data: dict) -> str:
    """One human line for an event (falls back to its type and data keys)."""
    try:
        return SUMMARIES[event_type](data)[:500]
    except (KeyError, TypeError):
        keys = ", ".join(f"{k}={v}" for k, v in sorted(data.items()) if not isinstance(v, (dict, list)))
        return f"{event_type} {keys}"[:500]


_SCOPES = tuple(AuditEntry.Scope.values)
_COLUMNS = ("position", "scope", "key", "type", "summary", "hash", "occurred_at", "gaming_day")


class AuditTrails:
    name = "audit"

    def apply(self, batch: Batch) -> None:
        rows = []
        for event in batch.events:
            data = event["data"] if isinstance(event["data"], dict) else {}
            line = None
            for scope in _SCOPES:
                key = data.get(scope)
                if isinstance(key, str) and key:
                    line = line or summary(event["type"], data)
                    rows.append(
                        (
                            event["position"],
                            scope,
                            key,
                            event["type"],
                            line,
                            event["hash"],
                            event["occurred_at"],
                            event["gaming_day"],
                        )
                    )
        if connection.vendor == "postgresql":
            # COPY: bulk_create spent 70 % of a rebuild building model instances and SQL for
            # the three lines most events give (issue 11).
            with connection.cursor() as cursor, connection.wrap_database_errors:
                with cursor.cursor.copy(f"COPY ledger_auditentry ({', '.join(_COLUMNS)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        else:
            AuditEntry.objects.bulk_create(
                [AuditEntry(**dict(zip(_COLUMNS, row, strict=True))) for row in rows], batch_size=2000
            )

    def reset(self) -> None:
        AuditEntry.objects.all().delete()


register(AuditTrails())

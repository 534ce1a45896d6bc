"""Suspicious activity: structuring just under the identity threshold on repeated visits.

A patron who keeps each visit's chip exchanges just under the identity threshold (2,000 EUR in
France) avoids identification every time; repeated, it is the classic structuring pattern that
CMF L561-15 asks a casino to report (TRACFIN guidance on casinos; in the US, FinCEN's
structuring rule 31 CFR 1010.314 and the casino SAR, 31 CFR 1021.320).

The rule, from the settings: ``AML_STRUCTURING_VISITS`` units (default 3) within
``AML_STRUCTURING_DAYS`` gaming days (default 7), each unit's exchanges in one direction
totalling at least ``AML_STRUCTURING_FLOOR_PERCENT`` % (default 80) of
``AML_IDENTITY_THRESHOLD_CENTS`` and under it. A unit is a visit (``AML_BASIS=visit``,
``patrons.visits``) or a gaming day (``AML_BASIS=gaming_day``). The flag is dated on the gaming
day of the unit that completes the count, so each day's list shows the patrons who reached it
that day. It is read from the ledger, never written: nothing is appended, and the compliance
officer's list is the same whenever it is read.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta

from django.conf import settings

from .visits import IN, OUT, Exchange, Visit, aml_basis, exchanges_between, group_visits, visit_gap

FLAG_TYPE = "AmlStructuringSuspected"


def _units(exchanges: list[Exchange], basis: str) -> list[Visit]:
    if basis == "visit":
        return group_visits(exchanges, visit_gap())
    by_day: dict[tuple[str, date], list[Exchange]] = defaultdict(list)
    for exchange in sorted(exchanges, key=lambda e: (e.at, e.position)):
        by_day[(exchange.patron, exchange.gaming_day)].append(exchange)
    return [Visit(patron, tuple(items)) for (patron, _), items in by_day.items()]


def near_threshold(total_cents: int) -> bool:
    """``total_cents`` is in [floor % of the identity threshold, the threshold)."""
    threshold = settings.AML_IDENTITY_THRESHOLD_CENTS
    return threshold * settings.AML_STRUCTURING_FLOOR_PERCENT <= total_cents * 100 and total_cents < threshold


def structuring_flags(day: date) -> list[dict]:
    """The patrons whose structuring count is reached on gaming ``day``, by patron then direction.

    Each flag: ``{"type": "AmlStructuringSuspected", "patron", "direction" ("in"/"out"),
    "basis", "gaming_day", "at" (UTC datetime of the completing exchange), "position" (its
    ledger position), "units" (the near-threshold units in the window, oldest first: each
    ``{"gaming_day", "started_at", "ended_at" (UTC ISO), "total_cents"}``), "amount_cents" (the
    completing unit's total), "threshold_cents", "floor_percent", "window_days"}``.
    """
    basis = aml_basis()
    window = settings.AML_STRUCTURING_DAYS
    # The window stops at the calendar's first days: a day asked near year 1 has none before it.
    first = max(day, date.min + timedelta(days=window)) - timedelta(days=window - 1)
    # A visit ending on ``first`` may have begun the day before: read one day more.
    exchanges = exchanges_between(first - timedelta(days=1), day)
    flags = []
    for direction in (IN, OUT):
        near: dict[str, list[Visit]] = defaultdict(list)
        for unit in _units([e for e in exchanges if e.direction == direction], basis):
            if first <= unit.gaming_day <= day and near_threshold(unit.total_cents(direction)):
                near[unit.patron].append(unit)
        for patron, units in sorted(near.items()):
            units.sort(key=lambda u: u.ended_at)
            last = units[-1]
            if len(units) < settings.AML_STRUCTURING_VISITS or last.gaming_day != day:
                continue
            flags.append(
                {
                    "type": FLAG_TYPE,
                    "patron": patron,
                    "direction": direction,
                    "basis": basis,
                    "gaming_day": day,
                    "at": last.ended_at,
                    "position": last.exchanges[-1].position,
                    "units": [_unit(u, direction) for u in units],
                    "amount_cents": last.total_cents(direction),
                    "threshold_cents": settings.AML_IDENTITY_THRESHOLD_CENTS,
                    "floor_percent": settings.AML_STRUCTURING_FLOOR_PERCENT,
                    "window_days": window,
                }
            )
    flags.sort(key=lambda f: (f["patron"], f["direction"]))
    return flags


def _iso(moment: datetime) -> str:
    return moment.isoformat()


def _unit(unit: Visit, direction: str) -> dict:
    return {
        "gaming_day": unit.gaming_day.isoformat(),
        "started_at": _iso(unit.started_at),
        "ended_at": _iso(unit.ended_at),
        "total_cents": unit.total_cents(direction),
    }

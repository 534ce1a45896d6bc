"""The tips book and the tronc's share-outs, by day and month.

Both read the ledger only (events ``TipsCounted`` and ``TroncShared``, see
``cashier.services.tronc``); amounts in cents, times UTC. A count belongs to the gaming day it
names (a box counted the next morning is the previous day's); a share-out to the gaming day
on which it was made.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from ledger.models import Event

from .reports import _envelope, period_bounds

BOOK_COLUMNS = [
    "box",
    "gaming_day",
    "chips_cents",
    "cash_cents",
    "total_cents",
    "counters",
    "manager",
    "entered_by",
    "recorded_at",
    "event",
]
SHARE_COLUMNS = ["period", "from", "to", "username", "points", "share_cents"]
PERIODS = ("day", "month_to_date")


def _counts(start: date, end: date):
    days = [d.isoformat() for d in _days(start, end)]
    return Event.objects.filter(type="TipsCounted", data__gaming_day__in=days).order_by("position")


def _days(start: date, end: date) -> list[date]:
    return [date.fromordinal(n) for n in range(start.toordinal(), end.toordinal() + 1)]


def _box_label(box: dict) -> str:
    ((kind, code),) = box.items()
    return f"table {code}" if kind == "table" else f"toke of {code}"


def tips_book(day: date) -> dict:
    """The tips book of gaming day ``day``: one row per tip box counted (``BOOK_COLUMNS``;
    ``counters`` ";"-joined), and ``totals`` ``{"day"|"month_to_date": {"from", "to", "counts",
    "counted_cents", "shared_cents", "pool_cents"}}`` (pool: counted − shared in the period)."""
    rows = [
        {
            "box": _box_label(event.data["box"]),
            "gaming_day": event.data["gaming_day"],
            "chips_cents": event.data["chips_cents"],
            "cash_cents": event.data["cash_cents"],
            "total_cents": event.data["total_cents"],
            "counters": ";".join(event.data["counters"]),
            "manager": event.data["manager"],
            "entered_by": event.actor,
            "recorded_at": event.recorded_at.isoformat(),
            "event": event.position,
        }
        for event in _counts(day, day)
    ]
    totals = {}
    for period in PERIODS:
        start, end = period_bounds(day)[period]
        counts = [e.data["total_cents"] for e in _counts(start, end)]
        shared = sum(
            e.data["shared_cents"]
            for e in Event.objects.filter(type="TroncShared", gaming_day__range=(start, end)).only("data")
        )
        totals[period] = {
            "from": start.isoformat(),
            "to": end.isoformat(),
            "counts": len(counts),
            "counted_cents": sum(counts),
            "shared_cents": shared,
            "pool_cents": sum(counts) - shared,
        }
    return _envelope("Tips book", day, day, BOOK_COLUMNS, rows, gaming_day=day.isoformat(), totals=totals)


def tronc_shares(day: date) -> dict:
    """Who received what from the tronc: per period (the day, the month to date) and person,
    the points (summed over the share-outs) and the cents received (``SHARE_COLUMNS``)."""
    rows = []
    for period in PERIODS:
        start, end = period_bounds(day)[period]
        people: dict[str, dict[str, int]] = defaultdict(lambda: {"points": 0, "share_cents": 0})
        for event in Event.objects.filter(type="TroncShared", gaming_day__range=(start, end)).order_by("position"):
            for line in event.data["shares"]:
                people[line["username"]]["points"] += line["points"]
                people[line["username"]]["share_cents"] += line["share_cents"]
        rows += [
            {"period": period, "from": start.isoformat(), "to": end.isoformat(), "username": name, **figures}
            for name, figures in sorted(people.items())
        ]
    return _envelope("Tronc share-outs", day, day, SHARE_COLUMNS, rows, gaming_day=day.isoformat())

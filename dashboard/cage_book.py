"""The cage's book as the dashboard shows it: the cage's shift, its windows and the day's
figures (``/dashboard/cage/``, for the cage and the auditors). Amounts are integer cents.
"""

from __future__ import annotations

from datetime import date

from django.db.models import Count, Sum

from cashier.models import Cage
from cashier.reports import table_figures, tables_active, variance_report
from cashier.services.cage_shifts import last_shift_event, open_windows, window_of
from cashier.services.count_room import live_count
from cashier.slip_models import Slip
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day

from . import alerts as checks
from .figures import hold as hold_of
from .one_table import with_local_time


def cage_shift(code: str = "main") -> dict:
    """The cage's cashier windows as their ledger stream (``cageshift/<code>``) records them:
    ``{"state": "open" | "closed" | None, "by", "at", "handover_to", "windows"}``: ``None``
    before any; ``windows``: each open window, oldest first, ``{"window", "by", "at"}`` (UTC);
    "open" while any is; else who closed the last one, when, and the cashier it was handed over
    to (``None``: nobody, the end of the day)."""
    last = last_shift_event(code)
    if last is None:
        return {"state": None, "by": None, "at": None, "handover_to": None, "windows": []}
    # Several cashiers work windows of their own at once: the last event alone could say
    # "closed" while another window is open.
    windows = [
        {"window": window_of(event), "by": cashier, "at": event.occurred_at}
        for cashier, event in open_windows(code).items()
    ]
    closed = last.type == "CageShiftClosed"
    return {
        "state": "open" if windows else "closed" if closed else "open",
        "by": last.actor,
        "at": last.occurred_at,
        "handover_to": last.data.get("handover_to") if closed else None,
        "windows": windows,
    }


def _cage_row(code: str, figures: dict, *, counted: bool) -> dict:
    """A table's row of the cage summary: the daily report's figures with ``hold`` (the hold, or
    why it is not shown: ``dashboard.figures.hold``), ``counted`` (the count room counted its
    drop box: ``live_count``) and ``final`` (counted and closed). As on the floor
    (``count_room``), a win is final once its box is counted: the report's ``drop_counted`` is
    true of a table without a buy-in before any count, so the floor said "no win is final yet"
    while this row said "final"."""
    return {
        "table": code,
        **figures,
        "hold": hold_of(figures["win_cents"], figures["drop_cents"]),
        "counted": counted,
        "final": counted and figures["drop_counted"] and not figures["open"],
    }


def cage_summary(*, day: date | None = None) -> dict:
    """The cage for the pit boss, read-only (cents): its cashier shift (``cage_shift``: open or
    closed, by whom, when), whether its books are open (``cage.state``: the float was counted
    in; it stays open across shifts), its balances (from the ledger), the fill and credit slips
    still pending (requested or issued, oldest first), the slips of the day by kind and state,
    each active table's count-room figures for the day (``cashier.reports.table_figures``: drop
    counted or, until the count, the recorded buy-ins; fills, credits, opener, closer, win) and
    the day's variance list (``variances``: its rows with ``kind_words`` and ``count``, the
    count in words with its local time, ``dashboard.alerts.variance_count``)."""
    day = day or current_gaming_day()
    cage = Cage.objects.filter(code="main").first()
    pending = Slip.objects.filter(state__in=[Slip.State.REQUESTED, Slip.State.ISSUED]).select_related("table")
    of_day = (
        Slip.objects.filter(gaming_day=day)
        .values("kind", "state")
        .annotate(n=Count("id"), amount_cents=Sum("amount_cents"))
        .order_by("kind", "state")
    )
    return {
        "gaming_day": day,
        "cage": {"state": cage.state if cage else "closed"},
        "shift": cage_shift(cage.code if cage else "main"),
        "cash_cents": store.balance(accounts.CAGE_CASH),
        "chips_cents": store.balance(accounts.CAGE_CHIPS),
        "pending": [
            {
                "kind": slip.kind,
                "serial": slip.serial,
                "table": slip.table.code,
                "state": slip.state,
                "amount_cents": slip.amount_cents,
                "requested_by": slip.requested_by,
                "issued_by": slip.issued_by,
                "runner": slip.runner,
            }
            for slip in pending.order_by("created_at", "id")
        ],
        "slips_of_day": list(of_day),
        "tables": [
            _cage_row(t.code, table_figures(t.code, day, day), counted=live_count(t.code, day) is not None)
            for t in tables_active(day, day)
        ],
        "variances": [
            row | {"kind_words": row["kind"].replace("_", " "), "count": checks.variance_count(row)}
            for row in map(with_local_time, variance_report(day)["rows"])
        ],
    }

"""Printable, signable reports: the daily table-games report, the cage
accountability and the variance report as HTML pages with a print stylesheet, and as PDF
(WeasyPrint renders the same page). Each names the casino, the software version, the period
and the generation time (local, with the zone), says "No activity" where a section is empty,
and ends with signature lines for the roles that sign it. Figures come from
``cashier.reports`` untouched (cents), formatted in currency units only here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings

from cashier import reports
from cashier.reports import CORRECTION_EVENTS
from games.names import game_name
from ledger import accounts
from ledger.models import Event

PERIOD_NAMES = {"day": "Day", "month_to_date": "Month to date", "year_to_date": "Year to date"}
TABLE_FIGURES = [
    ("opener_cents", "Opener"),
    ("fills_cents", "Fills"),
    ("credits_cents", "Credits"),
    ("drop_cents", "Drop"),
    ("closer_cents", "Closer"),
    ("colour_out_cents", "Colour chips out"),
    ("win_cents", "Win"),
    ("hold_pct", "Hold %"),
    ("ledger_win_cents", "Ledger win"),
    ("variance_cents", "Variance"),
]
BACK_OFFICE_LINES = [
    ("tips_counted_cents", "Tips counted into the tronc"),
    ("tronc_shared_cents", "Tronc shared out to the staff"),
    ("markers_issued", "Markers issued (number)"),
    ("markers_issued_cents", "Markers issued"),
    ("markers_paid_cents", "Markers paid"),
    ("front_money_deposited_cents", "Front money deposited"),
    ("front_money_withdrawn_cents", "Front money withdrawn (at the cage, or drawn at a table)"),
]
# The voids and corrections of the day (``cashier.reports.CORRECTION_EVENTS``) in words.
CORRECTION_NAMES = [
    ("coups_voided", "Coups voided"),
    ("coups_reversed", "Coups reversed"),
    ("slips_voided", "Fill and credit slips voided"),
    ("slips_reversed", "Fills and credits reversed"),
    ("drop_counts_reversed", "Drop counts reversed"),
]
BACK_OFFICE_BALANCES = [
    ("tronc_pool_cents", "Tronc pool not yet shared"),
    ("markers_outstanding_cents", "Markers outstanding"),
    ("front_money_held_cents", "Front money held for patrons"),
]
# The cage's movements (cashier.reports.CAGE_MOVEMENTS) in words: the one place their labels
# are made (a movement without one is refused, never shown by its key). Each is listed under its
# side (cash or value chips), as money in or out of the cage by its sign: a label that nets two
# directions says so without naming one.
CAGE_MOVEMENT_NAMES = {
    "bankroll_cash": "Float from the house bankroll",
    "bankroll_chips": "Float from the house bankroll",
    "chip_sales": "Chip sales (cash in)",
    "redemptions": "Chip redemptions (cash out)",
    "drop_counted": "Drop counted into the cage",
    "chips_sold": "Chips sold (chips out)",
    "chips_redeemed": "Chips redeemed (chips in)",
    "fills": "Fills to the tables",
    "credits": "Credits from the tables",
    "front_money": "Front money (deposits and withdrawals)",
    "marker_payments": "Marker payments in cash",
    "marker_chips": "Markers in chips (issued, paid back in chips, voided)",
    "window_cash_variances": "Cashier windows counted over or short (cash)",
    "window_chip_variances": "Cashier windows counted over or short (chips)",
    "reversals_cash": "Reversals (cash)",
    "reversals_chips": "Reversals (chips)",
    "foreign_exchange_cash": "Foreign banknotes bought, paid in cash",
    "foreign_exchange_chips": "Foreign banknotes bought, paid in chips",
}
# What the cage's book moved by on the day beyond the kinds above (none, as long as every
# event that posts to the cage has its kind): shown, so the page still adds up.
OTHER_MOVEMENTS = "Other movements (not itemised above)"
# The ledger events behind each figure of the table games report (the event list's ``type``
# filter; with the table or tables of the row). Win, ledger win and variance: all the table's events.
FIGURE_EVENTS = {
    "opener_cents": "TableOpened",
    "fills_cents": "FillDelivered,FillReversed",
    "credits_cents": "CreditDelivered,CreditReversed,FrontMoneyDrawn",
    "drop_cents": "DropCounted,DropCountReversed",
    "closer_cents": "TableClosed",
    "colour_out_cents": "ColourChipsBought,ColourChipsChangedBack",
}
# The events behind the back office's lines, and the account behind its balances.
BACK_OFFICE_EVENTS = {
    "tips_counted_cents": "TipsCounted",
    "tronc_shared_cents": "TroncShared",
    "markers_issued": "MarkerIssued",
    "markers_issued_cents": "MarkerIssued",
    "markers_paid_cents": "MarkerPaid,MarkerPaidAtTable",
    "front_money_deposited_cents": "FrontMoneyDeposited",
    "front_money_withdrawn_cents": "FrontMoneyWithdrawn,FrontMoneyDrawn",
}
BACK_OFFICE_ACCOUNTS = {
    "tronc_pool_cents": accounts.TRONC,
    "markers_outstanding_cents": accounts.CAGE_MARKERS,
    "front_money_held_cents": accounts.CAGE_DEPOSITS,
}
# The counts the variance list checks: each is a count against the book, with or without a variance.
COUNT_EVENTS = ("TableOpened", "TableClosed", "CageShiftOpened", "CageShiftClosed")
VARIANCE_KINDS = {
    "drop": "drop count",
    "opener": "table opener",
    "closer": "table closer",
    "cage_shift": "cage shift count",
    "cage_shift_cash": "cage shift count, cash",
    "cage_shift_chips": "cage shift count, chips",
    "cage_handover": "cage handover",
}


@dataclass(frozen=True)
class Printable:
    slug: str
    template: str
    build: Callable[[date], dict]
    signatures: tuple[str, ...]


REPORTS = {
    p.slug: p
    for p in (
        Printable(
            "table-games",
            "workstations/print_table_games.html",
            reports.table_games_daily_report,
            ("Pit manager", "Count team", "Cage supervisor", "Auditor (review)"),
        ),
        Printable(
            "cage-accountability",
            "workstations/print_cage.html",
            reports.cage_accountability_report,
            ("Cashier", "Cage supervisor", "Auditor (review)"),
        ),
        Printable(
            "variances",
            "workstations/print_variances.html",
            reports.variance_report,
            ("Cage supervisor", "Pit manager", "Auditor (review)"),
        ),
    )
}


def _span(period: str, day: date) -> dict:
    """The event list's day filter of a report period: the day itself, or a range of days."""
    start, end = reports.period_bounds(day)[period]
    return {"gaming_day": day.isoformat()} if start == end else {"since": start.isoformat(), "until": end.isoformat()}


def _figure_links(row: dict, tables: list[str], day: date) -> dict:
    """``{figure: event list filters}`` for one row of the table games report."""
    base = _span(row["period"], day) | {"table": ",".join(tables)}
    links = {key: base | {"type": types} for key, types in FIGURE_EVENTS.items()}
    for key in ("win_cents", "ledger_win_cents", "variance_cents", "hold_pct", "label"):
        links[key] = base
    return links


def context(slug: str, day: date, *, links: bool = False) -> dict:
    """The template context of report ``slug`` for gaming ``day``: the report as built, its
    header (casino, version, period, generation time as an aware UTC datetime) and the
    sections the template lays out. ``links``: each figure carries the event list's filters
    of the events behind it (``links`` of a row, ``*_query`` of a line; for the auditor)."""
    printable = REPORTS[slug]
    report = printable.build(day)
    head = {
        "title": report["title"],
        "casino": getattr(settings, "CASINO_NAME", "Casino"),
        "version": report["software_version"],
        "period": report["period"],
        "generated_at": datetime.fromisoformat(report["generated_at"].replace("Z", "+00:00")),
        "gaming_day": day,
    }
    ctx = {"report": report, "head": head, "signatures": printable.signatures, "slug": slug}
    if slug in ("table-games", "cage-accountability"):
        # A fill slip between the cage and the table: out of the cage's chips, not yet in a tray.
        ctx["fills_in_transit_cents"] = reports.fills_in_transit_cents(day)
        ctx["fills_in_transit_query"] = (
            {"gaming_day": day.isoformat(), "type": "FillIssued,FillDelivered,FillVoided"} if links else None
        )
        ctx["fills_name"] = CAGE_MOVEMENT_NAMES["fills"]
    if slug == "table-games":
        ctx["figures"] = TABLE_FIGURES
        ctx["periods"] = []
        for period in reports.PERIODS:
            rows = [row for row in report["rows"] if row["period"] == period]
            tables = {r["key"]: [r["key"]] for r in rows if r["level"] == "table"}
            by_game = {
                r["key"]: [t["key"] for t in rows if t["level"] == "table" and t["game"] == r["key"]] for r in rows
            }
            every = [t["key"] for t in rows if t["level"] == "table"]
            shown = []
            for row in rows:
                which = (
                    tables.get(row["key"])
                    if row["level"] == "table"
                    else every
                    if row["level"] == "total"
                    else by_game[row["key"]]
                )
                shown.append(row | {"label": _row_label(row), "links": _figure_links(row, which, day) if links else {}})
            ctx["periods"].append({"name": PERIOD_NAMES[period], "rows": shown})
        # The coups of the day entered later from an outage's paper forms (ledger.later_entries).
        ctx["later_entries"] = [
            (_row_label(row), row["later_entries"])
            for row in report["rows"]
            if row["period"] == "day" and row["level"] == "table" and row.get("later_entries")
        ]
        ctx["correction_names"] = [label for _, label in CORRECTION_NAMES]
        ctx["corrections"] = [
            {
                "table": row["table"],
                "counts": [
                    (
                        row[key],
                        {"gaming_day": day.isoformat(), "table": row["table"], "type": ",".join(CORRECTION_EVENTS[key])}
                        if links and row[key]
                        else None,
                    )
                    for key, _ in CORRECTION_NAMES
                ],
            }
            for row in report["corrections"]
        ]
        back_office = report["back_office"]
        ctx["back_office_periods"] = [PERIOD_NAMES[row["period"]] for row in back_office["rows"]]
        ctx["back_office_lines"] = [
            {
                "label": label,
                "count": key == "markers_issued",
                "values": [
                    (row[key], _span(row["period"], day) | {"type": BACK_OFFICE_EVENTS[key]} if links else None)
                    for row in back_office["rows"]
                ],
            }
            for key, label in BACK_OFFICE_LINES
        ]
        ctx["back_office_balances"] = [
            (
                label,
                back_office["end_of_day"][key],
                {"account": BACK_OFFICE_ACCOUNTS[key], "until": day.isoformat()} if links else None,
            )
            for key, label in BACK_OFFICE_BALANCES
        ]
        ctx["back_office_any"] = any(any(v for v, _ in line["values"]) for line in ctx["back_office_lines"]) or any(
            value for _, value, _ in ctx["back_office_balances"]
        )
    elif slug == "cage-accountability":
        ctx["shifts"] = [row for row in report["rows"] if row["line"] != "movements"]
        ctx["shifts_query"] = (
            {"gaming_day": day.isoformat(), "type": "CageShiftOpened,CageShiftClosed"} if links else None
        )
        ctx["sides"] = cage_book_sides(report, day, links=links)
    else:
        ctx["rows"] = [row | {"kind_name": VARIANCE_KINDS.get(row["kind"], row["kind"])} for row in report["rows"]]
        ctx["counts"] = counts_of_the_day(day)
        ctx["counts_query"] = {"gaming_day": day.isoformat(), "type": ",".join(COUNT_EVENTS)} if links else None
        ctx["drop_counts_query"] = {"gaming_day": day.isoformat(), "type": "DropCounted"} if links else None
    return ctx


def cage_book_sides(report: dict, day: date, *, links: bool = False) -> list[dict]:
    """The cage report's book, one side after the other (``key`` ``cash``, then ``chips``), laid
    out as people add it up: ``opening_cents`` (the book at the end of the day before) +
    ``in_cents`` − ``out_cents`` = ``closing_cents`` (the book at the end of the day). ``in`` and
    ``out``: the day's movements ``[(label, cents, query)]`` into and out of the cage, each a
    positive amount; ``query``, ``opening_query`` and ``closing_query``: the auditor's event list
    behind the figure, ``None`` without ``links``."""
    moved = next((row for row in report["rows"] if row["line"] == "movements"), None) or {}
    the_day = {"gaming_day": day.isoformat()}
    before = (day - timedelta(days=1)).isoformat()
    sides = []
    for side, title, account, key in (
        ("cash", "Cash", accounts.CAGE_CASH, "cage_cash_cents"),
        ("chips", "Value chips", accounts.CAGE_CHIPS, "cage_chips_cents"),
    ):
        opening, closing = report["opening"][key], report["book"][key]
        lines = [
            (
                CAGE_MOVEMENT_NAMES[name],
                moved[f"{name}_cents"],
                the_day | {"account": account, "type": ",".join(types)} if links else None,
            )
            for name, on, types in reports.CAGE_MOVEMENTS
            if on == account and moved.get(f"{name}_cents")
        ]
        other = closing - opening - sum(value for _, value, _ in lines)
        if other:
            lines.append((OTHER_MOVEMENTS, other, the_day | {"account": account} if links else None))
        ins = [(label, value, query) for label, value, query in lines if value > 0]
        outs = [(label, -value, query) for label, value, query in lines if value < 0]
        sides.append(
            {
                "key": side,
                "title": title,
                "opening_cents": opening,
                "in": ins,
                "in_cents": sum(value for _, value, _ in ins),
                "out": outs,
                "out_cents": sum(value for _, value, _ in outs),
                "closing_cents": closing,
                "opening_query": {"account": account, "until": before} if links else None,
                "closing_query": {"account": account, "until": day.isoformat()} if links else None,
            }
        )
    return sides


def counts_of_the_day(day: date) -> dict:
    """The counts against the book that the variance list of ``day`` checks, whether or not they
    show a variance: ``{"openers", "closers", "cage", "drop", "total"}`` (numbers of counts), and
    ``any``: whether anything at all was recorded on the day.
    ``drop``: drop boxes of the day counted (their count events; a reversed count and its
    recount are both counted)."""
    on_day = Event.objects.filter(gaming_day=day)
    openers = on_day.filter(type="TableOpened", stream__startswith="table/").count()
    closers = on_day.filter(type="TableClosed", stream__startswith="table/").count()
    cage = on_day.filter(type__in=["CageShiftOpened", "CageShiftClosed"]).count()
    drop = Event.objects.filter(type="DropCounted", data__gaming_day=day.isoformat()).count()
    return {
        "openers": openers,
        "closers": closers,
        "cage": cage,
        "drop": drop,
        "total": openers + closers + cage + drop,
    }


def _row_label(row: dict) -> str:
    if row["level"] == "table":
        still_open = ", still open: closer = book" if row.get("open") else ""
        return f"Table {row['key']} ({game_name(row['game'])}{still_open})"
    if row["level"] == "game":
        return f"All {game_name(row['game'])} tables"
    return "All tables"


def pdf(html: str, base_url: str) -> bytes:
    """The PDF of a report page (WeasyPrint, its print stylesheet applied)."""
    from weasyprint import HTML  # imported here: its system libraries load on first use

    return HTML(string=html, base_url=base_url).write_pdf()

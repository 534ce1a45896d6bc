"""Printable, signable reports (issue 24): the daily table-games report, the cage
accountability and the variance report as HTML pages with a print stylesheet, and as PDF
(WeasyPrint renders the same page). Each names the casino, the software version, the period
and the generation time (local, with the zone), says "No activity" where a section is empty,
and ends with signature lines for the roles that sign it. Figures come from
``cashier.reports`` untouched (cents), formatted in currency units only here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings

from cashier import reports
from games.names import game_name
from ledger import accounts

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
    ("front_money_withdrawn_cents", "Front money withdrawn"),
]
BACK_OFFICE_BALANCES = [
    ("tronc_pool_cents", "Tronc pool not yet shared"),
    ("markers_outstanding_cents", "Markers outstanding"),
    ("front_money_held_cents", "Front money held for patrons"),
]
# The cage's movements (cashier.reports.CAGE_MOVEMENTS) in words, shown under their side
# (cash or value chips); positive into the cage.
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
    "front_money": "Front money deposited less withdrawn",
    "marker_payments": "Marker payments in cash",
    "marker_chips": "Markers issued in chips less paid in chips",
}
VARIANCE_KINDS = {
    "drop": "drop count",
    "opener": "table opener",
    "closer": "table closer",
    "cage_shift": "cage shift count",
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


def context(slug: str, day: date) -> dict:
    """The template context of report ``slug`` for gaming ``day``: the report as built, its
    header (casino, version, period, generation time as an aware UTC datetime) and the
    sections the template lays out."""
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
    if slug == "table-games":
        ctx["figures"] = TABLE_FIGURES
        ctx["periods"] = [
            {
                "name": PERIOD_NAMES[period],
                "rows": [row | {"label": _row_label(row)} for row in report["rows"] if row["period"] == period],
            }
            for period in reports.PERIODS
        ]
        back_office = report["back_office"]
        ctx["back_office_periods"] = [PERIOD_NAMES[row["period"]] for row in back_office["rows"]]
        ctx["back_office_lines"] = [
            {"label": label, "count": key == "markers_issued", "values": [row[key] for row in back_office["rows"]]}
            for key, label in BACK_OFFICE_LINES
        ]
        ctx["back_office_balances"] = [(label, back_office["end_of_day"][key]) for key, label in BACK_OFFICE_BALANCES]
        ctx["back_office_any"] = any(any(line["values"]) for line in ctx["back_office_lines"]) or any(
            value for _, value in ctx["back_office_balances"]
        )
    elif slug == "cage-accountability":
        ctx["shifts"] = [row for row in report["rows"] if row["line"] != "movements"]
        moved = next((row for row in report["rows"] if row["line"] == "movements"), None) or {}
        ctx["movements"] = [
            {"title": title, "lines": lines, "total_cents": sum(value for _, value in lines)}
            for title, account in (("Cash movements", accounts.CAGE_CASH), ("Chip movements", accounts.CAGE_CHIPS))
            if (
                lines := [
                    (CAGE_MOVEMENT_NAMES.get(name, name), moved[f"{name}_cents"])
                    for name, on, _ in reports.CAGE_MOVEMENTS
                    if on == account and moved.get(f"{name}_cents")
                ]
            )
        ]
    else:
        ctx["rows"] = [row | {"kind_name": VARIANCE_KINDS.get(row["kind"], row["kind"])} for row in report["rows"]]
    return ctx


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

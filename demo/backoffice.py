"""The demo's back office: a tip box counted and shared, a marker issued and paid, a
front-money deposit, the drop boxes removed by the drop team and the counts verified blind,
the master game report signed by the count team. Each step is skipped when an earlier run of
the same gaming day did it."""

from __future__ import annotations

from datetime import date

from cashier import credit_reports, custody_reports, tronc_reports
from cashier.credit_models import CreditLine, Marker
from cashier.services.count_room import box_removal, drop_box_remove, drop_stream, live_count
from cashier.services.credit import credit_line_set, front_money_deposit, marker_issue, marker_pay
from cashier.services.drop_custody import drop_recount, master_game_sign
from cashier.services.tronc import tips_count, tronc_share
from ledger import store
from ledger.models import Event
from patrons.models import Patron
from patrons.services.patrons import patron_register
from staff.roles import Role

from .day import CASHIER, COUNTERS, DEALER, PIT_BOSS, SUPERVISOR, demo_cage_shift_open, ensure_staff

DROP_TEAM = ("demo-drop1", "demo-drop2")
VERIFIER = "demo-count3"
CREDIT_PATRON = "Marguerite Fontaine"  # the demo's patron with a credit line
TIPS_CASH = {"2000": 6, "1000": 3}  # 150 EUR in the R1 tip box


def ensure_back_office_staff() -> None:
    ensure_staff({DROP_TEAM[0]: Role.DROP_TEAM, DROP_TEAM[1]: Role.DROP_TEAM, VERIFIER: Role.COUNT_TEAM})


def demo_tips(day: date) -> None:
    """R1's tip box counted by the two counters with the cage supervisor, then shared out."""
    if store.stream_version(f"tips/table:R1/{day.isoformat()}"):
        return
    tips_count(
        box={"table": "R1"},
        gaming_day=day,
        chips={},
        cash=TIPS_CASH,
        counters=list(COUNTERS),
        manager=SUPERVISOR,
        actor=COUNTERS[0],
    )
    tronc_share(staff=[{"username": DEALER}, {"username": PIT_BOSS}, {"username": CASHIER}], actor=SUPERVISOR)


def demo_credit(day: date) -> None:
    """A credit line of 5,000 EUR, a 1,000 EUR marker at the cage paid in cash, and 2,000 EUR of front money."""
    patron = Patron.objects.filter(name=CREDIT_PATRON).first()
    code = (
        patron.code
        if patron
        else patron_register(kind="identified", name=CREDIT_PATRON, document="passport MF7741203", actor=CASHIER)[
            "patron"
        ]
    )
    if Marker.objects.filter(patron__code=code, gaming_day=day).exists():
        return
    if not CreditLine.objects.filter(patron__code=code).exists():
        credit_line_set(patron=code, limit_cents=500_000, actor=SUPERVISOR)
    demo_cage_shift_open()  # the marker and the front money cross the counter in the cashier's own shift
    serial = marker_issue(patron=code, amount_cents=100_000, actor=CASHIER)["serial"]
    marker_pay(serial=serial, amount_cents=100_000, method="cash", actor=CASHIER)
    front_money_deposit(patron=code, amount_cents=200_000, actor=CASHIER)


def demo_drop_removal(table: str, day: date) -> None:
    """The drop team (two people, neither of the table's shift) removes the box."""
    if not store.stream_version(drop_stream(table, day)):
        drop_box_remove(table=table, gaming_day=day, removers=list(DROP_TEAM), actor=DROP_TEAM[0])


def demo_recount(table: str, day: date) -> None:
    """The verifier recounts the box blind, as counted (the demo's short box included)."""
    count = live_count(table, day)
    if count is None or box_removal(table, day) is None:
        return
    if Event.objects.filter(stream=drop_stream(table, day), position__gt=count.position).exists():
        return
    drop_recount(table=table, gaming_day=day, cash=count.data["denominations"], actor=VERIFIER)


def demo_master_game_signatures(day: date) -> None:
    for signer in COUNTERS:
        report = custody_reports.master_game_report(day)
        if not report["rows"] or any(s["signer"] == signer and s["current"] for s in report["signatures"]):
            continue
        master_game_sign(gaming_day=day, actor=signer)


def back_office_reports(day: date) -> dict:
    return {
        "tips_book": tronc_reports.tips_book(day),
        "tronc_shares": tronc_reports.tronc_shares(day),
        "credit": credit_reports.credit_outstanding_report(day),
        "master_game": custody_reports.master_game_report(day),
    }

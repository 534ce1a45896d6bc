"""Every cash transaction of a patron counts in his AML totals, not only chip exchanges.

Cash in: chip purchases, cash buy-ins, front money deposits, markers paid in cash; cash out:
redemptions, front money withdrawals (31 CFR 1021.311). Cash in and cash out are totalled
apart, per gaming day; the flags, ``aml.csv`` and the patron's page read the same totals.
"""

import csv
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from cashier.services.cage import chips_purchase, chips_redeem
from cashier.services.credit import (
    credit_line_set,
    front_money_deposit,
    front_money_withdraw,
    marker_issue,
    marker_pay,
)
from dashboard.patron_page import patron_detail
from ledger import posting_rules, store
from ledger.export.writer import export_to_dir
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from ledger.store import NewEvent
from patrons.services import aml
from patrons.services.patrons import patron_register
from tests.conftest import ACTOR, SHIFT_CASHIER, make_patron, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def supervisor(cage) -> str:
    staff_user("super1", "cage_supervisor")
    return "super1"


def _marker_paid_in_cash(code: str, cents: int, supervisor: str) -> dict:
    credit_line_set(patron=code, limit_cents=500_000, actor=supervisor)
    serial = marker_issue(patron=code, amount_cents=cents, actor=SHIFT_CASHIER)["serial"]
    return marker_pay(serial=serial, amount_cents=cents, method="cash", actor=SHIFT_CASHIER)


def _decisions(code: str) -> list[tuple]:
    return [
        (e.type, e.data["channel"], e.data["direction"], e.data["amount_cents"], e.data["day_total_cents"])
        for e in Event.objects.filter(stream=f"aml/{code}", type__in=aml.DECISION_EVENTS).order_by("position")
    ]


def _aml_csv(tmp_path) -> list[dict]:
    day = current_gaming_day()
    seal_gaming_day(day=day, actor=ACTOR)
    export_to_dir(day, tmp_path, include_identity=True)
    with open(tmp_path / "aml.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_a_marker_paid_in_cash_and_a_front_money_deposit_add_up_and_are_flagged_and_exported(supervisor, tmp_path):
    """The demo day's credit patron: a 1,000 EUR marker paid in cash, then 2,000 EUR of front
    money in cash: 3,000 EUR of cash in that gaming day, one total for the thresholds."""
    code = make_patron()
    paid = _marker_paid_in_cash(code, 100_000, supervisor)
    assert paid["aml"] == []  # 1,000 EUR: under every threshold
    deposit = front_money_deposit(patron=code, amount_cents=200_000, actor=SHIFT_CASHIER)
    assert [(d["type"], d["day_total_cents"], d["threshold_cents"]) for d in deposit["aml"]] == [
        ("AmlIdentityChecked", 300_000, 200_000)
    ]
    assert aml.cash_day_totals(code, current_gaming_day()) == {"in": 300_000, "out": 0, "transactions": 2}
    assert _decisions(code) == [("AmlIdentityChecked", "front_money_deposit", "in", 200_000, 300_000)]
    detail = patron_detail(code)
    assert (detail["cash_in_cents"], detail["cash_out_cents"]) == (300_000, 0)
    assert [f["type"] for f in detail["aml_flags"]] == ["AmlIdentityChecked"]

    rows = [r for r in _aml_csv(tmp_path) if r["patron"] == code]
    assert [
        (r["record"], r["direction"], r["amount"], r["transactions"], r["threshold"], r["channel"]) for r in rows
    ] == [
        ("identity_checked", "in", "2000.00", "1", "2000.00", "front_money_deposit"),
        ("day_total", "in", "3000.00", "2", "", ""),
    ]
    assert {r["identity_status"] for r in rows} == {"on_file"}


def test_a_front_money_deposit_of_3000_is_logged_and_a_marker_paid_with_chips_is_no_cash(supervisor):
    code = make_patron(100_000)  # 1,000 EUR of chips bought in cash
    logged = front_money_deposit(patron=code, amount_cents=300_000, actor=SHIFT_CASHIER)
    assert [d["type"] for d in logged["aml"]] == ["AmlIdentityChecked", "AmlTransactionLogged"]
    credit_line_set(patron=code, limit_cents=100_000, actor=supervisor)
    serial = marker_issue(patron=code, amount_cents=100_000, actor=SHIFT_CASHIER)["serial"]
    marker_pay(serial=serial, amount_cents=50_000, method="chips", actor=SHIFT_CASHIER)
    marker_pay(serial=serial, amount_cents=50_000, method="front_money", actor=SHIFT_CASHIER)
    assert aml.cash_day_totals(code, current_gaming_day()) == {"in": 400_000, "out": 0, "transactions": 2}
    assert _decisions(code) == [
        ("AmlIdentityChecked", "front_money_deposit", "in", 300_000, 400_000),
        ("AmlTransactionLogged", "front_money_deposit", "in", 300_000, 400_000),
    ]


def test_a_marker_paid_in_cash_and_a_deposit_reach_the_identity_threshold_together(supervisor):
    """A patron known by name only: 1,000 EUR on a marker and 999.99 of front money pass; one
    cent more of front money makes 2,000 EUR of cash in and needs his identity document."""
    nameless = patron_register(kind="identified", name="Walk-in in a red coat", actor=ACTOR)["patron"]
    _marker_paid_in_cash(nameless, 100_000, supervisor)
    front_money_deposit(patron=nameless, amount_cents=99_999, actor=SHIFT_CASHIER)
    before = Event.objects.filter(type="FrontMoneyDeposited").count()
    with pytest.raises(aml.IdentityRequired) as refusal:
        front_money_deposit(patron=nameless, amount_cents=1, actor=SHIFT_CASHIER)
    assert "deposit front money for 2,000.00 EUR or more" in refusal.value.message
    assert refusal.value.decision["day_total_cents"] == 200_000
    assert Event.objects.filter(type="FrontMoneyDeposited").count() == before  # rolled back
    refused = Event.objects.get(stream=f"aml/{nameless}", type="AmlTransactionRefused")
    assert (refused.data["channel"], refused.data["amount_cents"]) == ("front_money_deposit", 1)


def test_cash_in_and_cash_out_are_totalled_apart_every_kind_together(supervisor):
    code = make_patron()
    front_money_deposit(patron=code, amount_cents=500_000, actor=SHIFT_CASHIER)  # in 5,000
    chips_purchase(patron=code, amount_cents=500_000, actor=SHIFT_CASHIER)  # in 10,000: not over
    front_money_withdraw(patron=code, amount_cents=500_000, actor=SHIFT_CASHIER)  # out 5,000
    assert not Event.objects.filter(type="AmlAggregateFlagged").exists()  # in + out is no total
    over = chips_purchase(patron=code, amount_cents=1, actor=SHIFT_CASHIER)  # in 10,000.01
    assert [d["type"] for d in over["aml"]] == ["AmlIdentityChecked", "AmlAggregateFlagged"]
    chips_redeem(patron=code, amount_cents=500_001, actor=SHIFT_CASHIER)  # out 10,000.01
    flags = Event.objects.filter(stream=f"aml/{code}", type="AmlAggregateFlagged").order_by("position")
    assert [
        (f.data["direction"], f.data["channel"], f.data["amount_cents"], f.data["day_total_cents"]) for f in flags
    ] == [
        ("in", "cage_purchase", 1, 1_000_001),
        ("out", "cage_redemption", 500_001, 1_000_001),
    ]
    assert aml.cash_day_totals(code, current_gaming_day()) == {"in": 1_000_001, "out": 1_000_001, "transactions": 5}


def _on_an_earlier_day(code: str, event_type: str, data: dict, legs) -> None:
    """A cash transaction of ``code`` recorded two gaming days ago (on a stream of its own)."""
    with transaction.atomic():
        store.lock_writers()
        store.append(
            stream="test/earlier-cash",
            expected_version=store.stream_version("test/earlier-cash"),
            actor=ACTOR,
            events=[
                NewEvent(event_type, {"patron": code, **data}, legs, occurred_at=timezone.now() - timedelta(days=2))
            ],
        )


def test_cash_of_another_gaming_day_is_not_counted(supervisor):
    nameless = patron_register(kind="identified", name="Walk-in in a red coat", actor=ACTOR)["patron"]
    _on_an_earlier_day(
        nameless, "FrontMoneyDeposited", {"amount_cents": 150_000}, posting_rules.front_money_deposit(nameless, 150_000)
    )
    _on_an_earlier_day(
        nameless,
        "MarkerPaid",
        {"amount_cents": 100_000, "method": "cash", "serial": "2000-000001"},
        posting_rules.marker_paid(nameless, 100_000, method="cash"),
    )
    earlier = Event.objects.get(stream="test/earlier-cash", type="MarkerPaid").gaming_day
    assert earlier < current_gaming_day()
    assert aml.cash_day_totals(nameless, earlier) == {"in": 250_000, "out": 0, "transactions": 2}
    front_money_deposit(patron=nameless, amount_cents=199_999, actor=SHIFT_CASHIER)  # today: 1,999.99 only
    assert aml.cash_day_totals(nameless, current_gaming_day()) == {"in": 199_999, "out": 0, "transactions": 1}
    assert _decisions(nameless) == []

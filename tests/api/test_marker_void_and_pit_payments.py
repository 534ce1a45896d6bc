"""A marker voided with its reason and two signatures (the second from the cage supervisor's own
login, through the approvals), reversing its issue exactly; a marker paid at a table by the pit
boss, in chips into the tray or cash into the drop; front money drawn in chips at a table, the
deposit reduced and the tray giving the chips. Each on the ledger, balanced, in cents."""

import pytest

from approvals.models import Approval
from approvals.services import approval_confirm, approval_request
from cashier.credit_models import Marker
from cashier.services.cage import chips_redeem
from cashier.services.credit import (
    credit_line_set,
    front_money_deposit,
    front_money_draw,
    marker_issue,
    marker_pay_at_table,
    marker_transfer,
    marker_void,
)
from ledger import accounts, store
from ledger.errors import InsufficientChips, InvalidInput
from ledger.models import Event, Posting
from ledger.replay import replay_check
from patrons.services.patrons import patron_register
from staff.roles import RoleRequired
from tests.conftest import ACTOR, client_as, hand_cage_to, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk(table):
    """A patron with a credit line of 5,000 EUR, and the clients of two cage supervisors, the
    shift's cashier ``cash1``, and a pit boss at the open table R1."""
    patron = patron_register(kind="identified", name="High Roller", document="ID-HR-0001", actor=ACTOR)["patron"]
    clients = {
        "patron": patron,
        "super": client_as(staff_user("super1", "cage_supervisor")),
        "super2": client_as(staff_user("super2", "cage_supervisor")),
        "cashier": client_as(staff_user("cash1", "cashier")),
        "pit": client_as(staff_user("pit1", "pit_boss")),
    }
    hand_cage_to("cash1")
    credit_line_set(patron=patron, limit_cents=500_000, actor="super1")
    return clients


def _legs(event: Event) -> dict[str, int]:
    legs: dict[str, int] = {}
    for posting in Posting.objects.filter(event=event):
        legs[posting.account] = legs.get(posting.account, 0) + posting.amount_cents
    return {account: amount for account, amount in legs.items() if amount}


def _last(event_type: str) -> Event:
    return Event.objects.filter(type=event_type).order_by("-position").first()


# --- void ---------------------------------------------------------------------------------


def test_a_void_is_asked_with_its_reason_and_runs_when_another_cage_supervisor_signs(desk):
    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=200_000, table="R1", actor="pit1")["serial"]
    marker_transfer(serial=serial, actor="cash1")
    tray_before = store.balance(accounts.table_tray("R1"))

    no_reason = desk["cashier"].post(f"/api/markers/{serial}/void", {"reason": "  "}, format="json")
    assert (no_reason.status_code, no_reason.json()["field"]) == (400, "reason")
    assert not Approval.objects.filter(kind="marker_void").exists()
    assert desk["pit"].post(f"/api/markers/{serial}/void", {"reason": "x"}, format="json").status_code == 403

    asked = desk["cashier"].post(
        f"/api/markers/{serial}/void", {"reason": "written for the wrong patron"}, format="json"
    )
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]
    assert [w["roles"] for w in approval["waiting_for"]] == [["cage_supervisor"]]
    assert Marker.objects.get(serial=serial).state == Marker.State.AT_CAGE  # nothing voided yet

    own = desk["cashier"].post(f"/api/approvals/{approval['id']}/confirm", {}, format="json")
    assert own.status_code == 403
    signed = desk["super"].post(f"/api/approvals/{approval['id']}/confirm", {}, format="json")
    assert signed.status_code == 200, signed.content
    assert (signed.json()["voided_by"], signed.json()["approved_by"]) == ("cash1", "super1")

    voided = _last("MarkerVoided")
    assert (voided.actor, voided.data["reason"], voided.data["approved_by"]) == (
        "cash1",
        "written for the wrong patron",
        "super1",
    )
    # The issue (at R1) and the transfer (drop → cage) reversed: receivable and chips back.
    assert _legs(voided) == {
        f"patron:{p}:credit": 200_000,
        "cage:markers": -200_000,
        "table:R1:tray": 200_000,
        f"patron:{p}:chips": -200_000,
    }
    assert sum(_legs(voided).values()) == 0
    assert store.balance(accounts.patron_credit(p)) == 0
    assert store.balance(accounts.CAGE_MARKERS) == 0
    assert store.balance(accounts.table_drop("R1")) == 0
    assert store.balance(accounts.table_tray("R1")) == tray_before + 200_000
    marker = Marker.objects.get(serial=serial)
    assert (marker.state, marker.void_reason, marker.voided_by, marker.void_approved_by) == (
        "voided",
        "written for the wrong patron",
        "cash1",
        "super1",
    )
    assert replay_check() == []
    report = desk["super"].get("/api/reports/credit-outstanding").json()
    assert [r["serial"] for r in report["rows"] if r["kind"] == "marker"] == []
    assert report["totals"]["markers_outstanding_cents"] == report["totals"]["ledger_cage_markers_cents"] == 0

    again = desk["cashier"].post(f"/api/markers/{serial}/void", {"reason": "twice"}, format="json")
    assert (again.status_code, again.json()["field"]) == (409, "serial")
    paid_on = desk["pit"].post(
        f"/api/markers/{serial}/table-payments", {"amount_cents": 1, "method": "chips", "table": "R1"}, format="json"
    )
    assert paid_on.status_code == 409


def test_a_cage_marker_voided_gives_its_chips_back_to_the_window_that_issued_them(desk):
    p = desk["patron"]
    issued = marker_issue(patron=p, amount_cents=30_000, actor="cash1")
    window = _last("MarkerIssued").data["window"]
    drawer_before = store.balance(accounts.window_chips(window))
    asked = approval_request(
        kind="marker_void", payload={"serial": issued["serial"], "reason": "typed twice"}, actor="cash1"
    )
    result = approval_confirm(approval=asked["approval"]["id"], actor="super1")
    assert result["approved_by"] == "super1"
    assert _legs(_last("MarkerVoided")) == {
        f"patron:{p}:credit": 30_000,
        "cage:markers": -30_000,
        "cage:chips": 30_000,
        f"patron:{p}:chips": -30_000,
        accounts.window_chips(window): 30_000,
        accounts.CAGE_WINDOWS_CHIPS: -30_000,
    }
    assert store.balance(accounts.window_chips(window)) == drawer_before + 30_000
    # The credit it took is free again.
    assert marker_issue(patron=p, amount_cents=500_000, actor="cash1")["remaining_credit_cents"] == 0


def test_a_void_outside_the_approvals_or_by_the_one_asking_is_refused(desk):
    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=10_000, actor="cash1")["serial"]
    with pytest.raises(RoleRequired):
        marker_void(serial=serial, reason="error", approver="super1", actor="super1")
    with pytest.raises(InvalidInput):
        marker_void(serial=serial, reason="", approver="super2", actor="cash1")
    # A supervisor's name passed by any path but his own confirmation is no signature.
    with pytest.raises(InvalidInput) as named:
        marker_void(serial=serial, reason="error", approver="super2", actor="cash1")
    assert named.value.field == "approver"
    asked = desk["super"].post(f"/api/markers/{serial}/void", {"reason": "error"}, format="json")
    own = desk["super"].post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
    assert own.status_code == 403
    assert Marker.objects.get(serial=serial).state == Marker.State.AT_CAGE


def test_a_paid_or_partly_paid_marker_cannot_be_voided(desk):
    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=10_000, table="R1", actor="pit1")["serial"]
    marker_pay_at_table(serial=serial, table="R1", amount_cents=4_000, method="chips", actor="pit1")
    partly = desk["cashier"].post(f"/api/markers/{serial}/void", {"reason": "error"}, format="json")
    assert (partly.status_code, partly.json()["field"]) == (409, "serial")
    marker_pay_at_table(serial=serial, table="R1", amount_cents=6_000, method="chips", actor="pit1")
    paid = desk["cashier"].post(f"/api/markers/{serial}/void", {"reason": "error"}, format="json")
    assert paid.status_code == 409 and "paid" in paid.json()["detail"]
    assert not Approval.objects.filter(kind="marker_void").exists()


# --- payment at the pit -------------------------------------------------------------------


def test_a_pit_boss_takes_a_marker_payment_at_his_table_in_chips_then_cash(desk):
    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=100_000, table="R1", actor="pit1")["serial"]
    tray, drop = store.balance(accounts.table_tray("R1")), store.balance(accounts.table_drop("R1"))

    part = desk["pit"].post(
        f"/api/markers/{serial}/table-payments",
        {"amount_cents": 60_000, "method": "chips", "table": "R1"},
        format="json",
    )
    assert part.status_code == 200, part.content
    assert (part.json()["outstanding_cents"], part.json()["state"]) == (40_000, "at_table")
    # The receivable leaves R1's drop, the chips go into its tray: tray + drop unmoved.
    assert _legs(_last("MarkerPaidAtTable")) == {
        "table:R1:drop": -60_000,
        f"patron:{p}:credit": 60_000,
        f"patron:{p}:chips": -60_000,
        "table:R1:tray": 60_000,
    }
    assert store.balance(accounts.table_tray("R1")) == tray + 60_000
    assert store.balance(accounts.table_drop("R1")) == drop - 60_000
    totals = desk["super"].get("/api/reports/credit-outstanding").json()["totals"]
    assert totals["markers_at_tables_cents"] == totals["markers_outstanding_cents"] == 40_000

    over = desk["pit"].post(
        f"/api/markers/{serial}/table-payments",
        {"amount_cents": 40_001, "method": "cash", "table": "R1"},
        format="json",
    )
    assert (over.status_code, over.json()["field"]) == (400, "amount_cents")
    assert "400.00 EUR outstanding" in over.json()["detail"]
    rest = desk["pit"].post(
        f"/api/markers/{serial}/table-payments",
        {"amount_cents": 40_000, "method": "cash", "table": "R1"},
        format="json",
    )
    assert rest.status_code == 200 and rest.json()["state"] == "paid"
    # Paid in cash: the cash goes into the drop box in the marker's place.
    legs = {(x.account, x.amount_cents) for x in Posting.objects.filter(event=_last("MarkerPaidAtTable"))}
    assert legs == {
        ("table:R1:drop", -40_000),
        (f"patron:{p}:credit", 40_000),
        ("external:cash", -40_000),
        ("table:R1:drop", 40_000),
    }
    assert store.balance(accounts.patron_credit(p)) == 0
    assert store.balance(accounts.table_drop("R1")) == drop - 60_000 == 40_000  # the cash in the box
    from cashier.reports import back_office_figures

    (today, *_) = back_office_figures(_last("MarkerPaidAtTable").gaming_day)["rows"]
    assert (today["markers_issued_cents"], today["markers_paid_cents"]) == (100_000, 100_000)
    assert store.balance(accounts.table_tray("R1")) + store.balance(accounts.table_drop("R1")) == tray + drop
    assert replay_check() == []
    again = desk["pit"].post(
        f"/api/markers/{serial}/table-payments", {"amount_cents": 1, "method": "cash", "table": "R1"}, format="json"
    )
    assert again.status_code == 409


def test_a_pit_payment_is_the_pit_bosss_on_a_marker_in_his_tables_drop_in_chips_the_patron_holds(desk):
    p = desk["patron"]
    at_cage = marker_issue(patron=p, amount_cents=10_000, actor="cash1")["serial"]
    serial = marker_issue(patron=p, amount_cents=10_000, table="R1", actor="pit1")["serial"]
    body = {"amount_cents": 1_000, "method": "chips", "table": "R1"}
    assert desk["cashier"].post(f"/api/markers/{serial}/table-payments", body, format="json").status_code == 403
    front = desk["pit"].post(f"/api/markers/{serial}/table-payments", body | {"method": "front_money"}, format="json")
    assert (front.status_code, front.json()["field"]) == (400, "method")
    no_table = desk["pit"].post(f"/api/markers/{serial}/table-payments", body | {"table": "R9"}, format="json")
    assert no_table.status_code == 404
    cage = desk["pit"].post(f"/api/markers/{at_cage}/table-payments", body, format="json")
    assert (cage.status_code, cage.json()["field"]) == (409, "serial")
    assert "at the cage: it is paid there" in cage.json()["detail"]
    chips_redeem(patron=p, amount_cents=19_500, actor="cash1")  # he keeps 5.00 EUR of the chips
    with pytest.raises(InsufficientChips):
        marker_pay_at_table(serial=serial, table="R1", amount_cents=1_000, method="chips", actor="pit1")
    paid = marker_pay_at_table(serial=serial, table="R1", amount_cents=500, method="chips", actor="pit1")
    assert paid["outstanding_cents"] == 9_500


# --- front money drawn at a table ---------------------------------------------------------


def test_front_money_drawn_at_a_table_reduces_the_deposit_and_the_tray(desk):
    p = desk["patron"]
    front_money_deposit(patron=p, amount_cents=300_000, actor="cash1")
    tray = store.balance(accounts.table_tray("R1"))
    drawn = desk["pit"].post(
        f"/api/patrons/{p}/front-money/draws", {"amount_cents": 120_000, "table": "R1"}, format="json"
    )
    assert drawn.status_code == 201, drawn.content
    assert drawn.json()["balance_cents"] == 180_000
    assert _legs(_last("FrontMoneyDrawn")) == {
        f"patron:{p}:deposit": -120_000,
        "cage:deposits": 120_000,
        "table:R1:tray": -120_000,
        f"patron:{p}:chips": 120_000,
    }
    assert store.balance(accounts.patron_deposit(p)) == 180_000
    assert store.balance(accounts.CAGE_DEPOSITS) == -180_000
    assert store.balance(accounts.table_tray("R1")) == tray - 120_000
    assert store.balance(accounts.patron_chips(p)) == 120_000
    from cashier.reports import back_office_figures

    (today, *_) = back_office_figures(_last("FrontMoneyDrawn").gaming_day)["rows"]
    assert (today["front_money_deposited_cents"], today["front_money_withdrawn_cents"]) == (300_000, 120_000)

    too_much = desk["pit"].post(
        f"/api/patrons/{p}/front-money/draws", {"amount_cents": 180_001, "table": "R1"}, format="json"
    )
    assert (too_much.status_code, too_much.json()["field"]) == (400, "amount_cents")
    assert "1,800.00 EUR of front money" in too_much.json()["detail"]
    assert (
        desk["cashier"].post(f"/api/patrons/{p}/front-money/draws", {"amount_cents": 1, "table": "R1"}, format="json")
    ).status_code == 403
    anon = desk["pit"].post("/api/patrons/anon/front-money/draws", {"amount_cents": 1, "table": "R1"}, format="json")
    assert (anon.status_code, anon.json()["field"]) == (400, "patron")
    no_table = desk["pit"].post(f"/api/patrons/{p}/front-money/draws", {"amount_cents": 1}, format="json")
    assert (no_table.status_code, no_table.json()["field"]) == (400, "table")


def test_a_front_money_draw_sent_twice_with_one_key_is_recorded_once(desk):
    p = desk["patron"]
    front_money_deposit(patron=p, amount_cents=50_000, actor="cash1")
    first = front_money_draw(patron=p, table="R1", amount_cents=20_000, actor="pit1", idempotency_key="draw-1")
    second = front_money_draw(patron=p, table="R1", amount_cents=20_000, actor="pit1", idempotency_key="draw-1")
    assert first == second
    assert Event.objects.filter(type="FrontMoneyDrawn").count() == 1
    assert store.balance(accounts.patron_deposit(p)) == 30_000


def test_a_front_money_draw_leaves_the_tables_win_alone_and_counts_with_its_credits(desk):
    from ledger.models import TableDayStats
    from ledger.projections import catch_up_all

    p = desk["patron"]
    front_money_deposit(patron=p, amount_cents=50_000, actor="cash1")
    front_money_draw(patron=p, table="R1", amount_cents=20_000, actor="pit1")
    catch_up_all()
    stats = TableDayStats.objects.get(table="R1")
    assert (stats.win_cents, stats.credits_cents, stats.drop_cents) == (0, 20_000, 0)
    # The count room's figures agree: the tray's 200.00 EUR less is a credit, not a loss.
    from cashier.reports import table_figures
    from dashboard.floor_reads import count_room_figures

    day = _last("FrontMoneyDrawn").gaming_day
    for figures in (table_figures("R1", day, day), count_room_figures(["R1"], day)["R1"]):
        assert (figures["credits_cents"], figures["win_cents"], figures["variance_cents"]) == (20_000, 0, 0)


def test_a_marker_paid_in_cash_at_a_table_is_cash_in_for_the_aml_rules(desk):
    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=400_000, table="R1", actor="pit1")["serial"]
    paid = marker_pay_at_table(serial=serial, table="R1", amount_cents=400_000, method="cash", actor="pit1")
    logged = [d for d in paid["aml"] if d["type"] == "AmlTransactionLogged"]
    assert [(d["channel"], d["direction"], d["amount_cents"]) for d in logged] == [
        ("marker_payment_at_table", "in", 400_000)
    ]


def test_a_marker_at_a_table_is_in_its_drop_so_the_table_neither_wins_nor_loses_by_it(desk):
    """The drop is cash and markers: a marker issued at R1 is in its drop box until paid there
    (in chips: back into the tray; in cash: the cash into the box) or voided; the day's figures
    show no win or loss from it, and the count expects the cash a marker was paid with."""
    from cashier.reports import table_figures
    from cashier.services.count_room import drop_box_remove, drop_count
    from dashboard.floor_reads import count_room_figures

    p = desk["patron"]
    serial = marker_issue(patron=p, amount_cents=100_000, table="R1", actor="pit1")["serial"]
    day = _last("MarkerIssued").gaming_day

    def figures():
        return [
            (f["drop_cents"], f["win_cents"], f["variance_cents"])
            for f in (table_figures("R1", day, day), count_room_figures(["R1"], day)["R1"])
        ]

    assert figures() == [(100_000, 0, 0)] * 2
    marker_pay_at_table(serial=serial, table="R1", amount_cents=30_000, method="chips", actor="pit1")
    marker_pay_at_table(serial=serial, table="R1", amount_cents=20_000, method="cash", actor="pit1")
    assert figures() == [(70_000, 0, 0)] * 2  # 500.00 of marker and 200.00 of cash in the box

    for name, role in (
        ("drop1", "drop_team"),
        ("drop2", "drop_team"),
        ("count1", "count_team"),
        ("count2", "count_team"),
    ):
        staff_user(name, role)
    removed = drop_box_remove(table="R1", gaming_day=day.isoformat(), actor="drop1", removers=["drop1", "drop2"])
    counted = drop_count(
        table="R1", gaming_day=day.isoformat(), cash={"10000": 2}, counters=["count1", "count2"], actor="count1"
    )
    assert (removed["expected_cents"], counted["variance_cents"]) == (20_000, 0)
    assert figures() == [(70_000, 0, 0)] * 2
    assert store.balance(accounts.CAGE_OVER_SHORT) == 0


def test_a_marker_voided_at_the_cage_after_its_box_was_counted_leaves_that_days_drop_as_counted(desk):
    """The count found the marker in R1's box and it went to the cage; voided there the same
    day, it is taken out of the cage's book, not out of the drop the box held a second time."""
    from approvals.services import approval_confirm, approval_request
    from cashier.reports import table_figures
    from cashier.services.count_room import drop_box_remove, drop_count
    from dashboard.floor_reads import count_room_figures

    serial = marker_issue(patron=desk["patron"], amount_cents=100_000, table="R1", actor="pit1")["serial"]
    day = _last("MarkerIssued").gaming_day
    for name, role in (
        ("drop1", "drop_team"),
        ("drop2", "drop_team"),
        ("count1", "count_team"),
        ("count2", "count_team"),
    ):
        staff_user(name, role)
    drop_box_remove(table="R1", gaming_day=day.isoformat(), actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day.isoformat(), cash={}, counters=["count1", "count2"], actor="count1")
    marker_transfer(serial=serial, actor="cash1")  # the counted marker goes to the cage

    def drop() -> list[int]:
        return [f["drop_cents"] for f in (table_figures("R1", day, day), count_room_figures(["R1"], day)["R1"])]

    assert drop() == [100_000, 100_000]
    asked = approval_request(kind="marker_void", payload={"serial": serial, "reason": "wrong patron"}, actor="super1")
    approval_confirm(approval=asked["approval"]["id"], actor="super2")
    assert _last("MarkerVoided").data["in_drop"] is False
    assert drop() == [100_000, 100_000]  # the box held it when it was counted

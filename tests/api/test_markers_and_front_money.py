"""A credit line approved by a cage supervisor, markers issued at the cage or a
table against the remaining credit (409 over it), numbered per year, transferred and paid at
the cage; front money deposited and withdrawn; the outstanding report; all on the ledger."""

import pytest

from cashier.credit_models import Marker
from cashier.services.credit import credit_line_set, front_money_deposit, marker_issue
from ledger import accounts, posting_rules, store
from ledger.models import Event, Posting
from ledger.projections.table_stats import NOT_GAMING
from patrons.services.patrons import patron_register
from staff.roles import RoleRequired
from tests.conftest import ACTOR, client_as, hand_cage_to, open_cage_shift, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def desk(table):
    """A patron, and the clients of a cage supervisor, a pit boss, ``cash1`` (whose cashier
    shift is open: the cage's credit steps are his) and ``cash2`` (another cashier)."""
    patron = patron_register(kind="identified", name="High Roller", document="ID-HR-0001", actor=ACTOR)["patron"]
    clients = {
        "patron": patron,
        "super": client_as(staff_user("super1", "cage_supervisor")),
        "cashier": client_as(staff_user("cash1", "cashier")),
        "other_cashier": client_as(staff_user("cash2", "cashier")),
        "pit": client_as(staff_user("pit1", "pit_boss")),
    }
    hand_cage_to("cash1")
    return clients


def _legs(event_type: str) -> set[tuple[str, int]]:
    event = Event.objects.filter(type=event_type).order_by("-position").first()
    return {(p.account, p.amount_cents) for p in Posting.objects.filter(event=event)}


def _drawer(event_type: str, **moved: int) -> set[tuple[str, int]]:
    """The legs moving the cashier's drawer in the last ``event_type`` (made at her window)."""
    window = Event.objects.filter(type=event_type).order_by("-position").first().data["window"]
    return {(leg.account, leg.amount_cents) for leg in posting_rules.window_share(window, **moved)}


def test_a_credit_line_is_approved_by_a_cage_supervisor_only(desk):
    p = desk["patron"]
    assert (
        desk["cashier"].post(f"/api/patrons/{p}/credit-line", {"limit_cents": 500_000}, format="json").status_code
        == 403
    )
    approved = desk["super"].post(f"/api/patrons/{p}/credit-line", {"limit_cents": 500_000}, format="json")
    assert approved.status_code == 200, approved.content
    assert (approved.json()["before"], approved.json()["after"]) == (None, 500_000)
    event = Event.objects.get(type="CreditLineApproved")
    assert (event.actor, event.stream, event.data["after"]) == ("super1", f"credit/{p}", 500_000)
    assert not Posting.objects.filter(event=event).exists()
    anon = desk["super"].post("/api/patrons/anon/credit-line", {"limit_cents": 1}, format="json")
    assert anon.status_code == 400 and anon.json()["field"] == "patron"


def test_markers_are_issued_against_the_remaining_credit_numbered_and_paid_at_the_cage(desk):
    p = desk["patron"]
    credit_line_set(patron=p, limit_cents=500_000, actor="super1")
    at_cage = desk["cashier"].post(f"/api/patrons/{p}/markers", {"amount_cents": 300_000}, format="json")
    assert at_cage.status_code == 201, at_cage.content
    first = at_cage.json()
    assert first["remaining_credit_cents"] == 200_000 and first["serial"].endswith("-000001")
    assert _legs("MarkerIssued") == {
        (f"patron:{p}:credit", -300_000),
        ("cage:markers", 300_000),
        ("cage:chips", -300_000),
        (f"patron:{p}:chips", 300_000),
    } | _drawer("MarkerIssued", chips=-300_000)

    over = desk["pit"].post(f"/api/patrons/{p}/markers", {"amount_cents": 200_001, "table": "R1"}, format="json")
    assert over.status_code == 409 and over.json()["field"] == "amount_cents"
    assert "remaining credit of 2,000.00 EUR" in over.json()["detail"]

    at_table = desk["pit"].post(f"/api/patrons/{p}/markers", {"amount_cents": 200_000, "table": "R1"}, format="json")
    assert at_table.status_code == 201, at_table.content
    second = at_table.json()["serial"]
    assert second.endswith("-000002")
    assert _legs("MarkerIssued") == {
        (f"patron:{p}:credit", -200_000),
        ("table:R1:drop", 200_000),
        ("table:R1:tray", -200_000),
        (f"patron:{p}:chips", 200_000),
    }
    assert desk["cashier"].post(f"/api/patrons/{p}/markers", {"amount_cents": 1}, format="json").status_code == 409

    early = desk["cashier"].post(
        f"/api/markers/{second}/payments", {"amount_cents": 1, "method": "cash"}, format="json"
    )
    assert early.status_code == 409  # still in the table's drop
    moved = desk["cashier"].post(f"/api/markers/{second}/transfer", {}, format="json")
    assert moved.status_code == 200, moved.content
    assert _legs("MarkerTransferred") == {("table:R1:drop", -200_000), ("cage:markers", 200_000)}
    assert "MarkerTransferred" in NOT_GAMING

    part = desk["cashier"].post(
        f"/api/markers/{second}/payments", {"amount_cents": 50_000, "method": "cash"}, format="json"
    )
    assert part.status_code == 200 and part.json()["outstanding_cents"] == 150_000
    rest = desk["cashier"].post(
        f"/api/markers/{second}/payments", {"amount_cents": 150_000, "method": "chips"}, format="json"
    )
    assert rest.status_code == 200 and rest.json()["state"] == "paid"
    assert _legs("MarkerPaid") == {
        ("cage:markers", -150_000),
        (f"patron:{p}:credit", 150_000),
        (f"patron:{p}:chips", -150_000),
        ("cage:chips", 150_000),
    } | _drawer("MarkerPaid", chips=150_000)
    again = desk["cashier"].post(
        f"/api/markers/{second}/payments", {"amount_cents": 1, "method": "cash"}, format="json"
    )
    assert again.status_code == 409
    assert store.balance(accounts.patron_credit(p)) == -300_000
    assert store.balance(accounts.CAGE_MARKERS) == 300_000

    report = desk["super"].get("/api/reports/credit-outstanding").json()
    assert [(r["serial"], r["outstanding_cents"], r["credit_limit_cents"]) for r in report["rows"]] == [
        (first["serial"], 300_000, 500_000)
    ]
    assert report["totals"]["markers_outstanding_cents"] == report["totals"]["ledger_cage_markers_cents"] == 300_000


def test_a_marker_over_the_credit_line_or_without_one_is_refused_with_409(desk):
    p = desk["patron"]
    none = desk["cashier"].post(f"/api/patrons/{p}/markers", {"amount_cents": 1_000}, format="json")
    assert none.status_code == 409 and "no credit line" in none.json()["detail"]
    credit_line_set(patron=p, limit_cents=10_000, actor="super1")
    before = store.head()
    over = desk["cashier"].post(f"/api/patrons/{p}/markers", {"amount_cents": 10_001}, format="json")
    assert over.status_code == 409 and over.json()["field"] == "amount_cents"
    assert store.head() == before and not Marker.objects.exists()
    assert desk["cashier"].post(f"/api/patrons/{p}/markers", {"amount_cents": "10"}, format="json").status_code == 400
    with pytest.raises(RoleRequired):
        marker_issue(patron=p, amount_cents=1_000, table="R1", actor="cash1")  # a table's marker: the pit's


def test_front_money_is_deposited_withdrawn_and_pays_a_marker(desk):
    p = desk["patron"]
    deposit = desk["cashier"].post(f"/api/patrons/{p}/front-money/deposits", {"amount_cents": 1_000_000}, format="json")
    assert deposit.status_code == 201, deposit.content
    assert _legs("FrontMoneyDeposited") == {
        ("external:cash", -1_000_000),
        ("cage:cash", 1_000_000),
        ("cage:deposits", -1_000_000),
        (f"patron:{p}:deposit", 1_000_000),
    } | _drawer("FrontMoneyDeposited", cash=1_000_000)
    out = desk["cashier"].post(f"/api/patrons/{p}/front-money/withdrawals", {"amount_cents": 400_000}, format="json")
    assert out.status_code == 201 and out.json()["balance_cents"] == 600_000
    too_much = desk["cashier"].post(
        f"/api/patrons/{p}/front-money/withdrawals", {"amount_cents": 600_001}, format="json"
    )
    assert too_much.status_code == 400 and too_much.json()["field"] == "amount_cents"
    assert (
        desk["pit"].post(f"/api/patrons/{p}/front-money/deposits", {"amount_cents": 1}, format="json").status_code
        == 403
    )

    credit_line_set(patron=p, limit_cents=100_000, actor="super1")
    serial = marker_issue(patron=p, amount_cents=100_000, actor="cash1")["serial"]
    paid = desk["cashier"].post(
        f"/api/markers/{serial}/payments", {"amount_cents": 100_000, "method": "front_money"}, format="json"
    )
    assert paid.status_code == 200 and paid.json()["state"] == "paid"
    assert store.balance(accounts.patron_deposit(p)) == 500_000
    report = desk["cashier"].get("/api/reports/credit-outstanding.csv")
    # The spreadsheet form gives currency units.
    assert report.status_code == 200 and f"{p},front_money,,,cage,5000.00," in report.content.decode()
    assert front_money_deposit(patron=p, amount_cents=1, actor="cash1")["balance_cents"] == 500_001


def test_credit_lines_and_markers_replay_from_their_events(desk):
    from ledger.replay import replay_check

    p = desk["patron"]
    credit_line_set(patron=p, limit_cents=50_000, actor="super1")
    serial = marker_issue(patron=p, amount_cents=20_000, table="R1", actor="pit1")["serial"]
    desk["cashier"].post(f"/api/markers/{serial}/transfer", {}, format="json")
    desk["cashier"].post(f"/api/markers/{serial}/payments", {"amount_cents": 5_000, "method": "cash"}, format="json")
    assert replay_check() == []
    Marker.objects.filter(serial=serial).update(paid_cents=20_000)  # a row edited behind the ledger
    assert [str(d) for d in replay_check()] == [f"marker {serial}: paid_cents is 20000 live but 5000 from the events"]


def _credit_steps_at_the_cage(desk) -> dict:
    """Each credit step that moves the cage's bank, as ``name: (url, body, status on success)``;
    a credit line, a marker to pay and front money to withdraw made first by the shift's cashier."""
    p = desk["patron"]
    credit_line_set(patron=p, limit_cents=500_000, actor="super1")
    serial = marker_issue(patron=p, amount_cents=100_000, actor="cash1")["serial"]
    front_money_deposit(patron=p, amount_cents=100_000, actor="cash1")
    return {
        "marker issue": (f"/api/patrons/{p}/markers", {"amount_cents": 10_000}, 201),
        "marker payment": (f"/api/markers/{serial}/payments", {"amount_cents": 10_000, "method": "cash"}, 200),
        "front money deposit": (f"/api/patrons/{p}/front-money/deposits", {"amount_cents": 10_000}, 201),
        "front money withdrawal": (f"/api/patrons/{p}/front-money/withdrawals", {"amount_cents": 10_000}, 201),
    }


@pytest.mark.parametrize("step", ["marker issue", "marker payment", "front money deposit", "front money withdrawal"])
def test_a_credit_step_at_the_cage_is_the_open_shifts_cashiers_only(desk, step):
    """As a chip sale (``cage_shifts.require_open_shift``): the open window is cash1's bank, so
    another cashier, and a cage supervisor, without a window of their own get 409 in words
    and the ledger gets nothing; cash1 makes the step."""
    url, body, done = _credit_steps_at_the_cage(desk)[step]
    events = Event.objects.count()
    for who, name in (("other_cashier", "cash2"), ("super", "super1")):
        refused = desk[who].post(url, body, format="json")
        assert (refused.status_code, refused.json()["field"]) == (409, "shift"), refused.content
        assert refused.json()["detail"] == (
            f"{name} has no window open (open: cash1's): open your own window with its count first; "
            "only a window's cashier sells, redeems and issues in it"
        )
        assert Event.objects.count() == events
    made = desk["cashier"].post(url, body, format="json")
    assert made.status_code == done, made.content
    assert Event.objects.count() == events + 1
    assert Event.objects.order_by("-position").first().actor == "cash1"


def test_a_cage_supervisor_makes_credit_steps_in_the_shift_he_opened(desk):
    """The supervisor closes cash1's shift (recorded as closed by a cage supervisor), opens his
    own, and issues and is paid a marker in it."""
    from cashier.services.cage_shifts import cage_shift_close
    from core.denominations import cash_denominations, chip_denominations, decompose

    p = desk["patron"]
    credit_line_set(patron=p, limit_cents=500_000, actor="super1")
    cage_shift_close(
        cash=decompose(store.balance(accounts.CAGE_CASH), cash_denominations()),
        chips=decompose(store.balance(accounts.CAGE_CHIPS), chip_denominations()),
        actor="super1",
    )
    closed = Event.objects.get(type="CageShiftClosed", actor="super1")
    assert (closed.data["opened_by"], closed.data["closed_by_supervisor"]) == ("cash1", True)
    open_cage_shift("super1")
    issued = desk["super"].post(f"/api/patrons/{p}/markers", {"amount_cents": 10_000}, format="json")
    assert issued.status_code == 201, issued.content
    paid = desk["super"].post(
        f"/api/markers/{issued.json()['serial']}/payments", {"amount_cents": 10_000, "method": "cash"}, format="json"
    )
    assert (paid.status_code, paid.json()["state"]) == (200, "paid")
    assert [e.actor for e in Event.objects.filter(type__in=["MarkerIssued", "MarkerPaid"])] == ["super1", "super1"]

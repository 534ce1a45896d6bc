"""Cage and table accounting over HTTP: one day of a table, from opener to report."""

import csv
import io

import pytest

from cashier.reports import hold_pct
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import CAGE_STAFF, OPENER, approve, hand_cage_to, open_counted_table, remove_drop_box, staff_clients

pytestmark = pytest.mark.django_db

STAFF = CAGE_STAFF


@pytest.fixture
def clients(cage_float):
    return staff_clients(STAFF)


def test_a_gaming_day_of_one_table_through_the_api(clients, cage, patron):
    hand_cage_to("cash1")  # the issuing cashier's own shift
    day = current_gaming_day().isoformat()
    pit, cash, count = clients["pit1"], clients["cash1"], clients["count1"]
    opened = open_counted_table(clients)
    assert opened.status_code == 201, opened.json()
    assert opened.json()["opener_cents"] == 5_000_000
    buy_in = pit.post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 30_000}, format="json")
    assert buy_in.status_code == 201, buy_in.json()

    requested = pit.post("/api/tables/T1/slips", {"kind": "fill", "denominations": {"10000": 50}}, format="json")
    assert requested.status_code == 201, requested.json()
    serial = requested.json()["serial"]
    issued = approve(
        cash.post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json"), clients["run1"]
    )
    assert issued.status_code == 200 and issued.json()["state"] == "issued"
    assert clients["run1"].post(f"/api/cage/slips/fill/{serial}/accept", {}, format="json").status_code == 403
    # A dealer accepts only at the table he is assigned to: dealer1, who confirmed T1's opener, deals there.
    assert pit.post("/api/staff/assignments", {"dealer": "dealer1", "table": "T1"}, format="json").status_code == 409
    accepted = clients["dealer1"].post(f"/api/cage/slips/fill/{serial}/accept", {"count": {"10000": 50}}, format="json")
    assert accepted.status_code == 200 and accepted.json()["state"] == "delivered"

    # No coup was played: the tray holds opener + fill − chips sold for cash.
    closer = {"100000": 40, "10000": 147}
    closed = approve(
        pit.post("/api/tables/T1/closer", {"closer": closer, "dealer": "dealer1", "pit_boss": "pit2"}, format="json"),
        clients["dealer1"],
        clients["pit2"],
    )
    assert closed.status_code == 200, closed.json()
    assert (closed.json()["closer_cents"], closed.json()["variance_cents"]) == (5_470_000, 0)

    assert remove_drop_box(clients, "T1", day).status_code == 201
    counted = approve(
        count.post(
            "/api/tables/T1/drop-count",
            {"gaming_day": day, "cash": {"20000": 1, "5000": 1, "2000": 2}, "counters": ["count1", "count2"]},
            format="json",
        ),
        clients["count2"],
    )
    assert counted.status_code == 201, counted.json()
    assert counted.json()["variance_cents"] == -1_000

    assert pit.post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json").status_code == 200
    before = store.head()
    again = pit.post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json")
    assert again.status_code == 409 and "already closed" in again.json()["detail"]
    assert store.head() == before

    report = pit.get(f"/api/reports/table-games?gaming_day={day}").json()
    assert report["title"] == "Table games daily report" and report["software_version"]
    assert report["generated_at"].endswith("Z") and report["status"] == "ok"
    row = next(r for r in report["rows"] if r["level"] == "table" and r["period"] == "day")
    assert row["key"] == "T1"
    assert (row["opener_cents"], row["fills_cents"], row["drop_cents"], row["closer_cents"]) == (
        5_000_000,
        500_000,
        29_000,
        5_470_000,
    )
    # win = drop + credits − fills + (closer − opener) = 29,000 − 500,000 + 470,000
    assert (row["win_cents"], row["ledger_win_cents"], row["variance_cents"]) == (-1_000, 0, -1_000)
    assert row["hold_pct"] == "-3.45"
    variances = pit.get(f"/api/reports/variances?gaming_day={day}&threshold_cents=500").json()
    assert [(v["kind"], v["subject"], v["variance_cents"], v["investigate"]) for v in variances["rows"]] == [
        ("drop", "T1", -1_000, True)
    ]
    download = pit.get(f"/api/reports/table-games.csv?gaming_day={day}")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(download.content.decode())))
    assert lines[0][:3] == ["level", "key", "game"] and "win (day)" in lines[0] and lines[0][-1] == "currency"
    meta = pit.get(f"/api/reports/table-games.metadata.csv?gaming_day={day}").content.decode()
    assert dict(csv.reader(io.StringIO(meta)))["title"] == "Table games daily report"
    listed = pit.get("/api/cage/slips/?kind=fill").json()
    assert [s["serial"] for s in listed["results"]] == [serial]


def test_reports_say_no_activity_when_empty(clients):
    for name in ("table-games", "variances", "tronc", "cage-accountability", "unused-serials"):
        body = clients["super1"].get(f"/api/reports/{name}?gaming_day=2001-01-01&year=2001").json()
        assert body["status"] == "No activity" and body["rows"] == [], name
    text = clients["super1"].get("/api/reports/tronc.csv?gaming_day=2001-01-01").content.decode()
    assert text.strip().splitlines() == ["period,from,tronc,shared,currency"]  # the header, no row
    meta = clients["super1"].get("/api/reports/tronc.metadata.csv?gaming_day=2001-01-01").content.decode()
    assert "status,No activity" in meta.splitlines()
    assert clients["super1"].get("/api/reports/tronc?gaming_day=2001-13-01").status_code == 400
    assert clients["dealer1"].get("/api/reports/table-games").status_code == 403


@pytest.mark.parametrize(
    ("count", "field"),
    [({"10000": -2}, "denominations"), ({"10000": 2.0}, "denominations"), ({"777": 1}, "denominations")],
)
def test_bad_slip_counts_are_400_and_append_nothing(clients, count, field):
    assert open_counted_table(clients).status_code == 201
    before = store.head()
    response = clients["pit1"].post("/api/tables/T1/slips", {"kind": "fill", "denominations": count}, format="json")
    assert response.status_code == 400 and response.json()["field"] == field
    assert store.head() == before


def test_the_issuer_cannot_accept_and_a_credit_cannot_exceed_the_tray(clients, cage, django_user_model):
    hand_cage_to("cash1")  # the issuing cashier's own shift
    grant(django_user_model.objects.get(username="cash1"), Role.PIT_BOSS)
    assert open_counted_table(clients).status_code == 201
    serial = clients["pit1"].post(
        "/api/tables/T1/slips", {"kind": "fill", "denominations": {"10000": 1}}, format="json"
    )
    serial = serial.json()["serial"]
    approve(
        clients["cash1"].post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json"),
        clients["run1"],
    )
    refused = clients["cash1"].post(f"/api/cage/slips/fill/{serial}/accept", {}, format="json")
    assert refused.status_code == 403 and "already the issuer" in refused.json()["detail"]
    too_big = clients["pit1"].post(
        "/api/tables/T1/slips", {"kind": "credit", "denominations": {"1000000": 6}}, format="json"
    )
    assert too_big.status_code == 400 and "more than the tray" in too_big.json()["detail"]


def test_a_count_needs_two_distinct_counters(clients):
    assert open_counted_table(clients).status_code == 201
    day = current_gaming_day().isoformat()
    remove_drop_box(clients, "T1", day)
    same = clients["count1"].post(
        "/api/tables/T1/drop-count",
        {"gaming_day": day, "cash": {"5000": 1}, "counters": ["count1", "count1"]},
        format="json",
    )
    assert same.status_code == 403
    one = clients["count1"].post(
        "/api/tables/T1/drop-count", {"gaming_day": day, "cash": {"5000": 1}, "counters": ["count1"]}, format="json"
    )
    assert one.status_code == 400 and one.json()["field"] == "counters"


def test_a_window_closes_short_to_over_short_and_the_main_bank_gives_only_what_it_holds(clients):
    """A window is an imprest out of the main bank: cash1 counts the whole float in, closes
    500 EUR short (the variance goes to over/short, the main bank gets the count back), then
    cannot count 100,000 EUR of cash in again (400, field ``cash``: the main bank holds 99,500);
    super1 opens window 2 with what is there."""
    chips = {"1000000": 10}  # the cage fixture: 100,000 EUR of chips and of cash
    cash = {"50000": 200}
    opened = clients["cash1"].post("/api/cage/shifts/open", {"cash": cash, "chips": chips}, format="json")
    assert opened.status_code == 201 and (opened.json()["window"], opened.json()["variance_cents"]) == ("1", 0)
    asked = clients["cash1"].post(
        "/api/cage/shifts/close",
        {"cash": {"50000": 199}, "chips": chips, "handover_to": "super1", "variance_reason": "a 500 note short"},
        format="json",
    )
    assert asked.status_code == 202  # handed over: super1 signs from his own session
    closed = approve(asked, clients["super1"])
    assert closed.status_code == 200 and closed.json()["variance_cents"] == -50_000
    assert Event.objects.get(position=closed.json()["event"]).data["variance_reason"] == "a 500 note short"
    assert store.balance(accounts.CAGE_CASH) == 9_950_000 and store.balance(accounts.CAGE_OVER_SHORT) == 50_000
    short = clients["cash1"].post("/api/cage/shifts/open", {"cash": cash, "chips": chips}, format="json")
    assert (short.status_code, short.json()["field"]) == (400, "cash")
    taken = clients["super1"].post("/api/cage/shifts/open", {"cash": {"50000": 199}, "chips": chips}, format="json")
    assert taken.status_code == 201 and (taken.json()["window"], taken.json()["variance_cents"]) == ("2", 0)
    report = clients["super1"].get("/api/reports/cage-accountability").json()
    assert [r["line"] for r in report["rows"]] == ["shift_open", "shift_close", "shift_open", "movements"]
    # The day's movements: the cage's stocking from the bankroll (the fixture's float) and the variance.
    moved = report["rows"][-1]
    assert (moved["bankroll_cash_cents"], moved["bankroll_chips_cents"], moved["chip_sales_cents"]) == (
        10_000_000,
        10_000_000,
        0,
    )
    assert (moved["window_cash_variances_cents"], moved["window_chip_variances_cents"]) == (-50_000, 0)


def test_hold_percentage_is_exact_to_the_hundredth():
    assert hold_pct(1_234, 10_000) == "12.34"
    assert hold_pct(1, 3) == "33.33"
    assert hold_pct(2, 3) == "66.67"
    assert hold_pct(-1_000, 29_000) == "-3.45"
    assert hold_pct(5, 0) is None


def test_bad_opener_and_closing_with_a_coup_in_play_append_nothing(clients):
    body = {"game": "english_roulette", "opener": {"333": 1}, "dealer": "dealer1", "pit_boss": "pit1"}
    before = store.head()
    unknown = clients["pit1"].post("/api/tables/T1/opener", body, format="json")
    assert unknown.status_code == 400 and unknown.json()["field"] == "opener"
    assert "unknown denomination" in unknown.json()["detail"] and store.head() == before
    assert open_counted_table(clients).status_code == 201
    assert clients["pit1"].post("/api/tables/T1/rounds", {}, format="json").status_code == 201
    before = store.head()
    closing = clients["pit1"].post(
        "/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit1"}, format="json"
    )
    assert closing.status_code == 409 and "coup in play" in closing.json()["detail"]
    assert store.head() == before


def test_void_and_reverse_slips_and_a_count_through_the_api(clients, cage, patron):
    hand_cage_to("cash1")  # the issuing cashier's own shift
    assert open_counted_table(clients).status_code == 201
    day = current_gaming_day().isoformat()
    pit, cash, supervisor = clients["pit1"], clients["cash1"], clients["super1"]
    first = pit.post("/api/tables/T1/slips", {"kind": "fill", "denominations": {"10000": 1}}, format="json").json()
    voided = approve(
        pit.post(
            f"/api/cage/slips/fill/{first['serial']}/void",
            {"confirmation": "VOID", "reason": "typo", "approver": "super1"},
            format="json",
        ),
        supervisor,
    )
    assert voided.status_code == 200 and voided.json()["state"] == "voided"
    second = pit.post("/api/tables/T1/slips", {"kind": "fill", "denominations": {"10000": 2}}, format="json").json()
    approve(
        cash.post(f"/api/cage/slips/fill/{second['serial']}/issue", {"runner": "run1"}, format="json"),
        clients["run1"],
    )
    clients["pit2"].post(f"/api/cage/slips/fill/{second['serial']}/accept", {"count": {"10000": 2}}, format="json")
    tray = store.balance("table:T1:tray")
    reversed_ = approve(
        supervisor.post(
            f"/api/cage/slips/fill/{second['serial']}/reverse",
            {"reason": "wrong table", "approver": "pit1"},
            format="json",
        ),
        pit,
    )
    assert reversed_.status_code == 200 and store.balance("table:T1:tray") == tray - 20_000
    unused = supervisor.get("/api/reports/unused-serials").json()
    assert [(r["serial"], r["status"]) for r in unused["rows"]] == [(first["serial"], "voided")]
    states = {s["serial"]: s["state"] for s in pit.get("/api/cage/slips/").json()["results"]}
    assert states == {first["serial"]: "voided", second["serial"]: "reversed"}

    pit.post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 10_000}, format="json")
    remove_drop_box(clients, "T1", day)
    count = {"gaming_day": day, "cash": {"5000": 1}, "counters": ["count1", "count2"]}
    counted = approve(clients["count1"].post("/api/tables/T1/drop-count", count, format="json"), clients["count2"])
    assert counted.json()["variance_cents"] == -5_000
    reversal = approve(
        clients["count2"].post(
            "/api/tables/T1/drop-count-reversal",
            {"gaming_day": day, "reason": "a note stuck in the box", "approver": "pit1"},
            format="json",
        ),
        pit,
    )
    assert reversal.status_code == 201, reversal.json()
    count["cash"] = {"5000": 2}
    recounted = approve(clients["count2"].post("/api/tables/T1/drop-count", count, format="json"), clients["count1"])
    assert recounted.json()["variance_cents"] == 0
    variances = supervisor.get(f"/api/reports/variances.csv?gaming_day={day}&threshold_cents=0").content.decode()
    assert len(variances.strip().splitlines()) == 1  # the header only: the reversed count is gone
    meta = supervisor.get(f"/api/reports/variances.metadata.csv?gaming_day={day}&threshold_cents=0").content.decode()
    assert "variance_threshold,0.00" in meta.splitlines() and "status,No activity" in meta.splitlines()


def test_a_coup_reversal_needs_a_settled_coup(clients):
    assert open_counted_table(clients).status_code == 201
    body = {"reason": "wrong number", "approver": "super1"}
    missing = clients["pit1"].post("/api/rounds/00000000-0000-0000-0000-000000000000/reversal", body, format="json")
    assert missing.status_code == 404
    coup = clients["pit1"].post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    in_play = clients["pit1"].post(f"/api/rounds/{coup}/reversal", body, format="json")
    assert in_play.status_code == 409 and "not settled" in in_play.json()["detail"]
    assert clients["cash1"].post(f"/api/rounds/{coup}/reversal", body, format="json").status_code == 403


@pytest.mark.parametrize(
    ("path", "text", "field"),
    [
        ("/api/cage/shifts/open", '{"cash": {"\\ud800": 1}, "chips": {}}', "cash"),
        ("/api/cage/shifts/open", '{"cash": {}, "chips": {"100": "\\udfff"}}', "chips.100"),  # the value at fault
        ("/api/tables/T1/slips", '{"kind": "fill", "denominations": {"\\ud800": 1}}', "denominations"),
    ],
)
def test_a_lone_surrogate_in_a_count_is_400(clients, path, text, field):
    assert open_counted_table(clients).status_code == 201
    user = "cash1" if "shifts" in path else "pit1"
    before = store.head()
    response = clients[user].generic("POST", path, text, content_type="application/json")
    assert response.status_code == 400 and response.json()["field"] == field, response.content[:300]
    assert store.head() == before

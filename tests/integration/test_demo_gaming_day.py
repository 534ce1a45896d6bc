"""The demo closes its gaming day: the count room agrees with the ledger at every
table, except for the one deliberate 5 EUR short count, which is all the variance list shows."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from audit.exceptions import exception_log
from cashier.reports import cage_accountability_report, table_games_daily_report, variance_report
from demo.day import DELIBERATE_SHORT_CENTS
from games.models import BetRefusal
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role, grant
from tests.integration.demo_days import play_small_demo_day

pytestmark = pytest.mark.django_db
ARTIFACTS = Path(settings.BASE_DIR) / "var" / "artifacts"


@pytest.fixture
def demo_day() -> str:
    """The demo's gaming day, played, counted and closed (few coups of each game: it stays
    quick); returns what the demo printed."""
    return play_small_demo_day()


def test_the_demos_refused_count_is_the_exception_logs(demo_day):
    printed = re.search(r"Refused bets recorded for the floor \(every table\): (\d+)", demo_day)
    logged = re.search(r"Exception log: \d+ entries \(.*?refused bets (\d+)", demo_day)
    recorded = BetRefusal.objects.filter(gaming_day=current_gaming_day()).count()
    # the deliberate red over the even chances' maximum, at least
    assert printed is not None and int(printed.group(1)) == recorded >= 1
    assert logged is not None and int(logged.group(1)) == recorded


def test_the_demo_day_closes_with_exactly_the_deliberate_variance(demo_day):
    day = current_gaming_day()
    report = table_games_daily_report(day)
    rows = {r["key"]: r for r in report["rows"] if r["level"] == "table" and r["period"] == "day"}
    assert set(rows) == {"B1", "C1", "P1", "R1", "S1", "T1"}
    # The demo's slips: a 1,000 EUR fill at the roulette table, a 500 EUR credit from baccarat.
    assert [(rows[c]["fills_cents"], rows[c]["credits_cents"]) for c in ("R1", "P1", "B1", "S1")] == [
        (100_000, 0),
        (0, 50_000),
        (0, 0),
        (0, 0),
    ]
    # Classic stud: the players play each other, so the table's win is the rake it took.
    rake = sum(e.data["rake_cents"] for e in Event.objects.filter(type="RakeTaken", data__table="S1"))
    assert rake > 0 and rows["S1"]["ledger_win_cents"] == rake
    short = [code for code, row in rows.items() if row["variance_cents"]]
    assert len(short) == 1
    for code, row in rows.items():
        count_room_win = row["drop_cents"] + row["credits_cents"] - row["fills_cents"]
        count_room_win += row["closer_cents"] - row["opener_cents"]
        assert row["win_cents"] == count_room_win
        expected = -DELIBERATE_SHORT_CENTS if code in short else 0
        assert row["win_cents"] - row["ledger_win_cents"] == row["variance_cents"] == expected, code
        assert row["drop_counted"] and not row["open"]
    variances = variance_report(day, threshold_cents=100)
    assert [(v["kind"], v["subject"], v["variance_cents"]) for v in variances["rows"]] == [
        ("drop", short[0], -DELIBERATE_SHORT_CENTS)
    ]
    assert Event.objects.filter(type="GamingDayClosed", data__gaming_day=day.isoformat()).count() == 1
    assert Event.objects.filter(type="CageShiftClosed").count() == 1
    assert Event.objects.filter(type="DropBoxRemoved").count() == 6
    assert store.balance(accounts.CAGE_OVER_SHORT) == DELIBERATE_SHORT_CENTS
    # The demo cashier's window reconciles: its imprest plus the day's movements at the counter
    # is its closing drawer (the float's stocking and the drop counted go to the main bank).
    cage = {row["line"]: row for row in cage_accountability_report(day)["rows"]}
    moved = cage["movements"]
    cash_kinds = ("chip_sales", "redemptions", "front_money", "marker_payments")
    chip_kinds = ("chips_sold", "chips_redeemed", "fills", "credits", "marker_chips")
    cash_in = sum(moved[f"{k}_cents"] for k in cash_kinds)
    chips_in = sum(moved[f"{k}_cents"] for k in chip_kinds)
    assert (moved["front_money_cents"], moved["marker_payments_cents"], moved["marker_chips_cents"]) == (
        200_000,
        100_000,
        -100_000,
    )
    assert cage["shift_open"]["expected_cash_cents"] + cash_in == cage["shift_close"]["expected_cash_cents"]
    assert cage["shift_open"]["expected_chips_cents"] + chips_in == cage["shift_close"]["expected_chips_cents"]
    printed = demo_day
    assert "Table games daily report" in printed and f"Gaming day {day} closed." in printed
    # The back office: tips counted and shared, a marker issued and paid, front money.
    assert "Tronc (tips) today: 150.00 EUR" in printed
    assert "Tips book: 1 box(es) counted, 150.00 EUR; shared out 150.00 EUR" in printed
    assert "Markers outstanding 0.00 EUR; front money held 2,000.00 EUR" in printed
    assert "Master game report: 6 of 6 counts verified; signed by demo-count1, demo-count2" in printed
    assert [e.data["removers"] for e in Event.objects.filter(type="DropBoxRemoved")] == [
        ["demo-drop1", "demo-drop2"]
    ] * 6
    assert Event.objects.filter(type="DropRecountVariance").count() == 0
    # The exception log of the demo day (25 CFR 543.16(c)(3)(vii)): the bets the tables refused
    # over their limits, the credit line the marker was issued against, the AML decisions.
    log = exception_log(day)["rows"]
    kinds = {row["kind"] for row in log}
    assert {"refused_bet", "parameter_change"} <= kinds
    refused = [row for row in log if row["kind"] == "refused_bet"]
    assert len(refused) == BetRefusal.objects.filter(gaming_day=day).count() > 0
    assert all(row["amount_cents"] > 0 and row["table"] for row in refused)
    assert any(row["type"] == "CreditLineApproved" for row in log)
    assert f"Exception log: {len(log)} entries (" in printed and f"refused bets {len(refused)}" in printed


def test_the_demo_days_daily_report_shows_its_tips_marker_and_front_money(demo_day, client, django_user_model):
    """The back office of the demo day (150 EUR of tips counted and shared, a 1,000 EUR marker
    issued and paid in cash, 2,000 EUR of front money deposited) in the table games daily
    report: its JSON, and the printable page and PDF the pit manager signs."""
    day = current_gaming_day().isoformat()
    supervisor = django_user_model.objects.create_user(username="report-supervisor", password="x")
    grant(supervisor, Role.CAGE_SUPERVISOR)
    api = APIClient()
    api.force_authenticate(supervisor)
    response = api.get("/api/reports/table-games", {"gaming_day": day})
    assert response.status_code == 200
    back_office = response.json()["back_office"]
    by_period = {row["period"]: row for row in back_office["rows"]}
    expected = {
        "tips_counted_cents": 15_000,
        "tronc_shared_cents": 15_000,
        "markers_issued": 1,
        "markers_issued_cents": 100_000,
        "markers_paid_cents": 100_000,
        "front_money_deposited_cents": 200_000,
        "front_money_withdrawn_cents": 0,
    }
    for period in ("day", "month_to_date", "year_to_date"):
        assert {name: by_period[period][name] for name in expected} == expected, period
    assert back_office["end_of_day"] == {
        "tronc_pool_cents": 0,
        "markers_outstanding_cents": 0,
        "front_money_held_cents": 200_000,
    }

    client.force_login(supervisor)
    html = client.get(reverse("workstations:report", args=["table-games"]), {"gaming_day": day}).content.decode()
    section = html[html.index('data-section="back-office"') :]
    for label, amount in (
        ("Tips counted into the tronc", "150.00 EUR"),
        ("Tronc shared out to the staff", "150.00 EUR"),
        ("Markers issued", "1,000.00 EUR"),
        ("Markers paid", "1,000.00 EUR"),
        ("Front money deposited", "2,000.00 EUR"),
        ("Front money held for patrons", "2,000.00 EUR"),
    ):
        row = section[section.index(f'<th scope="row">{label}</th>') :].split("</tr>", 1)[0]
        assert amount in row, (label, row)
    if shutil.which("pdftotext") is None:
        return  # the printable page above is what the PDF renders; poppler reads it back where installed
    pdf = client.get(reverse("workstations:report-pdf", args=["table-games"]), {"gaming_day": day})
    assert pdf.status_code == 200
    text = subprocess.run(["pdftotext", "-layout", "-", "-"], input=pdf.content, capture_output=True, check=True)
    lines = text.stdout.decode().splitlines()
    (tips,) = [line for line in lines if line.strip().startswith("Tips counted into the tronc")]
    (held,) = [line for line in lines if line.strip().startswith("Front money held for patrons")]
    assert tips.count("150.00 EUR") == 3 and "2,000.00 EUR" in held
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pdf_file = ARTIFACTS / "report-table-games-demo.pdf"
    pdf_file.write_bytes(pdf.content)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", str(pdf_file), str(ARTIFACTS / "report-table-games-demo")], check=True
    )


def test_the_demos_credit_steps_run_in_the_demo_cashiers_own_shift(cage):
    """Another cashier's shift is open (``cage``: shift-cashier's): the demo's cage supervisor
    closes it (recorded as a supervisor's close) and hands the cage to the demo cashier, who
    issues and is paid the demo's marker and takes its front money in his own shift."""
    from cashier.services.cage_shifts import last_shift_event
    from demo.backoffice import demo_credit
    from demo.day import CASHIER, SUPERVISOR, ensure_demo_staff

    ensure_demo_staff()
    demo_credit(current_gaming_day())
    closed = Event.objects.get(type="CageShiftClosed")
    assert (closed.actor, closed.data["opened_by"], closed.data["closed_by_supervisor"]) == (
        SUPERVISOR,
        "shift-cashier",
        True,
    )
    assert closed.data["handover_to"] == last_shift_event().actor == CASHIER
    steps = Event.objects.filter(type__in=["MarkerIssued", "MarkerPaid", "FrontMoneyDeposited"]).order_by("position")
    assert [(e.type, e.actor, e.data["amount_cents"]) for e in steps] == [
        ("MarkerIssued", CASHIER, 100_000),
        ("MarkerPaid", CASHIER, 100_000),
        ("FrontMoneyDeposited", CASHIER, 200_000),
    ]

"""Outage mode, the manual fallback: an outage declared after recovery, its paper forms printed,
20 roulette coups written on paper and entered later through the roulette services, each
approved by a second person from his own login; the reports and the export show them as later
entries (the paper's time, the time entered), and the day can be closed and sealed only once
every form is entered; the chain then verifies."""

import io
import json
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from cashier.reports import table_games_daily_report
from cashier.services.count_room import drop_box_remove, drop_count
from cashier.services.gaming_day import gaming_day_close
from cashier.spreadsheet import report_csv
from dashboard.table_reads import LAST_COUPS
from games.models import Round
from games.services.tables import table_close
from ledger import store
from ledger.export.verify_export import verify
from ledger.export.writer import export_to_dir
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.verify import verify_chain
from staff.services import staff_account_create

from ..conftest import ACTOR, make_patron

RED = {"type": "chance_simple", "chance": "rouge"}
COUPS = 20


@pytest.fixture(autouse=True)
def _mid_gaming_day(settings):
    """The gaming day starts twelve hours from now: an outage of the last hour is on today's."""
    later = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE)) + timedelta(hours=12)
    settings.GAMING_DAY_START = later.strftime("%H:%M")


@pytest.fixture
def floor(db, table):
    """R1 open, two patrons with chips, two pit bosses, a cage supervisor and the count team,
    each with an account the ledger recorded (``ledger verify`` checks them)."""
    for name, roles in {
        "pit1": ["pit_boss"],
        "pit2": ["pit_boss"],
        "super1": ["cage_supervisor"],
        "drop1": ["drop_team"],
        "drop2": ["drop_team"],
        "count1": ["count_team"],
        "count2": ["count_team"],
        "audit1": ["auditor"],
    }.items():
        staff_account_create(username=name, password="x", roles=roles, actor="manage.py")
    return {"patrons": [make_patron(50_000), make_patron(50_000)]}


def _as(username: str) -> APIClient:
    from django.contrib.auth import get_user_model

    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username=username))
    return client


def _page(username: str):
    """A browser session of ``username`` (the pages take no token)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def _declare(client: APIClient, minutes: int = 60, **extra) -> dict:
    now = datetime.now(UTC)
    body = {
        "started_at": (now - timedelta(minutes=minutes)).isoformat(),
        "ended_at": (now - timedelta(minutes=1)).isoformat(),
        "scope": "site",
        "reason": "ledger server unreachable: power cut in the machine room",
    } | extra
    answer = client.post("/api/outages/", body, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


def _outline(pdf: bytes) -> list[str]:
    """The PDF's outline entries (one a form, headed with its table or the cage), in order: the
    file is uncompressed, and a literal string escapes its parentheses."""
    titles = re.findall(rb"/Title \(((?:[^()\\]|\\.)*)\)/Dest", pdf)
    return [re.sub(rb"\\(.)", rb"\1", title).decode() for title in titles]


def _paper_coup(client: APIClient, outage: dict, form: str, at: datetime, patrons: list[str], number: int):
    body = {
        "occurred_at": at.isoformat(),
        "number": number,
        "bets": [
            {"patron": patrons[0], "stake_cents": 1_000, "bet": RED},
            {"patron": patrons[1], "stake_cents": 2_000, "bet": {"type": "chance_simple", "chance": "pair"}},
        ],
    }
    return client.post(f"/api/outages/{outage['outage']}/forms/{form}/coups", body, format="json")


def test_an_outage_on_paper_is_entered_later_approved_reported_and_the_day_seals(floor, tmp_path):
    pit1, pit2 = _as("pit1"), _as("pit2")
    outage = _declare(pit1)
    assert outage["outage"] == "OUT1"
    assert [f["form"] for f in outage["forms"]] == ["OUT1-R1", "OUT1-CAGE"]
    start = datetime.fromisoformat(outage["started_at"])

    # The forms, printed: a PDF naming each table and the cage, and the blank ones printed ahead.
    printed = pit1.get("/api/outages/OUT1/forms.pdf")
    assert printed.status_code == 200 and printed["Content-Type"] == "application/pdf"
    body = printed.content
    assert body.startswith(b"%PDF") and _outline(body) == ["Table R1 (English roulette)", "Cage"]
    blank = pit1.get("/api/outages/forms.pdf")
    assert blank.content.startswith(b"%PDF") and _outline(blank.content) == ["Table R1 (English roulette)", "Cage"]

    # The day cannot close while the forms wait to be entered.
    day = current_gaming_day()
    refused = pit1.post("/api/cage/gaming-days/close", {"gaming_day": day.isoformat()}, format="json")
    assert refused.status_code == 409
    assert "outage OUT1 has paper forms not entered (OUT1-R1, OUT1-CAGE)" in refused.json()["detail"]

    # 20 coups on paper, each entered by pit1 and approved by pit2 from his own login.
    patrons = floor["patrons"]
    # Paper times are the pit clock's, to the minute at most.
    times = [start.replace(second=0, microsecond=0) + timedelta(minutes=2 * n + 1) for n in range(COUPS)]
    for n, at in enumerate(times):
        asked = _paper_coup(pit1, outage, "OUT1-R1", at, patrons, number=(n * 7) % 37)
        assert asked.status_code == 202, asked.content
        approval = asked.json()["approval"]["id"]
        if n == 0:  # the enterer never approves his own; the approver reads what he signs
            own = pit1.post(f"/api/approvals/{approval}/confirm", {}, format="json")
            assert own.status_code == 403
            page = _page("pit2").get("/dashboard/approvals/").content.decode()
            local = at.astimezone(ZoneInfo("Europe/Paris")).strftime("%H:%M")
            assert f"Later entry from paper form OUT1-R1: a coup played at {local} CET, winning number 0" in page
            assert "2 bets staking 30.00 EUR" in page
        confirmed = pit2.post(f"/api/approvals/{approval}/confirm", {}, format="json")
        assert confirmed.status_code == 201, confirmed.content
        entered = confirmed.json()
        assert (entered["line"], entered["entered_by"], entered["approved_by"]) == (n + 1, "pit1", "pit2")

    # Each coup's events carry the paper time as occurred_at, the entry later as recorded_at.
    settled = list(Event.objects.filter(type="RoundSettled").order_by("position"))
    assert len(settled) == COUPS
    for event, at in zip(settled, times, strict=True):
        assert event.occurred_at == at
        assert event.recorded_at > at
        assert event.data["later_entry"]["outage"] == "OUT1"
        assert event.data["later_entry"]["form"] == "OUT1-R1"
        assert event.data["later_entry"]["approved_by"] == "pit2"
        assert event.gaming_day == day
    coups = Round.objects.filter(table__code="R1")
    assert coups.count() == COUPS and set(coups.values_list("state", flat=True)) == {"settled"}
    # Every event of those coups is a later entry; none of the live ones (the table's opening) is.
    flagged = Event.objects.filter(data__has_key="later_entry")
    assert flagged.filter(type="BetPlaced").count() == 2 * COUPS
    assert not Event.objects.filter(type="TableOpened", data__has_key="later_entry").exists()

    # The table's page marks each of them, with the paper time and the time entered.
    table_page = _page("pit1").get("/dashboard/tables/R1/").content.decode()
    assert table_page.count('data-figure="later-entry"') == min(COUPS, LAST_COUPS)  # the last coups listed
    assert "later entry from form OUT1-R1: played" in table_page and "by pit1, approved by pit2" in table_page

    # The forms are then marked entered: R1's 20 lines, the cage's none.
    wrong = pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": 21}, format="json")
    assert wrong.status_code == 409 and "holds 21 lines and 20 are entered" in wrong.json()["detail"]
    assert pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": COUPS}, format="json").status_code == 200
    done = pit1.post("/api/outages/OUT1/forms/OUT1-CAGE/complete", {"lines": 0}, format="json")
    assert done.status_code == 200 and done.json()["unentered"] == []

    # The daily report counts them as later entries, and so does its CSV (the export's tables.csv).
    report = table_games_daily_report(day)
    r1 = next(r for r in report["rows"] if r["level"] == "table" and r["key"] == "R1" and r["period"] == "day")
    total = next(r for r in report["rows"] if r["level"] == "total" and r["period"] == "day")
    assert (r1["later_entries"], total["later_entries"]) == (COUPS, COUPS)
    printed = _page("pit1").get(f"/workstations/reports/table-games/?gaming_day={day.isoformat()}")
    assert printed.status_code == 200
    assert "Later entries this day" in printed.content.decode()
    assert f'<strong data-figure="later_entries">{COUPS}</strong>' in printed.content.decode()
    header, *rows = [line.split(",") for line in report_csv(report).splitlines()]
    column = header.index("later entries (day)")
    assert [row[column] for row in rows if row[1] == "R1"] == [str(COUPS)]

    # The day closes and seals; the chain verifies, and so does the export, which shows them.
    table_close(code="R1", actor=ACTOR)
    drop_box_remove(table="R1", gaming_day=day.isoformat(), actor="drop1", removers=["drop1", "drop2"])
    drop_count(table="R1", gaming_day=day.isoformat(), cash={}, counters=["count1", "count2"], actor="count1")
    closed = gaming_day_close(gaming_day=day.isoformat(), actor="pit1")
    assert closed["sealed"]["day"] == day.isoformat(), closed["sealed"]
    assert verify_chain().ok
    call_command("ledger", "verify", stdout=io.StringIO(), stderr=io.StringIO())
    out = tmp_path / "export"
    export_to_dir(day, out)
    assert verify(str(out)).ok
    lines = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    later = [e for e in lines if e["type"] == "RoundSettled" and "later_entry" in e["data"]]
    assert len(later) == COUPS
    assert all(e["occurred_at"] < e["recorded_at"] for e in later)
    tables_csv = (out / "tables.csv").read_text().splitlines()
    header = tables_csv[0].split(",")
    r1_line = next(line.split(",") for line in tables_csv[1:] if line.split(",")[1] == "R1")
    assert r1_line[header.index("later entries (day)")] == str(COUPS)


def test_a_paper_time_outside_the_outage_is_400_and_appends_nothing(floor):
    pit1 = _as("pit1")
    outage = _declare(pit1, minutes=30)
    before = store.head()
    too_early = datetime.fromisoformat(outage["started_at"]) - timedelta(minutes=5)
    asked = _paper_coup(pit1, outage, "OUT1-R1", too_early, floor["patrons"], number=7)
    assert asked.status_code == 400 and asked.json()["field"] == "occurred_at"
    assert "outside outage OUT1" in asked.json()["detail"]
    assert store.head() == before


def test_declaring_an_outage_is_refused_to_a_dealer_and_without_a_reason(floor):
    staff_account_create(username="deal1", password="x", roles=["dealer"], actor="manage.py")
    now = datetime.now(UTC)
    body = {"started_at": (now - timedelta(minutes=5)).isoformat(), "reason": "network down"}
    assert _as("deal1").post("/api/outages/", body, format="json").status_code == 403
    blank = _as("pit1").post("/api/outages/", body | {"reason": " "}, format="json")
    assert blank.status_code == 400 and blank.json()["field"] == "reason"
    ahead = _as("pit1").post(
        "/api/outages/", body | {"started_at": (now + timedelta(hours=1)).isoformat()}, format="json"
    )
    assert ahead.status_code == 400 and ahead.json()["field"] == "started_at"


def test_an_ongoing_outage_stops_the_seal_until_it_ends_and_its_forms_are_entered(floor):
    pit1 = _as("pit1")
    now = datetime.now(UTC)
    body = {"started_at": (now - timedelta(minutes=10)).isoformat(), "scope": "tables", "tables": ["R1"]}
    declared = pit1.post("/api/outages/", body | {"reason": "R1's terminal is down"}, format="json").json()
    assert declared["ended_at"] is None and [f["form"] for f in declared["forms"]] == ["OUT1-R1"]
    from ledger.errors import StateConflict
    from ledger.seal import seal_gaming_day

    with pytest.raises(StateConflict, match="outage OUT1 is still going on"):
        seal_gaming_day(day=current_gaming_day(), actor="pit1")
    early = pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": 0}, format="json")
    assert early.status_code == 409 and early.json()["field"] == "outage"
    ended = pit1.post("/api/outages/OUT1/end", {"ended_at": now.isoformat()}, format="json")
    assert ended.status_code == 200 and ended.json()["ended_at"] is not None
    again = pit1.post("/api/outages/OUT1/end", {"ended_at": now.isoformat()}, format="json")
    assert again.status_code == 409
    with pytest.raises(StateConflict, match=r"paper forms not entered \(OUT1-R1\)"):
        seal_gaming_day(day=current_gaming_day(), actor="pit1")
    assert pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": 0}, format="json").status_code == 200
    assert seal_gaming_day(day=current_gaming_day(), actor="pit1")["day"] == current_gaming_day().isoformat()


def test_a_later_entry_waiting_for_approval_is_not_entered_and_a_refused_bet_refuses_it_whole(floor):
    pit1 = _as("pit1")
    outage = _declare(pit1)
    at = datetime.fromisoformat(outage["started_at"]) + timedelta(minutes=3)
    asked = _paper_coup(pit1, outage, "OUT1-R1", at, floor["patrons"], number=3)
    assert asked.status_code == 202
    waiting = pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": 1}, format="json")
    assert waiting.status_code == 409 and "0 are entered and approved" in waiting.json()["detail"]
    before = store.head()
    broke = pit1.post(
        "/api/outages/OUT1/forms/OUT1-R1/coups",
        {
            "occurred_at": at.isoformat(),
            "number": 3,
            "bets": [{"patron": floor["patrons"][0], "stake_cents": 10**9, "bet": RED}],
        },
        format="json",
    )
    assert broke.status_code in (400, 409) and store.head() == before


def test_the_pit_boss_declares_enters_and_completes_an_outage_from_his_page(floor):
    from approvals.models import Approval

    pit1, pit2 = _page("pit1"), _page("pit2")
    zone = ZoneInfo("Europe/Paris")
    now = datetime.now(UTC).astimezone(zone).replace(second=0, microsecond=0)
    started, ended = now - timedelta(minutes=30), now - timedelta(minutes=2)
    page = pit1.get("/dashboard/outages/")
    assert page.status_code == 200 and "No outage declared." in page.content.decode()
    assert pit1.get("/dashboard/outages/forms.pdf").content.startswith(b"%PDF")

    # A reason left out: the page again, the field named, nothing recorded.
    before = store.head()
    refused = pit1.post("/dashboard/outages/declare", {"started_at": started.strftime("%Y-%m-%dT%H:%M"), "reason": ""})
    assert refused.status_code == 400 and "<strong>Reason</strong>" in refused.content.decode()
    assert store.head() == before

    declared = pit1.post(
        "/dashboard/outages/declare",
        {
            "started_at": started.strftime("%Y-%m-%dT%H:%M"),
            "ended_at": ended.strftime("%Y-%m-%dT%H:%M"),
            "scope": "site",
            "reason": "network switch failed",
        },
    )
    assert declared.status_code == 302
    page = pit1.get("/dashboard/outages/").content.decode()
    assert "Outage OUT1:" in page and "forms not entered: OUT1-R1, OUT1-CAGE" in page
    assert pit1.get("/dashboard/outages/OUT1/forms.pdf").content.startswith(b"%PDF")

    paper_time = (started + timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M")
    patron = floor["patrons"][0]
    asked = pit1.post(
        "/dashboard/outages/OUT1/forms/OUT1-R1/coups",
        {"occurred_at": paper_time, "number": "12", "patron-1": patron, "chance-1": "rouge", "stake-1": "10,00"},
    )
    assert asked.status_code == 302
    approval = Approval.objects.get(kind="paper_coup_enter")
    assert pit2.post(f"/dashboard/approvals/{approval.id}/approve").status_code == 302
    settled = Event.objects.get(type="RoundSettled")
    assert settled.occurred_at == started.replace(tzinfo=zone).astimezone(UTC) + timedelta(minutes=5)
    assert settled.data["later_entry"]["entered_by"] == "pit1" and settled.data["number"] == 12
    audit = pit1.get(f"/dashboard/coups/{settled.data['round']}/audit/").content.decode()
    assert "later entry (form OUT1-R1): coup settled: staked 10.00 EUR" in audit

    assert pit1.post("/dashboard/outages/OUT1/forms/OUT1-R1/complete", {"lines": "1"}).status_code == 302
    assert pit1.post("/dashboard/outages/OUT1/forms/OUT1-CAGE/complete", {"lines": "0"}).status_code == 302
    assert "every form entered" in pit1.get("/dashboard/outages/").content.decode()


def test_a_chip_sale_on_the_cage_form_is_entered_later_in_the_cashiers_window_and_approved(floor):
    from ..conftest import SHIFT_CASHIER

    pit1 = _as("pit1")
    outage = _declare(pit1)
    at = datetime.fromisoformat(outage["started_at"]).replace(second=0, microsecond=0) + timedelta(minutes=4)
    patron = floor["patrons"][0]
    body = {"occurred_at": at.isoformat(), "transaction": "purchase", "patron": patron, "amount_cents": 20_000}
    on_table_form = _as(SHIFT_CASHIER).post("/api/outages/OUT1/forms/OUT1-R1/transactions", body, format="json")
    assert on_table_form.status_code == 400 and on_table_form.json()["field"] == "form"
    asked = _as(SHIFT_CASHIER).post("/api/outages/OUT1/forms/OUT1-CAGE/transactions", body, format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    assert pit1.post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403  # not the cage's
    done = _as("super1").post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert done.status_code == 201, done.content
    assert (done.json()["line"], done.json()["approved_by"]) == (1, "super1")
    sale = Event.objects.filter(type="ChipsPurchased").latest("position")
    assert sale.occurred_at == at and sale.data["amount_cents"] == 20_000
    assert sale.data["later_entry"] == {
        "outage": "OUT1",
        "form": "OUT1-CAGE",
        "entered_by": SHIFT_CASHIER,
        "entered_at": sale.data["later_entry"]["entered_at"],
        "approved_by": "super1",
    }
    assert store.balance(f"patron:{patron}:chips") == 70_000
    complete = pit1.post("/api/outages/OUT1/forms/OUT1-CAGE/complete", {"lines": 1}, format="json")
    assert complete.status_code == 200 and complete.json()["unentered"] == ["OUT1-R1"]

"""Fills and credits written on a table's paper form during an outage, entered later through the
slip services (request, issue, accept) in the names of those who signed the paper, approved by a
cage supervisor from his own login: the same events and postings as a live slip, each stamped as
a later entry with the paper's time; the form then completes and the day seals."""

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command

from cashier.reports import table_games_daily_report
from cashier.services.count_room import drop_box_remove, drop_count
from cashier.services.gaming_day import gaming_day_close
from cashier.services.slips import slip_accept, slip_issue, slip_request
from games.rules.event_words import line as event_line
from games.services.tables import table_close
from ledger import store
from ledger.export.verify_export import verify
from ledger.export.writer import export_to_dir
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.verify import verify_chain
from staff.services import staff_account_create

from ..conftest import ACTOR, SHIFT_CASHIER
from .test_outage_mode import _as, _declare, _mid_gaming_day, _page, floor  # noqa: F401 (fixtures)

FILL = {"10000": 10, "2500": 8}  # 1,200.00 EUR
SIGNERS = {"requested_by": "pit1", "issued_by": SHIFT_CASHIER, "runner": "run1", "accepted_by": "deal1"}


@pytest.fixture
def slip_floor(floor):  # noqa: F811 (the fixture imported above)
    """The outage floor (``floor``) with a runner and R1's dealer."""
    staff_account_create(username="run1", password="x", roles=["runner"], actor="manage.py")
    staff_account_create(username="deal1", password="x", roles=["dealer"], actor="manage.py")
    return floor


def _paper_time(outage: dict, minutes: int) -> datetime:
    return datetime.fromisoformat(outage["started_at"]).replace(second=0, microsecond=0) + timedelta(minutes=minutes)


def _paper_slip(client, at: datetime, kind: str = "fill", denominations=None, **signers):
    body = {
        "occurred_at": at.isoformat(),
        "kind": kind,
        "denominations": denominations or FILL,
        "signers": SIGNERS | signers,
    }
    return client.post("/api/outages/OUT1/forms/OUT1-R1/slips", body, format="json")


def _postings(serial: str, kind: str = "fill") -> list[tuple[str, list]]:
    """Each event of slip ``serial``: its type and its postings, accounts and cents, in order."""
    return [
        (event.type, sorted((p.account, p.amount_cents) for p in event.postings.all()))
        for event in Event.objects.filter(stream=f"slip/{kind}/{serial}").order_by("version")
    ]


def test_a_fill_on_paper_entered_later_posts_as_a_live_fill_marked_with_its_paper_time_and_signers(slip_floor):
    # A live fill first, step by step at the table and the cage.
    live = slip_request(kind="fill", table="R1", denominations=FILL, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=live, runner="run1", actor=SHIFT_CASHIER)
    slip_accept(kind="fill", serial=live, count=FILL, actor="deal1")
    tray, cage = store.balance("table:R1:tray"), store.balance("cage:chips")

    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 7)
    asked = _paper_slip(_as("pit2"), at)
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    words = _page("super1").get("/dashboard/approvals/").content.decode()
    assert "Later entry from paper form OUT1-R1: a fill of 1,200.00 EUR at" in words
    assert "requested by pit1, issued by shift-cashier, carried by run1, accepted by deal1" in words
    assert _as("pit1").post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403  # a pit boss
    done = _as("super1").post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert done.status_code == 201, done.content
    entered = done.json()
    assert (entered["line"], entered["kind"], entered["amount_cents"]) == (1, "fill", 120_000)
    assert (entered["entered_by"], entered["approved_by"]) == ("pit2", "super1")

    # The same events and postings as the live fill: the cage's chips out, the tray's in.
    assert _postings(entered["serial"]) == _postings(live)
    assert store.balance("table:R1:tray") - tray == 120_000
    assert store.balance("cage:chips") - cage == -120_000
    events = list(Event.objects.filter(stream=f"slip/fill/{entered['serial']}").order_by("version"))
    assert [e.actor for e in events] == ["pit1", SHIFT_CASHIER, "deal1"]  # each step in its signer's name
    for event in events:
        assert event.occurred_at == at and event.recorded_at > at
        assert event.data["later_entry"] | {"entered_at": None} == {
            "outage": "OUT1",
            "form": "OUT1-R1",
            "entered_by": "pit2",
            "entered_at": None,
            "approved_by": "super1",
        }
    line = Event.objects.get(type="PaperLineEntered")
    assert (line.data["serial"], line.data["form"], line.data["line"]) == (entered["serial"], "OUT1-R1", 1)
    # Every line that tells it (the audit trail, the auditor's event list) says it is a later entry.
    assert event_line("FillDelivered", events[-1].data).startswith("later entry (form OUT1-R1): ")


def test_the_enterer_cannot_approve_his_own_paper_slip(slip_floor):
    staff_account_create(username="super2", password="x", roles=["cage_supervisor"], actor="manage.py")
    outage = _declare(_as("pit1"))
    asked = _paper_slip(_as("super1"), _paper_time(outage, 3))
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    before = store.head()
    assert _as("super1").post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403
    assert store.head() == before
    assert _as("super2").post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 201


def test_a_paper_slip_outside_the_outage_is_400_on_occurred_at_and_appends_nothing(slip_floor):
    outage = _declare(_as("pit1"), minutes=30)
    before = store.head()
    asked = _paper_slip(_as("pit2"), _paper_time(outage, -10))
    assert asked.status_code == 400 and asked.json()["field"] == "occurred_at"
    assert "outside outage OUT1" in asked.json()["detail"]
    assert store.head() == before


def test_a_paper_signer_without_his_steps_role_or_at_two_steps_is_400_naming_him(slip_floor):
    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 5)
    before = store.head()
    no_runner = _paper_slip(_as("pit2"), at, runner="deal1")
    assert no_runner.status_code == 400 and no_runner.json()["field"] == "signers.runner"
    # The requester accepting his own fill: the slip's segregation of duties, kept on paper.
    own = _paper_slip(_as("pit2"), at, accepted_by="pit1")
    assert own.status_code == 400 and own.json()["field"] == "signers.accepted_by", own.content
    assert "segregation of duties" in own.json()["detail"]
    on_cage_form = _as("pit2").post(
        "/api/outages/OUT1/forms/OUT1-CAGE/slips",
        {"occurred_at": at.isoformat(), "kind": "fill", "denominations": FILL, "signers": SIGNERS},
        format="json",
    )
    assert on_cage_form.status_code == 400 and on_cage_form.json()["field"] == "form"
    wrong_total = _as("pit2").post(
        "/api/outages/OUT1/forms/OUT1-R1/slips",
        {"occurred_at": at.isoformat(), "kind": "fill", "denominations": FILL, "signers": SIGNERS, "amount_cents": 1},
        format="json",
    )
    assert wrong_total.status_code == 400 and wrong_total.json()["field"] == "amount_cents"
    # The stand-in for a signature to come signs nothing on paper, even in the request's trial run.
    from approvals.services import approval_request
    from ledger.errors import InvalidInput
    from staff.roles import PENDING_SIGNATURE

    payload = {"outage": "OUT1", "form": "OUT1-R1", "occurred_at": at.isoformat(), "kind": "fill"}
    with pytest.raises(InvalidInput) as refused:
        approval_request(
            kind="paper_slip_enter",
            payload=payload | {"denominations": FILL, "signers": SIGNERS | {"runner": PENDING_SIGNATURE}},
            actor="pit2",
        )
    assert refused.value.field == "signers.runner"
    assert store.head() == before


def test_paper_fills_and_credits_complete_their_form_show_in_the_report_and_export_and_the_day_seals(
    slip_floor, tmp_path
):
    outage = _declare(_as("pit1"))
    day = current_gaming_day()
    for n, (kind, signers) in enumerate(
        [("fill", {}), ("credit", {"accepted_by": SHIFT_CASHIER, "issued_by": SHIFT_CASHIER})], start=1
    ):
        asked = _paper_slip(_as("pit2"), _paper_time(outage, 4 * n), kind=kind, denominations={"2500": 4}, **signers)
        assert asked.status_code == 202, asked.content
        done = _as("super1").post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
        assert done.status_code == 201, done.content
        assert done.json()["line"] == n
    credit = Event.objects.get(type="CreditDelivered")
    assert credit.data["later_entry"]["form"] == "OUT1-R1" and credit.data["window"]

    pit1 = _as("pit1")
    assert pit1.post("/api/outages/OUT1/forms/OUT1-R1/complete", {"lines": 2}, format="json").status_code == 200
    done = pit1.post("/api/outages/OUT1/forms/OUT1-CAGE/complete", {"lines": 0}, format="json")
    assert done.status_code == 200 and done.json()["unentered"] == []

    # The daily report counts them with the table's later entries.
    report = table_games_daily_report(day)
    r1 = next(r for r in report["rows"] if r["level"] == "table" and r["key"] == "R1" and r["period"] == "day")
    assert r1["later_entries"] == 2

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
    later = [e for e in lines if e["type"] in ("FillDelivered", "CreditDelivered") and "later_entry" in e["data"]]
    assert [e["type"] for e in later] == ["FillDelivered", "CreditDelivered"]
    assert all(e["occurred_at"] < e["recorded_at"] for e in later)


def test_the_pit_boss_enters_a_paper_fill_from_his_page_and_a_cage_supervisor_approves_it(slip_floor):
    from approvals.models import Approval

    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 6).astimezone(UTC)
    local = at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Paris")).strftime("%Y-%m-%dT%H:%M")
    pit2 = _page("pit2")
    form = {
        "kind": "fill",
        "occurred_at": local,
        "amount": "1 200,00",
        "paper-OUT1-R1-10000": "10",
        "paper-OUT1-R1-2500": "8",
        **SIGNERS,
    }
    wrong = pit2.post("/dashboard/outages/OUT1/forms/OUT1-R1/slips", form | {"amount": "1 000,00"})
    assert wrong.status_code == 400 and "<strong>Total on the paper</strong>" in wrong.content.decode()
    asked = pit2.post("/dashboard/outages/OUT1/forms/OUT1-R1/slips", form, follow=True)
    assert "waiting for approval by a second login" in asked.content.decode()
    approval = Approval.objects.get(kind="paper_slip_enter")
    assert _page("super1").post(f"/dashboard/approvals/{approval.id}/approve").status_code == 302
    delivered = Event.objects.get(type="FillDelivered")
    assert delivered.occurred_at == at and delivered.data["amount_cents"] == 120_000
    assert delivered.data["later_entry"]["entered_by"] == "pit2"


def test_a_cash_buy_in_on_paper_is_entered_later_into_the_drop_as_a_live_one(slip_floor):
    patron = slip_floor["patrons"][0]
    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 9)
    chips, drop = store.balance(f"patron:{patron}:chips"), store.balance("table:R1:drop")
    tray = store.balance("table:R1:tray")
    body = {"occurred_at": at.isoformat(), "patron": patron, "amount_cents": 30_000}
    asked = _as("pit2").post("/api/outages/OUT1/forms/OUT1-R1/buy-ins", body, format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    assert _as("pit2").post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403
    done = _as("pit1").post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert done.status_code == 201, done.content
    assert (done.json()["line"], done.json()["entered_by"], done.json()["approved_by"]) == (1, "pit2", "pit1")
    buy_in = Event.objects.get(type="CashBuyIn")
    assert buy_in.occurred_at == at and buy_in.data["later_entry"]["form"] == "OUT1-R1"
    assert store.balance(f"patron:{patron}:chips") - chips == 30_000
    assert store.balance("table:R1:drop") - drop == 30_000
    assert store.balance("table:R1:tray") - tray == -30_000
    late = _as("pit2").post(
        "/api/outages/OUT1/forms/OUT1-R1/buy-ins",
        body | {"occurred_at": (at + timedelta(hours=2)).isoformat()},
        format="json",
    )
    assert late.status_code == 400 and late.json()["field"] == "occurred_at"


def test_the_pit_boss_enters_a_paper_buy_in_typed_in_euros_from_his_page(slip_floor):
    from approvals.models import Approval

    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 11)
    local = at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Paris")).strftime("%Y-%m-%dT%H:%M")
    pit2 = _page("pit2")
    form = {"occurred_at": local, "patron": slip_floor["patrons"][1], "amount": "1 250,50"}
    asked = pit2.post("/dashboard/outages/OUT1/forms/OUT1-R1/buy-ins", form, follow=True)
    assert "waiting for approval by a second login" in asked.content.decode()
    approval = Approval.objects.get(kind="paper_buy_in_enter")
    assert approval.payload["amount_cents"] == 125_050
    assert _page("pit1").post(f"/dashboard/approvals/{approval.id}/approve").status_code == 302
    assert Event.objects.get(type="CashBuyIn").data["amount_cents"] == 125_050


def test_a_marker_on_paper_is_issued_later_in_its_signers_name_against_the_credit_line(slip_floor):
    from cashier.credit_models import Marker
    from cashier.services.credit import credit_line_set

    patron = slip_floor["patrons"][0]
    credit_line_set(patron=patron, limit_cents=100_000, actor="super1")
    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 12)
    tray = store.balance("table:R1:tray")
    body = {"occurred_at": at.isoformat(), "patron": patron, "amount_cents": 80_000, "issued_by": "pit1"}

    not_a_pit_boss = _as("pit2").post(
        "/api/outages/OUT1/forms/OUT1-R1/markers", body | {"issued_by": "deal1"}, format="json"
    )
    asked = _as("pit2").post("/api/outages/OUT1/forms/OUT1-R1/markers", body, format="json")
    assert (not_a_pit_boss.status_code, not_a_pit_boss.json()["field"]) == (400, "issued_by")
    assert asked.status_code == 202, asked.content
    words = _page("super1").get("/dashboard/approvals/").content.decode()
    assert f"Later entry from paper form OUT1-R1: a marker of 800.00 EUR signed by {patron} at" in words
    assert "issued by pit1" in words
    approval = asked.json()["approval"]["id"]
    assert _as("pit2").post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code == 403
    done = _as("super1").post(f"/api/approvals/{approval}/confirm", {}, format="json")

    assert done.status_code == 201, done.content
    result = done.json()
    assert (result["line"], result["issued_by"], result["entered_by"], result["approved_by"]) == (
        1,
        "pit1",
        "pit2",
        "super1",
    )
    marker = Marker.objects.get(serial=result["serial"])
    assert (marker.amount_cents, marker.table_code, marker.state) == (80_000, "R1", "at_table")
    issued = Event.objects.get(type="MarkerIssued")
    assert issued.occurred_at == at and issued.actor == "pit1"
    assert issued.data["later_entry"] == issued.data["later_entry"] | {"form": "OUT1-R1", "approved_by": "super1"}
    assert store.balance("table:R1:tray") - tray == -80_000
    over = _as("pit2").post(
        "/api/outages/OUT1/forms/OUT1-R1/markers",
        body | {"occurred_at": (at + timedelta(minutes=1)).isoformat(), "amount_cents": 20_001},
        format="json",
    )
    assert over.status_code == 409 and "remaining credit" in over.json()["detail"].lower()  # refused when asked
    assert Event.objects.filter(type="MarkerIssued").count() == 1


def test_the_pit_boss_enters_a_paper_marker_from_his_page_and_a_signer_without_the_role_is_named(slip_floor):
    from approvals.models import Approval
    from cashier.services.credit import credit_line_set

    patron = slip_floor["patrons"][1]
    credit_line_set(patron=patron, limit_cents=100_000, actor="super1")
    outage = _declare(_as("pit1"))
    at = _paper_time(outage, 13)
    local = at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Paris")).strftime("%Y-%m-%dT%H:%M")
    pit2 = _page("pit2")
    form = {"occurred_at": local, "patron": patron, "amount": "500", "issued_by": "pit1"}
    page = pit2.get("/dashboard/outages/").content.decode()
    assert 'data-form="paper-marker"' in page and "Enter a marker of form OUT1-R1 (table R1)" in page

    asked = pit2.post("/dashboard/outages/OUT1/forms/OUT1-R1/markers", form, follow=True)

    assert "Marker of form OUT1-R1 asked as a later entry" in asked.content.decode()
    approval = Approval.objects.get(kind="paper_marker_enter")
    assert (approval.payload["amount_cents"], approval.payload["issued_by"]) == (50_000, "pit1")
    assert _page("pit1").post(f"/dashboard/approvals/{approval.id}/approve").status_code == 302
    (issued,) = Event.objects.filter(type="MarkerIssued")
    assert (issued.data["amount_cents"], issued.actor, issued.occurred_at) == (50_000, "pit1", at)

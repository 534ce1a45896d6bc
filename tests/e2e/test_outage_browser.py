"""A pit boss runs an outage from his page: declares it, prints its forms, enters a coup
written on the paper form; a second pit boss approves it from his own login; the table's page
then marks the coup as a later entry. Screenshots: var/artifacts/dashboard-outage-declared.png,
var/artifacts/dashboard-outage-approval.png, var/artifacts/dashboard-outage-later-entry.png.
A fill written on the table's paper form, entered from the same page with the chips counted by
value and its paper signers, approved by a cage supervisor: dashboard-outage-fill-*.png."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from cashier.services.outage import outage_declare
from games.services.tables import table_open
from staff.roles import Role, grant
from tests.conftest import ACTOR, SHIFT_CASHIER, make_patron

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


@pytest.fixture(autouse=True)
def _mid_gaming_day(settings):
    """The gaming day starts twelve hours from now: the outage of the last half hour is today's."""
    later = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE)) + timedelta(hours=12)
    settings.GAMING_DAY_START = later.strftime("%H:%M")


def test_an_outage_declared_entered_on_paper_and_approved_from_a_second_login(
    log_in_pit_boss, dashboard_server, cage, django_user_model, settings
):
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    grant(django_user_model.objects.create_user(username="boss2", password="floor-secret"), Role.PIT_BOSS)
    zone = ZoneInfo(settings.CASINO_TIMEZONE)
    now = datetime.now(UTC).astimezone(zone).replace(second=0, microsecond=0)

    page = log_in_pit_boss()
    page.goto(f"{dashboard_server.url}/dashboard/outages/")
    page.get_by_label("Started").fill((now - timedelta(minutes=30)).strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Ended", exact=True).fill((now - timedelta(minutes=2)).strftime("%Y-%m-%dT%H:%M"))
    page.get_by_label("Reason").fill("the ledger server lost its power")
    page.get_by_role("button", name="Declare the outage").click()
    expect(page.get_by_text("Outage OUT1 declared")).to_be_visible()
    expect(page.locator("[data-figure=unentered]")).to_contain_text("forms not entered: OUT1-R1, OUT1-CAGE")
    with page.expect_download() as download:
        page.get_by_role("link", name="its forms (PDF)").click()
    assert download.value.suggested_filename == "outage-OUT1-forms.pdf"

    coup = page.locator("#coup-OUT1-R1")
    coup.get_by_label("Time on the paper").fill((now - timedelta(minutes=20)).strftime("%Y-%m-%dT%H:%M"))
    coup.get_by_label("Winning number").fill("14")
    coup.get_by_label("Patron of bet 1").fill(patron)
    coup.get_by_label("Bet 1", exact=True).select_option("rouge")
    coup.get_by_label("Stake of bet 1").fill("20,00")
    page.screenshot(path=str(ARTIFACTS / "dashboard-outage-declared.png"), full_page=True)
    coup.get_by_role("button", name="Ask for its approval").click()
    expect(page.get_by_text("asked as a later entry")).to_be_visible()

    # The second pit boss, from his own login.
    page.context.clear_cookies()
    log_in(page, dashboard_server.url, "boss2")
    page.goto(f"{dashboard_server.url}/dashboard/approvals/")
    row = page.locator("tr[data-approval=paper_coup_enter]")
    played = (now - timedelta(minutes=20)).strftime("%H:%M")
    expect(row).to_contain_text(f"Later entry from paper form OUT1-R1: a coup played at {played} CET")
    page.screenshot(path=str(ARTIFACTS / "dashboard-outage-approval.png"), full_page=True)
    row.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Approved and done")).to_be_visible()

    page.goto(f"{dashboard_server.url}/dashboard/tables/R1/")
    later = page.locator("[data-figure=later-entry]")
    expect(later).to_have_count(1)
    expect(later).to_contain_text(f"later entry from form OUT1-R1: played {played} CET")
    expect(later).to_contain_text("by boss, approved by boss2")
    later.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-outage-later-entry.png"), full_page=True)


def test_a_fill_on_paper_entered_from_the_outage_page_and_approved_by_a_cage_supervisor(
    log_in_pit_boss, dashboard_server, cage, django_user_model, settings
):
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    for name, role in (("super1", Role.CAGE_SUPERVISOR), ("run1", Role.RUNNER), ("deal1", Role.DEALER)):
        grant(django_user_model.objects.create_user(username=name, password="floor-secret"), role)
    zone = ZoneInfo(settings.CASINO_TIMEZONE)
    now = datetime.now(UTC).astimezone(zone).replace(second=0, microsecond=0)
    outage_declare(
        started_at=now - timedelta(minutes=30),
        ended_at=now - timedelta(minutes=2),
        reason="network down",
        actor="super1",
    )

    page = log_in_pit_boss()
    page.goto(f"{dashboard_server.url}/dashboard/outages/")
    fill = page.locator("#slip-OUT1-R1")
    fill.get_by_label("Time on the paper").fill((now - timedelta(minutes=15)).strftime("%Y-%m-%dT%H:%M"))
    fill.get_by_label("Total on the paper").fill("1 200,00")
    fill.get_by_label("100 EUR", exact=True).fill("10")
    fill.get_by_label("25 EUR", exact=True).fill("8")
    fill.get_by_label("Requested by (pit boss)").fill("boss")
    fill.get_by_label("Issued by (cashier)").fill(SHIFT_CASHIER)
    fill.get_by_label("Runner").fill("run1")
    fill.get_by_label("Accepted by").fill("deal1")
    fill.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-outage-fill-typed.png"), full_page=True)
    fill.get_by_role("button", name="Ask for its approval").click()
    expect(page.get_by_text("waiting for approval by a second login")).to_be_visible()

    page.context.clear_cookies()
    log_in(page, dashboard_server.url, "super1")
    page.goto(f"{dashboard_server.url}/dashboard/approvals/")
    row = page.locator("tr[data-approval=paper_slip_enter]")
    expect(row).to_contain_text("Later entry from paper form OUT1-R1: a fill of 1,200.00 EUR")
    expect(row).to_contain_text("requested by boss, issued by shift-cashier, carried by run1, accepted by deal1")
    page.screenshot(path=str(ARTIFACTS / "dashboard-outage-fill-approval.png"), full_page=True)
    row.get_by_role("button", name="Approve").click()
    expect(page.get_by_text("Approved and done")).to_be_visible()
    from ledger.models import Event

    delivered = Event.objects.get(type="FillDelivered")
    assert delivered.data["later_entry"]["approved_by"] == "super1" and delivered.data["amount_cents"] == 120_000

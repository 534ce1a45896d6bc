"""The cage enters its outage paper form from its own page, in a real browser: the cashier types
a chip sale written on the cage's form (a wrongly typed amount refused on the page, the field
named, nothing asked), asks it as a later entry; the cage supervisor approves it from his own
login, sees it as line 1 of the form, and marks the form entered. The sale is in the ledger
with its paper time. Screenshots in var/artifacts/ (``cage-outage-*``)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from cashier.services.outage import outage_declare
from ledger.later_entries import FLAG
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import hand_cage_to, make_patron

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


@pytest.fixture(autouse=True)
def _mid_gaming_day(settings):
    """The gaming day starts twelve hours from now: the outage of the last half hour is today's."""
    later = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE)) + timedelta(hours=12)
    settings.GAMING_DAY_START = later.strftime("%H:%M")


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"cage-outage-{name}.png"), full_page=True)


def test_a_cage_paper_line_is_asked_by_the_cashier_approved_by_a_supervisor_and_the_form_marked_entered(
    browser_page, dashboard_server, cage, django_user_model, settings
):
    for name, role in (("cash1", Role.CASHIER), ("super1", Role.CAGE_SUPERVISOR)):
        grant(django_user_model.objects.create_user(username=name, password="floor-secret"), role)
    hand_cage_to("cash1")
    patron = make_patron()
    now = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).replace(second=0, microsecond=0)
    outage_declare(
        started_at=now - timedelta(minutes=30),
        ended_at=now - timedelta(minutes=2),
        scope="cage",
        reason="cage terminal down",
        actor="super1",
    )
    paper_time = now - timedelta(minutes=20)

    page, url = browser_page, dashboard_server.url
    log_in(page, url, "cash1", app="workstations")
    section = page.locator('[data-section="paper-form"][data-form-serial="OUT1-CAGE"]')
    expect(section.get_by_role("heading", level=3)).to_contain_text("Form OUT1-CAGE: outage OUT1")
    expect(section.locator('[data-section="paper-lines"]')).to_contain_text("No line entered yet.")
    line = section.locator('[data-form="paper-line"]')
    line.get_by_label("Time on the paper").fill(paper_time.strftime("%Y-%m-%dT%H:%M"))
    line.get_by_label("Patron code").fill(patron)
    line.get_by_label("Amount (EUR)").fill("300,505")
    line.get_by_role("button", name="Ask to enter the line").click()
    refused = page.locator('[data-section="paper-form"] [data-form="paper-line"]')
    expect(refused.locator(".field-error")).to_contain_text("Amount")
    expect(refused.get_by_label("Patron code")).to_have_value(patron)
    shot(page, "refused")
    assert "Not recorded" not in page.content()  # said at its form, not again in a banner

    refused.get_by_label("Time on the paper").fill(paper_time.strftime("%Y-%m-%dT%H:%M"))
    refused.get_by_label("Amount (EUR)").fill("300")
    refused.get_by_role("button", name="Ask to enter the line").click()
    expect(
        page.get_by_text(f"The chip sale of 300.00 EUR, patron {patron}, on form OUT1-CAGE is asked")
    ).to_be_visible()
    expect(page.locator('[data-approval="paper_line"]')).to_contain_text("waiting for a cage supervisor")
    shot(page, "asked")
    assert not Event.objects.filter(type="ChipsPurchased", data__patron=patron).exists()
    page.get_by_role("button", name="Log out").click()

    log_in(page, url, "super1", app="workstations")
    asked = page.locator('[data-approval="paper_line"]')
    expect(asked).to_contain_text(f"Later entry, form OUT1-CAGE: chip sale of 300.00 EUR, patron {patron}")
    shot(page, "to-approve")
    asked.get_by_role("button", name="Approve the later entry").click()
    expect(page.get_by_text("entered as line 1 of form OUT1-CAGE")).to_be_visible()
    lines = page.locator('[data-section="paper-form"] [data-section="paper-lines"] tbody tr')
    expect(lines).to_have_count(1)
    expect(lines.first).to_contain_text("Chip sale")
    expect(lines.first).to_contain_text("cash1")
    expect(lines.first).to_contain_text("super1")
    shot(page, "approved")
    page.get_by_label("Lines written on form OUT1-CAGE").fill("1")
    page.get_by_role("button", name="Mark the form entered").click()
    expect(page.get_by_text("Form OUT1-CAGE entered")).to_be_visible()
    expect(page.locator('[data-section="paper-form"]')).to_have_count(0)
    shot(page, "form-entered")

    (sale,) = Event.objects.filter(type="ChipsPurchased", data__patron=patron)
    assert sale.data["amount_cents"] == 30_000
    assert sale.occurred_at == paper_time
    assert (sale.data[FLAG]["form"], sale.data[FLAG]["entered_by"], sale.data[FLAG]["approved_by"]) == (
        "OUT1-CAGE",
        "cash1",
        "super1",
    )
    assert Event.objects.filter(type="PaperFormEntered", data__form="OUT1-CAGE").count() == 1

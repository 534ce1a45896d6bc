"""The pit boss reads a patron's AML flags in a real browser: each says when (local time with its
zone), what happened (the cash, where, against which threshold) and who recorded it, never the
ledger's position; a pit boss who is also an auditor gets a link to the flag's ledger event and
opens it. Screenshots in var/artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def log_in(page, url: str, username: str) -> None:
    page.goto(f"{url}/dashboard/login/")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()


def test_a_pit_boss_reads_a_patrons_aml_flags_by_time_and_what_happened(
    browser_page, dashboard_server, django_user_model, cage
):
    page, url = browser_page, dashboard_server.url
    grant(django_user_model.objects.create_user(username="boss", password="floor-secret"), Role.PIT_BOSS)
    both = django_user_model.objects.create_user(username="boss-auditor", password="floor-secret")
    grant(both, Role.PIT_BOSS, Role.AUDITOR)
    patron = make_patron(350_000)  # 3,500.00 EUR of chips: identity checked and transaction logged
    positions = list(Event.objects.filter(stream=f"aml/{patron}").values_list("position", flat=True))
    assert len(positions) == 2

    log_in(page, url, "boss")
    page.goto(f"{url}/dashboard/patrons/{patron}/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Test Patron ({patron}) · Identified")
    expect(page.get_by_role("link", name="audit timeline (API)")).to_have_attribute(
        "href", f"/api/audit/patron/{patron}/"
    )
    flags = page.locator('[data-section="aml-flags"] li')
    expect(flags).to_have_count(2)
    cash = r"cash in 3,500\.00 EUR \(chips bought at the cage\), day's total 3,500\.00 EUR"
    # Before the gaming day's start (06:00) a flag belongs to the day before, and says so.
    when = r"\d{4}-\d\d-\d\d \d\d:\d\d CES?T(?: \(gaming day \d{4}-\d\d-\d\d\))?"
    expect(page.locator('[data-flag="AmlTransactionLogged"]')).to_have_text(
        re.compile(f"^{when} · transaction logged: {cash}, threshold 3,000\\.00 EUR · by {ACTOR}$")
    )
    expect(page.locator('[data-flag="AmlIdentityChecked"]')).to_have_text(
        re.compile(f"^{when} · identity checked: {cash}, threshold 2,000\\.00 EUR · by {ACTOR}$")
    )
    expect(page.locator('[data-section="aml-flags"] a')).to_have_count(0)  # a pit boss alone: no event page
    assert "ledger entry" not in page.inner_text("body")  # the whole line is matched above: no position
    page.screenshot(path=str(ARTIFACTS / "patron-aml-flags-pit-boss-1280x800.png"), full_page=True)

    page.get_by_role("button", name="Log out").click()
    log_in(page, url, "boss-auditor")
    page.goto(f"{url}/dashboard/patrons/{patron}/")
    logged = page.locator('[data-flag="AmlTransactionLogged"]')
    expect(logged.get_by_role("link", name="its ledger event")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "patron-aml-flags-auditor-1280x800.png"), full_page=True)
    logged.get_by_role("link", name="its ledger event").click()
    expect(page).to_have_url(re.compile(rf"/workstations/audit/events/{max(positions)}/$"))
    expect(page.get_by_role("heading", level=1)).to_have_text(f"AML transaction logged on aml/{patron}")
    expect(page.locator('[data-section="what"]')).to_have_text(
        "Transaction logged: cash in 3,500.00 EUR (chips bought at the cage), day's total 3,500.00 EUR, "
        "threshold 3,000.00 EUR"
    )
    expect(page.locator('[data-section="event"] [data-figure="type"]')).to_have_text("AmlTransactionLogged")
    data = page.get_by_role("table", name="Event data")
    expect(data.locator("tr", has_text="channel").locator("td")).to_have_text("chips bought at the cage")
    expect(data).not_to_contain_text("cage_purchase")
    page.screenshot(path=str(ARTIFACTS / "audit-event-aml-1280x800.png"), full_page=True)

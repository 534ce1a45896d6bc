"""The pit boss gives a rated patron a comp on his page in a real browser, sees a value above
what is left refused with the field named, and reverses a comp with its reason. Screenshots in
var/artifacts/."""

import pytest
from playwright.sync_api import expect

from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import rated_by_hand

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def test_a_pit_boss_gives_and_reverses_a_comp_on_the_patrons_page(
    browser_page, dashboard_server, django_user_model, table
):
    page, url = browser_page, dashboard_server.url
    grant(django_user_model.objects.create_user(username="boss", password="floor-secret"), Role.PIT_BOSS)
    patron = rated_by_hand("boss")

    log_in(page, url, "boss")
    page.goto(f"{url}/dashboard/patrons/{patron}/")
    comps = page.locator('[data-section="comps"]')
    expect(comps.locator('[data-figure="comps-available"]')).to_have_text("8.74 EUR")

    page.get_by_label("Kind of comp").select_option("room")
    page.get_by_label("Value at cost (EUR)").fill("9.00")
    page.get_by_role("button", name="Give the comp").click()
    expect(comps.get_by_role("alert")).to_contain_text("Refused — Value: P00001 has 8.74 EUR of comps available")
    expect(page.get_by_label("Value at cost (EUR)")).to_have_attribute("aria-invalid", "true")
    page.screenshot(path=str(ARTIFACTS / "comps-refused-1280x800.png"), full_page=True)

    page.get_by_label("Kind of comp").select_option("meal")
    page.get_by_label("Value at cost (EUR)").fill("6.50")
    page.get_by_label("Note").fill("dinner at the brasserie")
    page.get_by_role("button", name="Give the comp").click()
    expect(page.get_by_text("Comp of 6.50 EUR given; 2.24 EUR left.")).to_be_visible()
    expect(comps.locator('[data-figure="comps-given"]')).to_have_text("6.50 EUR")
    given = comps.locator('[data-section="comps-given"] tbody tr')
    expect(given).to_have_count(1)
    expect(given.first).to_contain_text("Meal")
    expect(given.first).to_contain_text("dinner at the brasserie")
    page.screenshot(path=str(ARTIFACTS / "comps-given-1280x800.png"), full_page=True)

    given.first.get_by_text("Reverse", exact=True).click()
    given.first.get_by_label("Reason").fill("patron left before dinner")
    given.first.get_by_role("button", name="Reverse this comp").click()
    expect(page.get_by_text("Comp of 6.50 EUR reversed.")).to_be_visible()
    expect(comps.locator('[data-section="comps-given"] tbody tr').first).to_contain_text(
        "Reversed: patron left before dinner"
    )
    expect(comps.locator('[data-figure="comps-available"]')).to_have_text("8.74 EUR")
    page.screenshot(path=str(ARTIFACTS / "comps-reversed-1280x800.png"), full_page=True)
    assert [e.actor for e in Event.objects.filter(type__in=("CompGiven", "CompReversed"))] == ["boss", "boss"]

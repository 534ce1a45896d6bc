"""A patron lowers his own maximum bet at the cage, in a real browser: the cashier finds him, he
shows his document and chooses his PIN, then types it to confirm a lower limit, in force at once;
a wrong PIN is refused on the page naming the PIN, which is never shown back. Screenshots in
var/artifacts/ (``self-limit-*``)."""

import pytest
from playwright.sync_api import expect

from patrons.models import SelfLimit
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres

PIN = "5173"


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"self-limit-{name}.png"), full_page=True)


def test_a_patron_lowers_his_self_limit_with_his_pin_at_the_cage(
    browser_page, dashboard_server, django_user_model, cage_float
):
    page = browser_page
    grant(django_user_model.objects.create_user(username="cash1", password="cage-secret"), Role.CASHIER)
    code = patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]
    log_in(page, dashboard_server.url, "cash1", "cage-secret", app="workstations")
    expect(page.get_by_role("heading", level=1)).to_have_text("Cage workstation")
    page.goto(f"{dashboard_server.url}/workstations/cage/?q=helene#patrons")
    row = page.locator("tr", has_text=code)
    expect(row.locator('[data-figure="self-limit"]')).to_have_text("none set")

    form = page.locator('[data-form="pin"]')
    form.get_by_label("Patron code").fill(code)
    form.get_by_label("Identity document shown (type and number)").fill("passport 12AB34567")
    form.get_by_label("PIN (typed by the patron)").fill(PIN)
    form.get_by_role("button", name="Set the PIN").click()
    expect(page.get_by_text(f"PIN of patron {code} set.")).to_be_visible()

    limit = page.locator('[data-form="self-limit"]')
    limit.get_by_label("Patron code").fill(code)
    limit.get_by_label("New maximum bet (EUR)").fill("150,00")
    limit.get_by_label("PIN (typed by the patron)").fill("0000")
    limit.get_by_role("button", name="Change the self-limit").click()
    refused = page.locator('[data-form="self-limit"]')
    expect(refused).to_contain_text("Patron's PIN")
    expect(refused.get_by_label("New maximum bet (EUR)")).to_have_value("150,00")
    expect(refused.get_by_label("PIN (typed by the patron)")).to_have_value("")
    shot(page, "wrong-pin")
    assert not SelfLimit.objects.filter(pk=code).exists()

    refused.get_by_label("PIN (typed by the patron)").fill(PIN)
    refused.get_by_role("button", name="Change the self-limit").click()
    expect(page.get_by_text(f"Self-limit of patron {code}: 150.00 EUR, in force now.")).to_be_visible()
    expect(page.locator("tr", has_text=code).locator('[data-figure="self-limit"]')).to_have_text("150.00 EUR")
    shot(page, "lowered")
    assert SelfLimit.objects.get(pk=code).max_bet_cents == 15_000
    assert PIN not in page.content()

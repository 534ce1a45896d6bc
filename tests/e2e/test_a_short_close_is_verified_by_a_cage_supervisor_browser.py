"""A cashier closes her window at the end of the day 500.00 EUR short, in a real browser: the
close waits (her window still open, every sale refused while it does) until a cage supervisor,
from his own browser session, verifies the count and its reason; then the window closes with
his name on the variance. Screenshots: var/artifacts/short_close_NN_<step>.png."""

import re

import pytest
from playwright.sync_api import expect

from cashier.services.cage_shifts import cage_shift_open
from ledger.models import Event
from staff.roles import Role, grant

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "floor-secret"
IMPREST = {"cash": {"50000": 20}, "chips": {"1000000": 1}}  # 10,000.00 EUR of cash and of chips
SHORT = {"cash": {"50000": 19}, "chips": {"1000000": 1}}  # one 500 EUR note missing


@pytest.fixture
def window(django_user_model, cage_float):
    for name, role in (("cashier", Role.CASHIER), ("cagesup", Role.CAGE_SUPERVISOR), ("cash2", Role.CASHIER)):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    cage_shift_open(**IMPREST, actor="cashier")


def test_a_close_500_short_waits_frozen_until_a_cage_supervisor_verifies_it(browser_page, dashboard_server, window):
    page, n = browser_page, iter(range(1, 99))

    def shot(step: str, on=None) -> None:
        (on or page).screenshot(path=str(ARTIFACTS / f"short_close_{next(n):02d}_{step}.png"), full_page=True)

    log_in(page, dashboard_server.url, "cashier", PASSWORD, app="workstations")
    expect(page).to_have_url(re.compile(r"/workstations/cage/"))
    for prefix in ("cash", "chips"):
        for denomination, pieces in SHORT[prefix].items():
            page.locator(f"#close-{prefix}-{denomination}").fill(str(pieces))
    page.get_by_label("Reason for a variance").fill("a 500 note missing")
    expect(page.locator("#close-handover-help")).to_contain_text("a cage supervisor then verifies it")
    shot("close_short")
    page.get_by_role("button", name="Close my window").click()
    expect(page.locator("ul.messages")).to_contain_text(
        "Closing asked, counted 19,500.00 EUR: the window stays open until a cage supervisor verifies the variance"
    )
    expect(page.locator('[data-section="closing-waits"]')).to_contain_text(
        "waiting for a cage supervisor to verify the variance"
    )
    shot("close_waits_for_a_supervisor")

    # While it waits, nothing crosses the counter: no serving form, and the page says why.
    expect(page.locator('[data-section="counted-out"]')).to_contain_text("nothing crosses your counter until it closes")
    expect(page.locator('[data-form="sell"]')).to_have_count(0)
    assert not Event.objects.filter(type="ChipsPurchased").exists()

    supervisor = second_person(page, dashboard_server.url, "cagesup", app="workstations")
    rows = supervisor.locator('[data-section="handovers"]')
    expect(rows).to_contain_text("19,500.00 EUR")
    expect(rows).to_contain_text("a 500 note missing")
    expect(rows.locator('[data-figure="close-variance"]')).to_have_text("-500.00 EUR")  # against the book
    shot("supervisor_sees_the_variance", supervisor)
    rows.get_by_role("button", name="Verify: I checked the count and the reason").click()
    expect(supervisor.locator("ul.messages")).to_contain_text(
        "Verified: window 1 of cashier closed, counted 19,500.00 EUR, -500.00 EUR against its book."
    )
    shot("supervisor_verified", supervisor)
    supervisor.context.close()

    page.reload()
    expect(page.locator("#window-title")).to_have_text("My window: not open")
    shot("closed")
    (closed,) = Event.objects.filter(type="CageShiftClosed")
    assert (closed.data["variance_cents"], closed.data["variance_verified_by"]) == (-50_000, "cagesup")

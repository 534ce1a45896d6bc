"""Foreign exchange at the cage in a real browser: the cage supervisor records the rate of the
day, the cashier's exchange is refused for a currency without one, then buys 100.00 USD for
chips at her window (92.14 EUR at 0.921437, rounded down), sees the notes in her drawer and on
her window's line, and closes her window counting them. After the fixture's set-up nothing but
the browser acts. Screenshots: var/artifacts/foreign_exchange_NN_<step>.png."""

import pytest
from playwright.sync_api import expect

from cashier.services.cage_shifts import cage_shift_open
from core.denominations import chip_denominations, decompose
from ledger import accounts, store
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "floor-secret"
# Her imprest: cash 20 × 500.00 = 10,000.00 EUR; chips 10 × 1,000.00 = 10,000.00 EUR.
IMPREST = {"cash": {"50000": 20}, "chips": {"100000": 10}}


class Shots:
    def __init__(self, page):
        self.page, self.n = page, 0

    def __call__(self, step: str, page=None, full_page: bool = True) -> None:
        self.n += 1
        (page or self.page).screenshot(
            path=str(ARTIFACTS / f"foreign_exchange_{self.n:02d}_{step}.png"), full_page=full_page
        )


@pytest.fixture
def cage_staff(django_user_model, cage_float):
    for name, role in (("cashier", Role.CASHIER), ("cagesup", Role.CAGE_SUPERVISOR)):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    patron_register(kind="anonymous", actor=ACTOR)
    cage_shift_open(**IMPREST, actor="cashier")


def test_a_rate_of_the_day_and_an_exchange_of_dollars_for_chips_through_the_pages(
    browser_page, dashboard_server, cage_staff
):
    page, shot = browser_page, Shots(browser_page)

    # --- the supervisor records the rate of the day ------------------------------------------
    supervisor = second_person(page, dashboard_server.url, "cagesup", app="workstations", password=PASSWORD)
    rate = supervisor.locator('[data-form="rate"]')
    rate.get_by_label("Currency", exact=True).select_option("USD")
    rate.get_by_label("Rate (EUR for 1 unit)").fill("0.921437")
    shot("rate_typed", supervisor)
    rate.get_by_role("button", name="Record the rate").click()
    expect(supervisor.locator("ul.messages")).to_contain_text("Buying rate of the day recorded: 1 USD = 0.921437 EUR.")
    expect(supervisor.locator('[data-figure="rate-USD"]')).to_have_text("1 USD = 0.921437 EUR")
    shot("rate_recorded", supervisor)

    # --- the cashier: no rate of GBP today, refused with what she typed kept ------------------
    log_in(page, dashboard_server.url, "cashier", PASSWORD, app="workstations")
    form = page.locator('[data-form="exchange"]')
    form.get_by_label("Currency", exact=True).select_option("GBP")
    form.get_by_label("Banknotes handed in (in the currency)").fill("50")
    form.get_by_role("button", name="Buy the banknotes").click()
    form = page.locator('[data-form="exchange"]')
    expect(form.locator(".field-error")).to_contain_text("Currency: No buying rate of GBP is recorded")
    expect(form.get_by_label("Banknotes handed in (in the currency)")).to_have_value("50")
    shot("no_rate_refused")

    # --- 100 dollars bought for chips ---------------------------------------------------------
    form.get_by_label("Currency", exact=True).select_option("USD")
    form.get_by_label("Banknotes handed in (in the currency)").fill("100")
    form.get_by_label("Paid in").select_option("chips")
    shot("exchange_typed")
    form.get_by_role("button", name="Buy the banknotes").click()
    expect(page.locator("ul.messages")).to_contain_text(
        "Bought 100.00 USD at 0.921437: paid 92.14 EUR in chips, an unnamed patron (rounded down: 0.37 of a cent kept"
    )
    expect(page.locator('[data-figure="drawer-chips"]')).to_have_text("9,907.86 EUR")
    expect(page.locator('[data-figure="drawer-foreign-USD"]')).to_have_text("100.00 USD")
    expect(page.locator('[data-section="lines"]')).to_contain_text("Foreign exchange: 100.00 USD at 0.921437")
    expect(page.locator('[data-figure="cage-foreign-USD"]')).to_have_text("100.00 USD")
    shot("exchanged")
    page.locator('[data-section="lines"]').scroll_into_view_if_needed()
    shot("window_lines", full_page=False)

    # --- the close counts the dollars: the drawer as the book says, no variance --------------
    close = page.locator('[data-form="close"]')
    page.locator("#close-cash-50000").fill("20")
    for denomination, pieces in decompose(990_786, chip_denominations()).items():  # 9,907.86 EUR of chips
        page.locator(f"#close-chips-{denomination}").fill(str(pieces))
    close.get_by_label("Foreign banknotes counted, USD (the drawer holds 100.00 USD)").fill("100.00")
    shot("close_counted")
    close.get_by_role("button", name="Close my window").click()
    expect(page.locator("ul.messages")).to_contain_text("Window 1 closed: counted 19,907.86 EUR")
    expect(page.locator('[data-figure="foreign-counted-USD"]')).to_have_text("100.00 USD")
    expect(page.locator('[data-figure="foreign-variance-USD"]')).to_have_text("0.00 USD")
    shot("window_report")
    assert store.balance(accounts.cage_foreign("USD"), "USD") == 10_000

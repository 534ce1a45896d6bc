"""Credit and front money at the cage, in a real browser: the cage supervisor approves a
patron's credit line from the cage page; the cashier takes his front money deposit, finds him
with his front money and credit line shown, takes a marker payment from its row (a payment
over what is owed refused with the figure kept), then settles it from his front money, and pays
the rest of his deposit back. Screenshots in var/artifacts/ (``front-money-*``)."""

import pytest
from playwright.sync_api import expect

from cashier.credit_models import Marker
from cashier.services.credit import marker_issue
from ledger import accounts, store
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "cage-secret"


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"front-money-{name}.png"), full_page=True)


def test_credit_line_front_money_and_a_marker_payment_are_done_from_the_cage_page(
    browser_page, dashboard_server, django_user_model, table
):
    for name, role in (("cash1", Role.CASHIER), ("super1", Role.CAGE_SUPERVISOR)):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    hand_cage_to("cash1")
    code = patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]

    supervisor = browser_page
    log_in(supervisor, dashboard_server.url, "super1", PASSWORD, app="workstations")
    supervisor.goto(f"{dashboard_server.url}/workstations/cage/#patrons")
    line = supervisor.locator('form[data-form="credit-line"]')
    line.get_by_label("Patron code").fill(code)
    line.get_by_label("Credit limit (EUR)").fill("5 000")
    line.get_by_role("button", name="Set the credit line").click()
    expect(supervisor.locator("ul.messages")).to_contain_text(
        f"Credit line of patron {code}: 5,000.00 EUR (before: none)"
    )
    shot(supervisor, "credit-line")
    serial = marker_issue(patron=code, amount_cents=150_000, actor="cash1")["serial"]

    page = second_person(supervisor, dashboard_server.url, "cash1", app="workstations", password=PASSWORD)
    page.goto(f"{dashboard_server.url}/workstations/cage/")
    deposit = page.locator('form[data-form="deposit"]')
    deposit.get_by_label("Patron code").fill(code)
    deposit.get_by_label("Cash deposited (EUR)").fill("1 200")
    deposit.get_by_role("button", name="Take the deposit").click()
    expect(page.locator("ul.messages")).to_contain_text(
        f"Front money: 1,200.00 EUR in cash deposited by patron {code} (his deposit now 1,200.00 EUR)."
    )
    page.get_by_label("Name, document or patron code").fill("Dupré")
    page.get_by_role("button", name="Find patron").click()
    found = page.get_by_role("table", name="Patrons found")
    expect(found.locator('[data-figure="front-money"]')).to_have_text("1,200.00 EUR")
    expect(found.locator('[data-figure="credit-line"]')).to_have_text(
        "limit 5,000.00 EUR, 1,500.00 EUR owed on markers"
    )
    shot(page, "deposit-and-patron")

    row = page.locator(f'tr[data-marker="{serial}"]')
    row.get_by_label(f"Amount paid on marker {serial} (EUR)").fill("1 500,01")
    row.get_by_role("button", name="Take payment").click()
    row = page.locator(f'tr[data-marker="{serial}"]')
    expect(row.get_by_role("alert")).to_contain_text("1,500.00 EUR outstanding")
    expect(row.get_by_label(f"Amount paid on marker {serial} (EUR)")).to_have_value("1 500,01")
    shot(page, "payment-refused")
    row.get_by_label(f"Amount paid on marker {serial} (EUR)").fill("500")
    row.get_by_role("button", name="Take payment").click()
    expect(page.locator("ul.messages")).to_contain_text(
        f"Marker {serial} of patron {code}: 500.00 EUR paid in cash; 1,000.00 EUR still owed."
    )
    row = page.locator(f'tr[data-marker="{serial}"]')
    row.get_by_label(f"Amount paid on marker {serial} (EUR)").fill("1000")
    row.get_by_label("Paid in").select_option("front_money")
    row.get_by_role("button", name="Take payment").click()
    expect(page.locator("ul.messages")).to_contain_text(
        "1,000.00 EUR paid from his front money; the marker is settled."
    )
    expect(page.locator(f'tr[data-marker="{serial}"]')).to_have_count(0)  # no longer owed
    withdraw = page.locator('form[data-form="withdraw"]')
    withdraw.get_by_label("Patron code").fill(code)
    withdraw.get_by_label("Cash paid back (EUR)").fill("200")
    withdraw.get_by_role("button", name="Pay the deposit back").click()
    expect(page.locator("ul.messages")).to_contain_text("(his deposit now 0.00 EUR).")
    shot(page, "settled")
    page.context.close()

    assert Marker.objects.get(serial=serial).state == Marker.State.PAID
    assert store.balance(accounts.patron_deposit(code)) == 0

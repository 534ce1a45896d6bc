"""The pit boss takes a marker payment and records a front money draw at his table, in a real
browser: the marker chosen from those owed, part of it paid in chips; a draw over the patron's
front money refused on the page naming the amount, then one within it recorded, the deposit
reduced. Screenshots in var/artifacts/ (``pit-credit-*``)."""

import pytest
from playwright.sync_api import expect

from cashier.credit_models import Marker
from cashier.services.credit import credit_line_set, front_money_deposit, marker_issue
from ledger import accounts, store
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"pit-credit-{name}.png"), full_page=True)


def test_the_pit_boss_takes_a_marker_payment_and_a_front_money_draw_at_his_table(
    log_in_pit_boss, dashboard_server, django_user_model, table
):
    for name, role in (("cash1", Role.CASHIER), ("super1", Role.CAGE_SUPERVISOR), ("pit1", Role.PIT_BOSS)):
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    hand_cage_to("cash1")
    code = patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]
    credit_line_set(patron=code, limit_cents=500_000, actor="super1")
    serial = marker_issue(patron=code, amount_cents=100_000, table="R1", actor="pit1")["serial"]
    front_money_deposit(patron=code, amount_cents=200_000, actor="cash1")

    page = log_in_pit_boss()
    page.goto(f"{dashboard_server.url}/dashboard/tables/R1/#credit")
    payment = page.locator('[data-form="marker-payment"]')
    payment.get_by_label("Marker").select_option(serial)
    payment.get_by_label("Amount (EUR)").fill("400")
    payment.get_by_label("Paid in").select_option("chips")
    shot(page, "payment-typed")
    payment.get_by_role("button", name="Record the marker payment").click()
    expect(
        page.get_by_text(f"Marker {serial} of Hélène Dupré ({code}): 400.00 EUR paid in all, 600.00 EUR still owed.")
    ).to_be_visible()
    expect(page.locator('[data-section="credit-today"]')).to_contain_text(f"marker {serial} paid in chips")
    assert Marker.objects.get(serial=serial).outstanding_cents == 60_000

    draw = page.locator('[data-form="front-money"]')
    draw.get_by_label("Patron code").fill(code)
    draw.get_by_label("Amount (EUR)").fill("2500")
    draw.get_by_role("button", name="Record the draw").click()
    refused = page.locator('[data-form="front-money"]')
    expect(refused.locator(".refused")).to_contain_text("Amount")
    expect(refused.locator(".refused")).to_contain_text("2,000.00 EUR of front money")
    expect(refused.get_by_label("Amount (EUR)")).to_have_value("2500")
    shot(page, "draw-refused")
    assert store.balance(accounts.patron_deposit(code)) == 200_000

    refused.get_by_label("Amount (EUR)").fill("500")
    refused.get_by_role("button", name="Record the draw").click()
    expect(
        page.get_by_text(f"Front money drawn by Hélène Dupré ({code}): 500.00 EUR in chips from the tray; 1,500.00 EUR")
    ).to_be_visible()
    expect(page.locator('[data-section="credit-today"]')).to_contain_text("front money drawn in chips")
    shot(page, "draw-recorded")
    assert store.balance(accounts.patron_deposit(code)) == 150_000

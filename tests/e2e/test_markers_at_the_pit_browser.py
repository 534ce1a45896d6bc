"""The pit boss issues a marker, takes a marker payment and records a front money draw at his
table, in a real browser: a marker over the patron's remaining credit refused on the page, one
within it issued from the tray; the marker chosen from those owed, part of it paid in chips; a draw over the patron's
front money refused on the page naming the amount, then one within it recorded, the deposit
reduced. Screenshots in var/artifacts/ (``pit-credit-*``)."""

import pytest
from playwright.sync_api import expect

from cashier.credit_models import Marker
from cashier.services.credit import credit_line_set, front_money_deposit
from ledger import accounts, store
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"pit-credit-{name}.png"), full_page=True)


def test_the_pit_boss_issues_a_marker_takes_its_payment_and_a_front_money_draw_at_his_table(
    log_in_pit_boss, dashboard_server, django_user_model, table
):
    for name, role in (("cash1", Role.CASHIER), ("super1", Role.CAGE_SUPERVISOR), ("pit1", Role.PIT_BOSS)):
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    hand_cage_to("cash1")
    code = patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]
    credit_line_set(patron=code, limit_cents=500_000, actor="super1")
    front_money_deposit(patron=code, amount_cents=200_000, actor="cash1")
    tray = store.balance(accounts.table_tray("R1"))

    page = log_in_pit_boss()
    page.goto(f"{dashboard_server.url}/dashboard/tables/R1/#credit")
    issue = page.locator('[data-form="marker-issue"]')
    issue.get_by_label("Patron code").fill(code)
    issue.get_by_label("Amount (EUR)").fill("5000.01")
    issue.get_by_role("button", name="Issue the marker").click()
    refused = page.locator('[data-form="marker-issue"] .refused')
    expect(refused).to_contain_text("remaining credit")
    expect(page.locator('[data-form="marker-issue"]').get_by_label("Amount (EUR)")).to_have_value("5000.01")
    shot(page, "issue-refused")
    assert not Marker.objects.exists()

    page.locator('[data-form="marker-issue"]').get_by_label("Amount (EUR)").fill("1000")
    page.locator('[data-form="marker-issue"]').get_by_role("button", name="Issue the marker").click()
    expect(page.get_by_text(f"issued to Hélène Dupré ({code})")).to_be_visible()
    (marker,) = Marker.objects.all()
    serial = marker.serial
    expect(
        page.get_by_text(
            f"Marker {serial} issued to Hélène Dupré ({code}): 1,000.00 EUR in chips from the tray, "
            "the marker into the drop box; 4,000.00 EUR of credit left."
        )
    ).to_be_visible()
    shot(page, "issued")
    assert (marker.amount_cents, marker.state, marker.table_code) == (100_000, "at_table", "R1")
    assert store.balance(accounts.table_tray("R1")) == tray - 100_000

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

"""A marker issued in error voided at the cage, in a real browser: the cashier asks with the
reason on the cage page's Markers list, cannot sign it himself, and a cage supervisor signs from
his own session; the list then shows it voided with its reason and both names. Screenshots in
var/artifacts/ (``marker-void-*``)."""

import pytest
from playwright.sync_api import expect

from cashier.credit_models import Marker
from cashier.services.credit import credit_line_set, marker_issue
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "cage-secret"


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"marker-void-{name}.png"), full_page=True)


def test_a_marker_void_is_asked_by_the_cashier_and_signed_by_a_cage_supervisor_from_his_own_login(
    browser_page, dashboard_server, django_user_model, table
):
    for name, role in (("cash1", Role.CASHIER), ("super1", Role.CAGE_SUPERVISOR)):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    hand_cage_to("cash1")
    code = patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]
    credit_line_set(patron=code, limit_cents=500_000, actor="super1")
    serial = marker_issue(patron=code, amount_cents=150_000, actor="cash1")["serial"]

    page = browser_page
    log_in(page, dashboard_server.url, "cash1", PASSWORD, app="workstations")
    page.goto(f"{dashboard_server.url}/workstations/cage/#markers")
    row = page.locator(f'tr[data-marker="{serial}"]')
    expect(row).to_contain_text("Hélène Dupré")
    row.get_by_label(f"Why void marker {serial}").fill("written for the wrong patron")
    row.get_by_role("button", name="Ask void").click()
    expect(page.locator("ul.messages")).to_contain_text(f"Void of marker {serial} asked")
    expect(page.locator(f'tr[data-marker="{serial}"]')).to_contain_text(
        "void asked by cash1 (written for the wrong patron): waiting for a cage supervisor"
    )
    expect(page.get_by_role("button", name="Approve the void")).to_have_count(0)  # never his own
    shot(page, "asked")

    supervisor = second_person(page, dashboard_server.url, "super1", app="workstations", password=PASSWORD)
    supervisor.goto(f"{dashboard_server.url}/workstations/cage/")
    supervisor.get_by_role("button", name="Approve the void").click()
    expect(supervisor.locator("ul.messages")).to_contain_text(
        f"marker {serial} of patron {code}, 1,500.00 EUR, is voided (written for the wrong patron); "
        "asked by cash1, signed by super1."
    )
    voided = supervisor.locator(f'tr[data-marker="{serial}"]')
    expect(voided).to_contain_text("written for the wrong patron; asked by cash1, signed by super1")
    expect(voided).to_contain_text("voided")
    shot(supervisor, "signed")
    supervisor.context.close()
    assert Marker.objects.get(serial=serial).state == Marker.State.VOIDED

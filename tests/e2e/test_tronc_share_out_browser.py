"""The cage supervisor shares the tronc out in a real browser from the cage workstation: the
pool and today's tip box shown, one employee unticked, the share-out recorded and listed person
by person. Screenshots in var/artifacts/."""

import pytest
from playwright.sync_api import expect

from ledger import accounts, store
from ledger.models import Event
from staff.roles import Role, grant
from tests.api.test_tips_tronc import _counted
from tests.conftest import staff_user

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def test_the_cage_supervisor_shares_the_tronc_out_from_his_page(
    browser_page, dashboard_server, django_user_model, table
):
    page, url = browser_page, dashboard_server.url
    people = {
        "count1": staff_user("count1", "count_team"),
        "count2": staff_user("count2", "count_team"),
        "pit": staff_user("pit1", "pit_boss"),
        "dealer": staff_user("dealer7", "dealer"),
    }
    assert _counted(people, "count1").status_code == 201  # 27.00 EUR from R1's tip box
    grant(django_user_model.objects.create_user(username="super1", password="floor-secret"), Role.CAGE_SUPERVISOR)

    log_in(page, url, "super1", app="workstations")
    page.goto(f"{url}/workstations/cage/tronc/")
    expect(page.locator('[data-figure="pool"]')).to_have_text("27.00 EUR")
    expect(page.locator('[data-section="counted"] tbody tr')).to_contain_text("table R1")
    staff = page.locator('[data-section="staff"]')
    expect(staff.get_by_label("Points of dealer7")).to_have_value("10")
    for name in ("pit1", "super1", "shift-cashier", "count2"):
        staff.get_by_label(name, exact=True).uncheck()
    staff.get_by_label("Points of count1").fill("5")
    page.screenshot(path=str(ARTIFACTS / "tronc-share-out-form-1280x800.png"), full_page=True)
    page.get_by_role("button", name="Share the pool out").click()

    expect(page.get_by_role("status")).to_contain_text("Tronc shared out: 27.00 EUR to 2 people, 0.00 EUR carried")
    expect(page.locator('[data-figure="pool"]')).to_have_text("0.00 EUR")
    shares = page.locator('[data-section="share-out"]')
    expect(shares.locator("tbody tr")).to_have_text(
        [" count1 5 9.00 EUR", " dealer7 10 18.00 EUR"], use_inner_text=True
    )
    page.screenshot(path=str(ARTIFACTS / "tronc-shared-1280x800.png"), full_page=True)
    assert store.balance(accounts.TRONC) == 0
    assert Event.objects.get(type="TroncShared").actor == "super1"

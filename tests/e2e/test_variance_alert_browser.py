"""The pit boss reads a count variance in a real browser: on the floor, the table's alert says
which count differed, by how much, when (local time with its zone) and who counted; the cage
summary (the cage's, not the pit's) lists it the same way for the cage supervisor. Never the
ledger's position. Screenshots in var/artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from games.services.tables import table_close, table_open
from ledger.models import Event
from staff.roles import Role, grant

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_a_pit_boss_reads_an_opener_variance_in_words_on_the_floor_and_the_cage_supervisor_on_the_cage_summary(
    browser_page, dashboard_server, django_user_model, table
):
    page = browser_page
    staff = {"boss": Role.PIT_BOSS, "pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "sup1": Role.CAGE_SUPERVISOR}
    for name, role in staff.items():
        grant(django_user_model.objects.create_user(username=name, password="floor-secret"), role)
    grant(django_user_model.objects.create_user(username="dealer2", password="x"), Role.DEALER)
    # Closed with 50,000.00 EUR of chips, opened again with 49,000.00: 1,000.00 EUR short.
    table_close(code="R1", closer={"1000000": 5}, dealer="dealer2", pit_boss="pit1", actor="pit1")
    opener = {"1000000": 4, "500000": 1, "100000": 4}
    table_open(
        code="R1",
        game="english_roulette",
        opener=opener,
        dealer="dealer2",
        pit_boss="pit2",
        actor="pit2",
        variance_reason="a 1,000.00 EUR plaque missing",
    )
    position = Event.objects.filter(type="TableOpened").latest("position").position

    page.goto(f"{dashboard_server.url}/dashboard/login/")
    page.get_by_label("User name").fill("boss")
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()
    alert = page.locator('article[data-table="R1"] [data-alert="variance"]')
    said = r"opener variance of -1,000\.00 EUR: table opened at \d\d:\d\d CES?T by pit2"
    expect(alert).to_have_text(re.compile(f"^{said}$"))
    expect(page.locator('[aria-labelledby="alerts-title"]')).to_contain_text(re.compile(f"R1: {said}"))
    assert f"#{position}" not in page.content()
    page.screenshot(path=str(ARTIFACTS / "variance-alert-floor-1280x800.png"), full_page=True)

    expect(page.get_by_role("link", name="Cage", exact=True)).to_have_count(0)  # not the pit's to open

    page.context.clear_cookies()
    page.goto(f"{dashboard_server.url}/workstations/login/")
    page.get_by_label("User name").fill("sup1")
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Cage summary").click()
    row = page.locator('tr[data-variance="opener"]')
    expect(row).to_have_text(re.compile(r"^opener\s*R1\s*table opened at \d\d:\d\d CES?T by pit2\s*-1,000\.00 EUR"))
    page.screenshot(path=str(ARTIFACTS / "variance-alert-cage-1280x800.png"), full_page=True)

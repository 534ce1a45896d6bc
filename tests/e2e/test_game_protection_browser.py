"""A pit boss reads a table day far from theory in standard deviations on the floor, opens its
investigation on the game protection page and notes what he found; a second pit boss, from his
own login, closes it; then he reads the day before with the day picker, and today again.
Screenshots in var/artifacts/."""

import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from staff.roles import Role, grant
from tests.conftest import make_patron
from tests.integration.test_game_protection_by_exact_variance import _play

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def test_a_pit_boss_opens_and_notes_an_investigation_and_another_closes_it(
    browser_page, dashboard_server, django_user_model, table
):
    page = browser_page
    for name in ("boss", "boss2"):
        grant(django_user_model.objects.create_user(username=name, password="floor-secret"), Role.PIT_BOSS)
    _play(make_patron(1_000_000), hits=12)

    log_in(page, dashboard_server.url, "boss")
    alert = page.locator('article[data-table="R1"] [data-alert="fluctuation"]').first
    expect(alert).to_contain_text("house win -3,120.00 EUR against 32.43 EUR in theory over 120 bets: −4.93 SD")
    page.screenshot(path=str(ARTIFACTS / "game-protection-floor-1280x800.png"), full_page=True)

    alert.get_by_role("link", name="open an investigation").click()
    row = page.locator('tr[data-table="R1"]')
    expect(row.locator('[data-figure="z"]')).to_have_text(re.compile(r"^−4\.93 SD\s+alarm$"))
    page.screenshot(path=str(ARTIFACTS / "game-protection-page-1280x800.png"), full_page=True)
    row.get_by_label("Why").fill("win far below theory on straight-up 17")
    row.get_by_role("button", name="Open an investigation").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(re.compile(r"^Investigation — table R1, gaming day "))
    page.get_by_label(re.compile("^What you looked at and found")).fill("camera review: the wheel tilts towards 17")
    page.get_by_role("button", name="Record the note").click()
    expect(page.locator("[data-note]")).to_have_count(1)
    url = page.url  # the investigation's page, where the note's form sends back
    page.get_by_role("textbox", name=re.compile("^Conclusion")).fill("closing my own")
    page.get_by_role("button", name="Close the investigation").click()
    expect(page.get_by_role("alert")).to_contain_text("a second person closes it")
    page.screenshot(path=str(ARTIFACTS / "game-protection-investigation-open-1280x800.png"), full_page=True)

    page.context.clear_cookies()
    log_in(page, dashboard_server.url, "boss2")
    page.goto(url)
    page.get_by_role("textbox", name=re.compile("^Conclusion")).fill("wheel levelled, rotor replaced")
    page.get_by_role("button", name="Close the investigation").click()
    expect(page.locator('[data-figure="state"]')).to_contain_text(
        re.compile(r"Closed by boss2 at \d{4}-\d\d-\d\d \d\d:\d\d CES?T")
    )
    expect(page.locator('[data-figure="finding"]')).to_have_text("“wheel levelled, rotor replaced” — boss2")
    page.screenshot(path=str(ARTIFACTS / "game-protection-investigation-closed-1280x800.png"), full_page=True)

    page.goto(f"{dashboard_server.url}/dashboard/protection/")
    today = page.get_by_label("Gaming day").input_value()
    day_before = (date.fromisoformat(today) - timedelta(days=1)).isoformat()
    page.get_by_label("Gaming day").fill(day_before)
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Game protection — gaming day {day_before} (closed or past)"
    )
    expect(page.locator('[data-section="tables"] tbody')).to_have_text("No bet decided on this gaming day.")
    page.screenshot(path=str(ARTIFACTS / "game-protection-day-before-1280x800.png"), full_page=True)
    page.get_by_label("Gaming day").fill(today)
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Game protection — gaming day {today}")
    expect(page.locator('tr[data-table="R1"] [data-figure="z"]')).to_contain_text("−4.93 SD")

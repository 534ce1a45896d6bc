"""Logging in through either form in a real browser: each role lands on its own page (the
runner on the page listing the slips issued to him); ``/`` shows a visitor the two logins and the
API docs; a printed report leads back to its reader's page; the daily report, linked from the
pit boss's header, shows the colour chips still out, so each table's figures add up. Screenshots in var/artifacts/."""

import pytest
from playwright.sync_api import expect

from games.services.colour_chips import colour_chips_buy
from games.services.tables import table_buy_in
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"logins-{name}-1280x800.png"), full_page=True)


def log_out(page) -> None:
    page.get_by_role("button", name="Log out").click()


def test_each_role_lands_on_its_own_page_from_either_login_form(
    browser_page, dashboard_server, django_user_model, cage
):
    page = browser_page
    for name, role in {"boss": Role.PIT_BOSS, "cash1": Role.CASHIER, "aud1": Role.AUDITOR, "run1": Role.RUNNER}.items():
        grant(django_user_model.objects.create_user(username=name, password="floor-secret"), role)

    page.goto(f"{dashboard_server.url}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Casino table games")
    expect(page.get_by_role("link", name="Pit boss dashboard: log in")).to_have_attribute("href", "/dashboard/login/")
    expect(page.get_by_role("link", name="Cage, audit and runner workstations: log in")).to_have_attribute(
        "href", "/workstations/login/"
    )
    expect(page.get_by_role("link", name="API documentation")).to_have_attribute("href", "/api/docs/")
    shot(page, "home")

    lands = {"boss": "/dashboard/", "cash1": "/workstations/cage/", "aud1": "/workstations/audit/"}
    for app in ("workstations", "dashboard"):
        for name, url in lands.items():
            log_in(page, dashboard_server.url, name, app=app)
            page.wait_for_url(f"{dashboard_server.url}{url}")
            expect(page.get_by_role("heading", name="Not allowed")).to_have_count(0)
            log_out(page)

    log_in(page, dashboard_server.url, "run1", app="dashboard")
    page.wait_for_url(f"{dashboard_server.url}/workstations/runner/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Runner: fills and credits")
    expect(page.locator('[data-section="to-sign"]')).to_contain_text("Nothing waits for you.")
    shot(page, "runner")


def test_a_pit_boss_reads_the_colour_chips_out_and_goes_back_to_the_floor_from_a_report(
    browser_page, dashboard_server, django_user_model, table
):
    page = browser_page
    grant(django_user_model.objects.create_user(username="boss", password="floor-secret"), Role.PIT_BOSS)
    patron = make_patron(20_000)
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    colour_chips_buy(table="R1", patron=patron, chips=100, unit_value_cents=200, colour="red", actor=ACTOR)

    log_in(page, dashboard_server.url, "boss", app="workstations")
    page.wait_for_url(f"{dashboard_server.url}/dashboard/")
    # The cage summary is the cage's (SHIFTS.md: not open to the pit); his own figures are the daily report's.
    expect(page.get_by_role("link", name="Cage", exact=True)).to_have_count(0)
    page.get_by_role("link", name="Daily report").click()
    expect(page.locator("table[data-period='1'] thead")).to_contain_text("Colour chips out")
    shot(page, "report-colour")
    page.get_by_role("link", name="Back to the floor").click()
    page.wait_for_url(f"{dashboard_server.url}/dashboard/")
    expect(page.get_by_role("heading", name="Not allowed")).to_have_count(0)

"""The auditor reads the exception log in a real browser (25 CFR 543.16(c)(3)(vii)): the day's
rules change, refused bet, voided coup, role change and AML decisions, each with who, local
time with its zone, before and after; filtered by kind and by table; the CSV link carries the
filters. Screenshots in var/artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from cashier.services.cage import chips_purchase
from games.services.refusals import bet_refusal_record
from games.services.rounds import round_open, round_void
from games.services.table_rules import table_rules_change
from games.services.tables import table_open
from ledger.errors import BetRefused
from ledger.gaming_day import current_gaming_day
from staff.accounts import staff_roles_set
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron
from workstations import audit_views

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def screenshots(page, name: str) -> None:
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"exception-log-{name}-{width}x{height}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_an_auditor_reads_and_filters_the_days_exception_log(
    browser_page, dashboard_server, django_user_model, cage, monkeypatch
):
    page = browser_page
    users = {"aud1": Role.AUDITOR, "pit1": Role.PIT_BOSS, "adm1": Role.ADMIN, "adm2": Role.ADMIN, "sam": Role.CASHIER}
    for name, role in users.items():
        grant(django_user_model.objects.create_user(username=name, password="audit-secret"), role)
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor="pit1", rules={})
    table_rules_change(code="R1", rules={"max_bet_cents": 20_000}, actor="pit1")
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor="pit1")["round"]
    refusal = BetRefused(
        "over the table maximum: 300.00 EUR on this position, the maximum is 200.00 EUR",
        kind="table_maximum",
        stake_cents=30_000,
        table="R1",
        round_id=coup,
        patron=patron,
    )
    bet_refusal_record(refusal, actor="pit1")
    round_void(round_id=coup, reason="ball left the wheel", actor="pit1")
    staff_roles_set(username="sam", roles=["cage_supervisor"], actor="adm1", approver="adm2")
    chips_purchase(patron=patron, amount_cents=350_000, actor=ACTOR)
    day = current_gaming_day().isoformat()

    log_in(page, dashboard_server.url, "aud1", "audit-secret", app="workstations")
    page.get_by_role("link", name="Exceptions", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Exception log of gaming day {day}")
    rows = page.locator('[data-section="exceptions"] tbody tr')
    # The shift cashier's account made and given his role (the cage fixture, through the staff
    # services), rules, refusal, void, sam's roles, identity checked, transaction logged.
    expect(rows).to_have_count(8)
    expect(page.locator('tr[data-kind="void"]')).to_contain_text("coup 1 at R1 voided: ball left the wheel")
    rules = page.locator('tr[data-kind="parameter_change"]')
    expect(rules).to_contain_text("max bet: 100.00 EUR")
    expect(rules).to_contain_text("max bet: 200.00 EUR")
    expect(rules).to_contain_text("rules changed (max bet)")
    expect(rules).to_contain_text("pit1")
    expect(rules.locator("td").first).to_have_text(re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d (CET|CEST)$"))
    roles = page.locator('tr[data-kind="role_change"]').filter(has_text="roles of sam")
    expect(roles).to_contain_text("roles of sam: Cashier (cage) → Cage supervisor")
    expect(roles.locator("td").nth(4)).to_have_text("roles: Cashier (cage)")  # before, by the role's label
    expect(roles.locator("td").nth(5)).to_have_text("roles: Cage supervisor")  # after, not "cage_supervisor"
    expect(page.locator('tr[data-kind="refused_bet"]')).to_contain_text(
        "table R1, over the table maximum: 300.00 EUR on this position, the maximum is 200.00 EUR"
    )
    screenshots(page, "day")

    page.get_by_label("Kind").select_option("refused_bet")
    page.get_by_label("Table").fill("R1")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("not in the ledger (refused)")
    csv_link = page.locator('[data-link="csv"]')
    expect(csv_link).to_have_attribute("href", f"/api/audit/exceptions.csv?gaming_day={day}&kind=refused_bet&table=R1")
    screenshots(page, "refused-bets")
    with page.expect_download() as download:
        csv_link.click()
    text = open(download.value.path(), encoding="utf-8").read()
    assert text.splitlines()[0].startswith("at,local time,gaming day,kind,type,table,person")
    assert ",refused_bet,BetRefused,R1,pit1," in text and text.rstrip().endswith(",EUR")
    assert (ARTIFACTS / "exception-log-day-1280x800.png").exists()

    # The day as the API names it, ?gaming_day=; a date that is not one says so, with no rows.
    page.goto(f"{dashboard_server.url}/workstations/audit/exceptions/?gaming_day={day}")
    expect(rows).to_have_count(8)
    expect(page.locator('[data-figure="count"]')).to_have_text("8 exceptions")
    page.goto(f"{dashboard_server.url}/workstations/audit/exceptions/?gaming_day=2026-13-01")
    expect(page.locator('[data-section="error"]')).to_have_text(
        "Gaming day “2026-13-01” is not a date YYYY-MM-DD: no exception shown."
    )
    expect(page.locator('[data-section="exceptions"] tbody tr[data-kind]')).to_have_count(0)
    screenshots(page, "bad-day")

    # Pages of rows (100 a page; 5 here so that eight rows make two), the count and page links.
    monkeypatch.setattr(audit_views, "EXCEPTIONS_PER_PAGE", 5)
    page.goto(f"{dashboard_server.url}/workstations/audit/exceptions/?gaming_day={day}")
    expect(rows).to_have_count(5)
    expect(page.locator('[data-figure="count"]').first).to_have_text("8 exceptions, rows 1–5 (page 1 of 2)")
    screenshots(page, "paged")
    page.get_by_role("link", name="Next").first.click()
    expect(rows).to_have_count(3)
    expect(page.locator('[data-figure="count"]').first).to_have_text("8 exceptions, rows 6–8 (page 2 of 2)")
    expect(page.locator('[data-link="csv"]')).to_have_attribute("href", f"/api/audit/exceptions.csv?gaming_day={day}")

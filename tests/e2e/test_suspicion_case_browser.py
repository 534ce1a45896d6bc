"""A compliance officer, in a real browser, takes an AML flag to a recorded filing: he logs in
and lands on the suspicion cases, opens a case from the flag, attaches the patron's second cash
purchase, writes findings, decides to file and records the TRACFIN filing with its reference.
Each page shows amounts in currency units and times in the casino's zone, never a ledger
position or a cent count. Screenshots in var/artifacts/."""

import re
from datetime import timedelta

import pytest
from playwright.sync_api import expect

from cashier.services.cage import chips_purchase
from ledger.models import Event
from staff.services import staff_account_create
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres

WHEN = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d CES?T"


def test_a_compliance_officer_takes_an_aml_flag_to_a_recorded_filing(browser_page, dashboard_server, cage):
    page, url = browser_page, dashboard_server.url
    staff_account_create(username="officer", password="floor-secret", roles=["compliance"], actor="manage.py")
    patron = make_patron(350_000)  # 3,500.00 EUR of chips: identity checked and transaction logged
    chips_purchase(patron=patron, amount_cents=120_000, actor=ACTOR)  # 1,200.00 EUR more, later

    log_in(page, url, "officer", app="workstations")
    expect(page).to_have_url(f"{url}/workstations/compliance/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Suspicion cases")
    flag = page.locator(f'[data-section="flags"] tr[data-flag="AmlTransactionLogged"][data-patron="{patron}"]')
    expect(flag).to_contain_text("Transaction logged: cash in 3,500.00 EUR (chips bought at the cage)")
    expect(flag).to_contain_text(re.compile(WHEN))
    page.screenshot(path=str(ARTIFACTS / "compliance-flags-1280x800.png"), full_page=True)

    # The day picker: the flags of one gaming day, and of a day without any.
    day = Event.objects.filter(type="AmlTransactionLogged").first().gaming_day
    picker = page.locator('[data-form="flags-day"]')
    picker.get_by_label("Gaming day").fill((day - timedelta(days=1)).isoformat())
    picker.get_by_role("button", name="Show its flags").click()
    expect(page.locator('[data-section="flags"] tbody')).to_have_text("No AML flag waits of this gaming day.")
    page.screenshot(path=str(ARTIFACTS / "compliance-flags-day-before-1280x800.png"), full_page=True)
    picker = page.locator('[data-form="flags-day"]')
    picker.get_by_label("Gaming day").fill(day.isoformat())
    picker.get_by_role("button", name="Show its flags").click()
    expect(page.locator("#flags-title")).to_contain_text(f"gaming day {day.isoformat()}:")
    expect(flag).to_contain_text("Transaction logged: cash in 3,500.00 EUR (chips bought at the cage)")
    page.get_by_role("link", name="the latest of every day").click()
    expect(page.locator("#flags-title")).to_contain_text("latest")

    flag.get_by_label(f"Why open a case on {patron}").fill("Large cash purchase, then another; no play seen")
    flag.get_by_role("button", name="Open a case").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Case SC00001 · Test Patron ({patron})")
    identity = page.locator('[data-section="identity"]')
    expect(identity).to_contain_text("Identity on file: Test Patron, document ID-TEST-")
    expect(page.get_by_role("status")).to_have_text(f"Case SC00001 opened for patron {patron}.")
    expect(page.locator('[data-figure="state"]')).to_have_text("open: findings and decision due")
    expect(page.locator('[data-figure="deadline"]')).to_have_text(re.compile(f"^{WHEN} · 30 days left$"))
    expect(page.locator('[data-figure="filing-kind"]')).to_have_text(
        "TRACFIN déclaration de soupçon, without delay (target 30 days)"
    )
    attached = page.locator('[data-section="transactions"] tbody tr')
    expect(attached).to_have_count(1)
    expect(attached.locator("td.num")).to_have_text("3,500.00 EUR")

    page.get_by_label(re.compile(r"bought 1,200\.00 EUR of chips")).check()
    page.get_by_role("button", name="Attach").click()
    expect(page.get_by_role("status")).to_have_text("1 transaction attached.")
    expect(attached.locator("td.num")).to_have_text(["3,500.00 EUR", "1,200.00 EUR"])

    page.get_by_label("Write findings").fill("Two cash purchases within minutes, no bet placed at any table.")
    page.get_by_role("button", name="Write findings").click()
    expect(page.locator('[data-section="findings"] li')).to_contain_text("Two cash purchases within minutes")
    expect(page.locator('[data-figure="state"]')).to_have_text("open: findings written, decision due")

    page.get_by_label("File a report").check()
    page.get_by_label("Reason").fill("Chips bought with no gaming purpose: possible placement.")
    page.get_by_role("button", name="Record the decision").click()
    expect(page.locator('[data-figure="decision"]')).to_contain_text("File a report: Chips bought with no gaming")
    expect(page.locator('[data-figure="state"]')).to_have_text("decided: report to file")

    page.get_by_label("Reference").fill("DS-2026-004217")
    page.get_by_role("button", name="Record the filing").click()
    expect(page.get_by_role("status")).to_have_text("Filing recorded.")
    expect(page.locator('[data-figure="state"]')).to_have_text("report filed")
    expect(page.locator('[data-figure="filing"]')).to_contain_text(
        re.compile(f"TRACFIN déclaration de soupçon, reference DS-2026-004217, filed {WHEN[:-18]}")
    )
    expect(page.locator('[data-section="steps"] tbody tr')).to_have_count(6)
    text = page.inner_text("main")
    assert "350000" not in text and "120000" not in text
    # Every number on the page is a time, an amount, a day count, the case's, a reference or the
    # patron's identity document:
    # no ledger position is left once those are taken out.
    rest = re.sub(WHEN, "", text.replace(patron, "").replace("SC00001", "").replace("DS-2026-004217", ""))
    rest = re.sub(r"[\d,]+\.\d\d EUR|\d+ days?|\(\d+\)|ID-TEST-\d{6}", "", rest)  # and his document
    assert re.findall(r"\d+", rest) == []
    page.screenshot(path=str(ARTIFACTS / "compliance-case-filed-1280x800.png"), full_page=True)

    page.get_by_role("link", name="Suspicion cases").click()
    row = page.locator('[data-section="cases"] tr[data-case="SC00001"]')
    expect(row).to_contain_text("report filed")
    expect(row.locator('[data-figure="days-left"]')).to_have_text("—")
    page.screenshot(path=str(ARTIFACTS / "compliance-cases-1280x800.png"), full_page=True)
    assert [e.type for e in Event.objects.filter(stream="suspicion/SC00001").order_by("position")] == [
        "SuspicionCaseOpened",
        "TransactionsAttached",
        "TransactionsAttached",
        "FindingsWritten",
        "CaseDecided",
        "FilingRecorded",
    ]


def test_a_case_past_its_deadline_is_marked_overdue_and_a_pit_boss_is_refused_the_page(
    browser_page, dashboard_server, cage, settings
):
    from compliance.services import suspicion_case_open

    page, url = browser_page, dashboard_server.url
    settings.AML_JURISDICTION = "US"
    settings.COMPLIANCE_SAR_C_DAYS = 0  # the deadline passes as the case opens
    staff_account_create(username="officer", password="floor-secret", roles=["compliance"], actor="manage.py")
    staff_account_create(username="boss", password="floor-secret", roles=["pit_boss"], actor="manage.py")
    patron = make_patron(150_000)
    suspicion_case_open(patron=patron, reason="Tip from the floor: chips passed to another player", actor="officer")

    log_in(page, url, "officer", app="workstations")
    row = page.locator('[data-section="cases"] tr[data-case="SC00001"]')
    expect(row).to_have_class("overdue")
    expect(row.locator('[data-figure="days-left"]')).to_have_text("overdue")
    expect(row).to_contain_text("SAR-C")
    page.screenshot(path=str(ARTIFACTS / "compliance-overdue-1280x800.png"), full_page=True)
    row.get_by_role("link", name="SC00001").click()
    expect(page.locator('[data-figure="deadline"]')).to_have_text(re.compile(f"^{WHEN} · overdue$"))
    expect(page.locator('[data-figure="filing-kind"]')).to_have_text("SAR-C, within 0 days of detection")
    page.get_by_role("button", name="Log out").click()

    log_in(page, url, "boss", app="workstations")
    response = page.goto(f"{url}/workstations/compliance/cases/SC00001/")
    assert response.status == 403
    expect(page.locator("body")).not_to_contain_text(patron)
    page.screenshot(path=str(ARTIFACTS / "compliance-refused-pit-boss-1280x800.png"), full_page=True)

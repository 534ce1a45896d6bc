"""The auditor's whole day in a real browser, through the pages only: yesterday's gaming day
was played (every game, the small demo day), counted, closed and sealed; today's is still
being played. The auditor opens the workstation, picks yesterday (the reports open on it by
themselves: the last closed day), reads every report with its final figures, follows a figure
to the ledger events behind it, sees today's day offer no export (and why), downloads
yesterday's export from the page and has it verified on the page. Every count of the day's
events reads the same on every page, and every time is local with its zone, in one form.

Screenshots: var/artifacts/auditor_day_NN_<step>.png."""

import re
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test.utils import override_settings
from playwright.sync_api import expect

from ledger.models import Event
from ledger.verify import verify_and_record
from staff.roles import Role, grant
from tests.integration.demo_days import play_small_demo_day

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres

# The one form of a time on the workstations: local, with the zone's abbreviation.
LOCAL_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [A-Z][A-Za-z0-9+-]{1,5}$")
CENTS_OR_REPR = re.compile(r"_cents|\{'|\[\{|None\b|datetime\.")


class Steps:
    def __init__(self, page):
        self.page, self.number = page, 0

    def shot(self, step: str) -> None:
        self.number += 1
        self.page.screenshot(path=str(ARTIFACTS / f"auditor_day_{self.number:02d}_{step}.png"), full_page=True)

    def readable(self) -> None:
        """No cent count or Python repr on the page; every time cell in the one local form."""
        text = self.page.locator("body").inner_text()
        found = CENTS_OR_REPR.search(text)
        assert not found, text[max(found.start() - 200, 0) : found.end() + 80]
        for moment in re.findall(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d[^\s,)]*(?: [A-Z]+)?", text):
            assert LOCAL_TIME.match(moment), f"a time in another form: {moment!r}"


def _yesterday_and_today() -> tuple:
    now = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    if now.time() >= time(23, 59):
        pytest.skip("in the last minute before midnight yesterday's gaming day cannot be played")
    return now.date() - timedelta(days=1), now.date()


def test_an_auditor_reads_yesterdays_closed_day_through_the_pages_and_verifies_its_export(
    browser_page, dashboard_server, django_user_model, tmp_path
):
    yesterday, today = _yesterday_and_today()
    with override_settings(GAMING_DAY_START="23:59"):  # now falls in yesterday's gaming day
        printed = play_small_demo_day()
    assert f"Gaming day {yesterday.isoformat()} closed." in printed
    seal = Event.objects.get(type="GamingDaySealed", data__day=yesterday.isoformat())
    sealed_events = seal.data["last_position"] - seal.data["first_position"] + 1
    after_seal = Event.objects.filter(gaming_day=yesterday, position__gt=seal.data["last_position"]).count()
    assert after_seal >= 1  # the seal itself: counted on no page as one of the day's sealed events

    with override_settings(GAMING_DAY_START="00:00"):  # today's floor, still open
        call_command("simulate_floor", pace=0, coups=3, tables="R1", seed=4, quiet=True)
        grant(django_user_model.objects.create_user(username="aud1", password="audit-secret"), Role.AUDITOR)
        page, steps = browser_page, Steps(browser_page)
        page.set_default_timeout(45_000)  # a report reads the month and the year: slow on a busy machine
        url, day = dashboard_server.url, yesterday.isoformat()
        count = f"{sealed_events:,}"

        # --- the gaming days: yesterday closed and sealed, today open without an export -------
        verified = verify_and_record()
        log_in(page, url, "aud1", "audit-secret", app="workstations")
        expect(page.get_by_role("heading", level=1)).to_contain_text("Gaming days")
        chain = page.locator('[data-section="chain"]')
        expect(chain.locator('[data-figure="chain"]')).to_have_text("intact")
        expect(chain).to_contain_text(f"{verified.checked:,} events checked up to ledger position")
        closed = page.locator(f'[data-section="days"] tr[data-day="{day}"]')
        expect(closed.locator('[data-figure="state"]')).to_have_text("closed")
        expect(closed.locator('[data-figure="events"]')).to_have_text(count)
        expect(closed.get_by_role("link", name="Download")).to_be_visible()
        still_open = page.locator(f'[data-section="days"] tr[data-day="{today.isoformat()}"]')
        expect(still_open.locator('[data-figure="state"]')).to_have_text("open")
        expect(still_open.get_by_role("link", name="Download")).to_have_count(0)
        expect(still_open).to_contain_text("none yet: open, not sealed")
        steps.readable()
        steps.shot("gaming_days")

        # --- yesterday's page: the same count, and the events behind it -----------------------
        closed.get_by_role("link", name=day).click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(f"Gaming day {day}")
        expect(page.locator('[data-figure="events"]')).to_have_text(count)
        later = page.locator('[data-section="later"]')
        expect(later).to_contain_text(f"{after_seal:,} event")
        expect(later).to_contain_text("not covered by this day's seal nor in its export")
        steps.readable()
        steps.shot("day_closed")
        page.locator('[data-figure="events"]').click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Ledger events")
        expect(page.locator('[data-figure="count"]')).to_contain_text(f"{count} events")
        # The trail column stays on the page at 1280 px: long lines wrap in their cell.
        trail = page.locator('[data-section="events"] tbody tr td:last-child a').first
        box = trail.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1280, box
        steps.readable()
        steps.shot("events_of_the_day")
        page.go_back()

        # --- the daily report opens on yesterday by itself: final figures ---------------------
        page.get_by_role("link", name="Daily report").first.click()
        expect(page.get_by_label("Gaming day", exact=True)).to_have_value(day)
        expect(page.locator('[data-figure="period"]')).to_contain_text(f"gaming day {day}")
        expect(page.locator('[data-figure="day-state"]')).to_contain_text("final: the gaming day was closed")
        b1 = page.locator('table[data-period="1"] tr[data-row="B1"]')
        expect(b1.locator('[data-figure="drop_cents"]')).to_contain_text("EUR")
        steps.readable()
        steps.shot("report_table_games")

        # --- from a figure to the events behind it: B1's drop is its count, 5 EUR short -------
        drop = b1.locator('[data-figure="drop_cents"] a').inner_text().strip()
        b1.locator('[data-figure="drop_cents"] a').click()
        expect(page.locator('[data-figure="count"]')).to_have_text("1 event")
        # The list lands on the report's figure: the drop as counted, its variance apart.
        expect(page.locator('[data-section="events"] td.num').first).to_contain_text(drop)
        expect(page.locator('[data-section="events"]')).to_contain_text("Drop box of B1 counted")
        expect(page.locator('[data-section="events"]')).to_contain_text("variance -5.00 EUR")
        steps.readable()
        steps.shot("events_behind_the_drop")
        page.go_back()

        # --- today, picked on the page: provisional, no export, and why -----------------------
        page.get_by_label("Gaming day", exact=True).select_option(today.isoformat())
        page.get_by_role("button", name="Show").click()
        expect(page.locator('[data-figure="day-state"]')).to_contain_text("provisional: the gaming day is still open")
        expect(page.locator('[data-section="export"]')).to_contain_text("No export of this day to download")
        expect(page.get_by_role("link", name="Download the day's export (.zip)")).to_have_count(0)
        steps.readable()
        steps.shot("report_today_open")
        page.get_by_label("Gaming day", exact=True).select_option(day)
        page.get_by_role("button", name="Show").click()
        expect(page.locator('[data-figure="day-state"]')).to_contain_text("final")

        # --- the cage report and the variance list of yesterday -------------------------------
        page.get_by_role("link", name="Cage report").click()
        expect(page.get_by_label("Gaming day", exact=True)).to_have_value(day)
        expect(page.locator('[data-figure="book-cash"]')).to_contain_text("EUR")
        steps.readable()
        steps.shot("report_cage")
        page.get_by_role("link", name="Variances").first.click()
        expect(page.locator('[data-section="counts"]')).to_contain_text("6 table openers, 6 table closers")
        expect(page.locator('[data-figure="with-variance"]')).to_have_text("1 with a variance")
        rows = page.locator('[data-section="variances"] tbody tr')
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("drop count")
        expect(rows.first).to_contain_text("-5.00 EUR")
        steps.readable()
        steps.shot("report_variances")
        rows.first.get_by_role("link", name="-5.00 EUR").click()
        expect(page.locator('[data-section="event"] [data-figure="type"]')).to_have_text("DropCounted")
        steps.readable()
        steps.shot("variance_trail")
        page.go_back()

        # --- the export, downloaded from the report page, verified on the day's page ----------
        with page.expect_download() as download:
            page.get_by_role("link", name="Download the day's export (.zip)").click()
        saved = tmp_path / f"gaming-day-{day}.zip"
        download.value.save_as(saved)
        page.get_by_role("link", name="verify an export").click()
        expect(page.get_by_role("heading", level=1)).to_contain_text(f"Gaming day {day}")
        page.get_by_label("Export file (.zip)").set_input_files(str(saved))
        page.get_by_role("button", name="Verify").click()
        expect(page.locator('[data-figure="verdict"]')).to_contain_text(f"Verified (gaming-day-{day}.zip): OK:")
        expect(page.locator('[data-figure="events"]')).to_have_text(count)
        steps.readable()
        steps.shot("export_verified")

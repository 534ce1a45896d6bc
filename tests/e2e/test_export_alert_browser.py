"""The pit boss sees on the floor that last night's regulatory export could not be written, and
sees the alert go once a later run writes it. Screenshot: var/artifacts/dashboard-export-alert.png."""

import re
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings as django_settings
from django.db import transaction
from playwright.sync_api import expect

from ledger import store, tasks
from ledger.gaming_day import current_gaming_day, gaming_day_stream
from ledger.store import Leg, NewEvent
from staff.roles import Role, grant

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def _append(stream: str, events: list[NewEvent]) -> None:
    with transaction.atomic():
        store.lock_writers()
        store.append(stream=stream, expected_version=store.stream_version(stream), actor="tester", events=events)


def test_a_failed_scheduled_export_is_an_alert_on_the_floor_until_it_succeeds(
    browser_page, dashboard_server, django_user_model, settings, tmp_path
):
    day = current_gaming_day() - timedelta(days=1)
    noon = datetime.combine(day, time(12), tzinfo=ZoneInfo(django_settings.CASINO_TIMEZONE))
    _append("test/moves", [NewEvent("TestMoved", {}, [Leg("test:a", 100), Leg("test:b", -100)], occurred_at=noon)])
    _append(gaming_day_stream(day), [NewEvent("GamingDayClosed", {"gaming_day": day.isoformat(), "tables": []})])
    blocker = tmp_path / "casino-exports"
    blocker.write_text("a file where the export directory should be")
    settings.CASINO_EXPORT_DIR = str(blocker / "exports")
    (failed,) = tasks.seal_and_export_closed_days.apply().get()
    assert failed["outcome"] == "failed"

    boss = django_user_model.objects.create_user(username="boss", password="floor-secret")
    grant(boss, Role.PIT_BOSS)
    page = browser_page
    page.goto(f"{dashboard_server.url}/dashboard/")
    page.get_by_label("User name").fill("boss")
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()

    alerts = page.locator('section[aria-labelledby="alerts-title"]')
    alert = alerts.locator("li.alert-warning", has_text="Regulatory export")
    expect(alert).to_contain_text(f"gaming day {day.isoformat()} not exported to")
    expect(alert).to_contain_text(f"Not a directory: {blocker / 'exports'}")
    expect(alert).to_contain_text(re.compile(r"last try \d{4}-\d\d-\d\d \d\d:\d\d CET"))
    page.screenshot(path=str(ARTIFACTS / "dashboard-export-alert.png"), full_page=False)

    settings.CASINO_EXPORT_DIR = str(tmp_path / "exports")
    (done,) = tasks.seal_and_export_closed_days.apply().get()
    assert done["outcome"] == "exported"
    page.reload()
    expect(alerts).not_to_contain_text("Regulatory export")

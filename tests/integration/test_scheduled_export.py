"""The scheduled seal and export: Celery beat seals each closed gaming day and writes
its export to CASINO_EXPORT_DIR; a failure is an ERROR log line and an alert on the floor until a
later run succeeds."""

import logging
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings as django_settings
from django.db import transaction

from dashboard.floor_cards import floor
from ledger import scheduled_export, store, tasks
from ledger.export.verify_export import verify
from ledger.gaming_day import current_gaming_day, gaming_day_stream
from ledger.models import Event, GamingDayExport
from ledger.seal import SEAL_EVENT, seal_gaming_day
from ledger.store import Leg, NewEvent

pytestmark = pytest.mark.django_db


def _append(stream: str, events: list[NewEvent]) -> None:
    with transaction.atomic():
        store.lock_writers()
        store.append(stream=stream, expected_version=store.stream_version(stream), actor="tester", events=events)


@pytest.fixture
def closed_day():
    """Yesterday's gaming day with three balanced events, closed; its seal at the close did not
    run (as when it was refused), so the scheduled run has to seal it."""
    day = current_gaming_day() - timedelta(days=1)
    noon = datetime.combine(day, time(12), tzinfo=ZoneInfo(django_settings.CASINO_TIMEZONE))
    moved = [
        NewEvent("TestMoved", {"n": n}, [Leg("test:a", 100), Leg("test:b", -100)], occurred_at=noon) for n in range(3)
    ]
    _append("test/moves", moved)
    _append(gaming_day_stream(day), [NewEvent("GamingDayClosed", {"gaming_day": day.isoformat(), "tables": []})])
    return day


@pytest.fixture
def export_dir(settings, tmp_path):
    settings.CASINO_EXPORT_DIR = str(tmp_path / "exports")
    return tmp_path / "exports"


def _run() -> list[dict]:
    return tasks.seal_and_export_closed_days.apply().get()


def _export_alerts() -> list:
    return [alert for alert in floor()["alerts"] if alert.kind == "export"]


def test_the_task_seals_a_closed_day_and_writes_an_export_that_verifies(closed_day, export_dir, caplog):
    caplog.set_level(logging.INFO, logger="ledger.scheduled_export")
    path = export_dir / f"gaming-day-{closed_day.isoformat()}.zip"

    assert _run() == [{"gaming_day": closed_day.isoformat(), "outcome": "exported", "file": str(path), "error": ""}]

    (seal,) = Event.objects.filter(type=SEAL_EVENT)
    assert seal.data["day"] == closed_day.isoformat() and seal.actor == "system:scheduled-export"
    assert seal.data["event_count"] == 3
    report = verify(str(path))
    assert report.ok, report.message
    assert report.events == 3
    assert sorted(p.name for p in export_dir.iterdir()) == [path.name]  # no temporary file left
    row = GamingDayExport.objects.get(gaming_day=closed_day)
    assert (row.state, row.seal_position, row.error) == ("exported", seal.position, "")
    assert len(row.sha256) == 64
    lines = [r.getMessage() for r in caplog.records if r.name == "ledger.scheduled_export"]
    assert lines == [f"gaming day {closed_day.isoformat()} sealed and exported to {path} (3 events)"]


def test_a_second_run_neither_seals_nor_exports_again(closed_day, export_dir):
    _run()
    path = export_dir / f"gaming-day-{closed_day.isoformat()}.zip"
    written = path.stat().st_mtime_ns
    events = Event.objects.count()

    assert _run() == []
    assert path.stat().st_mtime_ns == written
    assert Event.objects.count() == events


def test_a_day_sealed_again_is_exported_again_from_its_latest_seal(closed_day, export_dir):
    _run()
    again = seal_gaming_day(day=closed_day, actor="auditor1")

    (outcome,) = _run()
    assert outcome["outcome"] == "exported"
    assert GamingDayExport.objects.get(gaming_day=closed_day).seal_position == again["event"]
    assert verify(outcome["file"]).ok


def test_an_unwritable_directory_is_an_error_line_and_a_floor_alert_until_a_later_run_succeeds(
    closed_day, settings, tmp_path, caplog
):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the export directory should be")
    settings.CASINO_EXPORT_DIR = str(blocker / "exports")

    (outcome,) = _run()

    path = blocker / "exports" / f"gaming-day-{closed_day.isoformat()}.zip"
    assert outcome == {
        "gaming_day": closed_day.isoformat(),
        "outcome": "failed",
        "file": str(path),
        "error": f"Not a directory: {blocker / 'exports'}",
    }
    errors = [r for r in caplog.records if r.levelno == logging.ERROR and r.name == "ledger.scheduled_export"]
    assert [r.getMessage() for r in errors] == [
        f"gaming day {closed_day.isoformat()} not exported to {path}: Not a directory: {blocker / 'exports'}"
    ]
    (alert,) = _export_alerts()
    assert alert.level == "warning" and alert.table == "Regulatory export"
    assert alert.message.startswith(f"gaming day {closed_day.isoformat()} not exported to {path}: Not a directory: ")
    assert Event.objects.filter(type=SEAL_EVENT).count() == 1  # sealed all the same

    settings.CASINO_EXPORT_DIR = str(tmp_path / "exports")
    (retried,) = _run()

    assert retried["outcome"] == "exported"
    assert verify(retried["file"]).ok
    assert _export_alerts() == []
    assert Event.objects.filter(type=SEAL_EVENT).count() == 1  # not sealed twice


def test_a_write_that_fails_midway_leaves_no_partial_file(closed_day, export_dir, monkeypatch):
    def full_disk(day):
        yield b"PK\x03\x04 the first bytes of the zip"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scheduled_export, "export_zip_stream", full_disk)

    (outcome,) = _run()

    assert (outcome["outcome"], outcome["error"]) == ("failed", "No space left on device")
    assert list(export_dir.iterdir()) == []
    assert GamingDayExport.objects.get(gaming_day=closed_day).state == "failed"


def test_an_open_day_is_neither_sealed_nor_exported(export_dir):
    _append("test/moves", [NewEvent("TestMoved", {"n": 0}, [Leg("test:a", 100), Leg("test:b", -100)])])

    assert _run() == []
    assert not Event.objects.filter(type=SEAL_EVENT).exists()


def test_beat_runs_the_seal_and_export_on_its_interval():
    from casino.celery import app

    entry = django_settings.CELERY_BEAT_SCHEDULE["gaming-day-seal-and-export"]
    assert entry == {"task": "ledger.tasks.seal_and_export_closed_days", "schedule": 900.0}
    assert "ledger.tasks.seal_and_export_closed_days" in app.tasks

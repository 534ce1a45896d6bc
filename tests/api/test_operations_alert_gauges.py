"""The gauges the alert rules read (``ledger.alert_gauges``, deploy/prometheus-alerts.yml), each
measured at the scrape: readiness as the probe answers it, the broker, how long the ledger's
head has waited for a checkpoint, and how long the oldest played day has waited for its seal."""

import math
import os
import time
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.test import Client

from cashier.services.gaming_day import gaming_day_close
from ledger import checkpoints, health, projections, store
from ledger.alert_gauges import bounded
from ledger.gaming_day import current_gaming_day
from ledger.models import CheckpointRecord
from ledger.seal import seal_gaming_day
from staff.roles import Role
from staff.services import auth_event_record

from ..conftest import make_patron, staff_user
from .test_operations_metrics import scrape, value

pytestmark = pytest.mark.django_db

HOUR = 3600.0


def test_ready_is_1_while_the_probe_answers_200_and_0_once_it_answers_503(cage, settings):
    projections.catch_up_all()
    assert Client().get("/api/health/ready").status_code == 200
    assert value(scrape(), "casino_ready") == 1
    make_patron(10_000)  # not projected: nothing commits in this test, so no catch-up runs
    settings.HEALTH_MAX_PROJECTION_LAG = 0
    probe = Client().get("/api/health/ready")
    assert (probe.status_code, probe.json()["failing"]) == (503, ["projections"])
    samples = scrape()
    assert ("casino_ready", ()) in samples and value(samples, "casino_ready") == 0


def test_broker_up_is_left_out_without_a_broker_and_0_when_the_broker_is_out_of_reach(db, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True  # no broker: the tasks run in-process
    assert not any(name == "casino_broker_up" for name, _ in scrape())
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1//"  # nothing listens on port 1
    settings.HEALTH_BROKER_TIMEOUT_SECONDS = 0.5
    samples = scrape()
    assert (samples[("casino_broker_up", ())], samples[("casino_ready", ())]) == (0, 0)


@pytest.mark.broker
def test_broker_up_is_1_when_the_broker_takes_a_connection(db, settings):
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith(("amqp", "redis")):
        pytest.skip("needs CELERY_BROKER_URL pointing at RabbitMQ or Redis")
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = broker
    assert scrape()[("casino_broker_up", ())] == 1


def test_checkpoint_age_is_infinite_before_the_first_and_counts_from_the_latest_while_events_wait(cage):
    head = store.head()[0]
    samples = scrape()
    assert (samples[("casino_checkpoint_age_seconds", ())], samples[("casino_ledger_unanchored_events", ())]) == (
        math.inf,
        head,
    )
    assert checkpoints.write_checkpoint().position == head
    written = CheckpointRecord.objects.get().written_at
    assert checkpoints.staleness(now=written + timedelta(seconds=90)) == (90.0, 0)
    make_patron(10_000)  # registered, chips sold: events no checkpoint holds yet
    waiting = store.head()[0] - head
    assert waiting >= 2
    assert checkpoints.staleness(now=written + timedelta(hours=2)) == (2 * HOUR, waiting)
    samples = scrape()
    assert 0 <= samples[("casino_checkpoint_age_seconds", ())] < 60
    assert samples[("casino_ledger_unanchored_events", ())] == waiting


def test_unsealed_day_age_counts_from_the_end_of_the_played_day_until_its_seal(cage):
    today = current_gaming_day()
    end = health.gaming_day_end(today)
    assert health.unsealed_day_age_seconds(now=end - timedelta(hours=1)) == 0  # still being played
    assert health.unsealed_day_age_seconds(now=end + timedelta(hours=7)) == 7 * HOUR
    assert scrape()[("casino_unsealed_day_age_seconds", ())] == 0
    seal_gaming_day(day=today, actor="tester")
    assert health.unsealed_day_age_seconds(now=end + timedelta(hours=7)) == 0
    assert health.oldest_unsealed_day(now=end + timedelta(days=3)) is None


def test_play_after_a_seal_before_the_close_keeps_the_day_owing_its_seal(cage, settings):
    settings.HEALTH_SEAL_GRACE_HOURS = 6
    today = current_gaming_day()
    end = health.gaming_day_end(today)
    seal_gaming_day(day=today, actor="tester")  # on demand, mid-day
    make_patron(10_000)
    assert health.oldest_unsealed_day(now=end + timedelta(hours=7)) == today
    assert health.unsealed_day_age_seconds(now=end + timedelta(hours=7)) == 7 * HOUR
    assert health.seal(now=end + timedelta(hours=7))["ok"] is False


def test_a_sign_in_after_a_days_close_is_owed_by_the_next_days_seal(cage, settings):
    """A closed day takes only sign-ins and its seal; one recorded after its close and seal
    goes into the next day's seal, so the closed day owes nothing and the probe stays ready."""
    settings.HEALTH_SEAL_GRACE_HOURS = 6
    today = current_gaming_day()
    end, next_end = health.gaming_day_end(today), health.gaming_day_end(today + timedelta(days=1))
    staff_user("pit1", Role.PIT_BOSS)
    assert gaming_day_close(gaming_day=today, actor="pit1")["sealed"]["day"] == today.isoformat()
    auth_event_record(type="StaffLoggedIn", username="pit1", channel="web", ip="10.0.0.7")
    assert health.oldest_unsealed_day(now=end + timedelta(hours=7)) is None
    assert health.seal(now=end + timedelta(hours=7))["ok"] is True
    assert health.oldest_unsealed_day(now=next_end + timedelta(hours=1)) == today + timedelta(days=1)
    assert health.unsealed_day_age_seconds(now=next_end + timedelta(hours=1)) == HOUR


@pytest.mark.postgres
def test_a_gauges_read_stops_at_the_query_timeout_and_the_connection_keeps_its_own(db, settings):
    """A scrape waits at most ``METRICS_QUERY_TIMEOUT_SECONDS`` a read: the setting reaches
    PostgreSQL as the transaction's own statement_timeout, and the connection keeps its own."""
    if connection.vendor != "postgresql":
        pytest.skip("statement_timeout is PostgreSQL's")
    settings.METRICS_QUERY_TIMEOUT_SECONDS = 0.25

    def statement_timeout() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            return cursor.fetchone()[0]

    before = statement_timeout()
    assert before != "250ms"
    started = time.monotonic()
    with pytest.raises(OperationalError, match="statement timeout"), bounded():
        assert statement_timeout() == "250ms"
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")
    assert time.monotonic() - started < 2
    assert statement_timeout() == before

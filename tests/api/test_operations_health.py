"""Liveness and readiness. Readiness answers 503 naming the failing check: the
database, a database that takes no writes, the broker, a projection lagging past the
threshold, an overdue seal, a hash chain its last verification found broken."""

import io
import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError, connection
from django.test import Client

from ledger import health, projections
from ledger.gaming_day import current_gaming_day
from ledger.models import ChainVerification, Event
from ledger.seal import seal_gaming_day

pytestmark = pytest.mark.django_db


def test_liveness_answers_without_touching_the_database(django_assert_num_queries):
    with django_assert_num_queries(0):
        response = Client().get("/api/health/live")
    assert (response.status_code, response.json()) == (200, {"status": "alive"})


def test_readiness_is_200_when_every_check_holds(cage):
    projections.catch_up_all()
    response = Client().get("/api/health/ready")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["failing"]) == ("ready", [])
    assert sorted(body["checks"]) == ["broker", "chain", "database", "projections", "seal", "writable"]
    assert body["checks"]["projections"]["max_lag"] == 0


def test_readiness_is_503_naming_the_projections_when_the_lag_is_over_the_threshold(patron, settings):
    settings.HEALTH_MAX_PROJECTION_LAG = 1
    head = max(row["head"] for row in projections.lag())
    assert head >= 2  # cage, patron, chips: not yet projected (no commit in this test)
    response = Client().get("/api/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["failing"]) == ("not_ready", ["projections"])
    assert body["checks"]["projections"]["behind"] == dict.fromkeys(projections.names(), head)
    settings.HEALTH_MAX_PROJECTION_LAG = head
    assert Client().get("/api/health/ready").status_code == 200
    assert Client().get("/api/health/").status_code == 200  # the old endpoint keeps answering


def test_readiness_is_503_naming_the_broker_when_it_cannot_be_reached(db, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1//"  # nothing listens on port 1
    settings.HEALTH_BROKER_TIMEOUT_SECONDS = 0.5
    response = Client().get("/api/health/ready")
    assert response.status_code == 503
    assert response.json()["failing"] == ["broker"]
    assert response.json()["checks"]["broker"] == {"ok": False, "error": "broker unavailable"}


DRIVER_ERROR = (
    'connection failed: connection to server at "10.0.4.17", port 5432 failed: '
    'FATAL: password authentication failed for user "casino"'
)


def test_readiness_is_503_saying_only_database_unavailable_when_it_fails(db, monkeypatch, caplog):
    """The probe answers anyone: the driver's message (host, port, user) goes to the log only, in
    the one line of the outage (ledger.outage), not as an error every probe."""

    def refused(*args, **kwargs):
        raise OperationalError(DRIVER_ERROR)  # what psycopg says of a server it cannot reach

    monkeypatch.setattr(connection, "cursor", refused)
    response = Client().get("/api/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert body["failing"] == ["database", "writable", "projections", "seal", "chain"]
    assert body["checks"]["database"] == {"ok": False, "error": "database unavailable"}
    assert "10.0.4.17" not in response.content.decode() and "5432" not in response.content.decode()
    outage_lines = [record.getMessage() for record in caplog.records if record.name == "casino.database"]
    assert len(outage_lines) == 1 and "10.0.4.17" in outage_lines[0]
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_an_unsealed_closed_day_is_overdue_after_the_grace_hours(cage, settings):
    settings.HEALTH_SEAL_GRACE_HOURS = 6
    today = current_gaming_day()
    end = health.gaming_day_end(today)
    assert health.seal(now=end + timedelta(hours=5))["ok"]
    late = health.seal(now=end + timedelta(hours=7))
    assert (late["ok"], late["oldest_unsealed_day"], late["last_sealed_day"]) == (False, today.isoformat(), None)
    seal_gaming_day(day=today, actor="tester")
    sealed = health.seal(now=end + timedelta(hours=7))
    assert (sealed["ok"], sealed["last_sealed_day"]) == (True, today.isoformat())


def test_a_gaming_day_ends_at_the_next_days_start_in_the_casino_zone(settings):
    settings.CASINO_TIMEZONE, settings.GAMING_DAY_START = "Europe/Paris", "06:00"
    day = datetime(2026, 12, 1, tzinfo=UTC).date()
    assert health.gaming_day_end(day) == datetime(2026, 12, 2, 5, 0, tzinfo=UTC)  # 06:00 CET


def test_the_probes_are_not_redirected_to_https(db, settings):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/api/health/live").status_code == 200
    assert client.get("/api/health/ready").status_code == 200
    assert client.get("/api/health/").status_code == 301  # the rest of the site still is


def _verify() -> None:
    try:
        call_command("ledger", "verify", stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError:
        pass  # broken, or the test database's tables not guarded as deployed: the chain's own result is recorded


def test_readiness_is_503_once_the_last_verification_found_the_chain_broken(cage, _replication_role_reset):
    """A ledger found broken is no ledger to take bets on; the probe answers anyone, so it says
    that much and not where or why (the operator's ``ledger verify`` does)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the tampering switches the triggers off as a superuser")
    projections.catch_up_all()
    _verify()
    assert ChainVerification.objects.get().ok
    assert Client().get("/api/health/ready").json()["checks"]["chain"]["ok"] is True
    opening = Event.objects.order_by("position").first()
    with connection.cursor() as cursor:  # what a superuser can do, triggers off
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("UPDATE ledger_event SET actor = 'forger' WHERE position = %s", [opening.position])
        cursor.execute("RESET session_replication_role")
    assert Client().get("/api/health/ready").status_code == 200  # not verified since

    _verify()

    response = Client().get("/api/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert (body["status"], body["failing"]) == ("not_ready", ["chain"])
    chain = body["checks"]["chain"]
    assert (chain["ok"], chain["error"]) == (False, "the ledger's hash chain was found broken at its last verification")
    recorded = ChainVerification.objects.order_by("-id").first()
    assert (recorded.ok, recorded.first_bad_position) == (False, opening.position)
    assert recorded.reason not in response.content.decode() and "position" not in response.content.decode()


@pytest.mark.postgres
def test_readiness_is_503_naming_the_tables_its_role_may_not_append_to(cage):
    """The database's owner may take INSERT away from the application role (a grant the
    guard cannot forbid: deploy/migrate's owner run sets grants): every append would fail, so
    the node says it is not ready, naming the tables. A role holding no INSERT stands in."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: its privileges")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL ROLE pg_read_all_data")
    answer = Client().get("/api/health/ready")
    assert answer.status_code == 503
    body = answer.json()
    assert body["failing"] == ["writable"]
    assert body["checks"]["writable"]["error"].startswith(
        "this node's database role may not append to ledger_event, ledger_posting, ledger_idempotencyrecord"
    )


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("hold", "wait", "what"),
    [
        ("SELECT pg_advisory_lock({key})", "SELECT pg_advisory_xact_lock({key})", "the ledger's writer lock"),
        ("LOCK TABLE games_table IN ACCESS EXCLUSIVE MODE", "SELECT count(*) FROM games_table", "table games_table"),
    ],
)
def test_readiness_is_503_naming_what_a_session_holds_while_requests_wait_on_it(db, settings, hold, wait, what):
    """A session holding the ledger's writer lock, or a table locked by hand, stopped the floor
    while readiness said "ready": a wait longer than HEALTH_WRITER_LOCK_WAIT_SECONDS makes it 503."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: its locks")
    import threading
    import time

    import psycopg

    from ledger.store import _WRITER_LOCK_KEY

    settings.HEALTH_WRITER_LOCK_WAIT_SECONDS = 0.5
    where = connection.settings_dict
    params = {"host": where["HOST"] or "127.0.0.1", "port": where["PORT"] or 5432, "user": where["USER"]}
    holder = psycopg.connect(**params, dbname=where["NAME"])
    waiter = psycopg.connect(**params, dbname=where["NAME"], autocommit=True)
    waiting = threading.Thread(target=lambda: waiter.execute(wait.format(key=_WRITER_LOCK_KEY)))
    try:
        holder.execute(hold.format(key=_WRITER_LOCK_KEY))  # in a transaction left open
        assert health.writable() == {"ok": True}  # held, nobody waiting
        waiting.start()
        time.sleep(1.2)
        found = health.writable()
        assert found["ok"] is False
        assert found["error"].startswith(f"a request has waited 1 s for {what}, held by ")
        assert f"(pid {holder.info.backend_pid})" in found["error"]
    finally:
        holder.rollback()
        holder.execute("SELECT pg_advisory_unlock_all()")
        if waiting.is_alive() or waiting.ident is not None:
            waiting.join(timeout=10)
        holder.close()
        waiter.close()

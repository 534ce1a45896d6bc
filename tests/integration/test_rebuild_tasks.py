"""Rebuilds as Celery tasks, one a projection: each rebuilds exactly what the
incremental catch-up builds, shows its progress in ``GET /api/projections/`` while it runs
(written on a connection of its own, the rebuild's transaction being open), records a failure
with its error, and a catch-up that comes during a rebuild waits for it and applies each new
event once."""

import threading

import pytest
from rest_framework.test import APIClient

from ledger import projections, rebuilds
from ledger.models import Event, ProjectionCheckpoint, ProjectionRebuild, TableDayStats
from ledger.store import Leg, NewEvent
from tests.conftest import client_as, make_patron, staff_user

from .projection_helpers import append_events, burst, snapshot
from .test_projection_rebuild import _patrons_in_order, _play_coups, _replay_incrementally

# The tasks run here (eager) even where the run has a broker: these tests wait for them. They run
# after test_projections.py (hence the rebuild endpoint's test here too), a precaution kept: the
# RabbitMQ real-worker test's catch-ups went missing when its burst of commits was quicker than
# the publishing window, counted as covered by a task its fixtures had sent to the run's queue
# (fixed in ledger/commands.py); the order mattered only through the burst's timing (the failure
# came and went between identical runs).
pytestmark = pytest.mark.usefixtures("eager_tasks")


def _auditor() -> APIClient:
    return client_as(staff_user("auditor1", "auditor"))


def _pausing_at_batch(monkeypatch, name: str, batch: int) -> tuple[threading.Event, threading.Event]:
    """``name``'s rebuild stops before folding its ``batch``-th batch, says so (first event) and
    waits for the second."""
    reached, go_on = threading.Event(), threading.Event()
    projector = projections.REGISTRY[name]
    real = projector.rebuilder

    def rebuilder():
        fold = real()
        feed, fed = fold.feed, []

        def pausing(work):
            fed.append(work)
            if len(fed) == batch:
                reached.set()
                assert go_on.wait(30), "the test never let the rebuild go on"
            feed(work)

        fold.feed = pausing
        return fold

    monkeypatch.setattr(projector, "rebuilder", rebuilder)
    return reached, go_on


def _in_thread(target) -> tuple[threading.Thread, dict]:
    """Run ``target`` in a thread (its own database connection); its result or error lands in the dict."""
    outcome: dict = {}

    def run():
        from django.db import connection

        try:
            outcome["result"] = target()
        except BaseException as error:  # noqa: BLE001 (handed to the test)
            outcome["error"] = error
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _fills_credits_and_odd_events() -> None:
    """Fills, credits and their reversals at R1, and deciding events of odd shapes (no patron,
    an empty patron, a table that is no text, no house edge): the statistics' rules
    for each, which a rebuild sums in SQL and the catch-up folds in Python."""
    moved = [
        ("FillDelivered", 50_000, "table:R1:tray", "cage:chips"),
        ("CreditDelivered", 20_000, "cage:chips", "table:R1:tray"),
        ("FillReversed", 10_000, "cage:chips", "table:R1:tray"),
        ("CreditReversed", 5_000, "table:R1:tray", "cage:chips"),
    ]
    append_events(
        "odd/moves",
        [
            NewEvent(kind, {"table": "R1", "amount_cents": cents}, [Leg(debit, cents), Leg(credit, -cents)])
            for kind, cents, debit, credit in moved
        ],
    )
    decided = [
        {"table": "R1", "stake_cents": 700, "return_cents": 0, "house_edge": "1/37"},  # no patron
        {"table": "R1", "patron": "", "stake_cents": 300, "house_edge": "1/37"},  # an empty patron
        {"table": 5, "patron": "P-ODD", "stake_cents": 900, "house_edge": "1/37"},  # a table that is no text
        {"table": "R1", "patron": "P-ODD", "stake_cents": 1_100, "return_cents": 2_200},  # no house edge
    ]
    append_events("odd/decided", [NewEvent("BetSettled", data, []) for data in decided])


@pytest.mark.postgres
def test_rebuild_tasks_give_what_the_incremental_catch_up_gives(committed_db, table):
    _play_coups(10)
    _fills_credits_and_odd_events()
    _replay_incrementally(batch=11)
    patrons = _patrons_in_order()
    incremental = snapshot()
    stats = {t.table: t for t in TableDayStats.objects.all()}["R1"]
    assert (stats.fills_cents, stats.credits_cents) == (40_000, 15_000)
    head = Event.objects.count()
    assert rebuilds.rebuild_request(actor="auditor1") == projections.names()
    assert snapshot() == incremental
    assert _patrons_in_order() == patrons
    status = rebuilds.rebuild_status()
    for name in projections.names():
        row = status[name]
        assert (row["state"], row["events_done"], row["events_total"], row["percent"]) == (
            "succeeded",
            head,
            head,
            100.0,
        )
        assert row["started_at"] <= row["finished_at"] and row["error"] == "" and row["seconds_left"] is None
        assert row["requested_by"] == "auditor1"
    assert dict(ProjectionCheckpoint.objects.values_list("name", "position")) == dict.fromkeys(
        projections.names(), head
    )


@pytest.mark.postgres
def test_a_running_rebuild_shows_its_progress_in_the_api(committed_db, cage, monkeypatch):
    auditor = _auditor()
    make_patron(10_000)
    burst(1_000, accounts=7)
    head = Event.objects.count()
    monkeypatch.setattr(rebuilds, "PROGRESS_SECONDS", 0)  # a progress line every batch
    reached, go_on = _pausing_at_batch(monkeypatch, "audit", 4)
    thread, outcome = _in_thread(lambda: rebuilds.rebuild_run(name="audit", batch=100))
    assert reached.wait(30)
    try:
        (row,) = [r for r in auditor.get("/api/projections/").json()["projections"] if r["projection"] == "audit"]
        running = row["rebuild"]
        assert (running["state"], running["events_done"], running["events_total"]) == ("running", 300, head)
        assert running["percent"] == round(100 * 300 / head, 1)
        assert running["events_per_second"] > 0
        # seconds left = events left at the rate so far (rounded to a tenth: a fast machine may show 0.0)
        left = (head - 300) / running["events_per_second"]
        assert abs(running["seconds_left"] - left) <= 0.05 + left * 0.01
        assert running["started_at"].endswith("Z") and running["finished_at"] is None
    finally:
        go_on.set()
        thread.join(30)
    assert outcome == {"result": head}
    (row,) = [r for r in auditor.get("/api/projections/").json()["projections"] if r["projection"] == "audit"]
    assert (row["rebuild"]["state"], row["rebuild"]["events_done"], row["lag"]) == ("succeeded", head, 0)


@pytest.mark.postgres
def test_a_failed_rebuild_task_is_reported_with_its_error_and_changes_nothing(committed_db, cage, monkeypatch):
    make_patron(10_000)
    burst(300, accounts=5)
    projections.catch_up_all()
    before = snapshot()

    class Failing:
        def feed(self, batch):
            raise RuntimeError("the ratings fold fails")

    monkeypatch.setattr(projections.REGISTRY["ratings"], "rebuilder", Failing)
    rebuilds.rebuild_request()  # eager: each task runs here; the failure does not stop the others
    assert snapshot() == before
    rows = {r["projection"]: r["rebuild"] for r in _auditor().get("/api/projections/").json()["projections"]}
    assert rows["ratings"]["state"] == "failed"
    assert rows["ratings"]["error"] == "RuntimeError: the ratings fold fails"
    assert rows["ratings"]["finished_at"] is not None
    assert {rows[name]["state"] for name in ("balances", "audit", "table_stats")} == {"succeeded"}


@pytest.mark.postgres
def test_a_catch_up_during_a_rebuild_waits_for_it_and_applies_new_events_once(committed_db, cage, monkeypatch):
    make_patron(10_000)
    burst(600, accounts=6)
    projections.catch_up_all()
    reached, go_on = _pausing_at_batch(monkeypatch, "balances", 2)
    rebuilding, rebuilt = _in_thread(lambda: rebuilds.rebuild_run(name="balances", batch=100))
    assert reached.wait(30)
    # An event committed while the rebuild runs, and a catch-up of it.
    append_events("late/1", [NewEvent("Burst", {"i": -1}, [Leg("acct:late", 777), Leg("acct:contra", -777)])])
    catching_up, caught_up = _in_thread(lambda: projections.catch_up("balances", batch=100))
    catching_up.join(1)
    assert catching_up.is_alive()  # waiting on the rebuild's checkpoint lock
    go_on.set()
    rebuilding.join(30)
    catching_up.join(30)
    head = Event.objects.count()
    # The rebuild read on to the head it found at its end; the catch-up then had nothing left.
    assert rebuilt == {"result": head} and caught_up == {"result": 0}
    after = snapshot()["balances"]
    assert after[("acct:late", "EUR")] == 777
    _replay_incrementally(batch=50)
    assert snapshot()["balances"] == after


@pytest.mark.django_db
def test_a_rebuild_request_names_unknown_projections_and_refuses_a_second_while_one_runs():
    from ledger.errors import Conflict, InvalidInput

    with pytest.raises(InvalidInput) as bad:
        rebuilds.rebuild_request(names=["balances", "jackpots"])
    assert bad.value.field == "projections" and "jackpots" in bad.value.message
    ProjectionRebuild.objects.create(name="audit", state="running", queued_at=_now())
    with pytest.raises(Conflict, match="audit is already running"):
        rebuilds.rebuild_request(names=["balances", "audit"])
    assert not ProjectionRebuild.objects.filter(name="balances").exists()  # nothing half-queued


def _now():
    from django.utils import timezone

    return timezone.now()


@pytest.mark.postgres
def test_the_command_starts_the_tasks_follows_them_and_fails_naming_the_failed_one(committed_db, cage, monkeypatch):
    import io
    import re

    from django.core.management import CommandError, call_command

    make_patron(10_000)
    burst(200, accounts=4)
    head = Event.objects.count()
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "ledger", "rebuild", "--async", "--projection", "balances", "--projection", "audit", stdout=out, stderr=err
    )
    lines = out.getvalue().splitlines()
    assert lines[0] == "rebuild queued, one task a projection: balances, audit"
    for line, name in zip(lines[1:], ("balances", "audit"), strict=True):
        assert re.fullmatch(rf"projection {name}: succeeded, {head:,} events(, [\d,]+ events/s)?", line), line
    assert f"rebuild balances, audit (tasks): {2 * head:,}/{2 * head:,} events (100.0%)" in err.getvalue()

    class Failing:
        def feed(self, batch):
            raise RuntimeError("the ratings fold fails")

    monkeypatch.setattr(projections.REGISTRY["ratings"], "rebuilder", Failing)
    with pytest.raises(CommandError, match=r"rebuild failed: ratings \(RuntimeError: the ratings fold fails\)"):
        call_command("ledger", "rebuild", "--async", stdout=io.StringIO(), stderr=io.StringIO())


def _audit_indexes() -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = 'ledger_auditentry' ORDER BY indexname")
        return [row[0] for row in cursor.fetchall()]


@pytest.mark.postgres
def test_an_audit_rebuild_builds_its_timeline_indexes_again_and_a_failed_one_keeps_them(
    committed_db, cage, monkeypatch
):
    from .test_projection_rebuild import _failing_at_third_batch

    make_patron(10_000)
    burst(500, accounts=5)
    projections.catch_up_all()
    indexes, before = _audit_indexes(), snapshot()
    assert len(indexes) == 4  # the position's key and the patron's, table's and round's timelines
    assert rebuilds.rebuild_run(name="audit", batch=100) == Event.objects.count()
    assert _audit_indexes() == indexes and snapshot() == before
    _failing_at_third_batch(monkeypatch, "audit")  # after the first batch dropped them
    with pytest.raises(RuntimeError, match="third batch"):
        rebuilds.rebuild_run(name="audit", batch=100)
    assert _audit_indexes() == indexes and snapshot() == before


@pytest.mark.django_db
def test_an_administrator_starts_a_rebuild_and_reads_its_end_in_the_status(played, django_capture_on_commit_callbacks):
    """Through ``POST /api/projections/rebuild`` (an administrator's; the other roles' 403 and the
    bad names are in tests/api/test_projection_api.py), after one coup at R1 (``played``)."""
    admin = client_as(staff_user("admin1", "admin"))
    with django_capture_on_commit_callbacks(execute=True):  # no broker: the tasks run at the commit
        response = admin.post("/api/projections/rebuild", {"projections": ["ratings", "audit"]}, format="json")
    assert response.status_code == 202
    assert response.json() == {"queued": ["ratings", "audit"]}
    rows = {r["projection"]: r for r in admin.get("/api/projections/").json()["projections"]}
    head = rows["audit"]["head"]
    for name in ("ratings", "audit"):
        rebuild = rows[name]["rebuild"]
        assert (rebuild["state"], rebuild["events_done"], rebuild["events_total"], rebuild["percent"]) == (
            "succeeded",
            head,
            head,
            100.0,
        )
        assert rebuild["requested_by"] == "admin1" and rebuild["error"] == "" and rebuild["seconds_left"] is None
        assert rows[name]["lag"] == 0
    assert rows["balances"]["rebuild"] is None and rows["table_stats"]["rebuild"] is None  # never rebuilt by a task


@pytest.mark.postgres
def test_a_rebuild_gives_up_on_a_read_model_another_session_holds_instead_of_stalling_every_reader(db, monkeypatch):
    """The auditor's role left a transaction open on the balances; the rebuild's TRUNCATE waited
    on it and every balance read queued behind (a 500 when the worker was killed). It gives up
    after its lock timeout: 409, nothing rebuilt."""
    import psycopg
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: TRUNCATE and its lock timeout")

    from ledger.errors import StateConflict
    from ledger.projections import registry

    monkeypatch.setattr(registry, "TRUNCATE_LOCK_TIMEOUT", "300ms")
    where = connection.settings_dict
    reader = psycopg.connect(
        host=where["HOST"] or "127.0.0.1", port=where["PORT"] or 5432, user=where["USER"], dbname=where["NAME"]
    )
    try:
        reader.execute("SELECT count(*) FROM ledger_accountbalance")  # its transaction left open
        with pytest.raises(StateConflict, match="ledger_accountbalance is held by another session") as refused:
            projections.rebuild(["balances"])
        assert refused.value.status == 409
    finally:
        reader.rollback()
        reader.close()

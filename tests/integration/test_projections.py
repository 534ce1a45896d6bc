"""The projections: incremental = rebuilt = the ledger, on workers that race, crash and
redeliver (DESIGN.md §Projections; cases C14, C16, C18)."""

import os
import random
import signal
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from fractions import Fraction

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction

from cashier.services.cage import chips_redeem
from demo.roulette import play_demo_session
from games.models import Bet, Round
from games.rules import event_words
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import accounts, projections
from ledger.models import AuditEntry, Event, PatronDayRating, ProjectionCheckpoint, TableDayStats
from ledger.projections import audit
from ledger.replay import replay_check
from ledger.store import Leg, NewEvent, append
from tests.conftest import ACTOR, make_patron

from .projection_helpers import burst, ledger_balances, publishing_to, snapshot, spawn


@pytest.mark.django_db
def test_incremental_and_rebuilt_projections_are_equal(table):
    code = make_patron(50_000)
    # the shift cashier's account and roles, cage, cashier shift, table, patron, purchase: three batches
    assert projections.catch_up("balances", batch=3) == 7
    chips_redeem(patron=code, amount_cents=20_000, actor=ACTOR)
    play_demo_session(spins=6, seated=3, rng=random.Random(7), out=lambda *_: None)  # ends with a rebuild
    more = make_patron(1_000)
    assert projections.catch_up_all(batch=1) == dict.fromkeys(projections.names(), 2)
    incremental = snapshot()
    assert incremental["balances"] == ledger_balances()
    assert incremental["balances"][(accounts.patron_chips(code), "EUR")] == 30_000
    assert incremental["balances"][(accounts.patron_chips(more), "EUR")] == 1_000
    assert projections.rebuild() == dict.fromkeys(projections.names(), Event.objects.count())
    assert snapshot() == incremental
    assert {row["lag"] for row in projections.lag()} == {0}


@pytest.mark.django_db
def test_c18_a_catch_up_delivered_twice_changes_nothing(cage):
    make_patron(12_345)
    projections.catch_up_all()
    before = snapshot()
    assert projections.catch_up_all() == dict.fromkeys(projections.names(), 0)
    assert snapshot() == before


@pytest.mark.django_db
def test_a_batch_that_fails_half_way_applies_nothing_and_the_next_run_resumes(cage, monkeypatch):
    make_patron(1_000)
    make_patron(2_000)
    real = projections.REGISTRY["ratings"].apply
    monkeypatch.setattr(projections.REGISTRY["ratings"], "apply", lambda events: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        projections.catch_up("ratings")
    assert not ProjectionCheckpoint.objects.filter(name="ratings", position__gt=0).exists()
    monkeypatch.setattr(projections.REGISTRY["ratings"], "apply", real)
    assert projections.catch_up("ratings") == Event.objects.count()


@pytest.mark.django_db
def test_the_audit_trail_of_a_coup_reads_as_a_story(colour_patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=400,
        chips="colour",
        bet={"type": "plein", "numbers": [17]},
        actor=ACTOR,
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=17, actor=ACTOR)
    projections.catch_up("audit")
    trail = [(line.type, event_words.line(line.type, line.data)) for line in audit.timeline("round", coup)]
    assert trail == [
        ("RoundOpened", "coup 1 of R1 open for bets"),
        ("BetPlaced", f"{colour_patron} bets 4.00 EUR on plein 17 (colour chips)"),
        ("BettingClosed", "rien ne va plus"),
        ("ResultRecorded", "the ball lands on 17 black"),  # the table page's words
        ("BetSettled", f"{colour_patron}'s 4.00 EUR on plein 17: won, returns 144.00 EUR"),
        ("RoundSettled", "coup settled: staked 4.00 EUR, returned 144.00 EUR, house -140.00 EUR"),
    ]
    entry = AuditEntry.objects.filter(patron=colour_patron).last()
    assert entry.hash == Event.objects.get(position=entry.position).hash


@pytest.mark.django_db
def test_table_statistics_and_patron_rating_of_a_day(table):
    """Two coups at R1: 10 EUR on rouge (value chips) each time; 21 then 0 (la partage)."""
    code = make_patron(100_000)
    for number in (21, 0):
        coup = round_open(table="R1", actor=ACTOR)["round"]
        bet_place(
            round_id=coup, patron=code, stake_cents=1_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
        )
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=number, actor=ACTOR)
    projections.catch_up_all()
    stats = TableDayStats.objects.get(table="R1")
    # the house paid 10 on 21 and kept 5 on zero: win −5.00; no cash at the table (chips from the cage)
    assert (stats.win_cents, stats.drop_cents, stats.handle_cents, stats.bets, stats.coups, stats.patrons) == (
        -500,
        0,
        2_000,
        2,
        2,
        [code],
    )
    rating = PatronDayRating.objects.get(patron=code)
    # theoretical win = 2 × 1,000 × 1/74 (even chance under la partage) = 1000/37 cents
    assert (rating.bets, rating.staked_cents, rating.actual_win_cents) == (2, 2_000, -500)
    assert Fraction(rating.theoretical_win) == Fraction(1000, 37)


@pytest.mark.django_db
def test_replay_check_finds_nothing_after_the_demo_and_names_an_altered_row(cage, capsys):
    play_demo_session(spins=5, seated=3, rng=random.Random(3), out=lambda *_: None)
    assert replay_check() == []
    call_command("ledger", "replay-check")
    bet = Bet.objects.filter(state="lost").first()
    Bet.objects.filter(pk=bet.pk).update(return_cents=999)  # an edit behind the services' back
    coup = Round.objects.get(number=2)
    Round.objects.filter(pk=coup.pk).update(result={"number": (coup.result["number"] + 1) % 37})
    differences = {(d.kind, d.id, d.field) for d in replay_check()}
    assert differences == {("bet", str(bet.id), "return_cents"), ("round", str(coup.id), "result")}
    with pytest.raises(CommandError, match="2 difference"):
        call_command("ledger", "replay-check")
    assert f"bet {bet.id}: return_cents is 999 live but 0 from the events" in capsys.readouterr().out


@pytest.mark.postgres
def test_c16_a_late_commit_is_not_skipped(committed_db):
    """T1 appends and stays open; T2's append waits behind it (writers are serialised), so
    the projector can never see T2's position before T1's. Both end up projected."""
    t1_appended, t1_may_commit = threading.Event(), threading.Event()

    def writer(stream, amount, hold=False):
        try:
            with transaction.atomic():
                append(
                    stream=stream,
                    expected_version=0,
                    actor="t",
                    events=[NewEvent("Late", {}, [Leg("x", amount), Leg("y", -amount)])],
                )
                if hold:
                    t1_appended.set()
                    t1_may_commit.wait(10)
        finally:
            connection.close()

    first = threading.Thread(target=writer, args=("late/1", 7, True))
    first.start()
    assert t1_appended.wait(10)
    second = threading.Thread(target=writer, args=("late/2", 5))
    second.start()
    second.join(0.5)
    assert second.is_alive(), "T2 must wait for T1's writer lock"
    assert projections.catch_up("balances") == 0  # nothing committed yet
    t1_may_commit.set()
    first.join(10)
    second.join(10)
    assert projections.catch_up("balances") == 2
    assert list(Event.objects.values_list("stream", "position")) == [("late/1", 1), ("late/2", 2)]
    assert snapshot()["balances"][("x", "EUR")] == 12


@pytest.mark.postgres
def test_two_worker_processes_racing_over_10000_events_equal_one_rebuild(committed_db):
    burst(10_000)
    workers = [spawn(["manage.py", "ledger", "catch-up", "--batch", "250"]) for _ in range(2)]
    outputs = [w.communicate(timeout=240)[0] for w in workers]
    assert [w.returncode for w in workers] == [0, 0], outputs
    applied = [
        sum(int(line.split(": ")[1].split()[0]) for line in out.splitlines() if line.startswith("projection balances"))
        for out in outputs
    ]
    assert sum(applied) == 10_000  # each event applied once, whoever took it
    raced = snapshot()
    assert raced["balances"] == ledger_balances()
    projections.rebuild()
    assert snapshot() == raced


@pytest.mark.postgres
def test_a_worker_killed_mid_batch_leaves_a_consistent_projection(committed_db):
    burst(6_000)
    slow_worker = (
        "import time, django; django.setup()\n"
        "from ledger import projections\n"
        "balances = projections.REGISTRY['balances']\n"
        "real = balances.apply\n"
        "def slow(events):\n"
        "    real(events); time.sleep(0.3)\n"
        "balances.apply = slow\n"
        "projections.catch_up('balances', batch=100)\n"
    )
    worker = spawn(["-c", slow_worker])
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not ProjectionCheckpoint.objects.filter(name="balances", position__gt=0):
        time.sleep(0.1)
    time.sleep(0.5)
    os.kill(worker.pid, signal.SIGKILL)  # mid-batch: it sleeps inside the batch's transaction
    worker.wait(10)
    checkpoint = ProjectionCheckpoint.objects.get(name="balances").position
    assert 0 < checkpoint < 6_000 and checkpoint % 100 == 0
    assert snapshot()["balances"] == ledger_balances(upto=checkpoint)  # exactly the committed batches
    assert projections.catch_up("balances") == 6_000 - checkpoint
    assert snapshot()["balances"] == ledger_balances()


@pytest.mark.postgres
@pytest.mark.broker
def test_a_real_celery_worker_process_catches_up_after_a_burst(committed_db, cage):
    """Not eager: ``on_commit`` publishes to RabbitMQ and a separate worker process consumes."""
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith(("amqp", "redis")):
        pytest.skip("needs CELERY_BROKER_URL pointing at RabbitMQ or Redis")
    _worker_catches_up_after_a_burst(broker)


REDIS_URL = os.environ.get("CASINO_TEST_REDIS_URL", "redis://127.0.0.1:6379/2")


@pytest.mark.postgres
@pytest.mark.broker
def test_a_real_celery_worker_process_catches_up_after_a_burst_over_redis(committed_db, cage, monkeypatch):
    """The same round trip with Redis as the broker (the `redis` client is pinned)."""
    import redis

    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"needs Redis at {REDIS_URL}")
    with _on_broker(REDIS_URL, monkeypatch) as app:
        assert app.connection_for_write().transport_cls == "redis"
        _worker_catches_up_after_a_burst(REDIS_URL)


def _use_broker(app, url: str) -> None:
    """Point this process's producer at ``url``: the app caches its pools (kombu keeps one per
    broker, open, for the process: closing one would break its next user)."""
    app._pool = None
    app.amqp._producer_pool = None
    app.conf.broker_url = url


@contextmanager
def _on_broker(url: str, monkeypatch):
    """This process's Celery app publishing to ``url`` inside the block (yielded), the run's own
    broker again after it."""
    from casino.celery import app

    previous = app.conf.broker_url
    # Celery reads CELERY_BROKER_URL from the environment before its configuration.
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    _use_broker(app, url)
    try:
        yield app
    finally:
        monkeypatch.undo()
        _use_broker(app, previous)


BURST = """
import os
from cashier.services.cage import chips_purchase
codes = os.environ["BURST_PATRONS"].split(",")
for i in range(50):
    chips_purchase(patron=codes[i % 5], amount_cents=1_000 + i, actor=os.environ["BURST_ACTOR"])
"""


@contextmanager
def _real_worker(broker: str, *pool: str):
    """A Celery worker process (``pool``: its pool options) consuming a queue of its own on
    ``broker``, this process publishing to that queue (not eager) meanwhile. Yields a dict whose
    ``"queue"`` is the queue's name, ``"process"`` the worker's ``Popen`` and ``"output"`` the
    worker's log once the block ends; then the worker is stopped and this process publishes as
    the run does again (``publishing_to``)."""
    queue = f"casino-test-{uuid.uuid4().hex[:8]}"
    log = tempfile.TemporaryFile(mode="w+")  # read at the end: a pipe nobody reads would stall the worker
    ran = {"queue": queue, "output": ""}
    with publishing_to(queue):
        worker = spawn(
            [
                "-m",
                "celery",
                "-A",
                "casino",
                "worker",
                "-Q",
                queue,
                # A node name of its own: its control queue (<name>.celery.pidbox) is exclusive,
                # and a worker that has not yet let go of the default name's would refuse this one.
                "-n",
                f"{queue}@%h",
                *pool,
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "-l",
                "warning",
            ],
            output=log,
            CELERY_BROKER_URL=broker,
        )
        ran["process"] = worker
        try:
            yield ran
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=30)
            log.seek(0)
            ran["output"] = log.read()
            log.close()


def _worker_catches_up_after_a_burst(broker: str) -> None:
    with _real_worker(broker, "--pool=solo") as worker:
        codes = [make_patron() for _ in range(5)]
        # The burst of committed commands, each enqueuing a catch-up, comes from a process of its
        # own publishing to the worker's queue. Made here it once sent nothing to that queue: the
        # fixtures' commits had just sent a delayed catch-up to the run's queue, and a burst
        # quicker than the window counted on it (ledger/commands.py now forgets a task sent elsewhere).
        burst = spawn(
            ["manage.py", "shell", "-c", BURST],
            CELERY_BROKER_URL=broker,
            CELERY_QUEUE=worker["queue"],
            BURST_PATRONS=",".join(codes),
            BURST_ACTOR=ACTOR,
        )
        said = burst.communicate(timeout=240)[0]
        assert burst.returncode == 0, said
        deadline = time.monotonic() + 180  # a worker starting on a busy machine (CI runs two suites)
        while time.monotonic() < deadline and any(row["lag"] for row in projections.lag()):
            time.sleep(0.25)
        lags = {row["lag"] for row in projections.lag()}
    output = worker["output"]
    assert lags == {0}, output
    assert "Traceback" not in output, output
    balances = snapshot()["balances"]
    # patron i%5 bought 1,000 + i for i in 0..49: patron 0 got 1000+1005+...+1045
    assert balances[(accounts.patron_chips(codes[0]), "EUR")] == sum(1_000 + i for i in range(0, 50, 5))
    assert balances == ledger_balances()


@pytest.mark.postgres
@pytest.mark.broker
def test_a_real_worker_of_four_processes_rebuilds_the_four_projections(committed_db, table, monkeypatch, eager_tasks):
    """The rebuild as Celery tasks, not eager: the group goes through the run's broker
    (RabbitMQ in CI; Redis where none is set) to a prefork worker of four processes. It stays
    after the catch-up's real-worker tests above (see tests/integration/test_rebuild_tasks.py)."""
    import redis

    from ledger import rebuilds

    from .test_projection_rebuild import _play_coups, _replay_incrementally

    broker = os.environ.get("CELERY_BROKER_URL", "")
    if not broker.startswith(("amqp", "redis")):
        broker = REDIS_URL
        try:
            redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
        except redis.exceptions.ConnectionError:
            pytest.skip(f"needs CELERY_BROKER_URL or Redis at {REDIS_URL}")
    _play_coups(4)
    _replay_incrementally(batch=7)
    incremental, head = snapshot(), Event.objects.count()
    # eager_tasks restores the run's own eager setting after the test
    with _on_broker(broker, monkeypatch), _real_worker(broker, "-c", "4") as worker:
        assert rebuilds.rebuild_request(actor="auditor1") == projections.names()
        deadline = time.monotonic() + 180  # a worker starting on a busy machine
        while time.monotonic() < deadline:
            status = rebuilds.rebuild_status()
            if all(row["state"] in ("succeeded", "failed") for row in status.values()):
                break
            time.sleep(0.25)
    output = worker["output"]
    assert {name: row["state"] for name, row in status.items()} == dict.fromkeys(projections.names(), "succeeded"), (
        output
    )
    assert {row["events_done"] for row in status.values()} == {head}
    assert "Traceback" not in output, output
    assert snapshot() == incremental

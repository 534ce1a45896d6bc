"""The account-balance projection: incremental equals rebuilt equals the ledger (C16, C18)."""

import threading

import pytest
from django.db import connection, transaction
from django.db.models import Sum

from cashier.services.cage import chips_purchase, chips_redeem
from games.demo import play_demo_session
from ledger import accounts
from ledger.models import AccountBalance, Event, Posting
from ledger.projections import catch_up_balances, projection_lag, rebuild_balances
from ledger.store import Leg, NewEvent, append
from tests.conftest import ACTOR, make_patron


def _ledger_balances() -> dict:
    rows = Posting.objects.values("account", "currency").annotate(total=Sum("amount_cents"))
    return {(r["account"], r["currency"]): r["total"] for r in rows}


def _projected() -> dict:
    return {(b.account, b.currency): b.balance_cents for b in AccountBalance.objects.all()}


@pytest.mark.django_db
def test_incremental_and_rebuilt_balances_equal_the_ledger(table):
    import random

    code = make_patron(50_000)
    assert catch_up_balances(batch=3) == 4  # cage, table, patron, purchase: two small batches
    chips_redeem(patron=code, amount_cents=20_000, actor=ACTOR)
    play_demo_session(spins=5, seated=3, rng=random.Random(7), out=lambda *_: None)  # ends with a rebuild
    more = make_patron(1_000)
    assert catch_up_balances(batch=1) == 2  # the new patron and his purchase
    incremental = _projected()
    assert incremental == _ledger_balances()
    assert incremental[(accounts.patron_chips(code), "EUR")] == 30_000
    assert incremental[(accounts.patron_chips(more), "EUR")] == 1_000
    assert rebuild_balances() == Event.objects.count()
    assert _projected() == incremental
    assert projection_lag()["lag"] == 0


@pytest.mark.django_db
def test_c18_a_catch_up_delivered_twice_changes_nothing(cage):
    make_patron(12_345)
    catch_up_balances()
    before = _projected()
    assert catch_up_balances() == 0
    assert _projected() == before


@pytest.mark.postgres
def test_c16_a_late_commit_is_not_skipped(committed_db):
    """T1 appends and stays open; T2's append waits behind it (writers are serialised), so
    the projector can never see T2's position before T1's. Both end up projected."""
    t1_appended, t1_may_commit = threading.Event(), threading.Event()

    def t1():
        try:
            with transaction.atomic():
                append(
                    stream="late/1",
                    expected_version=0,
                    actor="t1",
                    events=[NewEvent("Late", {}, [Leg("x", 7), Leg("y", -7)])],
                )
                t1_appended.set()
                t1_may_commit.wait(10)
        finally:
            connection.close()

    def t2():
        try:
            with transaction.atomic():
                append(
                    stream="late/2",
                    expected_version=0,
                    actor="t2",
                    events=[NewEvent("Early", {}, [Leg("x", 5), Leg("y", -5)])],
                )
        finally:
            connection.close()

    first = threading.Thread(target=t1)
    first.start()
    assert t1_appended.wait(10)
    second = threading.Thread(target=t2)
    second.start()
    second.join(0.5)
    assert second.is_alive(), "T2 must wait for T1's lock"
    assert catch_up_balances() == 0  # nothing committed yet
    t1_may_commit.set()
    first.join(10)
    second.join(10)
    assert catch_up_balances() == 2
    assert list(Event.objects.values_list("stream", "position")) == [("late/1", 1), ("late/2", 2)]
    assert _projected()[("x", "EUR")] == 12
    rebuild_balances()
    assert _projected()[("x", "EUR")] == 12


@pytest.mark.broker
def test_a_real_worker_projects_after_commit(committed_db, cage, settings):
    """With a real broker, ``on_commit`` enqueues the catch-up and a worker applies it."""
    import os
    import time

    from celery.contrib.testing.worker import start_worker

    from casino.celery import app

    if not os.environ.get("CELERY_BROKER_URL"):
        pytest.skip("needs CELERY_BROKER_URL (a real broker)")
    app.conf.task_always_eager = False
    with start_worker(app, perform_ping_check=False, pool="solo", concurrency=1, shutdown_timeout=10):
        code = make_patron()
        chips_purchase(patron=code, amount_cents=4_200, actor=ACTOR)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and projection_lag()["lag"]:
            time.sleep(0.2)
    assert projection_lag()["lag"] == 0
    assert _projected()[(accounts.patron_chips(code), "EUR")] == 4_200

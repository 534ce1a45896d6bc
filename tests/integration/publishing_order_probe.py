"""Diagnostics, not collected by the suite (no ``test_`` prefix): does a catch-up published in
this process after an eager rebuild still reach a real worker? Run on a broker, each order in a
process of its own, e.g.::

    CELERY_BROKER_URL=amqp://guest:guest@127.0.0.1:5672// CELERY_QUEUE=probe_default \
    .venv/bin/python -m pytest -s -p tests.integration.publishing_order_probe \
        tests/integration/publishing_order_probe.py -k after_an_eager_rebuild

``-p tests.integration.publishing_order_probe`` also prints, after each test of the run, what
changed in Celery's process state (current app, task and request stacks, "a join would block",
broker pools, ``app.conf`` changes), to find the test that leaves something behind.
Each probe deletes the queues it made."""

import logging
import os
import signal
import tempfile
import time
import uuid

import pytest
from celery import signals
from kombu import Connection

BROKER = os.environ.get("CELERY_BROKER_URL", "")


def celery_state() -> dict:
    """What of Celery's process state a test could leave behind."""
    from celery import _state

    from casino.celery import app
    from ledger.tasks import catch_up_projections, rebuild_projection

    return {
        "current_app": repr(_state.get_current_app()),
        "task_stack": len(_state._task_stack.stack),
        "join_will_block": _state.task_join_will_block(),
        "requests": (len(catch_up_projections.request_stack.stack), len(rebuild_projection.request_stack.stack)),
        "pool": repr(app._pool),
        "producer_pool": repr(app.amqp._producer_pool),
        "conf_changes": {k: v for k, v in app.conf.changes.items() if k != "deprecated_settings"},
        "default_queue": app.conf.task_default_queue,
        "eager": app.conf.task_always_eager,
    }


_last: dict = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    global _last
    yield
    now = celery_state()
    changed = {k: (_last.get(k), v) for k, v in now.items() if _last.get(k) != v}
    if changed:
        print(f"\nCELERY STATE after {item.nodeid}: {changed}", flush=True)
    _last = now


def _delete_queue(name: str) -> int:
    """Delete queue ``name``; the messages it held."""
    with Connection(BROKER) as conn:
        return conn.default_channel.queue_delete(name) or 0


def _burst_reaches_a_real_worker() -> None:
    """50 committed commands in this process with a solo worker on a queue of its own: where each
    catch-up went (after_task_publish), what was logged, and whether the worker caught up."""
    from cashier.services.cage import chips_purchase
    from casino.celery import app
    from ledger import projections
    from tests.conftest import ACTOR, make_patron

    from .projection_helpers import spawn

    queue = f"probe_{uuid.uuid4().hex[:8]}"
    eager, default_queue = app.conf.task_always_eager, app.conf.task_default_queue
    published, warned = [], []

    def record(sender=None, exchange=None, routing_key=None, headers=None, **kwargs):
        published.append((exchange, routing_key, headers.get("eta")))

    class Warnings(logging.Handler):
        def emit(self, record):
            warned.append(self.format(record))

    handler = Warnings()
    logging.getLogger("ledger.commands").addHandler(handler)
    signals.after_task_publish.connect(record, weak=False)
    log = tempfile.TemporaryFile(mode="w+")
    app.conf.task_always_eager, app.conf.task_default_queue = False, queue
    worker = spawn(
        ["-m", "celery", "-A", "casino", "worker", "-Q", queue, "--pool=solo", "--without-mingle"]
        + ["--without-gossip", "--without-heartbeat", "-l", "info"],
        output=log,
        CELERY_BROKER_URL=BROKER,
    )
    try:
        from django.db import connection

        from ledger import commands

        print(
            "\nBEFORE",
            commands._publishing,
            time.monotonic(),
            commands._eager(),
            connection.in_atomic_block,
            len(connection.run_on_commit),
        )
        codes = [make_patron() for _ in range(5)]
        for i in range(50):
            chips_purchase(patron=codes[i % 5], amount_cents=1_000 + i, actor=ACTOR)
        print(
            "AFTER", commands._publishing, time.monotonic(), connection.in_atomic_block, len(connection.run_on_commit)
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(row["lag"] for row in projections.lag()):
            time.sleep(0.25)
        lags = [row["lag"] for row in projections.lag()]
    finally:
        signals.after_task_publish.disconnect(record)
        logging.getLogger("ledger.commands").removeHandler(handler)
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=30)
        log.seek(0)
        output = log.read()
        log.close()
        app.conf.task_always_eager, app.conf.task_default_queue = eager, default_queue
        left = _delete_queue(queue)
    print(f"\npublished {len(published)}: {published[:3]}; warnings {warned[:2]}; left on {queue}: {left}")
    assert {exchange_key[:2] for exchange_key in published} == {("", queue)}
    assert lags == [0] * len(lags), output


@pytest.mark.postgres
def test_a_burst_in_this_process_reaches_a_real_worker(committed_db, cage):
    if not BROKER.startswith(("amqp", "redis")):
        pytest.skip("needs CELERY_BROKER_URL")
    _burst_reaches_a_real_worker()


@pytest.mark.postgres
def test_a_burst_in_this_process_reaches_a_real_worker_after_an_eager_rebuild(committed_db, cage, eager_tasks):
    if not BROKER.startswith(("amqp", "redis")):
        pytest.skip("needs CELERY_BROKER_URL")
    from ledger import projections, rebuilds

    assert rebuilds.rebuild_request(actor="auditor1") == projections.names()  # eager: run here, at the commit
    assert {row["state"] for row in rebuilds.rebuild_status().values()} == {"succeeded"}
    _burst_reaches_a_real_worker()

"""The projection catch-up published after each commit (ledger/commands.py): at once
when the process has been quiet, one delayed task for a burst, and never a commit left without
a catch-up that starts after it."""

import pytest

from ledger import commands
from ledger.tasks import catch_up_projections

WINDOW, MARGIN = commands._WINDOW_SECONDS, commands._MARGIN_SECONDS


@pytest.fixture
def published(monkeypatch):
    """``[(published at, starts no earlier than)]`` with a clock the test moves."""
    sent: list[tuple[float, float]] = []
    clock = {"now": 1_000.0}
    monkeypatch.setattr(commands.time, "monotonic", lambda: clock["now"])
    monkeypatch.setattr(commands, "_publishing", commands._Publishing())
    monkeypatch.setattr(commands, "_eager", lambda: False)

    def send(countdown):
        sent.append((clock["now"], clock["now"] + (countdown or 0)))

    monkeypatch.setattr(commands, "_send", send)

    def commit_at(t: float) -> None:
        clock["now"] = 1_000.0 + t
        commands._schedule_projections()

    return sent, commit_at


def test_a_quiet_process_publishes_at_once(published):
    sent, commit_at = published
    for t in (0.0, 1.0, 2.5):
        commit_at(t)
    assert sent == [(1_000.0, 1_000.0), (1_001.0, 1_001.0), (1_002.5, 1_002.5)]


def test_a_burst_publishes_a_few_delayed_tasks_each_starting_after_the_commits_it_covers(published):
    sent, commit_at = published
    commits = [i * 0.004 for i in range(500)]  # 250 commands a second for 2 s
    for t in commits:
        commit_at(t)
    assert len(sent) <= 2 * 2 / WINDOW + 2  # about 2 a window instead of 500
    starts = sorted(start for _, start in sent)
    for t in commits:
        # a task published at or before the commit that starts after it (with the margin)
        assert any(at <= 1_000 + t and start >= 1_000 + t + (MARGIN if start > at else 0) for at, start in sent)
    assert starts[-1] >= 1_000 + commits[-1]


def test_a_busy_process_publishes_one_task_a_window_each_starting_a_window_after_the_last(published):
    """Each task costs the worker the same few statements however few events it finds: a
    second task sent before the first one started only doubled that cost."""
    sent, commit_at = published
    for i in range(1_000):  # 250 commands a second for 4 s
        commit_at(i * 0.004)
    starts = [start - 1_000 for _, start in sent]
    # the last one for the commits a margin before the one before it started
    assert len(sent) == int(4 / WINDOW) + 2
    assert starts == pytest.approx([k * WINDOW for k in range(len(sent))])


def test_eager_mode_runs_the_catch_up_for_every_commit(published, monkeypatch):
    sent, commit_at = published
    monkeypatch.setattr(commands, "_eager", lambda: True)
    monkeypatch.setattr(catch_up_projections, "apply", lambda: sent.append((0.0, 0.0)))
    for t in (0.0, 0.001, 0.002):
        commit_at(t)
    assert len(sent) == 3


def test_a_broker_failure_is_logged_not_raised(published, monkeypatch, caplog):
    _, commit_at = published

    def down(countdown):
        raise ConnectionError("broker down")

    monkeypatch.setattr(commands, "_send", down)
    commit_at(0.0)
    assert "could not enqueue the projection catch-up" in caplog.text


def test_a_broker_down_is_tried_once_then_left_alone_until_it_may_be_back(published, monkeypatch, caplog):
    """Each attempt at a broker that is down cost a command Celery's reconnecting (0.6 s to 6 s
    in the request): one attempt, then none for ``_BROKER_DOWN_SECONDS``, then again."""
    sent, commit_at = published
    attempts = []

    def down(countdown):
        attempts.append(countdown)
        raise ConnectionError("broker down")

    monkeypatch.setattr(commands, "_send", down)
    for t in (0.0, 0.6, 1.2, 2.0, 4.9):
        commit_at(t)
    assert len(attempts) == 1
    assert caplog.text.count("could not enqueue the projection catch-up") == 1
    commit_at(5.0)  # the pause is over: tried again, still down
    assert len(attempts) == 2
    monkeypatch.setattr(commands, "_send", lambda countdown: sent.append((0.0, countdown)))
    commit_at(10.1)  # back: published
    assert sent == [(0.0, None)]
    commit_at(10.2)  # and the window's delay works again: the next task starts a window after it
    assert sent[-1] == (0.0, pytest.approx(WINDOW - 0.1))


def test_publishing_to_a_broker_that_is_down_fails_at_once(monkeypatch):
    """One connection attempt and no publish retry: refused at once (a closed port here), where
    Celery's defaults reconnect for 0.6 s to 6 s."""
    import time as clock

    from casino.celery import app

    monkeypatch.setattr(commands, "_connections", commands.threading.local())
    down = "amqp://guest:guest@127.0.0.1:1//"
    # the write URL too: Celery fixes it from the broker URL it started with (CI's RabbitMQ)
    before = app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager = down, down, False  # sent, not run
    try:
        started = clock.monotonic()
        with pytest.raises(Exception) as refused:  # noqa: PT011 - whichever error the transport raises
            commands._send(None)
        took = clock.monotonic() - started
    finally:
        app.conf.broker_url, app.conf.broker_write_url, app.conf.task_always_eager = before
    assert "refused" in str(refused.value).lower()
    assert took < 0.5


def test_eager_catch_ups_committed_in_two_threads_at_once_leave_results_readable(monkeypatch, eager_tasks):
    """Celery keeps "a join would block" in one flag for the whole process: an eager ``delay()``
    sets it while its task runs and puts back what it found, so two threads committing at once
    (a catch-up during a rebuild, a threaded server) left it set, and every later eager
    ``result.get()`` in the process raised. The eager catch-up runs with ``apply()``, which
    leaves the flag alone."""
    import threading

    from celery._state import task_join_will_block

    from ledger import checkpoints, projections
    from ledger.tasks import write_checkpoint

    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    calls = []

    def catch_up_all():
        calls.append(threading.current_thread().name)
        if threading.current_thread().name == "first":
            first_in.set()
            assert second_in.wait(5)
        else:
            second_in.set()
            assert first_out.wait(5)
        return {}

    monkeypatch.setattr(projections, "catch_up_all", catch_up_all)
    monkeypatch.setattr(checkpoints, "write_if_due", lambda: None)
    monkeypatch.setattr(checkpoints, "write_checkpoint", lambda: None)
    monkeypatch.setattr(checkpoints, "missing_files", lambda: [])
    monkeypatch.setattr(commands, "_publishing", commands._Publishing())
    first = threading.Thread(target=commands._schedule_projections, name="first")
    second = threading.Thread(target=commands._schedule_projections, name="second")
    first.start()
    assert first_in.wait(5)
    second.start()  # enters while the first one's task runs
    first.join(5)
    first_out.set()  # the first one ends before the second
    second.join(5)
    assert sorted(calls) == ["first", "second"]
    assert task_join_will_block() is False
    assert write_checkpoint.apply().get() is None


def test_a_test_publishing_to_a_queue_of_its_own_gives_the_run_its_own_settings_back():
    """The real-worker tests set the run back to eager and the queue ``casino`` after them, fixed
    values: a run with a broker then ran every later test's tasks in the process."""
    from casino.celery import app
    from tests.integration.projection_helpers import publishing_to

    before = app.conf.task_always_eager, app.conf.task_default_queue
    app.conf.task_always_eager, app.conf.task_default_queue = False, "the-run-queue"  # a run with a broker
    try:
        with publishing_to("a-worker-queue"):
            assert (app.conf.task_always_eager, app.conf.task_default_queue) == (False, "a-worker-queue")
        assert (app.conf.task_always_eager, app.conf.task_default_queue) == (False, "the-run-queue")
        app.conf.task_always_eager = True  # a run without one
        with publishing_to("a-worker-queue"):
            assert app.conf.task_always_eager is False
        assert (app.conf.task_always_eager, app.conf.task_default_queue) == (True, "the-run-queue")
    finally:
        app.conf.task_always_eager, app.conf.task_default_queue = before


def test_a_commit_after_the_queue_changed_is_not_counted_as_covered_by_a_task_sent_to_the_old_one(
    published, monkeypatch
):
    """A delayed catch-up covers the commits of its window only on the queue it went to: the
    real-worker test points the default queue at its worker right after its fixtures' commits
    (sent to the run's queue), and a burst quicker than the window then sent nothing at all."""
    from casino.celery import app

    sent, commit_at = published
    queues = []
    send = commands._send
    monkeypatch.setattr(
        commands, "_send", lambda countdown: (queues.append(app.conf.task_default_queue), send(countdown))
    )
    before, app.conf.task_default_queue = app.conf.task_default_queue, "the-run-queue"
    try:
        commit_at(0.0)  # at once
        commit_at(0.1)  # delayed a window after the first: covers the commits until a margin before it
        app.conf.task_default_queue = "a-worker-queue"
        for t in (0.2, 0.3, 0.4):
            commit_at(t)
    finally:
        app.conf.task_default_queue = before
    assert queues == ["the-run-queue", "the-run-queue", "a-worker-queue", "a-worker-queue"]
    assert sent[2:] == [(1_000.2, 1_000.2), (1_000.3, pytest.approx(1_000.2 + WINDOW))]  # 0.4 covered by the second

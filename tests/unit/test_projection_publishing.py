"""The projection catch-up published after each commit (ledger/commands.py, issue 11): at once
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
    monkeypatch.setattr(catch_up_projections, "delay", lambda: sent.append((clock["now"], clock["now"])))

    def apply_async(countdown):
        sent.append((clock["now"], clock["now"] + countdown))

    monkeypatch.setattr(catch_up_projections, "apply_async", apply_async)

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


def test_eager_mode_runs_the_catch_up_for_every_commit(published, monkeypatch):
    sent, commit_at = published
    monkeypatch.setattr(commands, "_eager", lambda: True)
    for t in (0.0, 0.001, 0.002):
        commit_at(t)
    assert len(sent) == 3


def test_a_broker_failure_is_logged_not_raised(published, monkeypatch, caplog):
    _, commit_at = published

    def down():
        raise ConnectionError("broker down")

    monkeypatch.setattr(catch_up_projections, "delay", down)
    commit_at(0.0)
    assert "could not enqueue the projection catch-up" in caplog.text

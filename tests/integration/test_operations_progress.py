"""Long work shows its progress (a bar on a terminal, timed lines otherwise), and a
rebuild commits in batches: stopped, it resumes where it stopped."""

import io
import re

import pytest
from django.core.management import CommandError, call_command

from cashier.services.cage import chips_purchase
from ledger import projections
from ledger.models import Event, ProjectionCheckpoint
from ledger.progress import Progress, counting
from tests.conftest import ACTOR

from .projection_helpers import ledger_balances, snapshot


def test_off_a_terminal_progress_is_timed_lines_with_count_rate_and_time_left():
    out = io.StringIO()
    with Progress("rebuild balances", 4_000, stream=out, every=0) as shown:
        shown.advance(1_000)
        shown.advance(1_000)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # one a batch (every=0), one at the end
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ rebuild balances: 1,000/4,000 events \(25\.0%\), [\d,.]+ events/s, \d+s left",
        lines[0],
    )
    assert "2,000/4,000 events (50.0%)" in lines[2]


def test_off_a_terminal_lines_come_no_more_often_than_asked():
    out = io.StringIO()
    with Progress("verify", 1_000_000, stream=out, every=3600) as shown:
        for _ in range(500):
            shown.advance(2_000)
    assert len(out.getvalue().splitlines()) == 1  # only the final line
    assert "1,000,000/1,000,000 events (100.0%)" in out.getvalue()


def test_on_a_terminal_progress_is_a_bar_with_counts_and_rate():
    out = io.StringIO()
    with Progress("rebuild audit", 10, stream=out, terminal=True) as shown:
        for _ in counting(range(10), shown):
            pass
    screen = out.getvalue()
    assert "rebuild audit" in screen
    assert "10/10" in screen
    assert "events/s" in screen
    assert "\x1b[" in screen  # drawn with terminal control sequences


@pytest.mark.django_db
def test_a_stopped_rebuild_keeps_its_committed_batches_and_resumes(patron, monkeypatch):
    for i in range(8):
        chips_purchase(patron=patron, amount_cents=100 + i, actor=ACTOR)
    projections.catch_up_all()
    expected = snapshot()
    calls = {"n": 0}
    advance = Progress.advance

    def stop_after_two_batches(self, count=1):
        advance(self, count)
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(Progress, "advance", stop_after_two_batches)
    with pytest.raises(CommandError, match=r"ledger rebuild --resume"):
        call_command("ledger", "rebuild", "--batch", "3", stdout=io.StringIO(), stderr=io.StringIO())
    checkpoints = dict(ProjectionCheckpoint.objects.values_list("name", "position"))
    first = projections.names()[0]
    assert checkpoints[first] == 6  # two committed batches of 3
    assert all(checkpoints[name] == 0 for name in projections.names()[1:])  # emptied, not started
    monkeypatch.setattr(Progress, "advance", advance)
    out = io.StringIO()
    call_command("ledger", "rebuild", "--resume", stdout=out, stderr=io.StringIO())
    assert snapshot() == expected
    assert snapshot()["balances"] == ledger_balances()
    assert f"projection {first} rebuilt: " in out.getvalue()


@pytest.mark.django_db
def test_verify_and_an_atomic_rebuild_write_progress_lines_off_a_terminal(patron, settings):
    settings.PROGRESS_LOG_SECONDS = 0
    n = Event.objects.count()  # the cage, its cashier shift, the patron and his chips
    assert n >= 3
    err = io.StringIO()
    call_command("ledger", "verify", stdout=io.StringIO(), stderr=err)
    assert re.search(rf"Z verify: {n}/{n} events \(100\.0%\)", err.getvalue())
    err = io.StringIO()
    call_command("ledger", "rebuild", "--atomic", stdout=io.StringIO(), stderr=err)
    assert re.search(rf"Z rebuild \(one transaction\): {n}/{n} events \(100\.0%\)", err.getvalue())

"""Management commands: the demo session (twice on one gaming day), ledger rebuild."""

import pytest
from django.core.management import call_command

from games.models import Round, Table
from ledger.models import AccountBalance, Event
from ledger.verify import verify_chain

pytestmark = pytest.mark.django_db


def test_demo_twice_on_one_gaming_day_plays_once_then_prints_the_closed_days_reports(capsys):
    """The first run plays every table and closes the gaming day; a closed day keeps its figures
    (ledger.closed_days), so the second run that day appends nothing and prints its
    reports again."""
    call_command(
        "demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=2, classic_stud_coups=2, baccarat_coups=3, tq_coups=3
    )
    first = capsys.readouterr().out
    after_first = Event.objects.count()
    call_command(
        "demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=2, classic_stud_coups=2, baccarat_coups=3, tq_coups=3
    )
    second = capsys.readouterr().out
    assert "chain verified             yes" in first and "Gaming day" in first
    assert Event.objects.count() == after_first
    assert "was closed by an earlier run" in second and "Black jack summary" not in second
    # the daily report's total line and the effective edge's: the same figures, printed again
    report = [line for line in first.splitlines() if line.startswith("  total: all")]
    assert len(report) == 2 and all(line in second.splitlines() for line in report)
    table = Table.objects.get(code="R1")
    assert (table.state, table.rounds_played) == ("closed", 4)
    assert Round.objects.filter(table__code="R1", state="settled").count() == 4
    assert Round.objects.filter(table__code="B1", state="settled").count() == 3
    assert "Black jack summary" in first and "shoes closed and verified" in first
    assert Round.objects.filter(table__code="C1", state="settled").count() == 2
    assert "Caribbean stud summary" in first
    assert Round.objects.filter(table__code="P1", state="settled").count() == 3
    assert Round.objects.filter(table__code="T1", state="settled").count() == 3
    assert "Baccarat (punto banco) summary" in first and "Trente-et-quarante summary" in first
    assert verify_chain().ok


def test_ledger_rebuild_replays_from_zero(capsys, patron):
    AccountBalance.objects.create(account="junk", currency="EUR", balance_cents=1)
    call_command("ledger", "rebuild")
    assert f"{Event.objects.count()} events applied" in capsys.readouterr().out
    assert not AccountBalance.objects.filter(account="junk").exists()
    assert AccountBalance.objects.get(account=f"patron:{patron}:chips").balance_cents == 100_000

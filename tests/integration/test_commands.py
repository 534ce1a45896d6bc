"""Management commands: the demo session (twice), ledger rebuild."""

import pytest
from django.core.management import call_command

from games.models import Round, Table
from ledger.models import AccountBalance, Event
from ledger.verify import verify_chain

pytestmark = pytest.mark.django_db


def test_demo_twice_adds_a_second_session(capsys):
    call_command("demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=2, baccarat_coups=3, tq_coups=3)
    first = capsys.readouterr().out
    after_first = Event.objects.count()
    call_command("demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=2, baccarat_coups=3, tq_coups=3)
    second = capsys.readouterr().out
    assert "chain verified             yes" in first and "chain verified             yes" in second
    assert Event.objects.count() > after_first
    table = Table.objects.get(code="R1")
    assert (table.state, table.rounds_played) == ("closed", 8)
    assert Round.objects.filter(table__code="R1", state="settled").count() == 8
    assert Round.objects.filter(table__code="B1", state="settled").count() == 6
    assert "Black jack summary" in first and "shoes closed and verified" in second
    assert Round.objects.filter(table__code="C1", state="settled").count() == 4
    assert "Caribbean stud summary" in first
    assert Round.objects.filter(table__code="P1", state="settled").count() == 6
    assert Round.objects.filter(table__code="T1", state="settled").count() == 6
    assert "Baccarat (punto banco) summary" in first and "Trente-et-quarante summary" in second
    assert verify_chain().ok


def test_ledger_rebuild_replays_from_zero(capsys, patron):
    AccountBalance.objects.create(account="junk", currency="EUR", balance_cents=1)
    call_command("ledger", "rebuild")
    assert f"{Event.objects.count()} events applied" in capsys.readouterr().out
    assert not AccountBalance.objects.filter(account="junk").exists()
    assert AccountBalance.objects.get(account=f"patron:{patron}:chips").balance_cents == 100_000

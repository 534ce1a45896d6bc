"""``ledger replay-check`` on a coup whose bet is settled by an event while its ``BetPlaced`` is
not in the ledger (written around the application, or an edited placement naming another bet):
a difference is reported for the bet, the command does not stop on a KeyError; and it shows a
model's state in the words it stores ('closed'), never its Python name."""

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from games.models import Table
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import seal_scan
from ledger.models import Event
from ledger.replay import Difference, replay_check
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db

RED = {"type": "chance_simple", "chance": "rouge"}


def _edit_event_as_a_superuser(position: int) -> None:
    """What someone holding the database's superuser could do: edit an event, triggers off."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            for (name,) in cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
                cursor.execute(f'DROP TRIGGER "{name}"')
        cursor.execute("UPDATE ledger_event SET actor = 'mallory' WHERE position = %s", [position])


@pytest.fixture
def _forget_the_scan():
    yield
    seal_scan.forget()


def test_a_bet_settled_whose_placement_is_left_out_as_unsealed_is_a_difference_not_a_crash(table, _forget_the_scan):
    patron = make_patron(10_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    placed = bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=RED, actor=ACTOR)
    bet = placed["bets"][0]["bet"]
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=1, actor=ACTOR)
    position = Event.objects.get(type="BetPlaced").position
    _edit_event_as_a_superuser(position)
    # The commands after the placement scanned it sealed; a process that scans from the start
    # (a new worker, or after ``forget``) finds the rewritten row, as ``ledger verify`` does.
    seal_scan.forget()
    assert position in seal_scan.refresh()  # left out of every read from now on

    found = [d for d in replay_check() if d.kind == "bet"]

    assert found == [Difference("bet", bet, "BetPlaced", "exists", "no BetPlaced event (moved or settled only)")]
    out = io.StringIO()
    with pytest.raises(CommandError, match="difference"):
        call_command("ledger", "replay-check", stdout=out)
    assert f"bet {bet}: BetPlaced is 'exists' live but 'no BetPlaced event" in out.getvalue()


def test_a_state_is_shown_in_its_stored_words():
    shown = str(Difference("table", "R1", "state", Table.State.OPEN, Table.State.CLOSED))
    assert shown == "table R1: state is 'open' live but 'closed' from the events"
    assert "Table.State" not in shown

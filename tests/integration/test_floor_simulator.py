"""The live floor's background player: it opens what is closed and plays coups at
every game through the services, with patrons arriving and leaving, and records the bets it
gets refused over a limit."""

import io
import random

import pytest
from django.core.management import call_command
from django.db import OperationalError

from demo.floor import TABLES, FloorSimulator
from games.models import BetRefusal, Round, Table
from ledger import outage
from ledger.verify import verify_chain

pytestmark = pytest.mark.django_db


def test_the_simulator_plays_a_settled_coup_at_every_game():
    floor = FloorSimulator(pace=0, rng=random.Random(5), out=lambda line: None)
    stats = floor.run(coups=len(TABLES))
    assert stats.by_table == {code: 1 for code in TABLES}
    assert set(Table.objects.values_list("code", "state")) == {(code, "open") for code in TABLES}
    games = set(Round.objects.filter(state="settled").values_list("table__game", flat=True))
    assert games == {"english_roulette", "blackjack", "caribbean_stud", "classic_stud", "baccarat", "trente_quarante"}
    assert stats.arrivals >= 2 * len(TABLES) and stats.bets > 0
    assert verify_chain().ok


def test_a_bet_the_simulator_gets_refused_over_a_limit_is_recorded():
    floor = FloorSimulator(pace=0, rng=random.Random(1), out=lambda line: None, tables=["P1"])
    floor._stake = lambda usual, over_cents: over_cents  # every stake over P1's 300.00 EUR maximum
    stats = floor.run(coups=1)
    assert stats.refused == BetRefusal.objects.filter(table_code="P1", kind="table_maximum").count() >= 2


def test_simulate_floor_command_plays_the_coups_asked_and_reports_them():
    out = io.StringIO()
    call_command("simulate_floor", pace=0, coups=2, tables="R1,T1", seed=2, quiet=True, stdout=out)
    assert out.getvalue().startswith("Floor simulator: 2 coups,")
    assert Round.objects.filter(state="settled").count() == 2


def test_the_floor_opening_a_new_cage_leaves_half_the_main_bank_for_the_cashiers_own_window():
    """The background cashier's window takes half the main bank (whole hundreds of euros), so
    that the ``cashier`` login opens a window of her own beside his with the other half."""
    from cashier.services.cage_shifts import main_bank, open_windows, window_book
    from demo.day import CASHIER

    FloorSimulator(pace=0, rng=random.Random(3), out=lambda line: None, tables=["R1"]).open_floor()
    window = open_windows()[CASHIER].data["window"]
    drawer, bank = window_book(window), main_bank()
    assert drawer["cash_cents"] > 0 and drawer["chips_cents"] > 0
    assert drawer["cash_cents"] % 10_000 == 0 and drawer["chips_cents"] % 10_000 == 0
    assert bank["cash_cents"] >= drawer["cash_cents"] and bank["chips_cents"] >= drawer["chips_cents"]


def test_the_simulator_waits_for_a_database_that_went_away_and_resumes_when_it_answers(monkeypatch):
    """The database goes away while a coup is in play (its bets are down): the player waits,
    looking again until the database answers, then voids the coup the outage cut off and plays
    on; the chain verifies."""
    lines, looks, waits = [], iter([False, False, True]), []
    floor = FloorSimulator(pace=0, rng=random.Random(4), out=lines.append, tables=["R1"], waiting=waits.append)
    deal = floor.finish
    cut = {"done": False}

    def finish_or_outage(code, coup):
        if not cut["done"]:
            cut["done"] = True
            raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')
        deal(code, coup)

    monkeypatch.setattr(floor, "finish", finish_or_outage)
    monkeypatch.setattr(outage, "probe", lambda timeout: next(looks))
    monkeypatch.setattr("demo.floor.time.sleep", lambda seconds: None)
    stats = floor.run(coups=2)
    assert stats.coups == 2
    assert "the database is out of reach: the floor waits for it" in lines
    assert "the database answers again: the floor resumes" in lines
    assert len(waits) == 1 and "waits for it" in waits[0]
    states = sorted(Round.objects.filter(table__code="R1").values_list("state", flat=True))
    assert states == ["settled", "settled", "voided"]
    assert verify_chain().ok


def test_a_table_the_pit_boss_closed_reopens_with_the_limits_he_set():
    """The background player reopened a closed table with its own default rules: the limits a
    pit boss had set were gone. It reopens with the rules the table closed with."""
    from demo.day import PIT_BOSS
    from games.services.table_rules import table_rules_change
    from games.services.tables import table_close

    floor = FloorSimulator(rng=random.Random(3), out=lambda *a, **k: None, tables=["R1"])
    floor.open_floor()
    table_rules_change(code="R1", rules={"max_bet_cents": 50_000}, actor=PIT_BOSS)
    table_close(code="R1", actor=PIT_BOSS)
    floor._reopen("R1")
    reopened = Table.objects.get(code="R1")
    assert (reopened.state, reopened.rules["max_bet_cents"]) == ("open", 50_000)

"""The live floor's background player: it opens what is closed and plays coups at
every game through the services, with patrons arriving and leaving, and records the bets it
gets refused over a limit."""

import io
import random

import pytest
from django.core.management import call_command

from demo.floor import TABLES, FloorSimulator
from games.models import BetRefusal, Round, Table
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

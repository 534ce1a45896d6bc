"""English roulette through the services and the ledger (RULES.md §Roulette, DESIGN.md's
posting rules): vectors end to end, colour chips and the change inverse, table win."""

import random

import pytest

from demo.roulette import play_demo_session
from games.models import Bet, Round
from games.selectors import settlements_net_cents, table_win_cents
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy, colour_chips_change_inverse
from games.services.rounds import round_close_bets, round_open, round_record_result, round_void
from games.services.tables import table_close, table_open
from ledger import accounts, store
from ledger.errors import InvalidInput, StateConflict
from ledger.models import Event
from tests.conftest import ACTOR, make_patron
from tests.vectors import cents, load

pytestmark = pytest.mark.django_db

SERVICE_VECTORS = [
    pytest.param(v, id=v["name"])
    for v in load("roulette")
    if v["input"].get("zero_rule") != "en_prison" and "prison_level" not in v["input"]
]


def _colour(code: str) -> int:
    return store.balance(accounts.patron_colour(code, "R1"))


@pytest.mark.parametrize("vector", SERVICE_VECTORS)
def test_vector_through_the_ledger(vector, cage):
    """Each vector played at a real table with colour chips of the vector's stake."""
    inp, expected = vector["input"], vector["expected"]
    table_open(
        code="R1",
        game="english_roulette",
        opener_cents=5_000_000,
        actor=ACTOR,
        rules={"zero_rule": inp.get("zero_rule", "la_partage"), "max_bet_cents": 100_000},
    )
    stake = cents(inp["stake_eur"])
    code = make_patron(500_000)
    colour_chips_buy(table="R1", patron=code, chips=100, unit_value_cents=stake, actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    before = _colour(code)
    if "announce" in inp:
        placed = bet_place(
            round_id=coup,
            patron=code,
            stake_cents=stake,
            chips="colour",
            actor=ACTOR,
            announce={"name": inp["announce"]},
        )
        assert placed["total_cents"] == cents(expected["total_stake_eur"])
        assert [b["position"]["type"] for b in placed["bets"]] == [c["type"] for c in expected["layout"]]
    elif expected.get("valid") is False:
        with pytest.raises(InvalidInput) as refused:
            bet_place(round_id=coup, patron=code, stake_cents=stake, chips="colour", actor=ACTOR, bet=inp["bet"])
        assert refused.value.field == "bet.numbers"
        assert _colour(code) == before and not Bet.objects.exists()
        return
    else:
        bet_place(round_id=coup, patron=code, stake_cents=stake, chips="colour", actor=ACTOR, bet=inp["bet"])
    round_close_bets(round_id=coup, actor=ACTOR)
    settled = round_record_result(round_id=coup, number=inp["result"], actor=ACTOR)
    assert settled["returned_cents"] == cents(expected["return_eur"])
    assert _colour(code) == before - settled["staked_cents"] + cents(expected["return_eur"])
    assert store.balance(accounts.table_layout("R1")) == 0
    assert table_win_cents("R1") == settled["house_win_cents"]


def test_la_partage_on_an_odd_stake_rounds_the_patron_down_and_records_it(table):
    """C08 with 10.01 EUR on pair: 500 back, the house keeps 501; the half cent is recorded."""
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=code, stake_cents=1_001, bet={"type": "chance_simple", "chance": "pair"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=0, actor=ACTOR)
    settled = Event.objects.get(type="BetSettled").data
    assert (settled["outcome"], settled["return_cents"], settled["house_cents"]) == ("half_lost", 500, 501)
    assert settled["unpaid_fraction_cents"] == "1/2"
    assert store.balance(accounts.patron_chips(code)) == 100_000 - 1_001 + 500
    assert Bet.objects.get().state == Bet.State.HALF_LOST


def test_a_douzaine_a_cheval_win_rounds_down_and_records_the_fraction(colour_patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=600,
        chips="colour",
        bet={"type": "douzaine_a_cheval", "which": 0},
        actor=ACTOR,
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=24, actor=ACTOR)
    settled = Event.objects.get(type="BetSettled").data
    assert (settled["return_cents"], settled["winnings_cents"], settled["unpaid_fraction_cents"]) == (900, 300, "0")


def test_colour_chips_round_trip_and_the_change_inverse(table):
    """Buy 50 colour chips of 2 EUR, lose a plein, win a cheval, change back: value chips
    and every table account return to what the game says."""
    code = make_patron(100_000)
    bought = colour_chips_buy(table="R1", patron=code, chips=50, unit_value_cents=200, actor=ACTOR)
    assert (bought["colour"], bought["amount_cents"], bought["colour_cents"]) == ("red", 10_000, 10_000)
    assert store.balance(accounts.patron_chips(code)) == 90_000
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=code, stake_cents=400, chips="colour", bet={"type": "plein", "numbers": [5]}, actor=ACTOR
    )
    bet_place(
        round_id=coup,
        patron=code,
        stake_cents=200,
        chips="colour",
        bet={"type": "cheval", "numbers": [8, 11]},
        actor=ACTOR,
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=11, actor=ACTOR)
    # plein lost 400; cheval 200 at 17:1 returns 3,600: colour 10,000 − 600 + 3,600 = 13,000
    assert _colour(code) == 13_000
    assert store.balance(accounts.table_colour_issued("R1")) == -13_000
    changed = colour_chips_change_inverse(table="R1", patron=code, actor=ACTOR)
    assert (changed["amount_cents"], changed["chips_cents"]) == (13_000, 103_000)
    assert _colour(code) == 0 and store.balance(accounts.table_colour_issued("R1")) == 0
    # the tray holds the house's result: opener + 10,000 sold − 13,000 changed back
    assert store.balance(accounts.table_tray("R1")) == 5_000_000 - 3_000
    assert table_win_cents("R1") == -3_000 == settlements_net_cents("R1")["house_win"]


def test_a_table_cannot_close_with_colour_chips_out(colour_patron):
    with pytest.raises(StateConflict, match="colour chips outstanding"):
        table_close(code="R1", actor=ACTOR)
    colour_chips_change_inverse(table="R1", patron=colour_patron, actor=ACTOR)
    assert table_close(code="R1", actor=ACTOR)["closer_cents"] == 5_000_000


def test_a_table_cannot_close_with_a_coup_in_play(table):
    round_open(table="R1", actor=ACTOR)
    with pytest.raises(StateConflict, match="coup in play"):
        table_close(code="R1", actor=ACTOR)


def test_a_voided_coup_returns_every_stake(colour_patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=200,
        chips="colour",
        announce={"name": "tiers_du_cylindre"},
        actor=ACTOR,
    )
    assert _colour(colour_patron) == 20_000 - 1_200
    voided = round_void(round_id=coup, reason="ball left the wheel", actor=ACTOR)
    assert voided["bets_returned"] == 6 and voided["state"] == "voided"
    assert _colour(colour_patron) == 20_000
    assert set(Bet.objects.values_list("state", flat=True)) == {"returned"}


def test_table_win_from_the_ledger_equals_the_sum_of_settlements(cage):
    report = play_demo_session(spins=25, seated=4, rng=random.Random(2026), out=lambda *_: None)
    assert report.bets_placed > 100
    assert report.table_win_cents == report.settlements["house_win"]
    assert table_win_cents("R1") == settlements_net_cents("R1")["house_win"]
    assert report.verified
    # every patron's chips went back to the cage: each net result is cash out − cash in
    assert all(store.balance(accounts.patron_chips(code)) == 0 for code in report.patrons)
    assert store.balance(accounts.table_layout("R1")) == 0


@pytest.mark.parametrize("model", ["table", "round", "bet"])
def test_c20_protected_state_fields_reload(colour_patron, model):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup,
        patron=colour_patron,
        stake_cents=200,
        chips="colour",
        bet={"type": "plein", "numbers": [1]},
        actor=ACTOR,
    )
    instance = {
        "table": lambda: Round.objects.get(pk=coup).table,
        "round": lambda: Round.objects.get(pk=coup),
        "bet": lambda: Bet.objects.get(),
    }[model]()
    stale_state = instance.state
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=1, actor=ACTOR)
    if model == "table":
        colour_chips_change_inverse(table="R1", patron=colour_patron, actor=ACTOR)
        table_close(code="R1", actor=ACTOR)
    locked = type(instance).objects.select_for_update().get(pk=instance.pk)
    instance.refresh_from_db()
    assert instance.state == locked.state != stale_state

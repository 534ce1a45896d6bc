"""RULES.md §Baccarat (punto banco), the baccarat vectors of shared/vectors/games.json and
case C07, on the pure engine (no Django).

Expected amounts are worked out here from the rule text, in cents (stake 1000 = 10 EUR).
"""

import json
from fractions import Fraction
from math import floor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules import baccarat
from games.rules.baccarat import (
    BaccaratCoup,
    BaccaratRules,
    BelowMinimum,
    Outcome,
    Settlement,
    bead_plate,
    big_road,
    card_value,
    check_bet,
    check_stake,
    deal_coup,
    exact_probabilities,
    house_edge,
    settle_bet,
    to_data,
)
from games.rules.cards import deck
from tests.vectors import cents, load, vectors_path

# One code per baccarat value 0-9.
CODE = ("KS", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S")


def _vectors() -> list:
    vectors = load("baccarat")
    assert vectors, f"no baccarat vector in {vectors_path()}"
    return [pytest.param(v, id=v["name"]) for v in vectors]


# --- the vectors and C07 -----------------------------------------------------------------


@pytest.mark.parametrize("vector", _vectors())
def test_vector(vector):
    """Every key of ``expected`` compared exactly (vectors/README.md); 10 EUR on each bet."""
    coup = deal_coup(vector["input"]["shoe"])
    stake = cents(vector["input"]["stake_eur"])
    returns = {
        "player": settle_bet("player", stake, coup).return_cents,
        "banker_095": settle_bet("banker", stake, coup, BaccaratRules(banker_commission_pct=5)).return_cents,
        "banker_1to1": settle_bet("banker", stake, coup, BaccaratRules(banker_commission_pct=0)).return_cents,
        "tie_8to1": settle_bet("tie", stake, coup, BaccaratRules(tie_pays=8)).return_cents,
    }
    got = {
        "player_cards": list(coup.player_cards),
        "banker_cards": list(coup.banker_cards),
        "player_total": coup.player_total,
        "banker_total": coup.banker_total,
        "winner": coup.winner,
        "player_draws": coup.player_draws,
        "banker_draws": coup.banker_draws,
        "return_eur": returns,
    }
    expected = vector["expected"]
    for key, value in expected.items():
        if key == "return_eur":
            assert got[key] == {bet: cents(eur) for bet, eur in value.items()}, key
        else:
            assert got[key] == value, key
    # Cards not needed stay undealt.
    assert coup.cards_used == len(coup.player_cards) + len(coup.banker_cards)


def test_c07_ten_valued_third_card():
    """Player 2,3 = 5 draws K (0) -> 5; banker 2,2 = 4 stands (4 draws only on a player third
    card of 2-7); player wins 5-4: 10 on player returns 20, banker and tie lose, the next card
    stays in the shoe."""
    shoe = ["2S", "2H", "3D", "2C", "KS", "5H", "9D"]
    coup = deal_coup(shoe)
    assert coup.player_cards == ("2S", "3D", "KS")
    assert coup.banker_cards == ("2H", "2C")
    assert (coup.player_total, coup.banker_total, coup.winner) == (5, 4, "player")
    assert (coup.player_draws, coup.banker_draws, coup.natural) == (True, False, False)
    assert coup.cards_used == 5  # 5H, which would have made the banker 9, stays undealt
    assert settle_bet("player", 1000, coup).return_cents == 2000
    assert settle_bet("banker", 1000, coup).return_cents == 0
    assert settle_bet("tie", 1000, coup).return_cents == 0


# --- the third-card rule, exhaustively ------------------------------------------------------


def _banker_draws_per_rules_md(banker: int, player_third: int | None) -> bool:
    """RULES.md §Baccarat, written out as a table (not the engine's code)."""
    if player_third is None:
        return banker <= 5
    draws_on = {
        0: range(10),
        1: range(10),
        2: range(10),
        3: [0, 1, 2, 3, 4, 5, 6, 7, 9],
        4: [2, 3, 4, 5, 6, 7],
        5: [4, 5, 6, 7],
        6: [6, 7],
        7: [],
    }
    return player_third in draws_on[banker]


@pytest.mark.parametrize("player", range(10))
@pytest.mark.parametrize("banker", range(10))
def test_third_card_rule_for_every_two_card_totals_and_third_cards(player, banker):
    """Every pair of two-card totals, every player third card, every banker third card."""
    for p3 in range(10):
        for b3 in range(10):
            shoe = ["KH", "KD", CODE[player], CODE[banker], CODE[p3], CODE[b3], "9H"]
            coup = deal_coup(shoe)
            natural = player >= 8 or banker >= 8
            player_draws = not natural and player <= 5
            banker_draws = not natural and _banker_draws_per_rules_md(banker, p3 if player_draws else None)
            assert (coup.natural, coup.player_draws, coup.banker_draws) == (natural, player_draws, banker_draws)
            final_player = (player + p3) % 10 if player_draws else player
            banker_third = (b3 if player_draws else p3) if banker_draws else 0  # the next card in the shoe
            final_banker = (banker + banker_third) % 10
            assert (coup.player_total, coup.banker_total) == (final_player, final_banker)
            assert coup.cards_used == 4 + player_draws + banker_draws
            expected = "player" if final_player > final_banker else "banker" if final_banker > final_player else "tie"
            assert coup.winner == expected


@given(st.lists(st.sampled_from(deck()), min_size=6, max_size=10))
def test_a_coup_is_well_formed_for_any_cards(cards):
    coup = deal_coup(cards)
    assert coup.player_cards + coup.banker_cards == tuple(
        cards[i] for i in [0, 2, *([4] if coup.player_draws else []), 1, 3]
    ) + ((cards[coup.cards_used - 1],) if coup.banker_draws else ())
    assert coup.player_total == sum(card_value(c) for c in coup.player_cards) % 10
    assert coup.banker_total == sum(card_value(c) for c in coup.banker_cards) % 10
    assert not (coup.natural and (coup.player_draws or coup.banker_draws))
    assert len(coup.player_cards) <= 3 and len(coup.banker_cards) <= 3


def test_card_values():
    assert [card_value(r + "H") for r in "A23456789TJQK"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]


@pytest.mark.parametrize(
    ("cards", "field"),
    [
        (["2S", "2H", "3D"], "cards"),  # fewer than 4
        (["2S", "2H", "3D", "2C"], "cards"),  # the player must draw a fifth card
        (["2S", "AH", "4D", "2C"], "cards"),  # player 6 stands, banker 3 must draw a fifth card
        (["2S", "2H", "3D", "2C", "5S"], "cards"),  # player draws a 5, banker 4 must draw a sixth
        (["2S", "2H", "3D", "1C", "KS"], "card"),
        (["2s", "2H", "3D", "2C", "KS"], "card"),
        (["2S", "2H", "3D", "2C", None], "card"),
    ],
)
def test_deal_coup_refuses_bad_or_missing_cards(cards, field):
    with pytest.raises(RuleError) as err:
        deal_coup(cards)
    assert err.value.field == field


def test_deal_coup_reads_only_the_cards_it_needs():
    # Naturals: nothing after the 4th card is read, not even a bad code.
    coup = deal_coup(["4S", "9H", "4D", "KC", "junk"])
    assert (coup.winner, coup.cards_used, coup.natural) == ("banker", 4, True)


# --- table options ----------------------------------------------------------------------------


def test_default_rules_are_the_sheet_and_atlantic_city():
    rules = BaccaratRules()
    assert rules.to_dict() == {
        "banker_commission_pct": 5,
        "tie_pays": 8,
        "min_bet_cents": 500,
        "max_bet_cents": 30_000,
        "below_minimum": "reject",
        "reshuffle_every_coup": False,
        "decks": 8,
        "chip_cents": [100, 500, 2_500, 10_000, 50_000],  # sheet 002: 1, 5, 25, 100, 500 EUR
        "off_chips": "reject",
    }
    assert json.loads(json.dumps(rules.to_dict())) == rules.to_dict()


def test_rules_round_trip_through_json():
    rules = BaccaratRules(0, 9, 100, 1_000_000, BelowMinimum.RAISE, True, 6)
    assert BaccaratRules.from_dict(rules.to_dict()) == rules
    assert BaccaratRules.from_dict(None) == BaccaratRules()
    assert BaccaratRules.from_dict({"below_minimum": "raise"}).below_minimum is BelowMinimum.RAISE


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"banker_commission_pct": 101}, "rules.banker_commission_pct"),
        ({"banker_commission_pct": -1}, "rules.banker_commission_pct"),
        ({"banker_commission_pct": 5.0}, "rules.banker_commission_pct"),
        ({"banker_commission_pct": True}, "rules.banker_commission_pct"),
        ({"tie_pays": 0}, "rules.tie_pays"),
        ({"min_bet_cents": 0}, "rules.min_bet_cents"),
        ({"max_bet_cents": "300"}, "rules.max_bet_cents"),
        ({"min_bet_cents": 40_000}, "rules.min_bet_cents"),  # above the maximum
        ({"below_minimum": "round"}, "rules.below_minimum"),
        ({"reshuffle_every_coup": 1}, "rules.reshuffle_every_coup"),
        ({"decks": 9}, "rules.decks"),
        ({"surrender": True}, "rules.surrender"),
        ([], "rules"),
    ],
)
def test_rules_refuse_bad_options_naming_them(options, field):
    with pytest.raises(RuleError) as err:
        BaccaratRules.from_dict(options)
    assert err.value.field == field


# --- table limits: below_minimum ------------------------------------------------------------


def test_a_bet_under_the_minimum_is_rejected_by_default():
    with pytest.raises(RuleError) as err:
        check_stake(BaccaratRules(), 499)
    assert err.value.field == "stake_cents"
    assert "minimum of 5.00 EUR" in err.value.message


def test_a_bet_under_the_minimum_is_raised_to_it_with_below_minimum_raise():
    assert check_stake(BaccaratRules(below_minimum="raise"), 100) == 500
    assert check_stake(BaccaratRules(below_minimum="raise"), 1) == 500


@pytest.mark.parametrize("below_minimum", ["reject", "raise"])
def test_limits_are_inclusive_and_the_maximum_is_never_raised_past(below_minimum):
    rules = BaccaratRules(below_minimum=below_minimum, chip_cents=(1,))  # any cent: the limits alone
    assert check_stake(rules, 500) == 500
    assert check_stake(rules, 30_000) == 30_000
    assert check_stake(rules, 1_234) == 1_234
    with pytest.raises(RuleError) as err:
        check_stake(rules, 30_001)
    assert err.value.field == "stake_cents"
    assert err.value.message == "over the table maximum: 300.01 EUR, the maximum is 300.00 EUR"


@pytest.mark.parametrize("stake", [0, -500, True, 500.0, "500", None])
def test_check_stake_refuses_what_is_not_positive_cents(stake):
    with pytest.raises(RuleError) as err:
        check_stake(BaccaratRules(below_minimum="raise"), stake)
    assert err.value.field == "stake_cents"


# --- settlement -----------------------------------------------------------------------------


def _coup(winner: str) -> BaccaratCoup:
    shoes = {"player": ["9S", "2H", "KD", "5C"], "banker": ["2S", "9H", "5D", "KC"], "tie": ["9S", "9H", "KD", "KC"]}
    coup = deal_coup(shoes[winner])
    assert coup.winner == winner
    return coup


@pytest.mark.parametrize(
    ("bet", "winner", "outcome", "returned", "house"),
    [
        ("player", "player", "won", 2000, 0),
        ("player", "banker", "lost", 0, 1000),
        ("player", "tie", "pushed", 1000, 0),
        ("banker", "banker", "won", 1950, 0),
        ("banker", "player", "lost", 0, 1000),
        ("banker", "tie", "pushed", 1000, 0),
        ("tie", "tie", "won", 9000, 0),
        ("tie", "player", "lost", 0, 1000),
        ("tie", "banker", "lost", 0, 1000),
    ],
)
def test_payouts(bet, winner, outcome, returned, house):
    """Player 1:1, banker 1:1 less 5 %, tie 8:1; player and banker push on a tie."""
    s = settle_bet(bet, 1000, _coup(winner))
    assert (s.outcome, s.return_cents, s.house_cents, s.stake_cents) == (outcome, returned, house, 1000)
    assert s.winnings_cents == (returned - 1000 if outcome == "won" else 0)
    assert s.commission_cents == (50 if (bet, winner) == ("banker", "banker") else 0)
    assert s.unpaid_fraction == 0


def test_banker_commission_zero_pays_even_money():
    s = settle_bet("banker", 1000, _coup("banker"), BaccaratRules(banker_commission_pct=0))
    assert (s.return_cents, s.commission_cents, s.unpaid_fraction) == (2000, 0, 0)


def test_tie_pays_follows_the_option():
    assert settle_bet("tie", 1000, _coup("tie"), BaccaratRules(tie_pays=9)).return_cents == 10_000


@pytest.mark.parametrize(
    ("stake", "winnings", "commission", "unpaid"),
    [
        (1010, 959, 51, Fraction(1, 2)),  # owed 959.5
        (1001, 950, 51, Fraction(19, 20)),  # owed 950.95
        (505, 479, 26, Fraction(3, 4)),  # owed 479.75
        (1020, 969, 51, Fraction(0)),  # owed exactly 969
        (1, 0, 1, Fraction(19, 20)),  # owed 0.95 of a cent: nothing is paid
    ],
)
def test_banker_commission_on_odd_stakes_pays_down_to_the_cent(stake, winnings, commission, unpaid):
    """RULES.md money rule: the patron is paid floor(stake × 95 / 100); the commission recorded
    is stake − winnings; the cut-off fraction of a cent is recorded, never paid."""
    s = settle_bet("banker", stake, _coup("banker"))
    assert (s.winnings_cents, s.commission_cents, s.unpaid_fraction) == (winnings, commission, unpaid)
    assert s.return_cents == stake + winnings


@given(st.integers(1, 10**9), st.integers(0, 100))
def test_banker_win_rounding_for_any_stake_and_commission(stake, pct):
    s = settle_bet("banker", stake, _coup("banker"), BaccaratRules(banker_commission_pct=pct))
    owed = Fraction(stake * (100 - pct), 100)
    assert s.winnings_cents == floor(owed)
    assert s.winnings_cents + s.unpaid_fraction == owed
    assert 0 <= s.unpaid_fraction < 1
    assert s.commission_cents + s.winnings_cents == stake
    assert s.return_cents == stake + s.winnings_cents


@pytest.mark.parametrize(("bet", "stake", "field"), [("punto", 1000, "bet"), ("banker", 0, "stake_cents")])
def test_settle_refuses_bad_input(bet, stake, field):
    with pytest.raises(RuleError) as err:
        settle_bet(bet, stake, _coup("banker"))
    assert err.value.field == field


def test_check_bet():
    assert [check_bet(b) for b in ("player", "banker", "tie")] == ["player", "banker", "tie"]
    with pytest.raises(RuleError) as err:
        check_bet("joueur")
    assert err.value.field == "bet"


def test_records_are_json_ready_event_payloads():
    coup = _coup("banker")
    data = to_data(coup)
    assert data["type"] == "BaccaratCoup"
    assert data["banker_cards"] == ["9H", "KC"]
    s = settle_bet("banker", 1010, coup)
    assert isinstance(s, Settlement)
    assert to_data(s)["unpaid_fraction"] == "1/2"
    assert to_data(s)["outcome"] == Outcome.WON == "won"
    json.dumps([data, to_data(s)])


# --- exact odds -----------------------------------------------------------------------------


def test_exact_probabilities_of_an_eight_deck_shoe():
    """Exhaustive enumeration through deal_coup (RULES.md §Baccarat)."""
    p = exact_probabilities()
    assert {k: round(float(v), 6) for k, v in p.items()} == {"banker": 0.458597, "player": 0.446247, "tie": 0.095156}
    assert sum(p.values()) == 1
    assert all(isinstance(v, Fraction) for v in p.values())


def test_exact_probabilities_go_through_deal_coup(monkeypatch):
    """The enumeration deals every coup with the engine's own dealing function: an engine that
    let the banker win every tie would show no ties."""
    real = baccarat.deal_coup

    def banker_wins_ties(cards):
        coup = real(cards)
        if coup.winner != "tie":
            return coup
        return BaccaratCoup(*[getattr(coup, f) if f != "winner" else "banker" for f in BaccaratCoup.__slots__])

    monkeypatch.setattr(baccarat, "deal_coup", banker_wins_ties)
    p = baccarat._exact_probabilities.__wrapped__(8)  # bypass the cache
    assert p["tie"] == 0
    assert p["banker"] == exact_probabilities()["banker"] + exact_probabilities()["tie"]


@pytest.mark.parametrize(
    ("bet", "options", "edge_pct"),
    [("banker", {}, 1.06), ("player", {}, 1.24), ("tie", {}, 14.36), ("banker", {"banker_commission_pct": 0}, -1.24)],
)
def test_house_edges(bet, options, edge_pct):
    edge = house_edge(bet, BaccaratRules(**options))
    assert isinstance(edge, Fraction)
    assert round(float(edge) * 100, 2) == edge_pct


def test_house_edges_from_the_probabilities():
    p = exact_probabilities()
    assert house_edge("banker") == p["player"] - Fraction(95, 100) * p["banker"]
    assert house_edge("player") == p["banker"] - p["player"]
    assert house_edge("tie") == 1 - 9 * p["tie"]


def test_exact_probabilities_refuse_bad_decks():
    with pytest.raises(RuleError) as err:
        exact_probabilities(0)
    assert err.value.field == "decks"


# --- history: bead plate and big road -----------------------------------------------------

B, P, T = "banker", "player", "tie"


def test_bead_plate_fills_columns_of_six_top_to_bottom_in_coup_order():
    winners = [B, P, P, T, B, B, P, T, B, B, B, P, P]
    assert bead_plate(winners) == [
        ["B", "J", "J", "-", "B", "B"],
        ["J", "-", "B", "B", "B", "J"],
        ["J"],
    ]
    assert bead_plate(winners, rows=4) == [["B", "J", "J", "-"], ["B", "B", "J", "-"], ["B", "B", "B", "J"], ["J"]]
    assert bead_plate([]) == []


def test_statistics_mark_banker_b_player_j_and_a_tie_with_a_dash():
    """Sheet 002, "Statistiques": "La main du banquier est indiquée par la lettre "B", celle du
    joueur par la lettre "J" et une égalité est indiquée par un tiret "-"."""
    assert bead_plate([B, P, T]) == [["B", "J", "-"]]
    assert big_road([B, P, T]) == [["B"], ["J", "-"]]


def test_big_road_starts_a_column_with_each_new_run_and_keeps_a_tie_in_the_current_column():
    """Sheet 002: consecutive wins in one column, a new column when banker or player starts a
    new run; "une égalité [...] est donc toujours affichée dans la même colonne comme le gagnant
    précédent"."""
    assert big_road([B, B, T, P, T, T, B]) == [["B", "B", "-"], ["J", "-", "-"], ["B"]]
    assert big_road([P, B, P, B]) == [["J"], ["B"], ["J"], ["B"]]
    assert big_road([B] * 8) == [["B"] * 8]  # no bend at the sixth row
    assert big_road([P, T, P]) == [["J", "-", "J"]]  # a tie does not end the run
    assert big_road([]) == []


def test_big_road_ties_before_the_first_coup_open_the_first_column():
    assert big_road([T, T]) == [["-", "-"]]
    assert big_road([T, T, B, B, P]) == [["-", "-", "B", "B"], ["J"]]


@given(st.lists(st.sampled_from([B, P, T]), max_size=60))
def test_history_shapes(winners):
    marks = [{B: "B", P: "J", T: "-"}[w] for w in winners]
    plate = bead_plate(winners)
    assert [m for column in plate for m in column] == marks
    assert all(len(column) == 6 for column in plate[:-1])
    road = big_road(winners)
    assert [m for column in road for m in column] == marks  # every coup, in order
    runs = [{m for m in column if m != "-"} for column in road]
    assert all(len(run) <= 1 for run in runs)  # one winner a column
    assert all(run for run in runs[1:])  # only the first column may hold ties alone
    assert all(a != b for a, b in zip(runs, runs[1:], strict=False) if a)


@pytest.mark.parametrize("winners", [["banker", "joueur"], "BPT", [None]])
def test_history_refuses_unknown_winners(winners):
    for function in (bead_plate, big_road):
        with pytest.raises(RuleError) as err:
            function(winners)
        assert err.value.field == "winners"


def test_bead_plate_refuses_bad_rows():
    with pytest.raises(RuleError) as err:
        bead_plate([B], rows=0)
    assert err.value.field == "rows"


def test_stakes_are_sums_of_the_tables_chips():
    from games.rules.baccarat import OffChips, check_stake, chips_make

    assert chips_make(1_000, (100, 500)) and not chips_make(1_050, (100, 500))
    # chips of 2 and 5 EUR: 3 EUR cannot be made, 9 EUR can (5 + 2 + 2), and every amount from 4 EUR
    assert [chips_make(a * 100, (200, 500)) for a in range(1, 10)] == [
        False,
        True,
        False,
        True,
        True,
        True,
        True,
        True,
        True,
    ]
    adjust = BaccaratRules(chip_cents=(200, 500), off_chips=OffChips.ADJUST, min_bet_cents=100)
    assert check_stake(adjust, 300) == 200 and check_stake(adjust, 1_150) == 1_100
    with pytest.raises(RuleError) as refused:
        check_stake(BaccaratRules(), 1_050)
    assert refused.value.field == "stake_cents"
    assert BaccaratRules.from_dict(BaccaratRules().to_dict()) == BaccaratRules()
    with pytest.raises(RuleError):
        BaccaratRules.from_dict({"chip_cents": []})

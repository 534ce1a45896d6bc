"""RULES.md §Trente-et-quarante and §Prison bets, and the trente_et_quarante vectors of
shared/vectors/games.json, on the pure engine (no Django).

Amounts in cents (stake 1000 = 10 EUR); expected results worked out from the rule text.
"""

import json
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules import trente_quarante as tq
from games.rules.cards import shoe_cards
from games.rules.trente_quarante import (
    BETS,
    DoublePrison,
    Outcome,
    TQCoup,
    card_points,
    check_bet,
    deal_rows,
    exact_probabilities,
    settle_bet,
    to_data,
)
from tests.vectors import load, vectors_path


def _vectors() -> list:
    vectors = load("trente_et_quarante")
    assert vectors, f"no trente_et_quarante vector in {vectors_path()}"
    return [pytest.param(v, id=v["name"]) for v in vectors]


@pytest.mark.parametrize("vector", _vectors())
def test_vector(vector):
    """Every key of ``expected`` compared exactly (vectors/README.md)."""
    coup = deal_rows(vector["input"]["cards"])
    got = {
        "noir_row": list(coup.noir_row),
        "rouge_row": list(coup.rouge_row),
        "noir_points": coup.noir_points,
        "rouge_points": coup.rouge_points,
        "result": coup.result,
        "couleur_inverse": coup.couleur_inverse,
        "first_card_colour": coup.first_card_colour,
    }
    for key, value in vector["expected"].items():
        assert got[key] == value, key
    assert coup.cards_used == len(coup.noir_row) + len(coup.rouge_row)


# --- dealing the rows ------------------------------------------------------------------------


def test_card_points():
    assert [card_points(r + "D") for r in "A23456789TJQK"] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]


@given(st.randoms(use_true_random=False))
def test_rows_are_dealt_to_31_or_more_from_any_shoe(rng):
    cards = shoe_cards(6)
    rng.shuffle(cards)
    coup = deal_rows(cards)
    for row, points in ((coup.noir_row, coup.noir_points), (coup.rouge_row, coup.rouge_points)):
        assert points == sum(card_points(c) for c in row)
        assert 31 <= points <= 40
        assert points - card_points(row[-1]) <= 30  # the row stopped at the first card reaching 31
    assert coup.noir_row + coup.rouge_row == tuple(cards[: coup.cards_used])
    if coup.noir_points == coup.rouge_points:
        assert coup.result == ("apres" if coup.noir_points == 31 else "refait")
        assert coup.couleur_inverse is None
    else:
        winner = "noir" if coup.noir_points < coup.rouge_points else "rouge"
        assert coup.result == winner
        first_black = coup.noir_row[0][1] in "SC"
        assert coup.first_card_colour == ("noir" if first_black else "rouge")
        assert coup.couleur_inverse == ("couleur" if coup.first_card_colour == winner else "inverse")


def test_the_first_card_decides_couleur_and_inverse():
    """Same points, the first card of the first row red instead of black: couleur becomes inverse."""
    black = deal_rows(["AC", "9D", "KH", "QS", "AS", "4D", "8H", "7S", "9C", "5D"])
    red = deal_rows(["AD", "9D", "KH", "QS", "AS", "4D", "8H", "7S", "9C", "5D"])
    assert (black.result, black.first_card_colour, black.couleur_inverse) == ("noir", "noir", "couleur")
    assert (red.result, red.first_card_colour, red.couleur_inverse) == ("noir", "rouge", "inverse")


@pytest.mark.parametrize(
    ("cards", "field"),
    [
        (["KS", "KH", "KD"], "cards"),  # the first row stops at 30
        (["KS", "KH", "KD", "AC", "KS", "KH"], "cards"),  # the second row stops at 20
        (["KS", "KH", "KD", "1C"], "card"),
        (["KS", "KH", "KD", "ac"], "card"),
        ([], "cards"),
    ],
)
def test_deal_rows_refuses_bad_or_missing_cards(cards, field):
    with pytest.raises(RuleError) as err:
        deal_rows(cards)
    assert err.value.field == field


def test_deal_rows_reads_only_the_cards_it_needs():
    coup = deal_rows(["KS", "KH", "KD", "AC", "QS", "QH", "QD", "AD", "junk"])
    assert (coup.result, coup.cards_used) == ("apres", 8)


# --- bets ----------------------------------------------------------------------------------


def test_the_four_bets():
    assert [check_bet(b) for b in BETS] == ["rouge", "noir", "couleur", "inverse"]


def test_a_tie_bet_does_not_exist():
    with pytest.raises(RuleError) as err:
        check_bet("tie")
    assert err.value.field == "bet"
    assert "no tie bet" in err.value.message
    with pytest.raises(RuleError) as err:
        settle_bet("tie", 1000, _coup("refait"))
    assert err.value.field == "bet"


@pytest.mark.parametrize("bet", ["red", "", None, 1])
def test_unknown_bets_are_refused(bet):
    with pytest.raises(RuleError) as err:
        check_bet(bet)
    assert err.value.field == "bet"


# --- settlement ------------------------------------------------------------------------------

SHOES = {
    "noir_couleur": ["AC", "9D", "KH", "QS", "AS", "4D", "8H", "7S", "9C", "5D"],  # noir 31 v 33, first black
    "rouge_inverse": ["KS", "QH", "JD", "TC", "AH", "KD", "QS", "JC"],  # rouge 31 v 40, first black
    "rouge_couleur": ["KH", "QH", "JD", "TC", "AH", "KD", "QS", "JC"],  # rouge 31 v 40, first red
    "refait": ["KS", "KH", "KD", "KC", "QS", "QH", "QD", "QC"],  # 40-40
    "apres": ["KS", "TD", "9C", "2H", "JH", "QC", "AS", "KD"],  # 31-31
}


def _coup(name: str) -> TQCoup:
    return deal_rows(SHOES[name])


@pytest.mark.parametrize(
    ("coup", "winners"),
    [
        ("noir_couleur", {"noir", "couleur"}),
        ("rouge_inverse", {"rouge", "inverse"}),
        ("rouge_couleur", {"rouge", "couleur"}),
    ],
)
def test_each_bet_pays_one_to_one(coup, winners):
    for bet in BETS:
        s = settle_bet(bet, 1000, _coup(coup))
        if bet in winners:
            assert (s.outcome, s.return_cents, s.winnings_cents, s.house_cents) == ("won", 2000, 1000, 0)
        else:
            assert (s.outcome, s.return_cents, s.winnings_cents, s.house_cents) == ("lost", 0, 0, 1000)
        assert (s.prison_level_after, s.unpaid_fraction) == (0, 0)


@pytest.mark.parametrize("bet", BETS)
def test_refait_voids_the_coup_for_every_bet(bet):
    """Equal points other than 31: nothing won or lost; the stake is free to be taken back or moved."""
    s = settle_bet(bet, 1000, _coup("refait"))
    assert (s.outcome, s.return_cents, s.winnings_cents, s.house_cents, s.prison_level_after) == (
        Outcome.REFAIT,
        1000,
        0,
        0,
        0,
    )


@pytest.mark.parametrize("bet", BETS)
def test_apres_sends_every_bet_to_prison(bet):
    """31-31: every bet, couleur and inverse included, goes en prison at level 1; nothing moves."""
    s = settle_bet(bet, 1000, _coup("apres"))
    assert (s.outcome, s.return_cents, s.house_cents, s.prison_level_after) == ("imprisoned", 0, 0, 1)


@pytest.mark.parametrize("double_prison", list(DoublePrison))
def test_a_prison_bet_survives_a_refait_then_is_returned_not_paid_when_it_wins(double_prison):
    """Narrated: 10 on noir; après -> prison; refait -> still in prison; noir wins -> the 10 comes
    back without winnings."""
    jailed = settle_bet("noir", 1000, _coup("apres"), double_prison=double_prison)
    assert (jailed.outcome, jailed.prison_level_after) == ("imprisoned", 1)
    still = settle_bet("noir", 1000, _coup("refait"), prison_level=1, double_prison=double_prison)
    assert (still.outcome, still.prison_level_after, still.return_cents, still.house_cents) == ("imprisoned", 1, 0, 0)
    freed = settle_bet("noir", 1000, _coup("noir_couleur"), prison_level=1, double_prison=double_prison)
    assert (freed.outcome, freed.return_cents, freed.winnings_cents, freed.house_cents) == ("released", 1000, 0, 0)
    assert freed.prison_level_after == 0


def test_a_prison_bet_that_loses_is_lost():
    s = settle_bet("couleur", 1000, _coup("rouge_inverse"), prison_level=1)
    assert (s.outcome, s.return_cents, s.house_cents, s.prison_level_after) == ("lost", 0, 1000, 0)


@pytest.mark.parametrize(
    ("double_prison", "outcome", "level_after", "house"),
    [("lose", "lost", 0, 1000), ("stay", "imprisoned", 1, 0), ("deeper", "imprisoned", 2, 0)],
)
def test_a_second_apres_follows_double_prison(double_prison, outcome, level_after, house):
    s = settle_bet("rouge", 1000, _coup("apres"), prison_level=1, double_prison=double_prison)
    assert (s.outcome, s.prison_level_after, s.house_cents, s.return_cents) == (outcome, level_after, house, 0)


def test_deeper_prison_needs_one_win_per_level():
    s = settle_bet("rouge", 1000, _coup("rouge_inverse"), prison_level=2, double_prison="deeper")
    assert (s.outcome, s.prison_level_after, s.return_cents) == ("imprisoned", 1, 0)
    s = settle_bet("rouge", 1000, _coup("rouge_inverse"), prison_level=1, double_prison="deeper")
    assert (s.outcome, s.prison_level_after, s.return_cents) == ("released", 0, 1000)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"prison_level": 2}, "prison_level"),  # level 2 exists only with deeper
        ({"prison_level": -1}, "prison_level"),
        ({"prison_level": 0.0}, "prison_level"),
        ({"double_prison": "forever"}, "rules.double_prison"),  # refused even on a free bet
        ({"prison_level": 1, "double_prison": "forever"}, "rules.double_prison"),
        ({"stake_cents": 0}, "stake_cents"),
        ({"stake_cents": 10.0}, "stake_cents"),
        ({"stake_cents": True}, "stake_cents"),
    ],
)
def test_settle_refuses_bad_input(kwargs, field):
    args = {"bet": "rouge", "stake_cents": 1000, "coup": _coup("rouge_inverse"), **kwargs}
    with pytest.raises(RuleError) as err:
        settle_bet(**args)
    assert err.value.field == field


def test_records_are_json_ready_event_payloads():
    coup = _coup("apres")
    data = to_data(coup)
    assert (data["type"], data["result"], data["couleur_inverse"]) == ("TQCoup", "apres", None)
    s = to_data(settle_bet("inverse", 1000, coup))
    assert (s["outcome"], s["prison_level_after"], s["unpaid_fraction"]) == ("imprisoned", 1, "0")
    json.dumps([data, s])


# --- exact odds --------------------------------------------------------------------------------


def test_exact_probabilities_of_a_six_deck_shoe():
    """Noir = rouge = 0.445201, refait 0.087708, après 0.021891."""
    p = exact_probabilities()
    assert {k: round(float(v), 6) for k, v in p.items()} == {
        "noir": 0.445201,
        "rouge": 0.445201,
        "refait": 0.087708,
        "apres": 0.021891,
    }
    assert sum(p.values()) == 1
    # The rows are exchangeable (the probability of a sequence depends only on its cards), so
    # noir and rouge are exactly equal: an independent check on the arithmetic.
    assert p["noir"] == p["rouge"]
    assert all(isinstance(v, Fraction) for v in p.values())


REPRESENTATIVE = {1: "AS", 2: "2S", 3: "3S", 4: "4S", 5: "5S", 6: "6S", 7: "7S", 8: "8S", 9: "9S", 10: "KS"}


def _through_deal_rows(counts: list[int]) -> dict[tuple[int, int], Fraction]:
    """Brute force: every value sequence the coup uses, dealt by deal_rows, weighted by its
    probability without replacement. A sequence is extended only when deal_rows reads past it
    (dealt with tens appended: a row reads card k only on the cards before it)."""
    total = sum(counts)
    joint: Counter = Counter()
    filler = ("KS",) * 8

    def walk(codes: tuple[str, ...], left: list[int], probability: Fraction) -> None:
        coup = deal_rows(codes + filler)
        if coup.cards_used <= len(codes):
            joint[coup.noir_points, coup.rouge_points] += probability
            return
        for value in range(1, 11):
            if left[value]:
                share = Fraction(left[value], total - len(codes))
                left[value] -= 1
                walk((*codes, REPRESENTATIVE[value]), left, probability * share)
                left[value] += 1

    walk((), list(counts), Fraction(1))
    return dict(joint)


@pytest.mark.parametrize(
    "counts",
    [
        [0, 1, 1, 0, 0, 0, 1, 0, 0, 3, 5],  # A 2 6 9 9 9 and five tens: 86 points
        [0, 2, 0, 1, 0, 0, 0, 0, 1, 2, 5],  # A A 3 8 9 9 and five tens: 81 points
    ],
)
def test_the_exact_method_agrees_with_brute_force_through_deal_rows(counts):
    """The generating-function enumeration behind exact_probabilities, on small shoes where
    every sequence can be dealt through the engine: the same joint distribution of points."""
    assert tq._row_totals(counts) == _through_deal_rows(counts)


def test_exact_probabilities_refuse_bad_decks():
    with pytest.raises(RuleError) as err:
        exact_probabilities(9)
    assert err.value.field == "decks"

"""Sheet 000, English roulette: "la seconde variante veut que la mise sur les chances simples
ne peut se faire que lors de mises multiples" — the table option ``even_chances``."""

import pytest

from basis.errors import LimitRefused
from games.rules.roulette import InvalidBet, bet_kinds
from games.rules.roulette_table import EvenChances, RouletteTableRules

ALL_BETS = bet_kinds()
EVEN = [b for b in ALL_BETS if b.is_even_chance]
OTHER = [b for b in ALL_BETS if not b.is_even_chance]
VARIANT = RouletteTableRules.from_dict({"even_chances": "with_other_bets"})


def test_the_option_defaults_to_even_chances_alone_and_is_stored():
    assert RouletteTableRules().even_chances is EvenChances.ANY
    assert RouletteTableRules().to_dict()["even_chances"] == "any"
    assert VARIANT.to_dict()["even_chances"] == "with_other_bets"
    assert RouletteTableRules.from_dict(VARIANT.to_dict()) == VARIANT
    with pytest.raises(InvalidBet) as refused:
        RouletteTableRules.from_dict({"even_chances": "never"})
    assert refused.value.field == "rules.even_chances"


def test_by_default_every_bet_is_accepted_alone():
    for bet in ALL_BETS:
        RouletteTableRules().check_even_chance_company(bet, others=[])


def test_under_the_variant_each_even_chance_alone_is_refused_as_a_lone_even_chance():
    assert len(EVEN) == 6
    for bet in EVEN:
        with pytest.raises(LimitRefused) as refused:
            VARIANT.check_even_chance_company(bet, others=[])
        assert (refused.value.field, refused.value.kind) == ("bet", "lone_even_chance")
        assert "only as part of several bets" in refused.value.message


def test_under_the_variant_even_chances_together_are_still_alone():
    for bet in EVEN:
        with pytest.raises(LimitRefused):
            VARIANT.check_even_chance_company(bet, others=[b for b in EVEN if b != bet])


def test_under_the_variant_an_even_chance_beside_any_other_kind_of_bet_is_accepted():
    """Every even chance with every one of the 155 other positions already on the coup."""
    assert len(OTHER) == 155
    for bet in EVEN:
        for other in OTHER:
            VARIANT.check_even_chance_company(bet, others=[other])


def test_under_the_variant_the_other_positions_need_no_company():
    for bet in OTHER:
        VARIANT.check_even_chance_company(bet, others=[])


@pytest.mark.parametrize(
    ("bet", "stake", "words"),
    [
        (
            next(b for b in EVEN if b.chance == "rouge"),
            100,
            "1.00 EUR is under the table minimum of 5.00 EUR for an even chance",
        ),
        (
            next(b for b in OTHER if b.type == "plein"),
            100,
            "1.00 EUR is under the table minimum of 2.00 EUR for a plein",
        ),
    ],
)
def test_a_stake_under_the_minimum_is_refused_in_words(bet, stake, words):
    rules = RouletteTableRules.from_dict({"min_bet_cents": 200, "even_chance_min_cents": 500})
    with pytest.raises(LimitRefused) as refused:
        rules.check_stake(bet, stake, colour_chips=True)
    assert (refused.value.kind, refused.value.message) == ("table_minimum", words)

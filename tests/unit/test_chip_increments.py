"""Stakes in the table's chip increments (sheet 002, RULES.md §Baccarat), at every game, on
the pure rule ``games.rules.chips`` and each table's rule set (no Django)."""

from itertools import combinations

import pytest

from basis.errors import LimitRefused, RuleError
from games.rules.baccarat import BaccaratRules
from games.rules.blackjack_table import BlackjackTableRules
from games.rules.chips import SHEET_CHIPS, ChipIncrements, OffChips, largest_makeable, makeable
from games.rules.roulette_table import RouletteTableRules
from games.rules.stud_table import CaribbeanTableRules, ClassicStudTableRules
from games.rules.tq_table import TrenteQuaranteTableRules

# Chip sets: every set of one to three of these values, and some real ones (cents).
VALUES = (1, 2, 3, 5, 7, 10, 25)
SETS = [c for k in (1, 2, 3) for c in combinations(VALUES, k)] + [
    SHEET_CHIPS,
    (200, 500),
    (25, 100, 500, 2_500),
    (300, 700, 1_100),
    (600, 1_000, 1_500),
]
TOP = 3_000


def brute_force(chips: tuple[int, ...], top: int) -> list[bool]:
    """made[a] for a = 0..top: a sum of chips, by the plain coin-change table."""
    made = [True] + [False] * top
    for a in range(1, top + 1):
        made[a] = any(c <= a and made[a - c] for c in chips)
    return made


@pytest.mark.parametrize("chips", SETS, ids=str)
def test_makeable_is_exactly_a_sum_of_the_chips(chips):
    made = brute_force(chips, TOP)
    assert [makeable(a, chips) for a in range(TOP + 1)] == made


@pytest.mark.parametrize("chips", SETS, ids=str)
def test_adjusting_rounds_down_to_the_largest_sum_of_chips(chips):
    made = brute_force(chips, TOP)
    best = 0
    for a in range(TOP + 1):
        best = a if made[a] else best
        assert largest_makeable(a, chips) == best


def test_the_sheets_chips_make_30_eur_from_25_and_5_but_not_10_50():
    """Sheet 002: "pour parier 30 €, cliquez sur le jeton 25 € … puis sur le jeton 5 €"."""
    assert SHEET_CHIPS == (100, 500, 2_500, 10_000, 50_000)
    assert makeable(3_000, SHEET_CHIPS)
    assert not makeable(1_050, SHEET_CHIPS)
    assert largest_makeable(1_050, SHEET_CHIPS) == 1_000
    # far above every chip: still exact (the residue table, not a loop up to the amount)
    assert makeable(10**10, (300, 700)) and not makeable(10**10 + 1, (300, 700))
    assert largest_makeable(10**10 + 99, (300, 700)) == 10**10


def test_reject_refuses_a_stake_the_chips_cannot_make_as_a_chip_increment():
    rule = ChipIncrements(SHEET_CHIPS)
    assert rule.stake(3_000) == 3_000
    with pytest.raises(LimitRefused) as refused:
        rule.stake(1_050)
    assert (refused.value.field, refused.value.kind) == ("stake_cents", "chip_increment")
    assert refused.value.message == (
        "10.50 EUR cannot be made of the table's chips (1.00, 5.00, 25.00, 100.00, 500.00 EUR)"
    )


def test_adjust_lowers_the_stake_to_what_the_chips_make_and_refuses_under_the_smallest_chip():
    rule = ChipIncrements((200, 500), OffChips.ADJUST)
    assert [rule.stake(a) for a in (200, 300, 499, 500, 800, 1_150)] == [200, 200, 400, 500, 800, 1_100]
    with pytest.raises(LimitRefused) as refused:
        rule.stake(199)
    assert refused.value.kind == "chip_increment"
    assert "under the table's smallest chip" in refused.value.message


def test_a_table_without_a_chip_list_takes_any_whole_cent():
    rule = ChipIncrements()
    assert [rule.stake(a) for a in (1, 1_050, 12_345)] == [1, 1_050, 12_345]
    assert rule.to_dict() == {"chip_cents": None, "off_chips": "reject"}


@pytest.mark.parametrize(
    ("chips", "off"),
    [([], "reject"), ([0], "reject"), ([True], "reject"), ([2.5], "reject"), ("100", "reject"),
     ([10**8 + 1], "reject"), (list(range(1, 22)), "reject"), ([100_001, 200_003], "reject"),
     ([100], "round"), ([100], None)],
)  # fmt: skip
def test_bad_chip_options_are_refused_naming_the_option(chips, off):
    with pytest.raises(RuleError) as refused:
        ChipIncrements(chips, off)
    assert refused.value.field == ("rules.off_chips" if chips == [100] else "rules.chip_cents")


RULE_SETS = [
    RouletteTableRules,
    BlackjackTableRules,
    TrenteQuaranteTableRules,
    CaribbeanTableRules,
    ClassicStudTableRules,
    BaccaratRules,
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.__name__)
def test_every_game_has_the_chip_options_and_keeps_them(rules):
    """Every table's rule set takes chip_cents and off_chips, stores them and reads them back;
    only baccarat has chips by default (sheet 002), the others take any whole cent."""
    default = rules.from_dict({}).to_dict()
    assert default["chip_cents"] == (list(SHEET_CHIPS) if rules is BaccaratRules else None)
    assert default["off_chips"] == "reject"
    chosen = rules.from_dict({"chip_cents": [2_500, 500, 100], "off_chips": "adjust"})
    stored = chosen.to_dict()
    assert (stored["chip_cents"], stored["off_chips"]) == ([100, 500, 2_500], "adjust")
    assert rules.from_dict(stored) == chosen
    assert chosen.chips.stake(1_050) == 1_000
    with pytest.raises(RuleError) as refused:
        rules.from_dict({"off_chips": "round"})
    assert refused.value.field == "rules.off_chips"

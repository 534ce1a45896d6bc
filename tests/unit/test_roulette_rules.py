"""RULES.md §Roulette and §Prison bets, checked on the pure engine (no Django).

Expected values are recomputed here from the rule text (pays, red list, dozens, columns)
rather than read back from the engine's own tables.
"""

import ast
from collections import Counter
from fractions import Fraction
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import roulette
from games.rules.roulette import (
    ANNOUNCED,
    BLACK,
    RED,
    WHEEL,
    BetType,
    Chance,
    DoublePrison,
    InvalidBet,
    Outcome,
    RouletteBet,
    ZeroRule,
    bet_kinds,
    expand_announced,
    house_edge,
    make_bet,
    neighbours_of,
    settle,
)

# Hypothesis must not write its example database into the working tree.
props = settings(database=None, max_examples=300, deadline=None)

ALL_BETS = bet_kinds()
EVEN_CHANCES = [b for b in ALL_BETS if b.is_even_chance]

# RULES.md §Roulette, restated independently of the engine.
RULES_RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
PAYS = {
    "plein": Fraction(35),
    "cheval": Fraction(17),
    "transversale": Fraction(11),
    "carre": Fraction(8),
    "quatre_premiers": Fraction(8),
    "sixain": Fraction(5),
    "colonne": Fraction(2),
    "douzaine": Fraction(2),
    "colonne_a_cheval": Fraction(1, 2),
    "douzaine_a_cheval": Fraction(1, 2),
    "chance_simple": Fraction(1),
}


def covers(bet: RouletteBet, n: int) -> bool:
    """Whether pocket n wins `bet`, from the rule text (inside bets: their numbers)."""
    if n == 0 and bet.type in {"colonne", "douzaine", "colonne_a_cheval",
                               "douzaine_a_cheval", "chance_simple"}:  # fmt: skip
        return False
    match bet.type:
        case "colonne":
            return n % 3 == (bet.which + 1) % 3
        case "douzaine":
            return 12 * bet.which < n <= 12 * bet.which + 12
        case "colonne_a_cheval":
            return n % 3 in {(bet.which + 1) % 3, (bet.which + 2) % 3}
        case "douzaine_a_cheval":
            return 12 * bet.which < n <= 12 * bet.which + 24
        case "chance_simple":
            return {
                "rouge": n in RULES_RED,
                "noir": n not in RULES_RED,
                "pair": n % 2 == 0,
                "impair": n % 2 == 1,
                "manque": n <= 18,
                "passe": n >= 19,
            }[bet.chance]
        case _:
            return n in bet.numbers


def floor(x: Fraction) -> int:
    return x.numerator // x.denominator


def test_engine_imports_only_the_allowed_stdlib_modules():
    """games.rules is pure (DESIGN.md): no Django, no project import, no clock, no random."""
    with open(roulette.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = {
        name.split(".")[0] if not (isinstance(node, ast.ImportFrom) and node.level) else f".{name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
    }
    assert imported <= {"dataclasses", "enum", "fractions", "typing", "basis"}  # basis: the rules' errors


# --- the wheel and the colours ---------------------------------------------------------


def test_wheel_is_a_permutation_of_the_37_pockets_starting_at_zero():
    assert len(WHEEL) == 37
    assert sorted(WHEEL) == list(range(37))
    assert WHEEL[:5] == (0, 32, 15, 19, 4)
    assert WHEEL[-3:] == (35, 3, 26)


def test_red_and_black_are_the_rules_lists():
    assert RED == RULES_RED
    assert BLACK == set(range(1, 37)) - RULES_RED
    assert len(RED) == len(BLACK) == 18


def test_colours_alternate_around_the_wheel():
    """A single-zero wheel alternates red and black on both sides of zero."""
    colours = ["R" if n in RED else "B" for n in WHEEL[1:]]
    assert all(a != b for a, b in pairwise(colours))


# --- the layout: every legal position --------------------------------------------------


@pytest.mark.parametrize(
    ("bet_type", "count"),
    [
        ("plein", 37),
        # 24 side by side in a row + 33 one above the other + 0-1, 0-2, 0-3
        ("cheval", 60),
        ("transversale", 14),  # 12 rows + trios 0-1-2, 0-2-3
        ("carre", 22),
        ("quatre_premiers", 1),
        ("sixain", 11),
        ("colonne", 3),
        ("douzaine", 3),
        ("colonne_a_cheval", 2),
        ("douzaine_a_cheval", 2),
        ("chance_simple", 6),
    ],
)
def test_number_of_legal_positions(bet_type, count):
    assert Counter(b.type for b in ALL_BETS)[bet_type] == count


def test_bet_kinds_are_distinct_and_total_161():
    assert len(ALL_BETS) == len(set(ALL_BETS)) == 161


def test_chevaux_split_into_horizontal_vertical_and_zero():
    chevaux = [b.numbers for b in ALL_BETS if b.type == "cheval"]
    with_zero = [p for p in chevaux if 0 in p]
    horizontal = [(a, b) for a, b in chevaux if a and b - a == 1]
    vertical = [(a, b) for a, b in chevaux if a and b - a == 3]
    assert sorted(with_zero) == [(0, 1), (0, 2), (0, 3)]
    assert len(horizontal) == 24
    assert all((a - 1) // 3 == (b - 1) // 3 for a, b in horizontal)
    assert len(vertical) == 33


def test_every_position_round_trips_through_make_bet_and_json():
    for bet in ALL_BETS:
        assert make_bet(**bet.to_dict()) == bet
        d = bet.to_dict()
        assert isinstance(d["type"], str)
        assert all(type(n) is int for n in d["numbers"])


def test_numbers_are_sorted_and_match_the_rules_coverage():
    for bet in ALL_BETS:
        assert list(bet.numbers) == sorted(bet.numbers)
        assert set(bet.numbers) == {n for n in range(37) if covers(bet, n)}


def test_payout_times_coverage_is_always_36():
    """k:1 on m numbers pays 36/m per unit back: the 1/37 edge comes from zero only."""
    for bet in ALL_BETS:
        assert bet.payout == PAYS[bet.type]
        assert len(bet.numbers) * (1 + bet.payout) == 36


def test_only_chances_simples_are_even_chances():
    assert [b.chance for b in EVEN_CHANCES] == list(Chance)
    assert all(len(b.numbers) == 18 for b in EVEN_CHANCES)


def test_quatre_premiers_numbers_may_be_omitted():
    assert make_bet("quatre_premiers") == make_bet("quatre_premiers", numbers=[3, 2, 1, 0])


def test_manque_is_1_to_18_not_the_sheets_1_to_17():
    assert make_bet("chance_simple", chance="manque").numbers == tuple(range(1, 19))


def test_third_column_is_3_6_9_not_the_sheets_copy_of_the_first():
    assert make_bet("colonne", which=2).numbers == tuple(range(3, 37, 3))


def test_a_cheval_indices():
    assert make_bet("douzaine_a_cheval", which=1).numbers == tuple(range(13, 37))
    assert make_bet("colonne_a_cheval", which=1).numbers == tuple(sorted([*range(2, 37, 3), *range(3, 37, 3)]))


# --- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        (
            {"type": "cheval", "numbers": [3, 4]},
            "numbers",
        ),  # 3 ends a row, 4 starts one
        ({"type": "cheval", "numbers": [12, 13]}, "numbers"),
        ({"type": "cheval", "numbers": [1, 5]}, "numbers"),
        ({"type": "cheval", "numbers": [0, 4]}, "numbers"),
        ({"type": "cheval", "numbers": [1, 2, 3]}, "numbers"),
        ({"type": "cheval", "numbers": [5, 5]}, "numbers"),
        ({"type": "transversale", "numbers": [1, 5, 9]}, "numbers"),  # C09
        ({"type": "transversale", "numbers": [0, 1, 3]}, "numbers"),
        ({"type": "transversale", "numbers": "1-9"}, "numbers"),
        ({"type": "plein", "numbers": [37]}, "numbers"),
        ({"type": "plein", "numbers": [-1]}, "numbers"),
        ({"type": "plein", "numbers": [True]}, "numbers"),
        ({"type": "plein", "numbers": [5.0]}, "numbers"),
        ({"type": "plein", "numbers": ["5"]}, "numbers"),
        ({"type": "plein", "numbers": 5}, "numbers"),
        ({"type": "plein"}, "numbers"),
        ({"type": "plein", "numbers": [5, 5]}, "numbers"),
        ({"type": "carre", "numbers": [0, 1, 2, 3]}, "numbers"),  # quatre premiers
        ({"type": "carre", "numbers": [0, 1, 3, 4]}, "numbers"),
        ({"type": "carre", "numbers": [2, 3, 5, 6, 7]}, "numbers"),
        ({"type": "carre", "numbers": [3, 4, 6, 7]}, "numbers"),  # wraps a row end
        ({"type": "quatre_premiers", "numbers": [0, 1, 2, 4]}, "numbers"),
        ({"type": "sixain", "numbers": [1, 2, 3, 7, 8, 9]}, "numbers"),
        ({"type": "sixain", "numbers": [2, 3, 4, 5, 6, 7]}, "numbers"),
        ({"type": "douzaine", "which": 1, "numbers": [1, 2]}, "numbers"),
        ({"type": "basket"}, "type"),
        ({"type": 3}, "type"),
        ({"type": "douzaine", "which": 3}, "which"),
        ({"type": "douzaine", "which": -1}, "which"),
        ({"type": "douzaine", "which": True}, "which"),
        ({"type": "colonne"}, "which"),
        ({"type": "colonne_a_cheval", "which": 2}, "which"),
        ({"type": "douzaine_a_cheval", "which": 2}, "which"),
        ({"type": "plein", "numbers": [5], "which": 0}, "which"),
        ({"type": "chance_simple"}, "chance"),
        ({"type": "chance_simple", "chance": "vert"}, "chance"),
        ({"type": "chance_simple", "chance": "rouge", "which": 0}, "which"),
        ({"type": "douzaine", "which": 0, "chance": "rouge"}, "chance"),
    ],
)
def test_illegal_positions_are_refused_with_the_field_at_fault(kwargs, field):
    with pytest.raises(InvalidBet) as err:
        make_bet(**kwargs)
    assert err.value.field == field
    assert isinstance(err.value, ValueError)
    assert err.value.message


def test_numbers_may_come_in_any_order():
    assert make_bet("carre", numbers=[29, 25, 28, 26]).numbers == (25, 26, 28, 29)
    assert make_bet("cheval", numbers=(3, 0)).numbers == (0, 3)


def test_an_illegal_bet_cannot_be_built_directly():
    with pytest.raises(InvalidBet):
        RouletteBet(BetType.CHEVAL, (3, 4))
    with pytest.raises(InvalidBet):
        RouletteBet(BetType.PLEIN, (True,))
    assert RouletteBet("plein", [7]) == make_bet("plein", numbers=[7])


@pytest.mark.parametrize("result", [37, -1, True, "5", 5.0, None])
def test_settle_refuses_a_result_off_the_wheel(result):
    with pytest.raises(InvalidBet) as err:
        settle(make_bet("plein", numbers=[5]), 1000, result)
    assert err.value.field == "result"


@pytest.mark.parametrize("stake", [0, -100, True, 10.0, "1000"])
def test_settle_refuses_a_stake_that_is_not_positive_cents(stake):
    with pytest.raises(InvalidBet) as err:
        settle(make_bet("plein", numbers=[5]), stake, 5)
    assert err.value.field == "stake_cents"


@pytest.mark.parametrize(
    ("bet", "kwargs"),
    [
        (make_bet("plein", numbers=[5]), {"zero_rule": "en_prison", "prison_level": 1}),
        (make_bet("chance_simple", chance="rouge"), {"prison_level": 1}),  # la partage
        (
            make_bet("chance_simple", chance="rouge"),
            {"zero_rule": "en_prison", "prison_level": 2, "double_prison": "lose"},
        ),
        (make_bet("chance_simple", chance="rouge"), {"prison_level": -1}),
    ],
)
def test_settle_refuses_an_impossible_prison_state(bet, kwargs):
    with pytest.raises(InvalidBet) as err:
        settle(bet, 1000, 5, **kwargs)
    assert err.value.field == "prison_level"


def test_settle_refuses_unknown_rule_options():
    bet = make_bet("chance_simple", chance="rouge")
    with pytest.raises(InvalidBet) as err:
        settle(bet, 1000, 0, zero_rule="surrender")
    assert err.value.field == "zero_rule"
    with pytest.raises(InvalidBet) as err:
        settle(bet, 1000, 0, double_prison="forever")
    assert err.value.field == "double_prison"


# --- settlement: exhaustive over the layout --------------------------------------------


@pytest.mark.parametrize("zero_rule", [ZeroRule.LA_PARTAGE, ZeroRule.LOST])
@pytest.mark.parametrize("stake", [1, 1000, 1001, 1503])
def test_every_bet_on_every_result_settles_from_first_principles(zero_rule, stake):
    for bet in ALL_BETS:
        k = PAYS[bet.type]
        for result in range(37):
            s = settle(bet, stake, result, zero_rule=zero_rule)
            if covers(bet, result):
                exact = stake * (1 + k)
                assert (s.outcome, s.return_cents) == (Outcome.WON, floor(exact))
                assert s.winnings_cents == floor(stake * k)
                assert s.unpaid_fraction == exact - floor(exact)
                assert s.house_cents == 0
            elif result == 0 and bet.is_even_chance and zero_rule == "la_partage":
                assert s.outcome == Outcome.HALF_LOST
                assert s.return_cents == stake // 2
                assert s.house_cents == -(-stake // 2)
            else:
                assert (s.outcome, s.return_cents, s.house_cents) == (
                    Outcome.LOST,
                    0,
                    stake,
                )
            assert s.prison_level_after == 0
            assert s.stake_cents == stake


def test_en_prison_only_touches_even_chances_on_zero():
    for bet in ALL_BETS:
        for result in range(37):
            prison = settle(bet, 1000, result, zero_rule=ZeroRule.EN_PRISON)
            if bet.is_even_chance and result == 0:
                assert prison.outcome == Outcome.IMPRISONED
                assert prison.prison_level_after == 1
                assert (prison.return_cents, prison.house_cents) == (0, 0)
            else:
                assert prison == settle(bet, 1000, result, zero_rule=ZeroRule.LOST)


def test_house_edge_is_one_37th_for_every_bet():
    for bet in ALL_BETS:
        assert house_edge(bet, ZeroRule.LOST) == Fraction(1, 37)
        expected = Fraction(1, 74) if bet.is_even_chance else Fraction(1, 37)
        assert house_edge(bet, ZeroRule.LA_PARTAGE) == expected
        assert house_edge(bet) == expected


def test_house_edge_en_prison():
    """Second zero loses: 1/37 - 18/37² = 19/1369; prison until decided: 1/74."""
    for bet in EVEN_CHANCES:
        assert house_edge(bet, ZeroRule.EN_PRISON) == Fraction(19, 1369)
        stay = house_edge(bet, ZeroRule.EN_PRISON, double_prison=DoublePrison.STAY)
        assert stay == Fraction(1, 74)
        with pytest.raises(ValueError):
            house_edge(bet, ZeroRule.EN_PRISON, double_prison=DoublePrison.DEEPER)
    plein = make_bet("plein", numbers=[0])
    assert house_edge(plein, ZeroRule.EN_PRISON) == Fraction(1, 37)


# --- cases and rounding ----------------------------------------------------------------


def test_c08_zero_is_not_even_la_partage():
    """10 EUR on pair, ball 0, la partage: 5 returned, 5 to the house."""
    s = settle(make_bet("chance_simple", chance="pair"), 1000, 0)
    assert s.outcome == Outcome.HALF_LOST
    assert (s.return_cents, s.house_cents, s.winnings_cents) == (500, 500, 0)
    assert s.unpaid_fraction == 0


def test_c08_zero_is_not_even_en_prison():
    """Imprisoned on 0; a 2 next returns the 10 without winnings; an odd number loses it."""
    pair = make_bet("chance_simple", chance="pair")
    jailed = settle(pair, 1000, 0, zero_rule=ZeroRule.EN_PRISON)
    assert jailed.outcome == Outcome.IMPRISONED
    assert (jailed.return_cents, jailed.house_cents, jailed.prison_level_after) == (
        0,
        0,
        1,
    )

    level = jailed.prison_level_after
    freed = settle(pair, 1000, 2, zero_rule=ZeroRule.EN_PRISON, prison_level=level)
    assert freed.outcome == Outcome.RELEASED
    assert (freed.return_cents, freed.winnings_cents, freed.house_cents) == (1000, 0, 0)
    assert freed.prison_level_after == 0

    lost = settle(pair, 1000, 7, zero_rule=ZeroRule.EN_PRISON, prison_level=level)
    assert lost.outcome == Outcome.LOST
    assert (lost.return_cents, lost.house_cents, lost.prison_level_after) == (
        0,
        1000,
        0,
    )


def test_c09_inside_bet_geometry():
    with pytest.raises(InvalidBet) as err:
        make_bet("transversale", numbers=[1, 5, 9])
    assert err.value.field == "numbers"
    s = settle(make_bet("transversale", numbers=[7, 8, 9]), 1000, 8)
    assert (s.outcome, s.return_cents, s.winnings_cents) == (Outcome.WON, 12000, 11000)


def test_half_a_cent_of_winnings_is_rounded_down_and_recorded():
    """1:2 on 10.01 EUR wins 5.005: 5.00 paid, the half cent recorded, paid to nobody."""
    s = settle(make_bet("douzaine_a_cheval", which=0), 1001, 13)
    assert (s.winnings_cents, s.return_cents, s.house_cents) == (500, 1501, 0)
    assert s.unpaid_fraction == Fraction(1, 2)
    s = settle(make_bet("colonne_a_cheval", which=1), 1501, 3)
    assert (s.winnings_cents, s.unpaid_fraction) == (750, Fraction(1, 2))


def test_la_partage_on_an_odd_stake_leaves_the_odd_cent_to_the_house():
    s = settle(make_bet("chance_simple", chance="noir"), 1001, 0)
    assert (s.return_cents, s.house_cents) == (500, 501)
    assert s.return_cents + s.house_cents == 1001
    assert s.unpaid_fraction == Fraction(1, 2)


# --- prison (RULES.md §Prison bets) ----------------------------------------------------

ROUGE = make_bet("chance_simple", chance="rouge")


@pytest.mark.parametrize(
    ("double_prison", "level", "result", "outcome", "level_after", "returned"),
    [
        # a win at level 1 returns the stake only
        ("lose", 1, 21, Outcome.RELEASED, 0, 1000),
        ("stay", 1, 21, Outcome.RELEASED, 0, 1000),
        ("deeper", 1, 21, Outcome.RELEASED, 0, 1000),
        # a losing number loses it at any level
        ("lose", 1, 10, Outcome.LOST, 0, 0),
        ("stay", 1, 10, Outcome.LOST, 0, 0),
        ("deeper", 3, 10, Outcome.LOST, 0, 0),
        # zero again
        ("lose", 1, 0, Outcome.LOST, 0, 0),
        ("stay", 1, 0, Outcome.IMPRISONED, 1, 0),
        ("deeper", 1, 0, Outcome.IMPRISONED, 2, 0),
        ("deeper", 2, 0, Outcome.IMPRISONED, 3, 0),
        # deeper: each win takes one level off; only level 1 frees the stake
        ("deeper", 2, 21, Outcome.IMPRISONED, 1, 0),
        ("deeper", 3, 21, Outcome.IMPRISONED, 2, 0),
    ],
)
def test_prison_transitions(double_prison, level, result, outcome, level_after, returned):
    s = settle(
        ROUGE,
        1000,
        result,
        zero_rule=ZeroRule.EN_PRISON,
        prison_level=level,
        double_prison=double_prison,
    )
    assert (s.outcome, s.prison_level_after, s.return_cents) == (
        outcome,
        level_after,
        returned,
    )
    assert s.winnings_cents == 0  # a bet in prison never wins anything
    assert s.house_cents == (1000 if outcome == Outcome.LOST else 0)


def test_deeper_prison_walk_zero_zero_win_win():
    """Two zeros take the bet to level 2; two wins bring it out with the stake."""
    level, path = 0, []
    for result in (0, 0, 1, 3):
        s = settle(
            ROUGE,
            1000,
            result,
            zero_rule=ZeroRule.EN_PRISON,
            prison_level=level,
            double_prison=DoublePrison.DEEPER,
        )
        level = s.prison_level_after
        path.append((s.outcome, level))
    assert path == [
        (Outcome.IMPRISONED, 1),
        (Outcome.IMPRISONED, 2),
        (Outcome.IMPRISONED, 1),
        (Outcome.RELEASED, 0),
    ]
    assert s.return_cents == 1000


# --- neighbours and announced bets -----------------------------------------------------


def test_neighbours_of_zero():
    assert neighbours_of(0, 2) == (3, 26, 0, 32, 15)
    assert neighbours_of(0) == (3, 26, 0, 32, 15)
    assert neighbours_of(26, 1) == (3, 26, 0)
    assert neighbours_of(17, 0) == (17,)


def test_sheet_neighbours_table_is_four_either_side():
    assert neighbours_of(17, 4) == (4, 21, 2, 25, 17, 34, 6, 27, 13)


@pytest.mark.parametrize(("number", "k"), [(37, 2), (-1, 2), (True, 2), (5, 19), (5, -1)])
def test_neighbours_of_refuses_bad_input(number, k):
    with pytest.raises(InvalidBet):
        neighbours_of(number, k)


@props
@given(number=st.integers(0, 36), k=st.integers(0, 18))
def test_neighbours_are_a_wheel_arc_centred_on_the_number(number, k):
    arc = neighbours_of(number, k)
    assert len(arc) == len(set(arc)) == 2 * k + 1
    assert arc[k] == number
    start = WHEEL.index(arc[0])
    assert arc == tuple(WHEEL[(start + i) % 37] for i in range(2 * k + 1))


def _expand(name, **kw):
    return expand_announced(name, chip_cents=500, **kw)


def _covered(name, **kw):
    return {n for bet, _ in _expand(name, **kw) for n in bet.numbers}


@pytest.mark.parametrize(
    ("name", "chips", "numbers"),
    [("voisins_du_zero", 9, 17), ("tiers_du_cylindre", 6, 12),
     ("orphelins_a_cheval", 5, 8), ("orphelins_en_plein", 8, 8)],
)  # fmt: skip
def test_announced_chip_and_number_counts(name, chips, numbers):
    assert sum(c for _, c in _expand(name)) == chips
    assert len(_covered(name)) == numbers


def test_voisins_tiers_orphelins_are_wheel_arcs_that_cover_the_wheel_once():
    voisins = _covered("voisins_du_zero")
    tiers = _covered("tiers_du_cylindre")
    orphelins = _covered("orphelins_a_cheval")
    assert orphelins == _covered("orphelins_en_plein")
    assert voisins | tiers | orphelins == set(range(37))
    assert len(voisins) + len(tiers) + len(orphelins) == 37
    assert voisins == set(neighbours_of(26, 8))  # 22 ... 0 ... 25 on the wheel
    assert tiers == {WHEEL[(WHEEL.index(27) + i) % 37] for i in range(12)}


@pytest.mark.parametrize("digit", range(10))
def test_finale_en_plein(digit):
    components = _expand(f"finale_en_plein_{digit}")
    assert [b.numbers[0] for b, _ in components] == list(range(digit, 37, 10))
    assert all(b.type == "plein" and c == 1 for b, c in components)
    assert len(components) == (4 if digit <= 6 else 3)


def _layout_neighbours() -> set[frozenset[int]]:
    """Pairs side by side on the layout, from its geometry alone: 1-36 in 12 rows of 3
    (n at row (n-1)//3, column (n-1)%3), beside in a row or above in a column; 0 against 1, 2, 3."""
    where = {n: divmod(n - 1, 3) for n in range(1, 37)}
    pairs = {
        frozenset((x, y))
        for x in where
        for y in where
        if x < y and abs(where[x][0] - where[y][0]) + abs(where[x][1] - where[y][1]) == 1
    }
    return pairs | {frozenset((0, n)) for n in (1, 2, 3)}


NEIGHBOURS = _layout_neighbours()
# The chevaux of each finale à cheval, as sheet 000 writes them (and as "finale 7-10" is called).
SHEET_FINALES = {
    (0, 3): ["0-3", "10-13", "20-23", "30-33"],
    (1, 4): ["1-4", "11-14", "21-24", "31-34"],
    (2, 5): ["2-5", "12-15", "22-25", "32-35"],
    (3, 6): ["3-6", "13-16", "23-26", "33-36"],
    (6, 9): ["6-9", "16-19", "26-29"],
}
MORE_FINALES = {
    (7, 10): ["7-10", "17-20", "27-30"],
    (8, 11): ["8-11", "18-21", "28-31"],
    (9, 12): ["9-12", "19-22", "29-32"],
}
MORE = {"finales_a_cheval_7_10_8_11_9_12"}


def test_a_table_offers_the_sheets_five_finales_a_cheval_and_no_other():
    """Sheet 000: "Finales 0-3 … Finales 6-9": five finales à cheval; the layout's other pairs
    of finals (0-1, 4-7, 0-7 …) are not announced."""
    named = {name for name in ANNOUNCED if name.startswith("finale_a_cheval_")}
    assert named == {f"finale_a_cheval_{a}_{b}" for a, b in {**SHEET_FINALES, **MORE_FINALES}}
    for name in ("finale_a_cheval_0_7", "finale_a_cheval_1_8", "finale_a_cheval_2_9", "finale_a_cheval_4_7"):
        with pytest.raises(InvalidBet) as err:
            _expand(name, options=MORE)
        assert err.value.field == "announce"


@pytest.mark.parametrize(("a", "b"), sorted(SHEET_FINALES))
def test_the_sheets_finales_a_cheval_are_its_chevaux_exactly(a, b):
    """Sheet 000: "Finales 6-9 = 6-9, 16-19, 26-29": three chevaux, no chip on 36; 0-3 to 3-6
    four chevaux. One chip a cheval, nothing else."""
    components = _expand(f"finale_a_cheval_{a}_{b}")
    assert ["-".join(map(str, bet.numbers)) for bet, _ in components] == SHEET_FINALES[(a, b)]
    assert {(bet.type, chips) for bet, chips in components} == {("cheval", 1)}


@pytest.mark.parametrize(("a", "b"), sorted(MORE_FINALES))
def test_finales_7_10_8_11_9_12_are_three_chevaux_under_their_table_option_only(a, b):
    """Not on sheet 000; casinos announce "finale 7-10" as 7-10, 17-20, 27-30 (no chip on 0, 1
    or 2). Refused (field announce) unless the table option is on."""
    name = f"finale_a_cheval_{a}_{b}"
    with pytest.raises(InvalidBet) as err:
        _expand(name)
    assert err.value.field == "announce"
    components = _expand(name, options=MORE)
    assert ["-".join(map(str, bet.numbers)) for bet, _ in components] == MORE_FINALES[(a, b)]
    assert {(bet.type, chips) for bet, chips in components} == {("cheval", 1)}


@pytest.mark.parametrize(("a", "b"), sorted({**SHEET_FINALES, **MORE_FINALES}))
def test_a_finale_a_cheval_settles_17_to_1_on_its_winning_cheval(a, b):
    """Every result 0-36: the chip on the winning cheval returns 18 chips, every other chip is
    lost; a number on none of its chevaux loses them all (36 for 6-9)."""
    chip = 500
    components = _expand(f"finale_a_cheval_{a}_{b}", options=MORE)
    covered = {n for pair in (MORE_FINALES | SHEET_FINALES)[(a, b)] for n in map(int, pair.split("-"))}
    for result in range(37):
        returned = sum(settle(bet, chips * chip, result).return_cents for bet, chips in components)
        assert returned == (18 * chip if result in covered else 0), result
    assert all(frozenset(bet.numbers) in NEIGHBOURS for bet, _ in components)


@pytest.mark.parametrize("n", range(1, 10))
def test_figures(n):
    components = _expand(f"figures_{n}")
    assert [b.numbers[0] for b, _ in components] == [n, n + 9, n + 18, n + 27]
    assert all(b.type == "plein" and c == 1 for b, c in components)


def test_a_number_and_its_voisins():
    components = _expand("voisins", number=17)
    assert [b.numbers[0] for b, _ in components] == [2, 25, 17, 34, 6]  # wheel order
    assert all(b.type == "plein" and c == 1 for b, c in components)
    assert len(_expand("voisins", number=0, neighbours=18)) == 37


def test_every_announce_expands_to_legal_bets():
    for name in ANNOUNCED:
        kw = {"number": 5} if name == "voisins" else {}
        components = _expand(name, **kw, options=MORE)
        assert components
        assert all(make_bet(**b.to_dict()) == b and c >= 1 for b, c in components)
    # 4 sector bets, 10 finales en plein, 5 + 3 finales à cheval, 9 figures, voisins
    assert len(ANNOUNCED) == len(set(ANNOUNCED)) == 32


@pytest.mark.parametrize(
    ("name", "kwargs", "field"),
    [
        ("voisin_du_zero", {}, "announce"),
        ("finale_en_plein_10", {}, "announce"),
        ("figures_0", {}, "announce"),
        ("finale_a_cheval_0_2", {}, "announce"),
        ("finale_a_cheval_7_4", {}, "announce"),
        (None, {}, "announce"),
        ("voisins", {}, "number"),
        ("voisins", {"number": 37}, "number"),
        ("voisins", {"number": 5, "neighbours": 0}, "neighbours"),
        ("voisins", {"number": 5, "neighbours": 19}, "neighbours"),
        ("tiers_du_cylindre", {"number": 5}, "number"),
        ("tiers_du_cylindre", {"chip_cents": 0}, "chip_cents"),
        ("tiers_du_cylindre", {"chip_cents": 2.5}, "chip_cents"),
    ],
)
def test_bad_announces_are_refused(name, kwargs, field):
    kwargs = {"chip_cents": 500, **kwargs}
    with pytest.raises(InvalidBet) as err:
        expand_announced(name, **kwargs)
    assert err.value.field == field


# --- properties ------------------------------------------------------------------------


@props
@given(
    bet=st.sampled_from(ALL_BETS),
    stake=st.integers(1, 10**9),
    result=st.integers(0, 36),
    zero_rule=st.sampled_from(list(ZeroRule)),
)
def test_money_is_conserved_on_a_fresh_bet(bet, stake, result, zero_rule):
    s = settle(bet, stake, result, zero_rule=zero_rule)
    assert all(type(v) is int for v in (s.return_cents, s.winnings_cents, s.house_cents))
    assert 0 <= s.unpaid_fraction < 1
    if s.outcome == Outcome.WON:
        assert s.return_cents - stake == s.winnings_cents == floor(stake * bet.payout)
        assert s.house_cents == 0
        assert s.winnings_cents + s.unpaid_fraction == stake * bet.payout
    elif s.outcome in (Outcome.LOST, Outcome.HALF_LOST):
        assert s.return_cents + s.house_cents == stake
        assert s.winnings_cents == 0
        assert s.return_cents <= s.house_cents
    else:
        assert s.outcome == Outcome.IMPRISONED
        assert (s.return_cents, s.house_cents, s.prison_level_after) == (0, 0, 1)


@props
@given(
    bet=st.sampled_from(EVEN_CHANCES),
    stake=st.integers(1, 10**9),
    result=st.integers(0, 36),
    double_prison=st.sampled_from(list(DoublePrison)),
    level=st.integers(1, 6),
)
def test_a_bet_in_prison_never_returns_more_than_its_stake(bet, stake, result, double_prison, level):
    if double_prison != DoublePrison.DEEPER:
        level = 1
    s = settle(
        bet,
        stake,
        result,
        zero_rule=ZeroRule.EN_PRISON,
        prison_level=level,
        double_prison=double_prison,
    )
    assert s.winnings_cents == 0 and s.unpaid_fraction == 0
    assert s.return_cents in (0, stake)
    assert s.return_cents + s.house_cents == (0 if s.outcome == Outcome.IMPRISONED else stake)
    assert abs(s.prison_level_after - level) <= 1 or s.prison_level_after == 0


@props
@given(bet=st.sampled_from(ALL_BETS), data=st.data())
def test_any_order_of_the_numbers_gives_the_same_bet(bet, data):
    shuffled = data.draw(st.permutations(bet.numbers))
    d = bet.to_dict()
    assert make_bet(d["type"], numbers=shuffled, which=d.get("which"),
                    chance=d.get("chance")) == bet  # fmt: skip


@props
@given(numbers=st.lists(st.integers(0, 36), min_size=1, max_size=6, unique=True),
       bet_type=st.sampled_from(["plein", "cheval", "transversale", "carre", "sixain"]))  # fmt: skip
def test_make_bet_accepts_exactly_the_layout_positions(numbers, bet_type):
    legal = {b.numbers for b in ALL_BETS if b.type == bet_type}
    try:
        bet = make_bet(bet_type, numbers=numbers)
    except InvalidBet as err:
        assert err.field == "numbers"
        assert tuple(sorted(numbers)) not in legal
    else:
        assert bet.numbers in legal

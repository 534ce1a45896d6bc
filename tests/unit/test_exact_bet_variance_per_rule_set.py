"""Each bet's outcome distribution per unit staked: exact mean (−edge) and variance."""

from fractions import Fraction as F

import pytest

from games.catalog import GAMES
from games.rules import baccarat
from games.rules.bet_variance import (
    BLACKJACK_PUBLISHED_SD,
    baccarat_distribution,
    caribbean_distribution,
    caribbean_line_variance,
    mean,
    moments,
    nearest_root,
    roulette_distribution,
    roulette_line_variance,
    tq_distribution,
    variance,
)
from games.rules.caribbean_edge import caribbean_exact_edge
from games.rules.house_edges import tq_edge
from games.rules.prison import PrisonRules
from games.rules.trente_quarante import APRES, NOIR, REFAIT, exact_probabilities


def test_roulette_straight_up_has_mean_minus_one_37th_and_its_exact_variance():
    assert moments(roulette_distribution(1, F(35))) == (F(-1, 37), 35**2 * F(1, 37) + 1 * F(36, 37) - F(1, 37) ** 2)
    assert variance(roulette_distribution(1, F(35))) == F(46656, 1369)


@pytest.mark.parametrize(("covered", "payout"), [(2, 17), (3, 11), (4, 8), (6, 5), (12, 2), (24, F(1, 2))])
def test_every_roulette_number_bet_keeps_one_37th_and_has_k_squared_variance(covered, payout):
    p = F(covered, 37)
    m, v = moments(roulette_distribution(covered, F(payout)))
    assert m == F(-1, 37)
    assert v == F(payout) ** 2 * p + (1 - p) - F(1, 37) ** 2


def test_even_chance_under_la_partage_loses_half_on_zero():
    m, v = moments(roulette_distribution(18, F(1), True, "la_partage"))
    assert m == F(-1, 74)
    assert v == F(36, 37) + F(1, 4) * F(1, 37) - F(1, 74) ** 2


def test_even_chance_en_prison_is_released_or_lost_as_double_prison_says():
    lose = roulette_distribution(18, F(1), True, "en_prison", "lose")
    assert dict(lose) == {F(-1): F(18, 37) + F(19, 37**2), F(0): F(18, 37**2), F(1): F(18, 37)}
    assert mean(lose) == F(-19, 1369)
    stay = roulette_distribution(18, F(1), True, "en_prison", "stay")
    assert moments(stay) == (F(-1, 74), F(36, 37) + F(1, 74) - F(1, 74) ** 2)


def test_baccarat_bets_follow_the_shoe_and_the_commission():
    rules = baccarat.BaccaratRules.from_dict({})
    p = baccarat.exact_probabilities(rules.decks)
    for bet in ("player", "banker", "tie"):
        assert -mean(baccarat_distribution(bet, rules)) == baccarat.house_edge(bet, rules)
    banker = F(95, 100)
    assert variance(baccarat_distribution("banker", rules)) == (
        banker**2 * p["banker"] + p["player"] - (banker * p["banker"] - p["player"]) ** 2
    )
    assert f"{float(variance(baccarat_distribution('banker', rules))) ** 0.5:.4f}" == "0.9274"
    assert f"{float(variance(baccarat_distribution('tie', rules))) ** 0.5:.4f}" == "2.6409"


@pytest.mark.parametrize("double_prison", ["lose", "stay"])
def test_trente_et_quarante_per_coup_matches_the_edge_of_house_edges(double_prison):
    dist = tq_distribution(double_prison)
    assert -mean(dist) == tq_edge(PrisonRules.from_dict({"double_prison": double_prison}))
    p = exact_probabilities(6)
    released = p[NOIR] / (1 - p[REFAIT]) if double_prison == "lose" else F(1, 2)
    lost = p[APRES] * (1 - released)
    assert variance(dist) == 2 * p[NOIR] + lost - lost**2


@pytest.mark.parametrize("pay_table", ["sheet", "common"])
def test_caribbean_ante_and_raise_come_from_the_edges_enumeration(pay_table):
    dist = caribbean_distribution(pay_table)
    assert -mean(dist) == caribbean_exact_edge(pay_table, 2)[0]
    assert sum(p for _, p in dist) == 1
    assert max(v for v, _ in dist) == 1 + 2 * 100  # a royal flush against a qualified dealer


def test_caribbean_variance_sits_on_the_ante_line_only():
    assert caribbean_line_variance({}, {"line": "raise"}) == 0
    assert caribbean_line_variance({}, {"line": "ante"}) == variance(caribbean_distribution("sheet"))
    assert f"{float(variance(caribbean_distribution('common'))) ** 0.5:.3f}" == "2.283"


def test_roulette_line_reads_the_position_and_a_prison_release_as_an_even_chance():
    assert roulette_line_variance({}, {"position": {"type": "plein", "numbers": [17]}}) == F(46656, 1369)
    assert roulette_line_variance({"zero_rule": "en_prison"}, {}) == variance(
        roulette_distribution(18, F(1), True, "en_prison", "lose")
    )
    assert roulette_line_variance({}, {"position": {"type": "plein", "numbers": [40]}}) is None


def test_every_game_declares_a_line_variance_and_black_jack_is_the_labelled_published_one():
    assert all(spec.line_variance is not None for spec in GAMES.values() if spec.code != "toy")
    assert GAMES["blackjack"].line_variance({}, {}) == BLACKJACK_PUBLISHED_SD**2 == F(529, 400)
    assert GAMES["classic_stud"].line_variance({}, {}) == 0


@pytest.mark.parametrize(
    ("variance", "cents"),
    [
        (F(0), 0),
        (F(1), 1),
        (F(2), 1),  # 1.414…
        (F(9, 4), 2),  # 1.5 exactly: halves up
        (F(224), 15),  # 14.966…
        (F(10_000**2), 10_000),
        (F(10_000**2 + 10_000), 10_000),  # 10,000.49998…
        (F(10_000**2 + 10_001), 10_001),  # 10,000.50003…
    ],
)
def test_a_standard_deviation_is_rounded_to_the_nearest_whole_cent(variance, cents):
    assert nearest_root(variance) == cents

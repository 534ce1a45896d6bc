"""The stored exact odds of trente-et-quarante and baccarat shoes (games.rules.shoe_odds) are the
engines' enumerations, cover every shoe the tables accept, and are what the house edges read."""

from fractions import Fraction

import pytest

from basis.errors import RuleError
from games.rules import baccarat, shoe_odds, trente_quarante
from games.rules.baccarat import BaccaratRules
from games.rules.house_edges import tq_edge
from games.rules.prison import PrisonRules
from games.rules.tq_table import TrenteQuaranteTableRules
from games.theory import house_edge


def _accepted_decks(make) -> list[int]:
    accepted = []
    for decks in range(0, 12):
        try:
            make(decks)
        except RuleError:
            continue
        accepted.append(decks)
    return accepted


def test_every_shoe_the_tables_accept_is_stored():
    tq_decks = _accepted_decks(lambda d: TrenteQuaranteTableRules.from_dict({"decks": d}))
    baccarat_decks = _accepted_decks(lambda d: BaccaratRules.from_dict({"decks": d}))
    assert tq_decks == baccarat_decks == [1, 2, 3, 4, 5, 6, 7, 8]
    assert sorted(shoe_odds.TRENTE_QUARANTE) == tq_decks
    assert sorted(shoe_odds.BACCARAT) == baccarat_decks


@pytest.mark.parametrize("decks", range(1, 9))
def test_each_stored_shoe_is_a_whole_distribution(decks):
    tq = shoe_odds.stored_trente_quarante(decks)
    assert set(tq) == {"noir", "rouge", "refait", "apres"}
    assert sum(tq.values()) == 1
    assert tq["noir"] == tq["rouge"]  # the rows are exchangeable
    bac = shoe_odds.stored_baccarat(decks)
    assert set(bac) == {"player", "banker", "tie"}
    assert sum(bac.values()) == 1
    assert all(isinstance(v, Fraction) and 0 < v < 1 for v in (*tq.values(), *bac.values()))


# The full recomputation of every shoe is `python -m tests.benchmarks.enumerate_shoe_odds --check`
# (about 18 s of CPU); these are the cheap shoes and the tables' defaults (about 5 s).
@pytest.mark.parametrize("decks", [1, 2, 6])
def test_stored_trente_quarante_shoe_equals_the_enumeration(decks):
    assert trente_quarante._exact_probabilities.__wrapped__(decks) == shoe_odds.stored_trente_quarante(decks)


@pytest.mark.parametrize("decks", [1, 8])
def test_stored_baccarat_shoe_equals_the_enumeration_through_deal_coup(decks):
    assert baccarat._exact_probabilities.__wrapped__(decks) == shoe_odds.stored_baccarat(decks)


def test_every_accepted_rule_set_edge_comes_from_the_store_without_enumerating(monkeypatch):
    def refuse(decks):
        raise AssertionError(f"enumerated a {decks}-deck shoe")

    monkeypatch.setattr(trente_quarante, "_exact_probabilities", refuse)
    monkeypatch.setattr(baccarat, "_exact_probabilities", refuse)
    for decks in range(1, 9):
        p = shoe_odds.stored_trente_quarante(decks)
        lose = tq_edge(PrisonRules(double_prison="lose"), decks)
        assert lose == p["apres"] * (1 - p["noir"] / (1 - p["refait"]))
        assert tq_edge(PrisonRules(double_prison="stay"), decks) == p["apres"] / 2
        assert float(p["apres"] / 2) < tq_edge(PrisonRules(double_prison="deeper"), decks) < float(lose)
        b = shoe_odds.stored_baccarat(decks)
        for pct in (0, 4, 5):
            rules = BaccaratRules(decks=decks, banker_commission_pct=pct)
            assert baccarat.house_edge("banker", rules) == b["player"] - Fraction(100 - pct, 100) * b["banker"]
        assert baccarat.house_edge("tie", BaccaratRules(decks=decks, tie_pays=9)) == 1 - 10 * b["tie"]


def test_a_shoe_not_stored_is_enumerated(monkeypatch):
    monkeypatch.setattr(trente_quarante, "stored_trente_quarante", lambda decks: None)
    monkeypatch.setattr(baccarat, "stored_baccarat", lambda decks: None)
    trente_quarante._exact_probabilities.cache_clear()
    baccarat._exact_probabilities.cache_clear()
    assert trente_quarante.exact_probabilities(1) == shoe_odds.stored_trente_quarante(1)
    assert baccarat.exact_probabilities(1) == shoe_odds.stored_baccarat(1)
    assert trente_quarante._exact_probabilities.cache_info().currsize == 1
    assert baccarat._exact_probabilities.cache_info().currsize == 1


def test_the_floor_edges_of_the_default_tables_are_the_stored_odds():
    p = shoe_odds.stored_baccarat(8)
    edge, _ = house_edge("baccarat", {"banker_commission_pct": 5})
    assert edge == round(p["player"] - Fraction(95, 100) * p["banker"], 6) == Fraction(10579, 1_000_000)

"""The black jack house edge by exact analysis, against the Wizard of Odds' Appendix 9 tables
(composition-dependent combinatorial analysis; resplit to 4 hands except aces, one card to
split aces, double on any two cards, no surrender, 3:2): within 0.03 percentage points."""

from dataclasses import replace
from fractions import Fraction

import pytest

from games.rules import blackjack_edge as blackjack_edge_module
from games.rules.blackjack import BlackjackRules, DoubleOn
from games.rules.blackjack_edge import KNOWN_EDGES, SHEET_EDGES, blackjack_edge, computed_edge, expected_return
from games.rules.blackjack_known_edges import STORED_EDGES
from games.rules.blackjack_table import BlackjackTableRules

TOLERANCE = 0.0003  # 0.03 percentage points


def _appendix_rules(decks: int, hole_card: bool, das: bool) -> BlackjackRules:
    return BlackjackRules(
        decks=decks,
        hole_card=hole_card,
        double_on=DoubleOn.ANY,
        double_after_split=das,
        max_split_hands=4,
        immediate_payouts=(),
    )


@pytest.mark.parametrize(
    ("decks", "hole_card", "hit_soft_17", "das", "published"),
    [
        (1, True, False, True, 0.001839),  # appendix/9/1ds17r4
        (1, True, False, False, 0.000423),
        (2, True, True, True, -0.003797),  # appendix/9/2dh17r4
        (6, False, True, True, -0.0072705),  # appendix/9/euro-6dh17r4
        (6, False, True, False, -0.0086975),
    ],
)
def test_expected_return_matches_the_published_combinatorial_analysis(decks, hole_card, hit_soft_17, das, published):
    computed = expected_return(_appendix_rules(decks, hole_card, das), hit_soft_17=hit_soft_17)
    assert computed == pytest.approx(published, abs=TOLERANCE)


def test_six_decks_hole_card_s17_das_edge_is_the_published_0_40_percent():
    # Wizard of Odds house edge calculator, 6 decks S17 DAS peek, resplit to 4: about 0.40 %.
    rules = BlackjackRules(hole_card=True, double_on=DoubleOn.ANY, max_split_hands=4, immediate_payouts=())
    assert float(blackjack_edge(rules)) == pytest.approx(0.0040, abs=TOLERANCE)


def test_default_rules_edge_without_immediate_payouts_is_the_benchmark_reference():
    # tests/benchmarks/bench_blackjack.py: 0.636 % published (calculator + rule effects),
    # 0.653 % ± 0.035 % simulated through the engine over 10 million hands.
    assert float(blackjack_edge(BlackjackRules(immediate_payouts=()))) == pytest.approx(0.00636, abs=TOLERANCE)


def test_immediate_payouts_and_the_hole_card_lower_the_edge():
    default = blackjack_edge(BlackjackRules())
    assert default < blackjack_edge(BlackjackRules(immediate_payouts=()))
    assert blackjack_edge(BlackjackRules(hole_card=True)) < default


def test_table_rules_use_the_computed_edge_unless_one_is_set():
    computed = BlackjackTableRules.from_dict({})
    assert computed.edge() == Fraction(blackjack_edge(BlackjackRules(immediate_payouts=())))
    assert "house_edge" not in computed.to_dict()
    assert BlackjackTableRules.from_dict({"house_edge": "13/2000"}).edge() == Fraction(13, 2000)


def test_the_sheets_edges_kept_ahead_are_the_analysis():
    for rules, edge in SHEET_EDGES.items():
        assert computed_edge(rules) == edge


# All of them: `python -m tests.benchmarks.enumerate_blackjack_edges --check` (45 s of CPU).
@pytest.mark.parametrize(
    "options",
    [
        {"decks": 8, "immediate_payouts": []},
        {"hole_card": True, "double_on": "any", "max_split_hands": None, "blackjack_pays": "6:5"},
    ],
)
def test_stored_variant_edges_are_the_analysis(options):
    rules = BlackjackRules.from_dict(options)
    assert (options, str(KNOWN_EDGES[rules])) in STORED_EDGES
    assert computed_edge(rules) == KNOWN_EDGES[rules]


def test_each_sheet_with_one_option_changed_is_stored_and_read_without_the_analysis(monkeypatch):
    monkeypatch.setattr(blackjack_edge_module, "computed_edge", lambda rules: pytest.fail(f"analysed {rules}"))
    assert len(KNOWN_EDGES) == len(SHEET_EDGES) + len(STORED_EDGES) == 3 + 31
    for options in ({"decks": d, "immediate_payouts": []} for d in range(1, 9)):
        assert blackjack_edge(BlackjackRules.from_dict(options)) == KNOWN_EDGES[BlackjackRules.from_dict(options)]
    sheet_000 = BlackjackRules(immediate_payouts=())
    assert blackjack_edge(replace(sheet_000, decks=1)) < blackjack_edge(replace(sheet_000, decks=8))  # fewer help
    six_five = blackjack_edge(replace(sheet_000, blackjack_pays=Fraction(6, 5)))
    # 3:2 → 6:5 takes 0.3 of a stake from each blackjack (about 4.5 % of hands): 1.36 %
    assert float(six_five - blackjack_edge(sheet_000)) == pytest.approx(0.0136, abs=0.0005)


def test_a_rule_set_not_stored_is_analysed():
    rules = BlackjackRules(decks=8, hole_card=True)
    assert rules not in KNOWN_EDGES
    assert blackjack_edge(rules) == computed_edge(rules)


def test_letting_bettors_behind_follow_leaves_the_edge_per_initial_bet_and_its_stored_figure(monkeypatch):
    """``behind_may_follow`` changes nothing of the seated player's play: the stored edge of each
    sheet serves the table with the option on, read without the analysis."""
    monkeypatch.setattr(blackjack_edge_module, "computed_edge", lambda rules: pytest.fail(f"analysed {rules}"))
    for rules in SHEET_EDGES:
        assert blackjack_edge(replace(rules, behind_may_follow=True)) == SHEET_EDGES[rules]
    table = BlackjackTableRules.from_dict({"preset": "sheet_000", "behind_may_follow": True})
    assert table.edge() == BlackjackTableRules.from_dict({"preset": "sheet_000"}).edge()

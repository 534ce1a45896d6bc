"""Every game's house edge with its basis, against exact or published values."""

from decimal import Decimal
from fractions import Fraction

import pytest

from games.rules.house_edges import tq_edge
from games.rules.prison import PrisonRules
from games.rules.trente_quarante import APRES, NOIR, REFAIT, exact_probabilities
from games.theory import house_edge, settled_line_edge


def test_roulette_edge_is_one_37th_and_names_the_even_chances():
    edge, basis = house_edge("english_roulette", {"zero_rule": "la_partage"})
    assert edge == Decimal("0.027027")
    assert "1/74" in basis


def test_baccarat_edge_is_the_banker_bets():
    edge, basis = house_edge("baccarat", {})
    assert edge == Decimal("0.010579")
    assert "player 1.2351 %" in basis and "tie 14.3596 %" in basis


def test_trente_quarante_edge_per_prison_option():
    p = exact_probabilities(6)
    lose = tq_edge(PrisonRules(double_prison="lose"))
    assert lose == p[APRES] * (1 - p[NOIR] / (1 - p[REFAIT]))
    assert tq_edge(PrisonRules(double_prison="stay")) == p[APRES] / 2  # the same as half lost
    deeper = tq_edge(PrisonRules(double_prison="deeper"))
    assert float(p[APRES] / 2) < deeper < float(lose)
    # from the published coup probabilities (après 0.021891, noir 0.445201, refait 0.087708):
    # 0.021891 × (1 − 0.445201 / 0.912292) = 1.1208 %; half of the après = 1.0946 %
    assert float(lose) == pytest.approx(0.011208, abs=0.000001)
    assert float(p[APRES] / 2) == pytest.approx(0.010946, abs=0.000001)
    edge, basis = house_edge("trente_quarante", {"double_prison": "lose"})
    assert edge == Decimal(float(lose)).quantize(Decimal("0.000001"))
    assert "prison" in basis


def test_trente_quarante_lines_carry_the_edge_spread_over_the_settled_bets():
    p = exact_probabilities(6)
    line = Fraction(settled_line_edge("trente_quarante", {}))
    assert line * (1 - p[APRES]) == pytest.approx(tq_edge(PrisonRules()), abs=1e-9)


def test_caribbean_edge_per_pay_table_and_line():
    sheet, sheet_basis = house_edge("caribbean_stud", {"pay_table": "sheet"})
    common, common_basis = house_edge("caribbean_stud", {"pay_table": "common"})
    assert sheet < common  # the sheet pays more on straights, flushes and full houses
    assert (sheet, common) == (Decimal("0.040841"), Decimal("0.056820"))
    # the published 5.224 % is under the perfect strategy (ace-king decided by the dealer's up
    # card); raising every ace-king gives up 0.458 points more (Wizard of Odds: 5.682 %)
    assert Decimal("0.05224") < common < Decimal("0.05224") + Decimal("0.005")
    assert "5.2240 %" in common_basis and "exact" in common_basis and "2.6721 % of the total bet" in common_basis
    assert "1.9207 % of the total bet" in sheet_basis
    assert settled_line_edge("caribbean_stud", {"pay_table": "common"}, "ante") == str(common)
    assert settled_line_edge("caribbean_stud", {"pay_table": "common"}, "raise") == "0"


def test_classic_stud_edge_is_zero_the_theory_is_the_rake():
    edge, basis = house_edge("classic_stud", {})
    assert edge == 0 and "rake" in basis


def test_blackjack_edge_of_the_default_table():
    edge, basis = house_edge("blackjack", {})
    assert edge == Decimal("0.006236")  # preset sheet_000
    assert "6 decks" in basis and "no hole card" in basis and "no immediate payouts" in basis
    assert house_edge("blackjack", {"preset": "sheet_004"})[0] == Decimal("0.002469")
    assert house_edge("blackjack", {"house_edge": "13/2000"})[0] == Decimal("0.006500")


def test_the_dealers_trente_quarante_call_is_the_units_then_the_winning_chances():
    from games.rules.trente_quarante import announcement, deal_rows

    # sheet 003's example: 8-5-J-Q = 33 (the 8 black) then 4-9-A-10-5-8 = 37: "trois … sept", Noir et Couleur
    coup = deal_rows(["8S", "5H", "JD", "QC", "4H", "9D", "AS", "TC", "5D", "8H"])
    assert announcement(coup) == {
        "noir": "trois",
        "rouge": "sept",
        "winners": "Noir et Couleur",
        "text": "trois … sept : Noir et Couleur",
    }
    red_first = deal_rows(["8H", "5H", "JD", "QC", "4H", "9D", "AS", "TC", "5D", "8H"])
    assert announcement(red_first)["winners"] == "Noir et Inverse"
    apres = deal_rows(["TS", "TC", "TH", "AS", "TD", "TH", "TS", "AD"])
    assert announcement(apres)["text"] == "un … un : un après"
    forty = deal_rows(["TS", "TC", "TH", "TD", "TH", "TS", "AD", "TC"])  # 40 then 31
    assert announcement(forty)["noir"] == "quarante"

"""A black jack table starts from one preset per sheet, each wholly its sheet (RULES.md §Black
jack: "offer one preset per sheet … each wholly its sheet"); the default table is sheet 000's."""

from decimal import Decimal

import pytest

from basis.errors import RuleError
from games.rules.blackjack import BlackjackRules, DoubleOn
from games.rules.blackjack_edge import SHEET_EDGES, blackjack_edge
from games.rules.blackjack_table import PRESETS, BlackjackTableRules


def test_the_default_table_is_sheet_000_wholly():
    """Sheet 000: no hole card ("une à lui-même, entre les deux tours"), doubles on "9, 10 ou 11
    points", "un 3e jeu, mais cela ne va pas plus loin", no immediate payout, a seated player on
    "sa case" only, bets behind only "Si la table est complète". Edge 0.6236 % per initial bet."""
    table = BlackjackTableRules.from_dict({})
    assert table.game == BlackjackRules(
        hole_card=False, double_on=DoubleOn.NINE_TO_ELEVEN, max_split_hands=3, immediate_payouts=()
    )
    assert (table.beside_own_box, table.behind_only_when_full) == (0, True)
    assert table.preset == "sheet_000" and table == BlackjackTableRules.from_dict({"preset": "sheet_000"})
    assert blackjack_edge(table.game) == SHEET_EDGES[table.game] == Decimal("0.006236")


def test_the_sheet_004_preset_is_sheet_004_wholly_plus_five_card_21():
    """Sheet 004: the second dealer card "restera fermée", doubling "Après la donne initiale",
    splitting "sans limite", "Paiement immédiat" on three 7s, five 4s, four 5s and six cards of 21
    or less (with the client's five-card 21), bets on the boxes each side of one's own, no full
    table needed to bet behind. Edge 0.2469 % per initial bet."""
    table = BlackjackTableRules.from_dict({"preset": "sheet_004"})
    game = table.game
    assert (game.hole_card, game.double_on, game.max_split_hands) == (True, DoubleOn.ANY, None)
    assert [(p.pattern, p.pays) for p in game.immediate_payouts] == [
        ("three_sevens", 1),
        ("five_fours", 1),
        ("four_fives", 1),
        ("six_cards_21_or_less", 1),
        ("five_cards_21", 1),
    ]
    assert (table.beside_own_box, table.behind_only_when_full) == (1, False)
    assert table.preset == "sheet_004"
    assert blackjack_edge(game) == SHEET_EDGES[game] == Decimal("0.002469")


def test_the_two_sheets_share_what_they_agree_on():
    """6 decks, 3:2, 7 boxes, dealer stands on 17: only the options the sheets disagree on differ."""
    sheet_000, sheet_004 = (BlackjackTableRules.from_dict({"preset": name}) for name in PRESETS)
    assert (sheet_000.game.decks, sheet_000.game.blackjack_pays) == (
        sheet_004.game.decks,
        sheet_004.game.blackjack_pays,
    )
    assert set(PRESETS["sheet_000"]) == set(PRESETS["sheet_004"])


def test_an_option_beside_a_preset_changes_that_option_only_and_the_table_is_no_longer_the_preset():
    table = BlackjackTableRules.from_dict({"preset": "sheet_004", "decks": 8})
    assert table.game.decks == 8 and table.game.hole_card is True and table.preset is None
    assert BlackjackTableRules.from_dict(table.to_dict()) == table  # stored wholly, preset or not


@pytest.mark.parametrize("preset", ["sheet_001", None, 4])
def test_an_unknown_preset_is_refused_naming_the_option(preset):
    with pytest.raises(RuleError) as err:
        BlackjackTableRules.from_dict({"preset": preset})
    assert err.value.field == "rules.preset"

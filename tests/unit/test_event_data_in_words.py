"""An event's data and summary in words, as the auditor's pages show them: counts by
denomination with their total, a card's target, a box's hand counted from 1, roles, hand
results and bet names as people say them, never a repr, a code or a cent count."""

import pytest

from games.rules.bet_words import bet_spot
from games.rules.event_words import ROLE_WORDS, line
from staff.roles import Role
from workstations.templatetags.workstation_tags import data_value, field_label


def test_a_delivered_slips_count_reads_as_pieces_of_a_denomination_with_its_total():
    assert data_value({"100000": 1}, "counted") == "1 × 1,000 EUR (total 1,000.00 EUR)"
    assert data_value({"50000": 2, "100": 3}, "denominations") == "3 × 1 EUR, 2 × 500 EUR (total 1,003.00 EUR)"


def test_a_cards_target_reads_as_the_players_box_and_hand_counted_from_one():
    target = {"type": "DrawTarget", "kind": "player", "box": 2, "hand_index": 0}
    assert data_value(target, "to") == "player's box 2, hand 1"
    assert data_value({"type": "DrawTarget", "kind": "dealer", "box": None, "hand_index": 0}, "to") == "dealer"
    assert (field_label("hand_index"), data_value(1, "hand_index")) == ("hand", "2")


def test_cards_and_nested_objects_read_without_their_class_or_codes():
    assert data_value("AD", "card") == "A♦"
    assert data_value(["TS", "QH"], "cards") == "10♠ Q♥"
    shown = data_value({"seat": 2, "type": "ShownHand", "cards": ["4D", "QS"]}, "hands")
    assert shown == "seat: 2; cards: 4♦ Q♠"
    assert data_value({"cage:cash": 500}, "variance_cents") == "Cage cash: 5.00 EUR"
    assert data_value({"opener": "highest_card"}, "rules") == "opener: highest card"
    assert data_value("shift_cashier", "issued_by") == "shift_cashier"  # a person's name as written


def test_amounts_kept_as_text_and_edges_read_in_currency_and_percent():
    assert data_value("210", "rake_owed_cents") == "2.10 EUR"
    assert data_value("1559/250000", "house_edge") == "0.624%"


@pytest.mark.parametrize(
    ("kind", "data", "said"),
    [
        (
            "StaffRolesChanged",
            {"user": "demo-pitboss", "before": [], "after": ["pit_boss"]},
            "roles of demo-pitboss: pit boss (were: none)",
        ),
        (
            "HandClosed",
            {"box": 2, "hand_index": 0, "reason": "twenty_one", "total": 21},
            "box 2 hand 1: twenty-one at 21",
        ),
        (
            "HandClosed",
            {"box": 1, "hand_index": 1, "reason": "split_ace", "total": 14},
            "box 1 hand 2: split ace (one card) at 14",
        ),
    ],
)
def test_summaries_name_roles_and_hand_results_in_words(kind, data, said):
    assert line(kind, data) == said


def test_bets_read_as_players_name_them():
    assert bet_spot({"type": "quatre_premiers", "numbers": [0, 1, 2, 3]}) == "quatre premiers 0-1-2-3"
    assert bet_spot({"type": "carre", "numbers": [1, 2, 4, 5]}) == "carré 1-2-4-5"
    assert bet_spot({"game": "caribbean_stud", "bet": "pair_plus"}) == "pair plus"


def test_every_staff_role_has_its_words():
    assert set(Role.values) <= set(ROLE_WORDS)
    assert all("_" not in words for words in ROLE_WORDS.values())

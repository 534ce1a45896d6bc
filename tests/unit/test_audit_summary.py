"""The audit trail's one-line summaries name where each bet lies, for every game."""

import pytest

from ledger.projections.audit import summary

BET = {"patron": "P00001", "stake_cents": 2_500, "chips": "value"}


@pytest.mark.parametrize(
    ("position", "where"),
    [
        ({"type": "straight", "numbers": [17]}, "straight 17"),
        ({"type": "split", "numbers": [17, 20]}, "split 17-20"),
        ({"type": "even_chance", "chance": "red"}, "even_chance red"),
        ({"game": "blackjack", "box": 3, "seated": True}, "box 3"),
        ({"game": "blackjack", "box": 3, "seated": False}, "box 3 (behind)"),
        ({"game": "baccarat", "bet": "banker"}, "banker"),
        ({"game": "trente_quarante", "bet": "rouge"}, "rouge"),
        ({"game": "caribbean_stud", "box": 5}, "box 5"),
        ({"game": "classic_stud", "seat": 2}, "seat 2"),
    ],
)
def test_a_bet_placed_says_where_it_lies(position, where):
    assert summary("BetPlaced", {**BET, "position": position}) == f"P00001 bets 25.00 EUR on {where} (value chips)"


def test_a_settled_card_game_bet_names_its_bet():
    line = summary(
        "BetSettled",
        {**BET, "position": {"game": "baccarat", "bet": "tie"}, "outcome": "won", "return_cents": 22_500},
    )
    assert line == "P00001's 25.00 EUR on tie: won, returns 225.00 EUR"

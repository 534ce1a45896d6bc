"""The audit trail's one-line summaries name where each bet lies, for every game, in the table
page's words (``games.rules.bet_words``): one wording for both."""

import pytest

from games.rules.bet_words import bet_spot
from games.rules.event_words import line as summary

BET = {"patron": "P00001", "stake_cents": 2_500, "chips": "value"}
ROUGE = {"type": "chance_simple", "numbers": [1, 3, 5], "chance": "rouge"}


@pytest.mark.parametrize(
    ("position", "where"),
    [
        ({"type": "plein", "numbers": [17]}, "plein 17"),
        ({"type": "cheval", "numbers": [17, 20]}, "cheval 17-20"),
        (ROUGE, "rouge (even chance)"),
        ({"type": "chance_simple"}, "even chance"),
        ({"type": "douzaine", "numbers": [13, 14], "which": 1}, "second dozen (13-24)"),
        ({"game": "blackjack", "box": 3, "seated": True}, "box 3"),
        ({"game": "blackjack", "box": 3, "seated": False}, "box 3 (behind)"),
        ({"game": "baccarat", "bet": "banker"}, "banker"),
        ({"game": "trente_quarante", "bet": "rouge"}, "rouge"),
        ({"game": "caribbean_stud", "box": 5}, "box 5"),
        ({"game": "classic_stud", "seat": 2}, "seat 2"),
        # Odd data still reads: a type this code does not know in its words, unknown keys as pairs.
        ({"type": "even_chance", "chance": "red"}, "even chance red"),
        ({"colour": "red"}, "colour=red"),
        ({}, "?"),
    ],
)
def test_a_bet_placed_says_where_it_lies(position, where):
    assert summary("BetPlaced", {**BET, "position": position}) == f"P00001 bets 25.00 EUR on {where} (value chips)"


# ``which`` counts from 0 (``roulette.make_bet``); a pit boss counts from the first column or dozen.
@pytest.mark.parametrize(
    ("position", "where"),
    [
        ({"type": "colonne", "which": 0}, "first column (1, 4 … 34)"),
        ({"type": "colonne", "which": 1}, "second column (2, 5 … 35)"),
        ({"type": "colonne", "which": 2}, "third column (3, 6 … 36)"),
        ({"type": "douzaine", "which": 0}, "first dozen (1-12)"),
        ({"type": "douzaine", "which": 2}, "third dozen (25-36)"),
        ({"type": "colonne_a_cheval", "which": 0}, "first and second columns"),
        ({"type": "colonne_a_cheval", "which": 1}, "second and third columns"),
        ({"type": "douzaine_a_cheval", "which": 0}, "first and second dozens (1-24)"),
        ({"type": "douzaine_a_cheval", "which": 1}, "second and third dozens (13-36)"),
    ],
)
def test_a_column_or_dozen_bet_is_named_by_its_place_counted_from_the_first(position, where):
    assert bet_spot(position) == where
    line = summary("BetPlaced", {**BET, "position": position})
    assert line == f"P00001 bets 25.00 EUR on {where} (value chips)"


@pytest.mark.parametrize(
    ("position", "where"),
    [
        ({"type": "colonne", "which": 3}, "colonne 3"),  # the layout has three columns
        ({"type": "douzaine_a_cheval", "which": 2}, "douzaine à cheval 2"),  # and two pairs of dozens
        ({"type": "douzaine", "which": True}, "douzaine True"),  # a bool is not the second dozen
        ({"type": "colonne"}, "colonne"),
    ],
)
def test_a_column_or_dozen_bet_off_the_layout_still_reads_as_it_was_written(position, where):
    assert bet_spot(position) == where


def test_a_bet_placed_without_a_position_says_so_with_a_question_mark():
    assert summary("BetPlaced", BET) == "P00001 bets 25.00 EUR on ? (value chips)"


def test_the_audit_line_and_the_table_page_name_a_bet_alike():
    line = summary("BetPlaced", {**BET, "position": ROUGE})
    assert f"on {bet_spot(ROUGE)} (" in line and "chance_simple" not in line


@pytest.mark.parametrize(("chips", "words"), [(1, "1 chip"), (3, "3 chips"), ("colour", "colour chips")])
def test_a_bet_placed_counts_its_chips_in_the_singular_for_one(chips, words):
    line = summary("BetPlaced", {**BET, "chips": chips, "position": {"type": "plein", "numbers": [17]}})
    assert line == f"P00001 bets 25.00 EUR on plein 17 ({words})"


def test_a_settled_card_game_bet_names_its_bet():
    line = summary(
        "BetSettled",
        {**BET, "position": {"game": "baccarat", "bet": "tie"}, "outcome": "won", "return_cents": 22_500},
    )
    assert line == "P00001's 25.00 EUR on tie: won, returns 225.00 EUR"


def test_a_settled_even_chance_names_its_chance_in_words():
    line = summary("BetSettled", {**BET, "position": ROUGE, "outcome": "lost", "return_cents": 0})
    assert line == "P00001's 25.00 EUR on rouge (even chance): lost, returns 0.00 EUR"

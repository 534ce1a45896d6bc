"""Cards and shoes (RULES.md §Common vocabulary, §Black jack), on the pure engine.

Expected values are recomputed here (hashlib on the documented canonical text, counts of a
6-deck shoe) rather than read back from the engine.
"""

import ast
import hashlib
import pickle
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basis import errors
from basis.errors import RuleError
from games.rules import basic_strategy, blackjack, cards, shoe
from games.rules.cards import Card, deck, parse_card, shoe_cards
from games.rules.shoe import (
    BURN_CARDS_BLACKJACK,
    CardCounter,
    ShoeOrder,
    commitment,
    validate_cut,
    verify_commitment,
)

props = settings(database=None, max_examples=200, deadline=None)
SALT = "0123456789abcdef" * 2


@pytest.mark.parametrize("module", [errors, cards, shoe, blackjack, basic_strategy])
def test_rules_modules_import_only_stdlib_and_games_rules(module):
    """games.rules is pure (DESIGN.md, STYLE.md): stdlib, games.rules and the bottom floor
    (basis: money, errors) only, no Django."""
    with open(module.__file__, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            imported.add((node.module or "").split(".")[0])
    allowed = {"basis", "collections", "dataclasses", "enum", "fractions", "hashlib", "math", "random", "typing"}
    assert imported <= allowed


def test_rule_error_carries_field_and_message_and_pickles():
    error = RuleError("card", "bad")
    assert (error.field, error.message, str(error)) == ("card", "bad", "card: bad")
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.field, copy.message) == ("card", "bad")


# --- cards ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "rank", "suit", "colour"),
    [("AS", "A", "S", "black"), ("TD", "T", "D", "red"), ("7H", "7", "H", "red"), ("QC", "Q", "C", "black")],
)
def test_parse_card_reads_rank_suit_and_colour(code, rank, suit, colour):
    card = parse_card(code)
    assert (card.rank, card.suit, card.code, card.colour) == (rank, suit, code, colour)
    assert card == Card(rank, suit)
    assert str(card) == code


@pytest.mark.parametrize("code", ["as", "10S", "A", "", "AX", "1S", "ZZ", " AS", "AS ", "Ts", None, 12, ["AS"], b"AS"])
def test_parse_card_refuses_anything_else(code):
    with pytest.raises(RuleError) as info:
        parse_card(code)
    assert info.value.field == "card"


def test_deck_is_52_distinct_cards_in_canonical_order():
    codes = deck()
    assert len(codes) == len(set(codes)) == 52
    assert codes[:13] == [r + "S" for r in "23456789TJQKA"]
    assert codes[-1] == "AC"
    assert deck() == codes  # fixed: a seeded shuffle starts from it


@pytest.mark.parametrize("decks", [1, 6, 8])
def test_shoe_cards_holds_n_copies_of_each_card(decks):
    codes = shoe_cards(decks)
    assert len(codes) == 52 * decks
    assert set(Counter(codes).values()) == {decks}


@pytest.mark.parametrize("decks", [0, 9, -1, 6.0, True, "6"])
def test_shoe_cards_refuses_a_bad_deck_count(decks):
    with pytest.raises(RuleError) as info:
        shoe_cards(decks)
    assert info.value.field == "decks"


# --- the shuffled order and its commitment ---------------------------------------------


def test_shuffle_is_reproducible_from_the_seed_and_a_permutation_of_the_shoe():
    a = ShoeOrder.shuffle(6, random.Random(42))
    b = ShoeOrder.shuffle(6, random.Random(42))
    c = ShoeOrder.shuffle(6, random.Random(43))
    assert a == b != c
    assert sorted(a.cards) == sorted(shoe_cards(6))
    assert (a.decks, len(a)) == (6, 312)


def test_shuffle_is_fisher_yates_on_the_canonical_order():
    expected = shoe_cards(2)
    random.Random(7).shuffle(expected)
    assert ShoeOrder.shuffle(2, random.Random(7)).cards == tuple(expected)


def test_shuffle_refuses_the_global_random_module():
    with pytest.raises(TypeError):
        ShoeOrder.shuffle(6, random)  # type: ignore[arg-type]


def test_shoe_order_refuses_an_incomplete_or_foreign_composition():
    codes = shoe_cards(1)
    with pytest.raises(RuleError) as info:
        ShoeOrder(tuple(codes[:-1]) + ("AS",))
    assert info.value.field == "cards"
    with pytest.raises(RuleError) as info:
        ShoeOrder(tuple(codes[:-1]) + ("XX",))
    assert info.value.field == "card"
    with pytest.raises(RuleError):
        ShoeOrder(tuple(codes[:51]))


def test_commitment_is_sha256_of_salt_colon_comma_joined_cards():
    order = ShoeOrder.shuffle(6, random.Random(1))
    text = SALT + ":" + ",".join(order.cards)
    assert commitment(order, SALT) == hashlib.sha256(text.encode()).hexdigest()
    assert verify_commitment(order, SALT, commitment(order, SALT))
    assert verify_commitment(order, SALT, commitment(order, SALT).upper())


def test_commitment_detects_a_changed_order_or_salt():
    order = ShoeOrder.shuffle(6, random.Random(1))
    published = commitment(order, SALT)
    swapped = list(order.cards)
    i = next(i for i in range(1, len(swapped)) if swapped[i] != swapped[0])
    swapped[0], swapped[i] = swapped[i], swapped[0]
    assert not verify_commitment(ShoeOrder(tuple(swapped)), SALT, published)
    assert not verify_commitment(order, "f" * 32, published)
    assert not verify_commitment(order, "short", published)
    assert not verify_commitment(order, SALT, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("salt", ["", "abc", "0123456789ABCDEF" * 2, "g" * 32, None])
def test_commitment_refuses_a_weak_or_malformed_salt(salt):
    with pytest.raises(RuleError) as info:
        commitment(ShoeOrder(tuple(shoe_cards(1))), salt)
    assert info.value.field == "salt"


# --- cut card and burn -----------------------------------------------------------------


def test_burn_cards_blackjack_is_five():
    """Sheet 000: the first 5 cards are burned (RULES.md §Black jack)."""
    assert BURN_CARDS_BLACKJACK == 5


@pytest.mark.parametrize(("position", "ok"), [(187, False), (188, True), (234, True), (280, True), (281, False)])
def test_validate_cut_accepts_60_to_90_percent_of_a_six_deck_shoe(position, ok):
    if ok:
        assert validate_cut(6, position) == position
    else:
        with pytest.raises(RuleError) as info:
            validate_cut(6, position)
        assert info.value.field == "cut_position"


def test_validate_cut_refuses_non_integers():
    for position in (234.0, "234", True, None):
        with pytest.raises(RuleError):
            validate_cut(6, position)


# --- card-reading shoes ----------------------------------------------------------------


def test_card_counter_refuses_a_seventh_ace_of_spades_in_six_decks():
    counter = CardCounter(6)
    for _ in range(6):
        counter.draw("AS")
    assert counter.remaining("AS") == 0
    assert not counter.can_draw("AS")
    with pytest.raises(RuleError) as info:
        counter.draw("AS")
    assert info.value.field == "card"
    assert info.value.message == "the shoe cannot contain a seventh AS in six decks"
    assert counter.remaining("AH") == 6
    assert counter.cards_left == 312 - 6


def test_card_counter_in_one_deck_says_second():
    counter = CardCounter(1)
    counter.draw("KD")
    with pytest.raises(RuleError, match="a second KD in one deck"):
        counter.draw("KD")


def test_card_counter_refuses_a_bad_code_and_counts_nothing():
    counter = CardCounter(6)
    with pytest.raises(RuleError) as info:
        counter.draw("as")
    assert info.value.field == "card"
    assert counter.cards_left == 312


@props
@given(st.randoms(use_true_random=False), st.integers(1, 8))
def test_a_whole_shuffled_shoe_passes_the_counter_and_nothing_more(rng, decks):
    order = ShoeOrder.shuffle(decks, rng)
    counter = CardCounter(decks)
    for code in order.cards:
        counter.draw(code)
    assert counter.cards_left == 0
    assert not any(counter.can_draw(code) for code in deck())

"""RULES.md §Hand ranking on the pure evaluator (``games.rules.poker_hands``), no Django.

The whole deck is enumerated (all 2,598,960 hands, about a second) and the category counts
compared with the published ones; every rank pattern is checked against a second, naive
evaluator written here from the rule text; the ``poker`` vectors of vectors/games.json pass.
"""

import itertools
import pickle
import random
import time
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules.cards import RANKS, deck
from games.rules.poker_hands import (
    CATEGORIES,
    HANDS_IN_DECK,
    HandRank,
    category_counts,
    compare,
    dealer_qualifies,
    evaluate,
    qualify_probability,
)
from tests.vectors import load, vectors_path

props = settings(database=None, max_examples=500, deadline=None)

# The published counts of the five-card categories (e.g. Wikipedia, "Poker probability").
PUBLISHED = {
    "high card": 1_302_540,
    "pair": 1_098_240,
    "two pair": 123_552,
    "trips": 54_912,
    "straight": 10_200,
    "flush": 5_108,
    "full house": 3_744,
    "quads": 624,
    "straight flush": 36,
    "royal flush": 4,
}


def h(text: str) -> HandRank:
    return evaluate(text.split())


# --- a naive evaluator straight from the rule text, to check the fast one against ---------


def naive(cards: list[str]) -> tuple[str, tuple[int, ...]]:
    """(category, tie-break ranks) by counting, sorting and testing each category in turn."""
    ranks = sorted((RANKS.index(card[0]) + 2 for card in cards), reverse=True)
    flush = len({card[1] for card in cards}) == 1
    counts = Counter(ranks)
    # ranks ordered by (how many, rank): the order RULES.md compares them in
    ordered = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    straight = None
    if len(counts) == 5 and ranks[0] - ranks[4] == 4:
        straight = ranks[0]
    if ranks == [14, 5, 4, 3, 2]:
        straight = 5  # the wheel: the ace plays low
    if straight and flush:
        return ("royal flush" if straight == 14 else "straight flush"), (straight,)
    if shape == [4, 1]:
        return "quads", ordered
    if shape == [3, 2]:
        return "full house", ordered
    if flush:
        return "flush", tuple(ranks)
    if straight:
        return "straight", (straight,)
    if shape == [3, 1, 1]:
        return "trips", ordered
    if shape == [2, 2, 1]:
        return "two pair", ordered
    if shape == [2, 1, 1, 1]:
        return "pair", ordered
    return "high card", tuple(ranks)


def naive_key(cards: list[str]) -> tuple[int, tuple[int, ...]]:
    category, ranks = naive(cards)
    return CATEGORIES.index(category), ranks


def one_hand_per_class() -> list[list[str]]:
    """One hand of every rank pattern (6,175), and a flush of each pattern of five
    different ranks (1,287): one hand of each of the 7,462 classes."""
    hands = []
    for combo in itertools.combinations_with_replacement(RANKS, 5):
        if max(Counter(combo).values()) > 4:
            continue
        seen: Counter[str] = Counter()
        cards = []
        suits = "SHDC"
        for i, rank in enumerate(combo):
            # Spread the suits so that no pattern becomes a flush by accident.
            suit = suits[seen[rank]] if len(set(combo)) < 5 else suits[i % 2]
            seen[rank] += 1
            cards.append(rank + suit)
        hands.append(cards)
        if len(set(combo)) == 5:
            hands.append([rank + "H" for rank in combo])
    return hands


# --- the whole deck ------------------------------------------------------------------------


def test_every_hand_of_the_deck_enumerated_gives_the_published_category_counts() -> None:
    started = time.perf_counter()
    counts = category_counts()
    elapsed = time.perf_counter() - started
    assert counts == PUBLISHED
    assert sum(counts.values()) == HANDS_IN_DECK == 2_598_960
    assert list(counts) == list(CATEGORIES)
    assert elapsed < 30, f"the enumeration took {elapsed:.1f} s"


def test_dealer_qualifies_with_probability_205_364_over_every_hand() -> None:
    probability = qualify_probability()
    assert probability == Fraction(205, 364)
    assert round(float(probability), 4) == 0.5632


def test_there_are_7462_distinct_hand_ranks_one_per_class() -> None:
    classes = one_hand_per_class()
    assert len(classes) == 7462
    assert len({evaluate(cards) for cards in classes}) == 7462


def test_every_class_has_the_naive_evaluators_category_ranks_and_order() -> None:
    classes = one_hand_per_class()
    for cards in classes:
        rank = evaluate(cards)
        assert (rank.category, rank.ranks) == naive(cards), cards
    by_fast = sorted(classes, key=evaluate)
    by_naive = sorted(classes, key=naive_key)
    assert by_fast == by_naive


@props
@given(st.lists(st.sampled_from(deck()), min_size=10, max_size=10, unique=True))
def test_two_random_hands_compare_as_the_naive_evaluator_says(cards: list[str]) -> None:
    a, b = cards[:5], cards[5:]
    fast = (evaluate(a) > evaluate(b)) - (evaluate(a) < evaluate(b))
    slow = (naive_key(a) > naive_key(b)) - (naive_key(a) < naive_key(b))
    assert fast == slow
    assert (evaluate(a) == evaluate(b)) == (naive_key(a) == naive_key(b))


def test_the_order_of_a_hand_does_not_matter() -> None:
    rng = random.Random(5)
    cards = deck()
    for _ in range(2_000):
        hand = rng.sample(cards, 5)
        shuffled = hand[:]
        rng.shuffle(shuffled)
        assert evaluate(hand) is evaluate(shuffled)
        assert evaluate(tuple(hand)) is evaluate(hand)


# --- the vectors ---------------------------------------------------------------------------


def _poker_vectors() -> list:
    vectors = load("poker")
    assert vectors, f"no poker vector in {vectors_path()}"
    return [pytest.param(v, id=v["name"]) for v in vectors]


@pytest.mark.parametrize("vector", _poker_vectors())
def test_poker_vector(vector: dict) -> None:
    a, b = evaluate(vector["input"]["a"]), evaluate(vector["input"]["b"])
    got = {
        "a_category": a.category,
        "b_category": b.category,
        "winner": compare(vector["input"]["a"], vector["input"]["b"]),
    }
    for key, value in vector["expected"].items():
        assert got[key] == value, key


# --- RULES.md §Hand ranking, rule by rule -------------------------------------------------


def test_categories_in_order_high_card_to_royal_flush() -> None:
    ladder = [
        "AS KD QH JC 9S",  # high card
        "2S 2D 3H 4C 5S",  # pair
        "2S 2D 3H 3C 4S",  # two pair
        "2S 2D 2H 3C 4S",  # trips
        "AS 2D 3H 4C 5S",  # straight (the wheel)
        "2H 3H 4H 5H 7H",  # flush
        "2S 2D 2H 3C 3S",  # full house
        "2S 2D 2H 2C 3S",  # quads
        "AH 2H 3H 4H 5H",  # straight flush (steel wheel)
        "TS JS QS KS AS",  # royal flush
    ]
    ranks = [h(hand) for hand in ladder]
    assert [r.category for r in ranks] == list(CATEGORIES)
    assert ranks == sorted(ranks)
    assert all(low < high for low, high in itertools.pairwise(ranks))


def test_the_wheel_is_the_lowest_straight() -> None:
    wheel = h("AS 2D 3H 4C 5S")
    assert wheel.category == "straight" and wheel.ranks == (5,)
    assert wheel < h("2S 3D 4H 5C 6S") < h("TS JD QH KC AS")
    assert wheel > h("AS KD QH JC 9S")  # a straight, not ace-high


def test_the_steel_wheel_is_the_lowest_straight_flush_and_ace_king_queen_not_a_straight() -> None:
    assert h("AH 2H 3H 4H 5H").category == "straight flush"
    assert h("AH 2H 3H 4H 5H") < h("2H 3H 4H 5H 6H") < h("9D TD JD QD KD") < h("TC JC QC KC AC")
    assert h("QS KD AH 2C 3S").category == "high card"  # no wrap-around straight


def test_royal_flush_is_its_own_category_and_all_four_tie() -> None:
    royals = [h(f"T{s} J{s} Q{s} K{s} A{s}") for s in "SHDC"]
    assert {r.category for r in royals} == {"royal flush"}
    assert len(set(royals)) == 1


def test_high_card_and_flush_compare_card_by_card_down_to_the_fifth() -> None:
    assert h("AS JD 9H 6C 4S") > h("AD JH 9C 6S 3D")
    assert h("AH QH 9H 5H 3H") > h("AS JS TS 8S 7S")  # second card
    assert h("KH QH 9H 5H 3H") > h("KS QS 9S 5S 2S")  # fifth card
    assert h("AS JD 9H 6C 4S") == h("AH JC 9D 6S 4H")  # suits never rank


def test_pair_by_the_pair_then_each_kicker() -> None:
    assert h("9S 9D 2H 3C 4S") > h("8S 8D AH KC QS")
    assert h("8S 8D AH 5C 3S") > h("8H 8C KH QC JS")
    assert h("TS TD AH 7C 2D") > h("TH TC AS 6C 3S")  # the third kicker decides
    assert h("TS TD AH 7C 3D") > h("TH TC AS 7S 2S")
    assert h("TS TD AH 7C 3D").ranks == (10, 14, 7, 3)


def test_two_pair_by_the_higher_pair_then_the_lower_then_the_kicker() -> None:
    assert h("KS KD 2H 2C 3S") > h("QS QD JH JC AS")
    assert h("KS KD 7H 7C 2S") > h("KH KC 6S 6D AS")
    assert h("KS KD 7H 7C AS") > h("KH KC 7S 7D QS")
    assert h("KS KD 7H 7C AS").ranks == (13, 7, 14)
    assert h("KS KD 7H 7C AS") == h("KH KC 7S 7D AD")


def test_trips_full_house_and_quads_by_the_rank_of_the_set() -> None:
    assert h("7S 7D 7H 3C 2S") > h("6S 6D 6H AC KS")
    assert h("9S 9D 9H 2C 2S") > h("8S 8D 8H AC AS")
    assert h("3S 3D 3H 3C 2S") > h("2S 2D 2H 2C AS")
    assert h("9S 9D 9H 2C 2S").ranks == (9, 2)
    assert h("3S 3D 3H 3C 2S").ranks == (3, 2)


def test_straights_by_their_highest_card_and_equal_straights_tie() -> None:
    assert h("9S TD JH QC KS") < h("TS JD QH KC AS")
    assert compare("5S 6D 7H 8C 9S".split(), "5H 6C 7D 8S 9H".split()) == "tie"


# --- Caribbean stud's qualifying hand -------------------------------------------------------


def test_dealer_qualifies_with_ace_king_or_better() -> None:
    assert dealer_qualifies(h("AH KD 4S 3C 2H"))  # the lowest qualifying hand
    assert not dealer_qualifies(h("AS QD JH 9C 8S"))  # the best one that does not
    assert dealer_qualifies(h("2S 2D 7H 5C 3S"))
    assert not dealer_qualifies(h("KS QD JH 9C 8S"))
    assert dealer_qualifies(h("AS 2D 3H 4C 5S"))  # the wheel is a straight


# --- the HandRank object and refusals -----------------------------------------------------


def test_hand_rank_is_immutable_hashable_picklable_and_json_safe() -> None:
    rank = h("KS KD 7H 7C AS")
    with pytest.raises(AttributeError):
        rank.value = 0  # type: ignore[misc]
    assert {rank: 1}[h("KH KC 7S 7D AD")] == 1
    assert pickle.loads(pickle.dumps(rank)) is rank
    assert rank.to_dict() == {"category": "two pair", "ranks": [13, 7, 14]}
    assert repr(rank) == "HandRank('two pair', ranks=(13, 7, 14))"
    assert (rank == "two pair") is False


@pytest.mark.parametrize(
    ("cards", "field"),
    [
        (["AS", "KS", "QS", "JS"], "cards"),
        (["AS", "KS", "QS", "JS", "TS", "9S"], "cards"),
        (["AS", "AS", "QS", "JS", "TS"], "cards"),
        (["AS", "KS", "QS", "JS", "1S"], "card"),
        (["as", "KS", "QS", "JS", "TS"], "card"),
        (["AS", "KS", "QS", "JS", None], "card"),
        (["AS", "KS", "QS", "JS", ["TS"]], "card"),
        ("AKQJT", "cards"),
        ("AS KS QS JS TS", "cards"),
        (None, "cards"),
        ([], "cards"),
    ],
)
def test_refuses_anything_but_five_different_cards(cards: object, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        evaluate(cards)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_every_hand_through_the_public_evaluate_gives_the_same_counts() -> None:
    """The checked entry point (codes in, HandRank out) over the whole deck, not only the
    inner loop that :func:`category_counts` uses."""
    counts = Counter(rank.category for rank in map(evaluate, itertools.combinations(deck(), 5)))
    assert counts == PUBLISHED

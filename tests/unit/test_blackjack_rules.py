"""RULES.md §Black jack and cases C01-C06, checked on the pure engine (no Django).

Each rule of RULES.md §Black jack has a test named after it, with exact amounts in cents
(stake 1000 = 10 EUR unless said). Each table option has a test per value. Expected amounts
are worked out here from the rule text, not read back from the engine.

One box, no hole card (the default): the cards go player, dealer up card, player; the
dealer's second card comes after the players.
"""

import json
import pickle
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules.basic_strategy import basic_decision
from games.rules.blackjack import (
    DEALER,
    BetSettlement,
    BlackjackCoup,
    BlackjackPaid,
    BlackjackRules,
    BoxBet,
    CardDealt,
    DealerPeeked,
    DealerPlayed,
    Decided,
    DoubleOn,
    DrawTarget,
    EvenMoneyDecided,
    FollowDecided,
    HandClosed,
    ImmediatePayout,
    ImmediatePayoutRule,
    InsuranceDecided,
    Outcome,
    hand_value,
    to_data,
)
from games.rules.blackjack_table import BlackjackTableRules
from games.rules.cards import deck

props = settings(database=None, max_examples=400, deadline=None)

P = "pat"  # seated at box 1
Q = "quinn"  # seated at box 2
B1, B2 = "behind-1", "behind-2"
STAKE = 1000
NO_PAYOUTS = {"immediate_payouts": []}


def new(*bets: BoxBet, **options) -> BlackjackCoup:
    """A coup under the default rules changed by ``options`` (as JSON), one box of P by default."""
    return BlackjackCoup(BlackjackRules.from_dict(options), list(bets) or [BoxBet(1, P, STAKE, True)])


def deal(coup: BlackjackCoup, *cards: str) -> list:
    records = []
    for card in cards:
        assert coup.next_draw() is not None, f"no card due for {card}; awaiting {coup.awaiting()}"
        records += coup.deal(card)
    return records


def results(coup: BlackjackCoup) -> list[tuple]:
    """(hand_index, bettor, outcome, stake, return) per settlement line."""
    return [(s.hand_index, s.bettor, s.outcome.value, s.stake_cents, s.return_cents) for s in coup.settle()]


def refused(field: str, call, *args, **kwargs) -> RuleError:
    with pytest.raises(RuleError) as info:
        call(*args, **kwargs)
    assert info.value.field == field, info.value
    return info.value


# --- worked cases C01-C06 (cases/README.md) ----------------------------------------------


def test_c01_no_blackjack_after_a_split_hand_of_21_wins_1_to_1():
    coup = new()
    deal(coup, "AS", "TD", "AH")
    coup.split(1, P)
    deal(coup, "KC", "7C")  # hand 0: A,K = 21 (not blackjack); hand 1: A,7 = 18
    deal(coup, "9S")  # dealer 10,9 = 19
    assert results(coup) == [(0, P, "won", 1000, 2000), (1, P, "lost", 1000, 0)]
    assert sum(s.return_cents for s in coup.settle()) == 2000  # coup net 0 on 2000 staked


def test_c01_split_ace_21_pushes_a_dealer_three_card_21():
    coup = new()
    deal(coup, "AS", "TD", "AH")
    coup.split(1, P)
    deal(coup, "KC", "7C", "5S", "6H")  # dealer 10,5,6 = 21
    assert results(coup) == [(0, P, "pushed", 1000, 1000), (1, P, "lost", 1000, 0)]


def test_c02_no_split_after_a_hit_and_no_second_stake():
    coup = new()
    deal(coup, "8S", "7D", "8H")
    coup.hit(1, P)
    deal(coup, "3C")  # 19
    error = refused("action", coup.split, 1, P)
    assert "first two cards" in error.message
    assert coup.hand(1).stakes == ((P, 1000),)
    assert len(coup.hands()) == 1


def test_c03_insurance_pays_2_to_1_against_a_dealer_blackjack():
    coup = new(BoxBet(1, P, 2000, True))
    deal(coup, "TS", "AD", "9H")
    assert coup.awaiting().kind == "insurance"
    assert coup.insurance(1, P, 1000) == [InsuranceDecided(1, P, 1000)]
    coup.stand(1, P)
    deal(coup, "KC")  # dealer A,K: blackjack
    assert results(coup) == [(0, P, "lost", 2000, 0), (0, P, "insurance_won", 1000, 3000)]


def test_c03_insurance_is_lost_and_the_hand_plays_on_without_a_dealer_blackjack():
    coup = new(BoxBet(1, P, 2000, True))
    deal(coup, "TS", "AD", "9H")
    coup.insurance(1, P, 1000)
    assert coup.awaiting().kind == "play"
    coup.stand(1, P)
    deal(coup, "7C")  # dealer A,7 = soft 18 stands; player 19 wins
    assert results(coup) == [(0, P, "won", 2000, 4000), (0, P, "insurance_lost", 1000, 0)]


def test_c04_even_money_taken_returns_20_at_once_and_closes_the_hand():
    coup = new()
    assert HandClosed(1, 0, "blackjack", 21) in deal(coup, "AS", "AD", "KH")
    decision = coup.awaiting()
    assert (decision.kind, decision.actions) == ("even_money", frozenset({"even_money"}))
    records = coup.even_money(1, P, True)
    paid = records[0].lines
    assert [(s.outcome, s.return_cents, s.paid_at_once) for s in paid] == [(Outcome.EVEN_MONEY, 2000, True)]
    assert coup.hand(1).closed == "blackjack"
    assert coup.state == "settled"  # nothing waits for the dealer: no second card
    assert coup.dealer_cards == ("AD",)
    assert results(coup) == [(0, P, "even_money", 1000, 2000)]


def test_c04_even_money_declined_and_dealer_blackjack_pushes():
    coup = new()
    deal(coup, "AS", "AD", "KH")
    coup.even_money(1, P, False)
    deal(coup, "QC")  # the dealer's second card, only to see whether he has blackjack
    assert coup.state == "settled"
    assert results(coup) == [(0, P, "pushed", 1000, 1000)]


def test_c04_even_money_declined_no_dealer_blackjack_pays_3_to_2():
    coup = new()
    deal(coup, "AS", "AD", "KH")
    coup.even_money(1, P, False)
    deal(coup, "5C")
    assert coup.state == "settled" and coup.dealer_cards == ("AD", "5C")  # no further draw needed
    assert results(coup) == [(0, P, "blackjack", 1000, 2500)]


def test_c05_several_aces_count_one_each_but_one_as_eleven():
    coup = new()
    deal(coup, "AS", "TD", "AH")
    coup.hit(1, P)
    deal(coup, "AC")
    coup.hit(1, P)
    records = deal(coup, "6D")
    assert records[0] == CardDealt(DrawTarget("player", 1, 0), "6D", 19, True)
    coup.stand(1, P)
    deal(coup, "7C")  # dealer 10,7
    assert results(coup) == [(0, P, "won", 1000, 2000)]


def test_c06_a_doubled_21_against_a_dealer_21_is_a_push():
    coup = new()
    deal(coup, "5S", "TD", "6H")
    assert coup.double(1, P) == [Decided(1, 0, P, "double", 1000)]
    records = deal(coup, "KC")
    assert HandClosed(1, 0, "doubled", 21) in records
    deal(coup, "6C", "5D")  # dealer 10,6,5 = 21
    assert results(coup) == [(0, P, "pushed", 2000, 2000)]


# --- card values, blackjack, dealer -------------------------------------------------


@pytest.mark.parametrize(
    ("codes", "total", "soft"),
    [
        (["2S", "9H"], 11, False),
        (["KS", "QH"], 20, False),
        (["JS", "TH", "AD"], 21, False),
        (["AS", "6H"], 17, True),
        (["AS", "6H", "TD"], 17, False),
        (["AS", "AH"], 12, True),
        (["AS", "AH", "AD", "6C"], 19, True),
        (["AS"] * 11, 21, True),
        (["TS", "TH", "2D"], 22, False),
    ],
)
def test_card_values_2_to_10_face_jqk_ten_ace_one_or_eleven(codes, total, soft):
    assert hand_value(codes) == (total, soft)


def test_hand_value_refuses_a_bad_code():
    refused("card", hand_value, ["AS", "1H"])


def test_blackjack_is_an_ace_and_a_ten_value_on_the_first_two_cards():
    for ten in ("TS", "JH", "QD", "KC"):
        coup = new()
        deal(coup, "AS", "5D", ten)
        assert coup.hand(1).closed == "blackjack"


def test_three_card_21_is_not_blackjack_and_wins_1_to_1():
    coup = new()
    deal(coup, "7S", "9D", "4H")
    coup.hit(1, P)
    records = deal(coup, "KC")
    assert HandClosed(1, 0, "twenty_one", 21) in records  # a hand at 21 stands at once
    deal(coup, "9C")  # dealer 18
    assert results(coup) == [(0, P, "won", 1000, 2000)]


def test_dealer_draws_to_16_and_stands_on_17():
    coup = new()
    deal(coup, "TS", "TD", "8H")
    coup.stand(1, P)
    deal(coup, "6C")  # dealer 16 must draw
    assert coup.next_draw() == DEALER
    records = deal(coup, "AH")  # 17: stands
    assert records[-1] == DealerPlayed(("TD", "6C", "AH"), 17, False, False)
    assert results(coup) == [(0, P, "won", 1000, 2000)]


def test_dealer_stands_on_soft_17():
    coup = new()
    deal(coup, "TS", "AD", "7H")
    coup.insurance(1, P, 0)
    coup.stand(1, P)
    records = deal(coup, "6C")  # A,6 = soft 17
    assert records[-1] == DealerPlayed(("AD", "6C"), 17, False, False)
    assert coup.state == "settled"
    assert results(coup) == [(0, P, "pushed", 1000, 1000)]


def test_dealer_hits_soft_16_and_his_ace_falls_back_to_one():
    coup = new()
    deal(coup, "TS", "AD", "9H")
    coup.insurance(1, P, 0)
    coup.stand(1, P)
    deal(coup, "5C", "TC")  # A,5 = soft 16 draws; + T = hard 16 draws again
    assert coup.next_draw() == DEALER
    deal(coup, "2C")  # 18
    assert results(coup) == [(0, P, "won", 1000, 2000)]


# --- payouts ---------------------------------------------------------------------


def test_win_pays_1_to_1():
    coup = new()
    deal(coup, "TS", "9D", "TH")
    coup.stand(1, P)
    deal(coup, "8C")  # 17 < 20
    assert results(coup) == [(0, P, "won", 1000, 2000)]


def test_equal_totals_push_the_stake_is_returned():
    coup = new()
    deal(coup, "TS", "9D", "9H")
    coup.stand(1, P)
    deal(coup, "TC")
    assert results(coup) == [(0, P, "pushed", 1000, 1000)]


def test_lower_total_loses():
    coup = new()
    deal(coup, "TS", "9D", "8H")
    coup.stand(1, P)
    deal(coup, "TC")
    assert results(coup) == [(0, P, "lost", 1000, 0)]


def test_a_bust_hand_loses_even_if_the_dealer_busts():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    deal(coup, "TS", "9H", "6D", "TH", "5C")  # box 1: T,T; box 2: 9,5; dealer up 6
    coup.hit(1, P)
    assert HandClosed(1, 0, "busted", 22) in deal(coup, "2S")
    refused("hand_index", coup.hit, 1, P)  # a busted hand takes no card
    coup.stand(2, Q)
    deal(coup, "TD", "KD")  # dealer 6,10,10 = 26
    assert [(s.box, s.outcome.value, s.return_cents) for s in coup.settle()] == [(1, "lost", 0), (2, "won", 2000)]


def test_blackjack_pays_3_to_2():
    coup = new()
    deal(coup, "AS", "7D", "KH")
    assert results(coup) == [(0, P, "blackjack", 1000, 2500)]


def test_blackjack_3_to_2_rounds_odd_cents_down_and_records_the_fraction():
    coup = new(BoxBet(1, P, 1005, True))
    deal(coup, "AS", "7D", "KH")
    (line,) = coup.settle()
    assert (line.return_cents, line.winnings_cents) == (2512, 1507)  # 1005 * 3/2 = 1507.5
    assert line.unpaid_fraction == Fraction(1, 2)


def test_blackjack_paid_at_once_against_a_2_to_9_up_card():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    records = deal(coup, "AS", "8H", "9D", "KH", "8C")
    paid = [r for r in records if isinstance(r, BlackjackPaid)]
    assert len(paid) == 1 and paid[0].box == 1
    assert [(s.outcome, s.return_cents, s.paid_at_once) for s in paid[0].lines] == [(Outcome.BLACKJACK, 2500, True)]
    assert coup.awaiting().box == 2  # box 1 is closed before anyone plays
    coup.stand(2, Q)  # 8,8 = 16
    deal(coup, "AD")  # dealer 9,A = 20
    lines = coup.settle()
    assert [(s.box, s.outcome.value, s.return_cents, s.paid_at_once) for s in lines] == [
        (1, "blackjack", 2500, True),
        (2, "lost", 0, False),
    ]


def test_player_blackjack_against_dealer_blackjack_is_a_push():
    coup = new()
    deal(coup, "AS", "TD", "KH")
    coup.even_money(1, P, False)
    deal(coup, "AH")
    assert results(coup) == [(0, P, "pushed", 1000, 1000)]


def test_even_money_is_offered_against_a_ten_value_up_card_too():
    coup = new()
    deal(coup, "AS", "KD", "TH")
    assert coup.awaiting().kind == "even_money"
    coup.even_money(1, P, True)
    assert results(coup) == [(0, P, "even_money", 1000, 2000)]


def test_insurance_is_offered_only_against_an_ace():
    coup = new()
    deal(coup, "TS", "KD", "9H")
    assert coup.awaiting().kind == "play"
    refused("action", coup.insurance, 1, P, 500)


def test_insurance_up_to_half_the_stake_rounded_down():
    coup = new(BoxBet(1, P, 1001, True))
    deal(coup, "TS", "AD", "9H")
    refused("amount_cents", coup.insurance, 1, P, 501)
    refused("amount_cents", coup.insurance, 1, P, -1)
    refused("amount_cents", coup.insurance, 1, P, 250.0)
    coup.insurance(1, P, 500)
    coup.stand(1, P)
    deal(coup, "QC")
    assert results(coup) == [(0, P, "lost", 1001, 0), (0, P, "insurance_won", 500, 1500)]


def test_insurance_is_answered_once_and_closes_before_play():
    coup = new()
    deal(coup, "TS", "AD", "9H")
    coup.insurance(1, P, 0)
    refused("action", coup.insurance, 1, P, 100)


def test_a_blackjack_box_is_offered_even_money_not_insurance():
    coup = new()
    deal(coup, "AS", "AD", "KH")
    refused("action", coup.insurance, 1, P, 500)


# --- table option hole_card ------------------------------------------------------------


def test_hole_card_false_dealer_blackjack_takes_doubled_and_split_stakes():
    """European no hole card (sheet 000): the second dealer card comes after the players."""
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    deal(coup, "5S", "8H", "TD", "6S", "8C")  # box 1: 5,6 = 11; box 2: 8,8; dealer up 10
    assert coup.next_draw() is None  # no hole card yet
    coup.double(1, P)
    deal(coup, "9S")  # 20
    coup.split(2, Q)
    deal(coup, "TS")  # hand 0: 18
    coup.stand(2, Q)
    deal(coup, "KS")  # hand 1: 18
    coup.stand(2, Q, hand_index=1)
    records = deal(coup, "AC")  # dealer blackjack
    assert records[-1] == DealerPlayed(("TD", "AC"), 21, True, False)
    assert [(s.box, s.hand_index, s.stake_cents, s.return_cents) for s in coup.settle()] == [
        (1, 0, 2000, 0),
        (2, 0, 1000, 0),
        (2, 1, 1000, 0),
    ]


def test_hole_card_true_peek_ends_the_coup_and_only_the_original_stake_is_lost():
    """Sheet 004: the hole card is dealt after the players' second cards; a dealer blackjack
    under a ten or an ace ends the coup before any double or split."""
    coup = new(hole_card=True)
    assert [coup.next_draw()] == [DrawTarget("player", 1, 0)]
    records = deal(coup, "5S", "TD", "6S", "AC")
    assert DealerPeeked(True) in records
    assert coup.state == "settled"
    refused("state", coup.double, 1, P)
    assert results(coup) == [(0, P, "lost", 1000, 0)]


def test_hole_card_true_insurance_is_settled_by_the_peek():
    coup = new(BoxBet(1, P, 2000, True), hole_card=True)
    deal(coup, "TS", "AD", "9H", "KC")
    coup.insurance(1, P, 1000)
    assert coup.state == "settled"  # peeked: blackjack
    assert results(coup) == [(0, P, "lost", 2000, 0), (0, P, "insurance_won", 1000, 3000)]


def test_hole_card_true_no_dealer_blackjack_play_goes_on_and_declined_blackjack_is_paid():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True), hole_card=True)
    deal(coup, "AS", "5H", "TD", "KH", "6C", "7C")  # box 1 A,K; box 2 5,6; dealer T up, 7 in the hole
    coup.even_money(1, P, False)
    assert coup.awaiting().box == 2
    coup.double(2, Q)
    deal(coup, "9D")  # 20 against the dealer's 17
    assert [(s.box, s.outcome.value, s.return_cents, s.paid_at_once) for s in coup.settle()] == [
        (1, "blackjack", 2500, True),
        (2, "won", 4000, False),
    ]


def test_hole_card_true_peek_records_no_blackjack():
    coup = new(hole_card=True)
    records = deal(coup, "9S", "AD", "8H", "7C")
    records += coup.insurance(1, P, 0)
    assert DealerPeeked(False) in records
    coup.stand(1, P)
    assert coup.state == "settled"  # the dealer's A,7 (soft 18) stands
    assert results(coup) == [(0, P, "lost", 1000, 0)]  # 17 against 18


# --- table option double_on ------------------------------------------------------------


@pytest.mark.parametrize(("first", "second"), [("4S", "5H"), ("4S", "6H"), ("5S", "6H")])
def test_double_on_9_11_allows_a_first_two_card_total_of_9_10_or_11(first, second):
    coup = new()
    deal(coup, first, "7D", second)
    assert "double" in coup.awaiting().actions
    coup.double(1, P)
    deal(coup, "TC")
    assert coup.hand(1).closed == "doubled"


@pytest.mark.parametrize(("first", "second"), [("5S", "3H"), ("6S", "6H"), ("AS", "8H"), ("AS", "7H"), ("TS", "2H")])
def test_double_on_9_11_refuses_other_totals_and_soft_hands(first, second):
    coup = new()
    deal(coup, first, "7D", second)
    assert "double" not in coup.awaiting().actions
    error = refused("action", coup.double, 1, P)
    assert "9, 10 or 11" in error.message


@pytest.mark.parametrize(("first", "second"), [("5S", "3H"), ("AS", "7H"), ("TS", "2H")])
def test_double_on_any_allows_every_first_two_cards(first, second):
    coup = new(double_on="any")
    deal(coup, first, "6D", second)
    coup.double(1, P)
    deal(coup, "2C")
    deal(coup, "TC", "9C")  # dealer 6,T,9 busts
    assert results(coup) == [(0, P, "won", 2000, 4000)]


def test_a_doubled_hand_takes_exactly_one_more_card():
    coup = new()
    deal(coup, "5S", "7D", "4H")
    coup.double(1, P)
    deal(coup, "2C")  # 11 only
    assert coup.hand(1).closed == "doubled" and coup.hand(1).total == 11
    assert coup.next_draw() == DEALER
    refused("hand_index", coup.hit, 1, P)


def test_no_double_after_three_cards():
    coup = new(double_on="any")
    deal(coup, "2S", "7D", "3H")
    coup.hit(1, P)
    deal(coup, "4C")
    refused("action", coup.double, 1, P)


# --- table options double_after_split and max_split_hands ----------------------------------


def _split_eights(coup: BlackjackCoup) -> None:
    deal(coup, "8S", "6D", "8H")
    coup.split(1, P)
    deal(coup, "3C")  # hand 0: 8,3 = 11


def test_double_after_split_true_doubles_a_split_hand():
    coup = new()
    _split_eights(coup)
    coup.double(1, P)
    deal(coup, "TC", "2D")  # hand 0: 21 doubled; hand 1: 8,2
    coup.stand(1, P)
    deal(coup, "TD", "5H")  # dealer 6,10,5 = 21
    assert results(coup) == [(0, P, "pushed", 2000, 2000), (1, P, "lost", 1000, 0)]


def test_double_after_split_false_refuses_to_double_a_split_hand():
    coup = new(double_after_split=False)
    _split_eights(coup)
    assert coup.awaiting().actions == frozenset({"hit", "stand"})
    error = refused("action", coup.double, 1, P)
    assert "double_after_split" in error.message


def test_max_split_hands_3_refuses_a_third_split():
    coup = new()
    deal(coup, "8S", "6D", "8H")
    coup.split(1, P)
    deal(coup, "8C")
    coup.split(1, P)  # 3 hands
    deal(coup, "8D")
    assert "split" not in coup.awaiting().actions
    error = refused("action", coup.split, 1, P)
    assert "at most 3 hands" in error.message
    assert [h.stakes for h in coup.hands()] == [((P, 1000),)] * 3


def test_max_split_hands_unlimited_allows_a_fourth_hand():
    coup = new(max_split_hands=None)
    deal(coup, "8S", "6D", "8H")
    for _ in range(3):
        coup.split(1, P)
        deal(coup, "8C")
    assert len(coup.hands()) == 4
    assert "split" in coup.awaiting().actions


def test_split_pairs_of_the_same_value_ten_and_king_split():
    coup = new()
    deal(coup, "TS", "6D", "KH")
    assert "split" in coup.awaiting().actions
    assert coup.split(1, P) == [Decided(1, 0, P, "split", 1000, 1)]
    assert [h.cards for h in coup.hands()] == [("TS",), ("KH",)]


def test_split_refuses_two_cards_of_different_value():
    coup = new()
    deal(coup, "TS", "6D", "9H")
    error = refused("action", coup.split, 1, P)
    assert "same value" in error.message


def test_split_aces_take_one_card_each():
    coup = new()
    deal(coup, "AS", "6D", "AH")
    coup.split(1, P)
    records = deal(coup, "5C")
    assert HandClosed(1, 0, "split_ace", 16) in records
    assert coup.next_draw() == DrawTarget("player", 1, 1)
    deal(coup, "AC")  # A,A on a split ace: no resplit, no hit
    assert coup.hand(1, 1).closed == "split_ace"
    assert coup.next_draw() == DEALER


def test_ace_and_ten_after_a_split_is_21_not_blackjack():
    coup = new()
    deal(coup, "TS", "9D", "KH")
    coup.split(1, P)
    assert HandClosed(1, 0, "twenty_one", 21) in deal(coup, "AC")
    deal(coup, "7C")
    coup.stand(1, P)
    deal(coup, "TD")  # dealer 19
    assert results(coup) == [(0, P, "won", 1000, 2000), (1, P, "lost", 1000, 0)]


# --- table option blackjack_pays ----------------------------------------------------------


def test_blackjack_pays_option_6_to_5():
    coup = new(blackjack_pays="6:5")
    deal(coup, "AS", "7D", "KH")
    assert results(coup) == [(0, P, "blackjack", 1000, 2200)]


# --- table option immediate_payouts -------------------------------------------------------


def _hit_until_closed(coup: BlackjackCoup, *cards: str) -> list:
    records = []
    for card in cards:
        coup.hit(1, P)
        records += deal(coup, card)
    return records


@pytest.mark.parametrize(
    ("start", "hits", "pattern"),
    [
        (("7S", "7H"), ("7D",), "three_sevens"),
        (("4S", "4H"), ("4D", "4C", "4S"), "five_fours"),
        (("5S", "5H"), ("5D", "5C"), "four_fives"),
        (("2S", "2H"), ("2D", "2C", "3S", "3H"), "six_cards_21_or_less"),
        (("2S", "3H"), ("4D", "5C", "7S"), "five_cards_21"),
    ],
)
def test_immediate_payouts_pay_1_to_1_at_once_and_end_the_hand(start, hits, pattern):
    coup = new()
    deal(coup, start[0], "TD", start[1])  # dealer shows a ten: he could still make blackjack
    records = _hit_until_closed(coup, *hits)
    payout = next(r for r in records if isinstance(r, ImmediatePayout))
    assert payout.pattern == pattern
    assert [(s.outcome, s.return_cents, s.paid_at_once) for s in payout.lines] == [(Outcome.IMMEDIATE, 2000, True)]
    assert coup.hand(1).closed == "immediate"
    assert coup.state == "settled"  # nothing waits for the dealer
    assert results(coup) == [(0, P, "immediate", 1000, 2000)]


def test_immediate_payout_stays_paid_when_the_dealer_then_makes_blackjack():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    deal(coup, "7S", "9H", "TD", "7H", "8C")
    _hit_until_closed(coup, "7D")
    coup.stand(2, Q)
    deal(coup, "AC")
    assert [(s.box, s.outcome.value, s.return_cents) for s in coup.settle()] == [(1, "immediate", 2000), (2, "lost", 0)]


def test_immediate_payouts_odds_are_a_table_option():
    coup = new(immediate_payouts=[{"pattern": "three_sevens", "pays": "3:1"}])
    deal(coup, "7S", "TD", "7H")
    _hit_until_closed(coup, "7D")
    assert results(coup) == [(0, P, "immediate", 1000, 4000)]


def test_immediate_payouts_switched_off_a_three_sevens_21_waits_for_the_dealer():
    coup = new(**NO_PAYOUTS)
    deal(coup, "7S", "TD", "7H")
    assert HandClosed(1, 0, "twenty_one", 21) in _hit_until_closed(coup, "7D")
    deal(coup, "AC")  # dealer blackjack: the 21 loses
    assert results(coup) == [(0, P, "lost", 1000, 0)]


def test_immediate_payout_on_a_doubled_hand_pays_the_doubled_stake():
    coup = new(double_on="any")
    deal(coup, "7S", "TD", "7H")
    coup.double(1, P)
    deal(coup, "7C")
    assert results(coup) == [(0, P, "immediate", 2000, 4000)]


# --- boxes, seated player and bettors behind --------------------------------------------


def test_dealing_order_box_by_box_dealer_up_card_between_the_rounds():
    coup = new(BoxBet(3, Q, STAKE, True), BoxBet(1, P, STAKE, True))
    order = []
    for card in ("2S", "3S", "4S", "5S", "6S"):
        order.append(coup.next_draw())
        coup.deal(card)
    p1, p3 = DrawTarget("player", 1, 0), DrawTarget("player", 3, 0)
    assert order == [p1, p3, DEALER, p1, p3]
    assert coup.dealer_cards == ("4S",)
    assert coup.awaiting().box == 1


def test_hole_card_true_deals_the_hole_card_after_the_second_round():
    coup = new(hole_card=True)
    order = []
    for card in ("2S", "3S", "4S", "5S"):
        order.append(coup.next_draw())
        coup.deal(card)
    assert order == [DrawTarget("player", 1, 0), DEALER, DrawTarget("player", 1, 0), DEALER]


def test_up_to_3_bets_on_a_box_with_exactly_one_seated():
    seated = BoxBet(1, P, STAKE, True)
    new(seated, BoxBet(1, B1, 500, False), BoxBet(1, B2, 200, False))
    refused("box", new, seated, BoxBet(1, B1, 500, False), BoxBet(1, B2, 200, False), BoxBet(1, "x", 1, False))
    refused("seated", new, BoxBet(1, B1, 500, False))
    refused("seated", new, seated, BoxBet(1, B1, 500, True))
    refused("bettor", new, seated, BoxBet(1, P, 500, False))
    new(seated, BoxBet(2, P, 500, True))  # a seated player may also play another box


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"box": 0}, "box"),
        ({"box": 8}, "box"),
        ({"box": True}, "box"),
        ({"bettor": ""}, "bettor"),
        ({"stake_cents": 0}, "stake_cents"),
        ({"stake_cents": 10.0}, "stake_cents"),
        ({"seated": 1}, "seated"),
    ],
)
def test_box_bet_refuses_bad_fields(kwargs, field):
    values = {"box": 1, "bettor": P, "stake_cents": STAKE, "seated": True} | kwargs
    refused(field, BoxBet, **values)


def test_a_coup_needs_bets():
    refused("bets", BlackjackCoup, BlackjackRules(), [])
    refused("bets", BlackjackCoup, BlackjackRules(), [("1", P)])


def test_only_the_seated_player_decides():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False))
    deal(coup, "TS", "7D", "6H")
    for action in (coup.hit, coup.stand, coup.double, coup.split):
        error = refused("bettor", action, 1, B1)
        assert "seated" in error.message
    refused("bettor", coup.hit, 1, "stranger")
    refused("box", coup.hit, 2, P)


def test_bettor_behind_follows_a_double_where_the_table_lets_him():
    """Option ``behind_may_follow`` (off under both sheets): each bettor behind answers."""
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False), BoxBet(1, B2, 300, False), behind_may_follow=True)
    deal(coup, "5S", "7D", "6H")
    coup.double(1, P)
    decision = coup.awaiting()
    assert (decision.kind, decision.follows, decision.bettors) == ("follow", "double", (B1, B2))
    assert coup.next_draw() is None  # the card waits for the answers
    refused("bettor", coup.follow, 1, P, "double", True)  # the seated player does not follow
    refused("action", coup.follow, 1, B1, "split", True)
    assert coup.follow(1, B1, "double", True) == [FollowDecided(1, 0, B1, "double", True, 500)]
    assert coup.follow(1, B2, "double", False) == [FollowDecided(1, 0, B2, "double", False, 0)]
    deal(coup, "TC")  # 21
    deal(coup, "TD")  # dealer 17
    assert results(coup) == [
        (0, P, "won", 2000, 4000),
        (0, B1, "won", 1000, 2000),
        (0, B2, "won", 300, 600),
    ]


def test_bettor_behind_who_does_not_follow_a_split_stays_on_the_first_hand_only():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False), BoxBet(1, B2, 300, False), behind_may_follow=True)
    deal(coup, "8S", "7D", "8H")
    coup.split(1, P)
    assert coup.follow(1, B1, "split", True) == [FollowDecided(1, 0, B1, "split", True, 500, 1)]
    coup.follow(1, B2, "split", False)
    deal(coup, "TC")  # hand 0: 18
    coup.stand(1, P)
    deal(coup, "5C")  # hand 1: 13
    coup.stand(1, P)
    deal(coup, "TD")  # dealer 17
    assert coup.hand(1, 0).stakes == ((P, 1000), (B1, 500), (B2, 300))
    assert coup.hand(1, 1).stakes == ((P, 1000), (B1, 500))
    assert results(coup) == [
        (0, P, "won", 1000, 2000),
        (0, B1, "won", 500, 1000),
        (0, B2, "won", 300, 600),
        (1, P, "lost", 1000, 0),
        (1, B1, "lost", 500, 0),
    ]


def test_under_sheet_000_the_seated_player_alone_decides_and_nobody_behind_is_asked():
    """Sheet 000: "Le joueur assis est le seul à pouvoir prendre des décisions". The seated
    player's double and split take his own stake only; the bettors behind are never asked and
    keep their stakes as placed (on the hand that was split)."""
    sheet_000 = BlackjackTableRules.from_dict({"preset": "sheet_000"}).game
    assert sheet_000.behind_may_follow is False and BlackjackRules().behind_may_follow is False
    coup = BlackjackCoup(sheet_000, [BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False)])
    deal(coup, "5S", "7D", "5H")  # 10: doubles under 9-11
    coup.double(1, P)
    assert coup.awaiting() is None and coup.next_draw() is not None  # the card comes at once
    refused("action", coup.follow, 1, B1, "double", True)
    deal(coup, "TC", "TD")  # 20; dealer 17
    assert results(coup) == [(0, P, "won", 2000, 4000), (0, B1, "won", 500, 1000)]

    coup = BlackjackCoup(sheet_000, [BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False)])
    deal(coup, "8S", "7D", "8H")
    coup.split(1, P)
    assert coup.awaiting() is None and coup.next_draw() is not None  # nobody behind is asked
    deal(coup, "TC")
    coup.stand(1, P)
    deal(coup, "5C")
    coup.stand(1, P)
    deal(coup, "TD")
    assert coup.hand(1, 0).stakes == ((P, 1000), (B1, 500))
    assert coup.hand(1, 1).stakes == ((P, 1000),)


def test_each_bettor_insures_his_own_stake():
    coup = new(BoxBet(1, P, 2000, True), BoxBet(1, B1, 600, False))
    deal(coup, "TS", "AD", "9H")
    assert coup.awaiting().bettors == (P, B1)
    refused("amount_cents", coup.insurance, 1, B1, 301)
    coup.insurance(1, B1, 300)
    assert coup.awaiting().bettors == (P,)
    coup.insurance(1, P, 0)
    coup.stand(1, P)
    deal(coup, "KC")
    assert results(coup) == [
        (0, P, "lost", 2000, 0),
        (0, B1, "lost", 600, 0),
        (0, B1, "insurance_won", 300, 900),
    ]


def test_even_money_is_decided_by_the_seated_player_for_the_whole_hand():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(1, B1, 500, False))
    deal(coup, "AS", "AD", "KH")
    refused("bettor", coup.even_money, 1, B1, True)
    refused("accept", coup.even_money, 1, P, "yes")
    coup.even_money(1, P, True)
    assert results(coup) == [(0, P, "even_money", 1000, 2000), (0, B1, "even_money", 500, 1000)]


# --- refusals ---------------------------------------------------------------------


def _two_boxes_box_1_stood() -> BlackjackCoup:
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    deal(coup, "TS", "9H", "7D", "8H", "5C")
    coup.stand(1, P)
    return coup


def test_refuse_hit_on_a_stood_hand():
    coup = _two_boxes_box_1_stood()
    error = refused("hand_index", coup.hit, 1, P)
    assert "stood" in error.message
    refused("hand_index", coup.hit, 1, P, hand_index=0)
    refused("hand_index", coup.hit, 1, P, hand_index=1)
    refused("hand_index", coup.stand, 1, P)


def test_refuse_a_hand_that_is_not_in_play():
    coup = new()
    deal(coup, "8S", "7D", "8H")
    coup.split(1, P)
    deal(coup, "2C")
    error = refused("hand_index", coup.hit, 1, P, hand_index=1)
    assert "hand 0" in error.message


def test_refuse_acting_out_of_turn():
    coup = new(BoxBet(1, P, STAKE, True), BoxBet(2, Q, STAKE, True))
    deal(coup, "TS", "9H", "7D", "8H", "5C")
    refused("box", coup.stand, 2, Q)


def test_refuse_a_decision_while_a_card_is_due_or_during_the_deal():
    coup = new()
    refused("state", coup.hit, 1, P)
    deal(coup, "TS", "7D", "5H")
    coup.hit(1, P)
    refused("action", coup.hit, 1, P)


def test_refuse_acting_after_settlement():
    coup = new()
    deal(coup, "TS", "7D", "9H")
    coup.stand(1, P)
    deal(coup, "TC")
    assert coup.state == "settled"
    for call, args in [
        (coup.hit, (1, P)),
        (coup.stand, (1, P)),
        (coup.double, (1, P)),
        (coup.split, (1, P)),
        (coup.insurance, (1, P, 0)),
        (coup.even_money, (1, P, True)),
        (coup.follow, (1, B1, "double", True)),
        (coup.deal, ("2S",)),
    ]:
        refused("state", call, *args)
    assert not coup.can_deal("2S") and not coup.can_hit(1, P)


def test_refuse_settle_before_the_end():
    coup = new()
    deal(coup, "TS", "7D")
    refused("state", coup.settle)


def test_refuse_a_card_when_a_decision_is_awaited_and_a_bad_card_code():
    coup = new()
    refused("card", coup.deal, "1S")
    deal(coup, "TS", "7D", "9H")
    error = refused("state", coup.deal, "2S")
    assert "play decision" in error.message


def test_a_refusal_changes_nothing():
    coup = new()
    deal(coup, "8S", "7D", "8H")
    coup.hit(1, P)
    deal(coup, "3C")
    before = (coup.hands(), coup.awaiting(), coup.next_draw(), coup.state)
    for call in (coup.split, coup.double):
        with pytest.raises(RuleError):
            call(1, P)
    assert (coup.hands(), coup.awaiting(), coup.next_draw(), coup.state) == before


def test_can_mirrors_verify():
    coup = new()
    deal(coup, "5S", "7D", "4H")
    assert coup.can_double(1, P) and coup.can_hit(1, P) and coup.can_stand(1, P)
    assert not coup.can_split(1, P) and not coup.can_insurance(1, P, 0) and not coup.can_even_money(1, P, True)
    assert not coup.can_follow(1, B1, "double", True) and not coup.can_deal("2S")


# --- dealer play only as far as needed -----------------------------------------------------


def test_the_dealer_takes_no_card_when_every_hand_is_bust():
    coup = new()
    deal(coup, "TS", "7D", "6H")
    coup.hit(1, P)
    deal(coup, "KC")
    assert coup.state == "settled" and coup.dealer_cards == ("7D",)
    assert results(coup) == [(0, P, "lost", 1000, 0)]


def test_the_dealer_takes_one_card_to_settle_insurance_when_every_hand_is_bust():
    coup = new()
    deal(coup, "TS", "AD", "6H")
    coup.insurance(1, P, 500)
    coup.hit(1, P)
    deal(coup, "KC")
    assert coup.next_draw() == DEALER
    deal(coup, "5C")
    assert coup.state == "settled" and coup.dealer_cards == ("AD", "5C")
    assert results(coup) == [(0, P, "lost", 1000, 0), (0, P, "insurance_lost", 500, 0)]


# --- rule options as data -------------------------------------------------------------


def test_default_rules_are_the_rules_md_defaults():
    rules = BlackjackRules()
    assert rules.to_dict() == {
        "decks": 6,
        "hole_card": False,
        "double_on": "9-11",
        "double_after_split": True,
        "max_split_hands": 3,
        "blackjack_pays": "3:2",
        "immediate_payouts": [
            {"pattern": "three_sevens", "pays": "1:1"},
            {"pattern": "five_fours", "pays": "1:1"},
            {"pattern": "four_fives", "pays": "1:1"},
            {"pattern": "six_cards_21_or_less", "pays": "1:1"},
            {"pattern": "five_cards_21", "pays": "1:1"},
        ],
        "behind_may_follow": False,
    }
    assert rules.double_on is DoubleOn.NINE_TO_ELEVEN


def test_rules_round_trip_through_json():
    rules = BlackjackRules.from_dict(
        {
            "decks": 8,
            "hole_card": True,
            "double_on": "any",
            "double_after_split": False,
            "max_split_hands": None,
            "blackjack_pays": "6:5",
            "immediate_payouts": [{"pattern": "five_cards_21", "pays": "2:1"}],
        }
    )
    assert BlackjackRules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    assert rules.immediate_payouts == (ImmediatePayoutRule("five_cards_21", Fraction(2)),)
    assert BlackjackRules.from_dict(None) == BlackjackRules.from_dict({}) == BlackjackRules()
    assert pickle.loads(pickle.dumps(rules)) == rules


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"decks": 0}, "rules.decks"),
        ({"decks": "6"}, "rules.decks"),
        ({"hole_card": "no"}, "rules.hole_card"),
        ({"double_on": "10-11"}, "rules.double_on"),
        ({"double_after_split": 1}, "rules.double_after_split"),
        ({"max_split_hands": 0}, "rules.max_split_hands"),
        ({"max_split_hands": 2.0}, "rules.max_split_hands"),
        ({"blackjack_pays": "3/2"}, "rules.blackjack_pays"),
        ({"blackjack_pays": "0:2"}, "rules.blackjack_pays"),
        ({"blackjack_pays": 1.5}, "rules.blackjack_pays"),
        ({"immediate_payouts": "none"}, "rules.immediate_payouts"),
        ({"immediate_payouts": [{"pattern": "seven_cards"}]}, "rules.immediate_payouts"),
        ({"immediate_payouts": [{"pattern": "three_sevens", "pays": "x"}]}, "rules.immediate_payouts"),
        ({"immediate_payouts": [{"pattern": "three_sevens"}] * 2}, "rules.immediate_payouts"),
        ({"immediate_payouts": [{"pattern": "three_sevens", "extra": 1}]}, "rules.immediate_payouts"),
        ({"surrender": True}, "rules.surrender"),
    ],
)
def test_rules_from_dict_refuses_bad_options_naming_them(options, field):
    refused(field, BlackjackRules.from_dict, options)


def test_rules_from_dict_refuses_a_non_object():
    refused("rules", BlackjackRules.from_dict, ["decks"])


def test_decks_option_is_recorded_and_does_not_change_settlement():
    """RULES.md: 6 decks; the deck count changes the shoe (CardCounter, ShoeOrder), not how a
    given set of cards settles."""
    for decks in (6, 8):
        coup = new(decks=decks)
        deal(coup, "TS", "9D", "TH")
        coup.stand(1, P)
        deal(coup, "8C")
        assert results(coup) == [(0, P, "won", 1000, 2000)]


def test_records_pickle_and_have_a_json_form():
    coup = new(BoxBet(1, P, 1005, True))
    records = deal(coup, "AS", "7D", "KH")
    for record in [*records, *coup.settle(), coup.hand(1), BlackjackRules()]:
        assert pickle.loads(pickle.dumps(record)) == record
        json.dumps(to_data(record))
    assert to_data(records[-2].lines[0]) == {
        "type": "BetSettlement",
        "box": 1,
        "hand_index": 0,
        "bettor": P,
        "outcome": "blackjack",
        "stake_cents": 1005,
        "return_cents": 2512,
        "winnings_cents": 1507,
        "house_cents": 0,
        "unpaid_fraction": "1/2",
        "paid_at_once": True,
    }
    assert to_data(records[0]) == {
        "type": "CardDealt",
        "to": {"type": "DrawTarget", "kind": "player", "box": 1, "hand_index": 0},
        "card": "AS",
        "total": 11,
        "soft": True,
    }


# --- replay -----------------------------------------------------------------------------


def _scripted(coup: BlackjackCoup) -> list:
    records = deal(coup, "8S", "TH", "AD", "8H", "2C")
    records += coup.insurance(1, P, 500)
    records += coup.insurance(1, B1, 0)
    records += coup.insurance(2, Q, 0)
    records += coup.split(1, P)
    records += coup.follow(1, B1, "split", True)
    records += deal(coup, "3C")
    records += coup.double(1, P)
    records += coup.follow(1, B1, "double", False)
    records += deal(coup, "TD", "9C")
    records += coup.stand(1, P)
    records += coup.stand(2, Q)
    records += deal(coup, "7C")
    return records


def test_the_same_calls_replay_to_the_same_records_and_settlement():
    """The service rebuilds a coup by replaying its events: the coup is deterministic."""
    bets = [BoxBet(1, P, 1000, True), BoxBet(1, B1, 400, False), BoxBet(2, Q, 700, True)]
    rules = BlackjackRules(behind_may_follow=True)
    first, second = BlackjackCoup(rules, bets), BlackjackCoup(rules, bets)
    assert _scripted(first) == _scripted(second)
    assert first.settle() == second.settle()
    assert first.hands() == second.hands()
    # dealer A,7 = soft 18: hand 0 (8,3,T doubled = 21) wins, hand 1 (8,9 = 17) loses, box 2 (T,2) loses
    assert [
        (s.box, s.hand_index, s.bettor, s.outcome.value, s.stake_cents, s.return_cents) for s in first.settle()
    ] == [
        (1, 0, P, "won", 2000, 4000),
        (1, 0, B1, "won", 400, 800),
        (1, 1, P, "lost", 1000, 0),
        (1, 1, B1, "lost", 400, 0),
        (1, 0, P, "insurance_lost", 500, 0),
        (2, 0, Q, "lost", 700, 0),
    ]


# --- bookkeeping property ------------------------------------------------------------------

ALL_CARDS = deck()
rule_options = st.fixed_dictionaries(
    {
        "hole_card": st.booleans(),
        "double_on": st.sampled_from(["9-11", "any"]),
        "double_after_split": st.booleans(),
        "max_split_hands": st.sampled_from([1, 2, 3, None]),
        "blackjack_pays": st.sampled_from(["3:2", "6:5", "1:1"]),
        "immediate_payouts": st.sampled_from(
            [[], None, [{"pattern": "three_sevens", "pays": "3:2"}, {"pattern": "five_cards_21", "pays": "2:1"}]]
        ),
        "behind_may_follow": st.booleans(),
    }
)
# Few ranks make pairs, splits and patterns frequent.
cards = st.sampled_from(ALL_CARDS) | st.sampled_from(["7S", "8H", "AS", "4D", "5C", "KH"])


def _exact_return(line: BetSettlement, rules: BlackjackRules) -> Fraction:
    stake = line.stake_cents
    odds = {
        Outcome.WON: Fraction(1),
        Outcome.EVEN_MONEY: Fraction(1),
        Outcome.BLACKJACK: rules.blackjack_pays,
        Outcome.PUSHED: Fraction(0),
        Outcome.INSURANCE_WON: Fraction(2),
    }
    if line.outcome in (Outcome.LOST, Outcome.INSURANCE_LOST):
        return Fraction(0)
    if line.outcome is Outcome.IMMEDIATE:
        return stake + stake * max(p.pays for p in rules.immediate_payouts)  # checked below per pattern
    return stake + stake * odds[line.outcome]


@props
@given(st.data(), rule_options)
def test_bookkeeping_holds_and_no_hand_takes_a_card_after_closing(data, options):
    """Whatever the cards and decisions: every cent staked (bets, doubles, splits, followers,
    insurance) is on exactly one settlement line; each line's return is its stake at the rule's
    odds rounded down, with the fraction recorded; total returned + house net = total staked;
    lines paid at once are the ones announced by their records; no card reaches a closed hand."""
    if options["immediate_payouts"] is None:
        del options["immediate_payouts"]
    rules = BlackjackRules.from_dict(options)
    bets = []
    for box in range(1, data.draw(st.integers(1, 3), label="boxes") + 1):
        bets.append(BoxBet(box, f"s{box}", data.draw(st.integers(1, 5001)), True))
        for j in range(data.draw(st.integers(0, 2))):
            bets.append(BoxBet(box, f"b{box}{j}", data.draw(st.integers(1, 5001)), False))
    stake_of = {(b.box, b.bettor): b.stake_cents for b in bets}
    coup = BlackjackCoup(rules, bets)
    staked = sum(stake_of.values())
    closed: set[tuple[int, int]] = set()
    announced: list[BetSettlement] = []
    patterns: dict[tuple[int, int], str] = {}
    for _ in range(400):
        if coup.state == "settled":
            break
        if coup.next_draw() is not None:
            records = coup.deal(data.draw(cards))
        else:
            decision = coup.awaiting()
            box, bettor = decision.box, decision.bettors[0]
            if decision.kind == "play":
                action = data.draw(st.sampled_from(sorted(decision.actions)))
                records = getattr(coup, action)(box, bettor)
            elif decision.kind == "insurance":
                amount = data.draw(st.integers(0, stake_of[box, bettor] // 2))
                records = coup.insurance(box, bettor, amount)
            elif decision.kind == "even_money":
                records = coup.even_money(box, bettor, data.draw(st.booleans()))
            else:
                records = coup.follow(box, bettor, decision.follows, data.draw(st.booleans()))
        for record in records:
            event(type(record).__name__)  # --hypothesis-show-statistics: what the examples reach
            if isinstance(record, CardDealt) and record.to.kind == "player":
                assert (record.to.box, record.to.hand_index) not in closed
            elif isinstance(record, HandClosed):
                closed.add((record.box, record.hand_index))
            elif isinstance(record, Decided | FollowDecided):
                staked += record.stake_added_cents
            elif isinstance(record, InsuranceDecided):
                staked += record.amount_cents
            elif isinstance(record, BlackjackPaid | ImmediatePayout | EvenMoneyDecided):
                announced.extend(record.lines)
                if isinstance(record, ImmediatePayout):
                    patterns[record.box, record.hand_index] = record.pattern
    assert coup.state == "settled"
    lines = coup.settle()
    assert sum(s.stake_cents for s in lines) == staked
    returned = sum(s.return_cents for s in lines)
    house_net = sum(s.house_cents for s in lines) - sum(s.winnings_cents for s in lines)
    assert returned + house_net == staked
    pays = {p.pattern: p.pays for p in rules.immediate_payouts}
    for line in lines:
        exact = (
            line.stake_cents * (1 + pays[patterns[line.box, line.hand_index]])
            if line.outcome is Outcome.IMMEDIATE
            else _exact_return(line, rules)
        )
        assert line.return_cents == exact.numerator // exact.denominator
        assert line.unpaid_fraction == exact - line.return_cents < 1
        assert line.winnings_cents == max(line.return_cents - line.stake_cents, 0)
        assert line.house_cents == max(line.stake_cents - line.return_cents, 0)
    assert Counter(s for s in lines if s.paid_at_once) == Counter(announced)
    every_hand = {(h.box, h.hand_index) for h in coup.hands()}
    assert {(s.box, s.hand_index) for s in lines if not s.outcome.value.startswith("insurance")} == every_hand
    # With no hole card a dealer blackjack takes every hand not paid at once but a blackjack.
    dealer = coup.dealer_cards
    if len(dealer) == 2 and hand_value(dealer) == (21, True):
        for line in lines:
            if not line.paid_at_once and line.outcome not in (Outcome.INSURANCE_WON, Outcome.PUSHED):
                assert line.outcome is Outcome.LOST


# --- basic strategy (default rules) --------------------------------------------------------

PLAY = frozenset({"hit", "stand", "double", "split"})


@pytest.mark.parametrize(
    ("hand", "up", "allowed", "expected"),
    [
        (["TS", "6H"], "TD", PLAY, "hit"),  # 16 v 10
        (["TS", "6H"], "6D", PLAY, "stand"),
        (["TS", "2H"], "3D", PLAY, "hit"),  # 12 v 3
        (["TS", "2H"], "4D", PLAY, "stand"),
        (["5S", "6H"], "9D", PLAY, "double"),
        (["5S", "6H"], "TD", PLAY, "hit"),  # 11 v 10: no hole card, do not double into a ten
        (["5S", "6H"], "AD", PLAY, "hit"),
        (["5S", "4H"], "3D", PLAY, "double"),
        (["5S", "4H"], "2D", PLAY, "hit"),
        (["8S", "8H"], "9D", PLAY, "split"),
        (["8S", "8H"], "TD", PLAY, "hit"),  # no hole card: do not split 8s into a ten
        (["AS", "AH"], "TD", PLAY, "split"),
        (["AS", "AH"], "AD", PLAY, "hit"),  # no hole card: do not split aces into an ace
        (["9S", "9H"], "7D", PLAY, "stand"),
        (["TS", "KH"], "6D", PLAY, "stand"),
        (["AS", "7H"], "4D", frozenset({"hit", "stand"}), "stand"),  # Ds with double on 9-11 only
        (["AS", "7H"], "9D", PLAY, "hit"),
        (["AS", "6H"], "4D", frozenset({"hit", "stand"}), "hit"),  # D on soft 17, no double: hit
        (["AS", "6H"], "4D", PLAY, "double"),  # double_on=any
        (["8S", "8H"], "6D", frozenset({"hit", "stand"}), "stand"),  # split limit reached: hard 16
        (["2S", "3H", "4D", "2C"], "5D", PLAY - {"split", "double"}, "hit"),  # 11 in 4 cards
        (["TS", "6H"], "AD", frozenset({"insurance"}), "decline"),
    ],
)
def test_basic_decision_cells(hand, up, allowed, expected):
    assert basic_decision(hand, up, allowed) == expected


def test_basic_decision_refuses_a_bad_up_card():
    refused("card", basic_decision, ["TS", "6H"], "1D", PLAY)

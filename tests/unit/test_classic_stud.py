"""RULES.md §Classic five-card stud on the pure engine (no Django).

Base stake 100 cents (so the caps are 1,000 / 2,000 / 4,000 / 8,000) and antes on, unless said.
Seats are numbered from the dealer's left. Cards for a seat are written in dealing order:
hole, up, up, up, last (down). Expected amounts are worked out here from the rules.
"""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules.cards import deck
from games.rules.classic_stud import (
    OPENERS,
    Acted,
    AntePosted,
    CardDealt,
    HandSettled,
    Pot,
    RoundClosed,
    RoundOpened,
    Showdown,
    StudHand,
    StudLine,
    StudRules,
    StudSeat,
    split_odd_cents_left_of_dealer,
    to_data,
)

props = settings(database=None, max_examples=300, deadline=None)
NAMES = ("ann", "bob", "cy", "dee", "eve", "fay", "gus")


def new(*stacks: int, rake=None, split=None, **options) -> StudHand:
    rules = StudRules.from_dict(options)
    seats = [StudSeat(i + 1, NAMES[i], stack) for i, stack in enumerate(stacks or (10_000, 10_000, 10_000))]
    return StudHand(rules, seats, rake=rake, split=split)


def deal(hand: StudHand, cards: dict[int, str]) -> list:
    """Deal what is due, each seat's next card from its list, until a decision or the end."""
    records = []
    while (draw := hand.next_draw()) is not None:
        seat, _ = draw
        records += hand.deal(cards[seat].split()[len(hand.seat(seat).cards)])
    return records


def check_round(hand: StudHand) -> None:
    while (turn := hand.awaiting()) is not None and hand.state == "betting":
        hand.check(turn.seat)
        if hand.state == "betting" and hand.awaiting() is None:
            break


def play_out_checking(hand: StudHand, cards: dict[int, str]) -> None:
    """Deal and check every round to the end."""
    while hand.state != "settled":
        deal(hand, cards)
        if hand.state == "betting":
            hand.check(hand.awaiting().seat)


def refused(call, field: str) -> RuleError:
    with pytest.raises(RuleError) as caught:
        call()
    assert caught.value.field == field, caught.value
    return caught.value


def nets(settled: HandSettled) -> dict:
    return {line.seat: line.net_cents for line in settled.lines}


# The three seats of the side-pot hand: seat 2 shows the ace and has the best hand (trips
# aces), seat 1 trips kings, seat 3 a pair of queens.
SIDE = {
    1: "KC KS KD 2C 3C",
    2: "AC AS AD 8H 9S",
    3: "QC QS 4D 5D 7C",
}
# A tie: seats 1 and 3 hold K-J-9-7-2 (high card) in different suits, seat 2 Q-J-9-7-2.
TIE = {
    1: "KS JD 9H 7C 2S",
    2: "QS JH 9C 7D 2H",
    3: "KH JC 9D 7S 2D",
}


# --- dealing and antes ---------------------------------------------------------------------


def test_antes_then_a_hole_card_and_an_up_card_to_each_seat_then_three_rounds_of_one() -> None:
    hand = new()
    assert hand.log == (
        AntePosted(1, "ann", 100, 9900),
        AntePosted(2, "bob", 100, 9900),
        AntePosted(3, "cy", 100, 9900),
    )
    draws = []
    while hand.state != "settled":
        while (draw := hand.next_draw()) is not None:
            draws.append(draw)
            seat = draw[0]
            hand.deal(SIDE[seat].split()[len(hand.seat(seat).cards)])
        if hand.state == "betting":
            hand.check(hand.awaiting().seat)
    assert draws == [
        *[(s, "hole") for s in (1, 2, 3)],
        *[(s, "up") for s in (1, 2, 3)],
        *[(s, "up") for s in (1, 2, 3)],
        *[(s, "up") for s in (1, 2, 3)],
        *[(s, "down") for s in (1, 2, 3)],
    ]
    view = hand.seat(2)
    assert view.cards == tuple(SIDE[2].split()) and view.up_cards == ("AS", "AD", "8H")
    dealt = [r for r in hand.log if isinstance(r, CardDealt)]
    assert [r.round for r in dealt] == [1] * 6 + [2] * 3 + [3] * 3 + [4] * 3


def test_a_card_dealt_twice_from_one_deck_is_refused() -> None:
    hand = new()
    hand.deal("AS")
    refused(lambda: hand.deal("AS"), "card")
    refused(lambda: hand.deal("1S"), "card")
    assert not hand.can_deal("AS") and hand.can_deal("KS")
    assert hand.next_draw() == (2, "hole")


def test_a_folded_seat_gets_no_more_cards() -> None:
    hand = new()
    deal(hand, SIDE)
    hand.bet(2, 100)
    hand.fold(3)
    hand.call(1)
    assert hand.next_draw() == (1, "up")
    deal(hand, SIDE)
    assert len(hand.seat(3).cards) == 2 and len(hand.seat(1).cards) == 3


# --- the opener ----------------------------------------------------------------------------


def test_the_highest_up_card_opens_the_first_round() -> None:
    hand = new()
    records = deal(hand, SIDE)
    assert records[-1] == RoundOpened(1, 2, ("AS",), 1000)
    assert hand.awaiting().seat == 2


def test_equal_highest_up_cards_open_nearest_the_dealers_left() -> None:
    hand = new()
    records = deal(hand, {1: "2C 9S", 2: "3C 9D", 3: "4C 8H"})
    assert records[-1].opener == 1
    hand = new()
    records = deal(hand, {1: "2C 8S", 2: "3C 9D", 3: "4C 9H"})
    assert records[-1].opener == 2


def test_the_highest_up_card_opens_each_round_anew() -> None:
    hand = new()
    cards = {1: "2C 9S AH", 2: "3C QD 4H", 3: "4C JH 5S"}
    assert deal(hand, cards)[-1].opener == 2
    for seat in (2, 3, 1):
        hand.check(seat)
    assert deal(hand, cards)[-1] == RoundOpened(2, 1, ("9S", "AH"), 2000)


def test_best_showing_opener_option_counts_a_pair_above_an_ace() -> None:
    cards = {1: "2C 3S 3D", 2: "4C AS KD", 3: "5C 7H 8H"}
    for opener, expected in (("highest_card", 2), ("best_showing", 1)):
        hand = new(opener=opener)
        deal(hand, cards)
        for seat in (2, 3, 1):
            hand.check(seat)
        assert deal(hand, cards)[-1].opener == expected


def test_a_player_all_in_does_not_open() -> None:
    hand = new(10_000, 100, 10_000)  # seat 2 is all in with his ante
    assert hand.seat(2).all_in
    assert deal(hand, SIDE)[-1].opener == 1  # seat 2 shows the ace, seat 1 the king


# --- turns and the betting actions ---------------------------------------------------------


def test_check_parole_goes_round_the_table_from_the_opener() -> None:
    hand = new()
    deal(hand, SIDE)
    records = [hand.act(2, "parole"), hand.check(3), hand.check(1)]
    assert [r[0].action for r in records] == ["check"] * 3
    assert records[-1][1] == RoundClosed(1, True, 300)
    assert hand.state == "dealing" and hand.round == 2


def test_acting_out_of_turn_is_refused() -> None:
    hand = new()
    deal(hand, SIDE)
    error = refused(lambda: hand.check(3), "seat")
    assert "seat 2 is to act" in error.message
    refused(lambda: hand.fold(1), "seat")
    refused(lambda: hand.bet(9, 100), "seat")
    assert not hand.can_check(3) and hand.can_check(2)


def test_a_check_when_a_bet_is_pending_is_refused() -> None:
    hand = new()
    deal(hand, SIDE)
    hand.bet(2, 300)
    refused(lambda: hand.check(3), "action")
    refused(lambda: hand.act(3, "parole"), "action")
    refused(lambda: hand.bet(3, 300), "action")  # there is already a bet
    hand.call(3)
    refused(lambda: hand.call(2), "seat")


def test_bets_are_capped_at_10_20_40_80_times_the_base_stake() -> None:
    hand = new(100_000, 100_000)
    cards = {1: "2C AS 3S 4S 5S", 2: "2D KH 3H 4H 5H"}
    for cap in (1000, 2000, 4000, 8000):
        deal(hand, cards)
        assert hand.awaiting().cap_cents == cap
        refused(lambda c=cap: hand.bet(1, c + 1), "amount_cents")
        hand.bet(1, cap - 100)
        refused(lambda c=cap: hand.raise_to(2, c + 100), "amount_cents")
        hand.raise_to(2, cap)  # to the cap: allowed though the raise is smaller than the bet
        assert hand.awaiting().actions == frozenset({"call", "fold"})  # the cap is reached
        refused(lambda c=cap: hand.raise_to(1, c + 100), "action")
        hand.call(1)
    settled = hand.settle()
    assert settled.pots[0].amount_cents == 200 + 2 * (1000 + 2000 + 4000 + 8000)


def test_the_caps_and_base_stake_are_table_options() -> None:
    hand = new(base_stake_cents=50, caps=[2, 4, 6, 8])
    deal(hand, SIDE)
    assert hand.awaiting().cap_cents == 100
    refused(lambda: hand.bet(2, 101), "amount_cents")


def test_a_raise_of_the_wrong_size_is_refused() -> None:
    hand = new()
    deal(hand, SIDE)
    refused(lambda: hand.bet(2, 99), "amount_cents")  # under the base stake
    hand.bet(2, 300)
    error = refused(lambda: hand.raise_to(3, 500), "amount_cents")  # raise by 200 < 300
    assert "wrong size" in error.message
    refused(lambda: hand.raise_to(3, 300), "amount_cents")  # not above the bet
    refused(lambda: hand.raise_to(3, 0), "amount_cents")
    refused(lambda: hand.act(3, "raise"), "amount_cents")
    hand.raise_to(3, 600)
    refused(lambda: hand.raise_to(1, 800), "amount_cents")  # the last raise was by 300
    turn = hand.awaiting()
    assert (turn.seat, turn.level_cents, turn.to_call_cents) == (1, 600, 600)
    assert (turn.min_total_cents, turn.max_total_cents) == (900, 1000)
    hand.raise_to(1, 900)
    assert hand.log[-1] == Acted(1, "ann", "raise", 900, 900, 900, 9000, False)


def test_a_call_with_nothing_to_call_and_amounts_where_none_go_are_refused() -> None:
    hand = new()
    deal(hand, SIDE)
    refused(lambda: hand.call(2), "action")
    refused(lambda: hand.raise_to(2, 200), "action")  # no bet to raise
    refused(lambda: hand.act(2, "check", 100), "amount_cents")
    refused(lambda: hand.act(2, "sing"), "action")
    assert hand.can_act(2, "bet", 1000) and not hand.can_act(2, "bet", 1001)


def test_table_stakes_no_bet_above_the_stack() -> None:
    hand = new(10_000, 600, 10_000)
    deal(hand, SIDE)
    refused(lambda: hand.bet(2, 501), "amount_cents")
    hand.bet(2, 500)
    assert hand.seat(2).all_in and hand.log[-1].all_in


def test_an_all_in_call_for_less_and_a_short_all_in_bet_are_allowed() -> None:
    hand = new(10_000, 10_000, 150)
    deal(hand, SIDE)
    hand.bet(2, 300)
    hand.call(3)  # 50 left: all in for less
    assert hand.log[-1] == Acted(3, "cy", "call", 50, 50, 300, 0, True)
    hand.call(1)
    assert [p.amount_cents for p in hand.pots()] == [300 + 150, 500]


def test_a_short_all_in_raise_does_not_reopen_the_betting() -> None:
    hand = new(10_000, 10_000, 500)
    deal(hand, SIDE)
    hand.bet(2, 300)
    hand.raise_to(3, 400)  # all in: a raise of 100 where 300 is the minimum
    assert hand.seat(3).all_in
    assert hand.can_raise_to(1, 700)  # seat 1 has not acted yet: he may raise
    hand.call(1)
    refused(lambda: hand.raise_to(2, 700), "action")  # seat 2 has acted since the last full raise
    assert hand.awaiting().actions == frozenset({"call", "fold"})
    hand.call(2)
    assert hand.state == "dealing"


def test_a_full_raise_reopens_the_betting() -> None:
    hand = new()
    deal(hand, SIDE)
    hand.bet(2, 300)
    hand.call(3)
    hand.raise_to(1, 600)
    assert hand.awaiting().actions == frozenset({"call", "raise", "fold"})
    hand.raise_to(2, 900)
    hand.raise_to(3, 1000)  # to the cap
    assert hand.awaiting().actions == frozenset({"call", "fold"})


def test_no_raise_when_everyone_else_is_all_in_and_no_betting_rounds_after() -> None:
    hand = new(10_000, 400)
    deal(hand, {1: SIDE[1], 2: SIDE[2]})
    hand.bet(2, 300)  # all in
    refused(lambda: hand.raise_to(1, 600), "action")
    records = hand.call(1)
    assert records[-1] == RoundClosed(1, True, 800)
    records = deal(hand, {1: SIDE[1], 2: SIDE[2]})
    closed = [r for r in records if isinstance(r, RoundClosed)]
    assert closed == [RoundClosed(2, False, 800), RoundClosed(3, False, 800), RoundClosed(4, False, 800)]
    assert isinstance(records[-2], Showdown) and hand.state == "settled"
    assert nets(hand.settle()) == {1: -400, 2: 400, None: 0}


# --- pots and side pots ------------------------------------------------------------------


def test_side_pot_when_a_player_cannot_match() -> None:
    hand = new(10_000, 600, 10_000)
    deal(hand, SIDE)
    hand.bet(2, 500)  # all in
    hand.raise_to(3, 1000)
    hand.call(1)
    assert hand.pots() == (Pot(0, 300 + 3 * 500, (1, 2, 3)), Pot(1, 2 * 500, (1, 3)))
    play_out_checking(hand, SIDE)
    settled = hand.settle()
    assert settled.showdown
    main, side = settled.pots
    assert (main.winners, main.shares) == ((2,), ((2, 1800),))  # trips aces
    assert (side.winners, side.shares) == ((1,), ((1, 1000),))  # trips kings beat queens
    assert nets(settled) == {1: -100, 2: 1200, 3: -1100, None: 0}
    assert [v.stack_cents for v in hand.seats()] == [9900, 1800, 8900]


def test_a_folded_players_chips_stay_in_the_pots_he_paid_into() -> None:
    hand = new(10_000, 400, 10_000)
    deal(hand, SIDE)
    hand.bet(2, 300)  # all in
    hand.raise_to(3, 800)
    hand.call(1)
    assert hand.pots() == (Pot(0, 1200, (1, 2, 3)), Pot(1, 1000, (1, 3)))
    records = deal(hand, SIDE)
    assert records[-1].opener == 1  # seat 2 shows the aces but is all in
    hand.bet(1, 500)
    hand.fold(3)  # seat 3 leaves 900 behind
    assert hand.pots() == (Pot(0, 1200, (1, 2)), Pot(1, 1000, (1,)))
    deal(hand, SIDE)  # no more betting: seat 1 alone can act
    settled = hand.settle()
    assert [(p.amount_cents, p.winners) for p in settled.pots] == [(1200, (2,)), (1000, (1,))]
    assert settled.lines[0] == StudLine(1, "ann", 1400, 500, 1000, 100)
    assert nets(settled) == {1: 100, 2: 800, 3: -900, None: 0}


def test_uncalled_chips_go_back_unraked() -> None:
    hand = new(rake_pct=10)
    deal(hand, SIDE)
    hand.bet(2, 500)
    hand.fold(3)
    records = hand.fold(1)
    settled = records[-1]
    assert isinstance(settled, HandSettled) and not settled.showdown
    assert settled.pots[0].amount_cents == 300 and settled.pots[0].rake_cents == 30
    assert settled.lines[1] == StudLine(2, "bob", 600, 500, 270, 170)
    assert nets(settled) == {1: -100, 2: 170, 3: -100, None: 30}


def test_showdown_shows_the_hands_still_in() -> None:
    hand = new()
    play_out_checking(hand, SIDE)
    showdown = next(r for r in hand.log if isinstance(r, Showdown))
    assert [(s.seat, s.category, s.ranks) for s in showdown.hands] == [
        (1, "trips", (13, 3, 2)),
        (2, "trips", (14, 9, 8)),
        (3, "pair", (12, 7, 5, 4)),
    ]
    assert nets(hand.settle()) == {1: -100, 2: 200, 3: -100, None: 0}


# --- split pots, the odd cent, the rake --------------------------------------------------


def test_equal_hands_split_the_pot_and_the_odd_cent_goes_nearest_the_dealers_left() -> None:
    hand = new(base_stake_cents=101)
    play_out_checking(hand, TIE)
    (pot,) = hand.settle().pots
    assert (pot.amount_cents, pot.winners, pot.odd_cents) == (303, (1, 3), 1)
    assert pot.shares == ((1, 152), (3, 151))
    assert nets(hand.settle()) == {1: 51, 2: -101, 3: 50, None: 0}


def test_the_split_policy_is_a_function() -> None:
    assert split_odd_cents_left_of_dealer(10, (2, 4, 6)) == [4, 3, 3]
    assert split_odd_cents_left_of_dealer(11, (2, 4, 6)) == [4, 4, 3]

    def odd_cent_to_the_last(amount: int, winners: tuple[int, ...]) -> list[int]:
        return list(reversed(split_odd_cents_left_of_dealer(amount, winners)))

    hand = new(base_stake_cents=101, split=odd_cent_to_the_last)
    play_out_checking(hand, TIE)
    assert hand.settle().pots[0].shares == ((1, 151), (3, 152))


def test_rake_is_rounded_down_and_the_fraction_recorded() -> None:
    hand = new(base_stake_cents=101, rake_pct="10")
    play_out_checking(hand, TIE)
    settled = hand.settle()
    (pot,) = settled.pots
    assert (pot.rake_owed, pot.rake_cents) == (Fraction(303, 10), 30)
    assert pot.shares == ((1, 137), (3, 136))  # 273 split, the odd cent to seat 1
    assert settled.rake_cents == 30
    assert settled.lines[-1] == StudLine(None, "house", 0, 0, 30, 30)
    assert sum(line.net_cents for line in settled.lines) == 0


def test_rake_cap_and_rake_policy_function() -> None:
    hand = new(base_stake_cents=101, rake_pct="10", rake_cap_cents=20)
    play_out_checking(hand, TIE)
    assert hand.settle().rake_cents == 20
    assert hand.settle().pots[0].shares == ((1, 142), (3, 141))

    hand = new(base_stake_cents=101, rake=lambda pot: Fraction(99, 4))  # a flat 24.75
    play_out_checking(hand, TIE)
    (pot,) = hand.settle().pots
    assert (pot.rake_owed, pot.rake_cents) == (Fraction(99, 4), 24)


def test_the_rake_is_taken_from_each_pot_main_pot_first_under_the_cap() -> None:
    hand = new(10_000, 600, 10_000, rake_pct=5, rake_cap_cents=100)
    deal(hand, SIDE)
    hand.bet(2, 500)
    hand.raise_to(3, 1000)
    hand.call(1)
    play_out_checking(hand, SIDE)
    main, side = hand.settle().pots
    assert (main.rake_owed, main.rake_cents) == (90, 90)  # 5 % of 1800
    assert (side.rake_owed, side.rake_cents) == (50, 10)  # capped: 100 for the hand
    assert nets(hand.settle()) == {1: -110, 2: 1110, 3: -1100, None: 100}


# --- the end of the hand -----------------------------------------------------------------


def test_folding_after_the_showdown_is_refused_and_nothing_changes() -> None:
    hand = new()
    play_out_checking(hand, SIDE)
    log = hand.log
    for call in (lambda: hand.fold(1), lambda: hand.check(2), lambda: hand.deal("2H")):
        error = refused(call, "state")
        assert "showdown" in error.message
    assert hand.log == log and hand.awaiting() is None and hand.next_draw() is None


def test_the_last_player_left_takes_the_pot_unseen() -> None:
    hand = new()
    deal(hand, SIDE)
    hand.bet(2, 200)
    hand.fold(3)
    records = hand.fold(1)
    assert [type(r) for r in records] == [Acted, RoundClosed, HandSettled]
    assert nets(hand.settle()) == {1: -100, 2: 200, 3: -100, None: 0}
    refused(lambda: hand.fold(2), "state")


def test_settle_before_the_end_and_acting_while_cards_are_due_are_refused() -> None:
    hand = new()
    refused(hand.settle, "state")
    refused(lambda: hand.check(1), "state")
    deal(hand, SIDE)
    refused(lambda: hand.deal("2H"), "state")


# --- rule options and seats ----------------------------------------------------------------


def test_rules_round_trip_through_json() -> None:
    rules = StudRules.from_dict({"base_stake_cents": 50, "caps": [1, 2, 3, 4], "rake_pct": 2.5, "ante": False})
    assert rules.rake_pct == Fraction(5, 2) and rules.caps == (1, 2, 3, 4)
    assert StudRules.from_dict(rules.to_dict()) == rules
    assert StudRules().to_dict() == {
        "base_stake_cents": 100,
        "caps": [10, 20, 40, 80],
        "ante": True,
        "rake_pct": "0",
        "rake_cap_cents": None,
        "opener": "highest_card",
    }


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"base_stake_cents": 0}, "rules.base_stake_cents"),
        ({"caps": [10, 20, 40]}, "rules.caps"),
        ({"caps": "10,20,40,80"}, "rules.caps"),
        ({"caps": [10, 20, 40, 0]}, "rules.caps"),
        ({"rake_pct": 100}, "rules.rake_pct"),
        ({"rake_pct": -1}, "rules.rake_pct"),
        ({"rake_pct": "lots"}, "rules.rake_pct"),
        ({"rake_pct": True}, "rules.rake_pct"),
        ({"rake_pct": 1e-300}, "rules.rake_pct"),
        ({"rake_cap_cents": -1}, "rules.rake_cap_cents"),
        ({"opener": "lowest"}, "rules.opener"),
        ({"ante": 1}, "rules.ante"),
        ({"blinds": True}, "rules.blinds"),
    ],
)
def test_rules_refuse_bad_options_naming_the_option(options: dict, field: str) -> None:
    refused(lambda: StudRules.from_dict(options), field)


def test_without_antes_the_pot_starts_empty() -> None:
    hand = new(ante=False)
    assert hand.log == ()
    play_out_checking(hand, SIDE)
    assert hand.settle().pots == () and nets(hand.settle()) == {1: 0, 2: 0, 3: 0, None: 0}


@pytest.mark.parametrize(
    ("seats", "field"),
    [
        ([StudSeat(1, "a", 1000)], "seats"),
        ([StudSeat(1, "a", 1000), StudSeat(1, "b", 1000)], "seat"),
        ([StudSeat(1, "a", 1000), StudSeat(2, "a", 1000)], "player"),
        ([StudSeat(1, "a", 1000), StudSeat(2, "b", 99)], "stack_cents"),
        ([StudSeat(1, "a", 1000), ("2", "b", 1000)], "seats"),
    ],
)
def test_seats_are_checked(seats: list, field: str) -> None:
    refused(lambda: StudHand(StudRules(), seats), field)


@pytest.mark.parametrize(
    ("args", "field"),
    [((0, "a", 100), "seat"), ((8, "a", 100), "seat"), ((1, "", 100), "player"), ((1, "a", 0), "stack_cents")],
)
def test_a_seat_is_1_to_7_with_a_player_and_chips(args: tuple, field: str) -> None:
    refused(lambda: StudSeat(*args), field)


def test_records_serialise_to_json_data() -> None:
    hand = new()
    play_out_checking(hand, SIDE)
    data = to_data(hand.settle())
    assert data["type"] == "HandSettled" and data["lines"][-1]["party"] == "house"
    assert data["pots"][0]["rake_owed"] == "0"


# --- every hand: chips are conserved, everyone who stays puts in the same ------------------


@props
@given(
    st.integers(0, 2**32),
    st.lists(st.integers(100, 20_000), min_size=2, max_size=7),
    st.sampled_from([0, 5, Fraction(5, 2)]),
    st.sampled_from(OPENERS),
)
def test_random_hands_conserve_chips_and_keep_every_rule(
    seed: int, stacks: list[int], rake: object, opener: str
) -> None:
    rng = random.Random(seed)
    hand = new(*stacks, rake_pct=rake, opener=opener)
    cards = deck()
    rng.shuffle(cards)
    top = iter(cards)
    while hand.state != "settled":
        if hand.next_draw() is not None:
            hand.deal(next(top))
            continue
        turn = hand.awaiting()
        action = rng.choice(sorted(turn.actions))
        amount = None
        if action in ("bet", "raise"):
            amount = rng.choice(
                [turn.min_total_cents, turn.max_total_cents, rng.randint(turn.min_total_cents, turn.max_total_cents)]
            )
        records = hand.act(turn.seat, action, amount)
        views = hand.seats()
        assert all(v.stack_cents >= 0 for v in views)
        assert all(v.round_total_cents <= turn.cap_cents for v in views)
        if any(isinstance(r, RoundClosed) for r in records) and hand.state != "settled":
            staying = {v.round_total_cents for v in views if not v.folded and not v.all_in}
            assert len(staying) <= 1  # everyone who stays puts in the same amount
            if staying:  # an all-in player put in at most as much
                assert all(v.round_total_cents <= max(staying) for v in views if v.all_in)
    settled = hand.settle()
    assert sum(line.net_cents for line in settled.lines) == 0
    put_in = sum(line.put_in_cents for line in settled.lines)
    uncalled = sum(line.uncalled_cents for line in settled.lines)
    assert sum(p.amount_cents for p in settled.pots) + uncalled == put_in
    for pot in settled.pots:
        assert sum(share for _, share in pot.shares) + pot.rake_cents == pot.amount_cents
        assert pot.rake_cents <= pot.rake_owed < pot.rake_cents + 1
    for view, line, stack in zip(hand.seats(), settled.lines, stacks, strict=False):
        assert view.stack_cents == stack + line.net_cents

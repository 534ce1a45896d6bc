"""RULES.md §Caribbean-style stud and cases C10-C12 on the pure engine (no Django).

Amounts in cents; the ante is 1000 (10 EUR) and the raise 2000 unless said. Expected amounts
are worked out here from the rule text, not read back from the engine. The vectors of
vectors/games.json run under both pay tables.
"""

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from basis.errors import RuleError
from games.rules.cards import deck
from games.rules.caribbean_stud import (
    PAY_TABLES,
    BoxDecided,
    BoxSettled,
    CardBurnt,
    CardDealt,
    CaribbeanAnte,
    CaribbeanCoup,
    CaribbeanLine,
    CaribbeanRules,
    DealerRevealed,
    DealerShows,
    settle,
    to_data,
)
from games.rules.poker_hands import qualify_probability
from games.rules.shoe import ShoeOrder
from tests.vectors import cents, load, vectors_path

props = settings(database=None, max_examples=200, deadline=None)

ANTE = 1000
SHEET = CaribbeanRules()
COMMON = CaribbeanRules(pay_table="common")


def c(text: str) -> list[str]:
    return text.split()


def returned(result) -> int:
    """What goes back to the player: every line's return."""
    return sum(line.return_cents for line in result.lines)


# --- the vectors -------------------------------------------------------------------------


def _vectors() -> list:
    vectors = load("caribbean_stud")
    assert vectors, f"no caribbean_stud vector in {vectors_path()}"
    return [pytest.param(v, id=v["name"]) for v in vectors]


@pytest.mark.parametrize("vector", _vectors())
def test_caribbean_stud_vector(vector: dict) -> None:
    inp, expected = vector["input"], vector["expected"]
    ante = cents(inp["ante_eur"])
    sheet = settle(inp["player"], inp["dealer"], ante, inp["raised"], SHEET)
    common = settle(inp["player"], inp["dealer"], ante, inp["raised"], COMMON)
    got = {
        "dealer_qualifies": sheet.dealer_qualifies,
        "outcome": sheet.outcome,
        "ante_net": sheet.ante_net,
        "raise_net": sheet.raise_net,
        "net": sheet.net,
        "net_common_table": common.net,
    }
    for key, value in expected.items():
        want = cents(value) if key.endswith("net") or key == "net_common_table" else value
        assert got[key] == want, key
    # Both tables agree on everything but the raise's pay-table odds.
    assert (common.dealer_qualifies, common.outcome, common.ante_net) == (
        sheet.dealer_qualifies,
        sheet.outcome,
        sheet.ante_net,
    )


# --- the cases -----------------------------------------------------------------------------


def test_c10_the_wheel_is_a_five_high_straight_paid_5_to_1() -> None:
    result = settle(c("AC 2D 3H 4S 5C"), c("KS KD 9C 6H 2S"), ANTE, True, SHEET)
    assert result.player_category == "straight"
    assert result.dealer_qualifies and result.outcome == "player_wins"
    assert (result.ante_net, result.raise_net) == (1000, 10_000)
    assert returned(result) == 14_000


def test_c10_two_to_six_beats_the_wheel() -> None:
    result = settle(c("2C 3D 4H 5S 6C"), c("AS 2D 3C 4D 5H"), ANTE, True, SHEET)
    assert (result.player_category, result.dealer_category) == ("straight", "straight")
    assert result.outcome == "player_wins" and result.net == 1000 + 10_000
    lost = settle(c("AS 2D 3C 4D 5H"), c("2C 3D 4H 5S 6C"), ANTE, True, SHEET)
    assert lost.outcome == "dealer_wins" and lost.net == -3000


def test_c11_kickers_decide_a_pair_against_a_pair() -> None:
    result = settle(c("5S 5H KC 9D 7S"), c("5C 5D QH 9S 7H"), ANTE, True, SHEET)
    assert result.dealer_qualifies and result.outcome == "player_wins"
    assert (result.ante_net, result.raise_net) == (1000, 2000)  # a pair pays 1:1
    assert returned(result) == 6000


def test_c11_only_hands_equal_in_all_five_ranks_push() -> None:
    result = settle(c("5S 5H KC 9D 7S"), c("5C 5D KH 9S 7H"), ANTE, True, SHEET)
    assert result.outcome == "push" and result.net == 0
    assert returned(result) == 3000
    assert [line.outcome for line in result.lines] == ["push", "push"]
    fifth = settle(c("5S 5H KC 9D 7S"), c("5C 5D KH 9S 6H"), ANTE, True, SHEET)
    assert fifth.outcome == "player_wins"


def test_c12_dealer_without_ace_king_pays_the_ante_and_returns_the_raise() -> None:
    result = settle(c("5S 5H KC 9D 7S"), c("QS JD 8C 5C 3S"), ANTE, True, SHEET)
    assert not result.dealer_qualifies and result.outcome == "dealer_not_qualified"
    assert (result.ante_net, result.raise_net, result.net) == (1000, 0, 1000)
    assert returned(result) == 4000  # not 3000


# --- RULES.md §Caribbean-style stud, rule by rule ----------------------------------------


def test_fold_loses_the_ante_whatever_the_dealer_holds() -> None:
    for dealer in ("QD JC 8H 6S 3D", "AD AC 8H 6S 3D"):
        result = settle(c("9S 7D 5H 4C 2S"), c(dealer), ANTE, False, SHEET)
        assert result.outcome == "fold"
        assert (result.ante_net, result.raise_net, result.net) == (-1000, 0, -1000)
        assert [line.bet for line in result.lines] == ["ante"]
        assert result.lines[0].house_cents == 1000


def test_dealer_qualifies_and_player_lower_loses_ante_and_raise() -> None:
    result = settle(c("AC KH QS JD 8C"), c("AD KS QH JC 9D"), ANTE, True, SHEET)
    assert result.outcome == "dealer_wins" and result.net == -3000
    assert sum(line.house_cents for line in result.lines) == 3000


def test_a_winning_ace_king_high_card_pays_1_to_1_on_the_raise() -> None:
    result = settle(c("AC KH QS JD 9C"), c("AD KS QH JC 8D"), ANTE, True, SHEET)
    assert result.player_category == "high card" and result.outcome == "player_wins"
    assert (result.ante_net, result.raise_net) == (1000, 2000)
    assert result.lines[1].odds == 1


@pytest.mark.parametrize(
    ("player", "category", "sheet_odds", "common_odds"),
    [
        ("2S 2D 7H 9C KS", "pair", 1, 1),
        ("JS JD 5H 5C 9S", "two pair", 2, 2),
        ("7S 7D 7H 3C 2S", "trips", 3, 3),
        ("5S 6D 7H 8C 9S", "straight", 5, 4),
        ("2H 5H 7H 9H JH", "flush", 8, 5),
        ("9S 9D 9H 4C 4S", "full house", 10, 7),
        ("7S 7D 7H 7C 2S", "quads", 20, 20),
        ("5H 6H 7H 8H 9H", "straight flush", 50, 50),
        ("TS JS QS KS AS", "royal flush", 100, 100),
    ],
)
def test_the_raise_is_paid_by_the_pay_table(player: str, category: str, sheet_odds: int, common_odds: int) -> None:
    dealer = c("AD KD 4H 3D 2C")  # A-K high: the lowest qualifying hand
    for rules, odds in ((SHEET, sheet_odds), (COMMON, common_odds)):
        result = settle(c(player), dealer, ANTE, True, rules)
        assert result.player_category == category and result.outcome == "player_wins"
        ante, raised = result.lines
        assert (ante.odds, ante.return_cents) == (1, 2000)
        assert (raised.odds, raised.stake_cents, raised.winnings_cents) == (odds, 2000, 2000 * odds)
        assert raised.return_cents == 2000 + 2000 * odds
        assert result.net == 1000 + 2000 * odds


def test_lines_are_consistent_and_nothing_is_ever_rounded() -> None:
    rng = random.Random(11)
    for _ in range(500):
        cards = rng.sample(deck(), 10)
        for raised in (True, False):
            result = settle(cards[:5], cards[5:], rng.randint(1000, 100_000), raised, SHEET)
            for line in result.lines:
                assert line.winnings_cents == max(line.return_cents - line.stake_cents, 0)
                assert line.house_cents == max(line.stake_cents - line.return_cents, 0)
                assert line.unpaid_fraction == 0 and line.capped_cents == 0
            assert result.net == sum(line.net_cents for line in result.lines) == result.ante_net + result.raise_net


def test_the_raise_multiple_is_a_table_option() -> None:
    rules = CaribbeanRules(raise_multiple=3)
    result = settle(c("2S 2D 7H 9C KS"), c("AH KD 4S 3C 2H"), ANTE, True, rules)
    assert result.lines[1].stake_cents == 3000 and result.raise_net == 3000


# --- the optional maximum payout ---------------------------------------------------------


def test_max_payout_cuts_the_raise_winnings_and_records_the_cut() -> None:
    rules = CaribbeanRules(ante_max_cents=10_000, max_payout_cents=50_000)
    result = settle(c("TS JS QS KS AS"), c("AD KD 4H 3D 2C"), ANTE, True, rules)
    ante, raised = result.lines
    assert ante.winnings_cents == 1000 and ante.capped_cents == 0
    # owed: 1000 + 100 x 2000 = 201,000; paid 50,000 in all
    assert raised.capped_cents == 201_000 - 50_000
    assert raised.winnings_cents == 49_000 and raised.return_cents == 51_000
    assert result.net == 50_000
    under = settle(c("9S 9D 9H 4C 4S"), c("AD KD 4H 3D 2C"), ANTE, True, rules)
    assert under.net == 21_000 and under.lines[1].capped_cents == 0  # 10:1, under the cap


def test_max_payout_never_cuts_an_even_money_win() -> None:
    with pytest.raises(RuleError) as caught:
        CaribbeanRules(ante_max_cents=10_000, max_payout_cents=29_999)
    assert caught.value.field == "rules.max_payout_cents"
    rules = CaribbeanRules(ante_max_cents=10_000, max_payout_cents=30_000)
    result = settle(c("AC KH QS JD 9C"), c("AD KS QH JC 8D"), 10_000, True, rules)
    assert result.net == 30_000 and result.lines[1].capped_cents == 0


# --- the rule options ----------------------------------------------------------------------


def test_rules_round_trip_through_json_and_default_to_the_sheet() -> None:
    assert CaribbeanRules.from_dict({}) == CaribbeanRules.from_dict(None) == SHEET
    assert SHEET.to_dict() == {
        "ante_min_cents": 1000,
        "ante_max_cents": 100_000,
        "raise_multiple": 2,
        "pay_table": "sheet",
        "max_payout_cents": None,
    }
    custom = CaribbeanRules(ante_min_cents=500, ante_max_cents=5000, raise_multiple=3, pay_table="common")
    custom = CaribbeanRules.from_dict({**custom.to_dict(), "max_payout_cents": 1_000_000})
    assert CaribbeanRules.from_dict(custom.to_dict()) == custom
    assert PAY_TABLES["sheet"]["full house"] == 10 and PAY_TABLES["common"]["full house"] == 7


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"pay_table": "vegas"}, "rules.pay_table"),
        ({"pay_table": ["sheet"]}, "rules.pay_table"),
        ({"raise_multiple": 0}, "rules.raise_multiple"),
        ({"raise_multiple": 2.0}, "rules.raise_multiple"),
        ({"raise_multiple": True}, "rules.raise_multiple"),
        ({"ante_min_cents": 0}, "rules.ante_min_cents"),
        ({"ante_max_cents": "100"}, "rules.ante_max_cents"),
        ({"ante_min_cents": 5000, "ante_max_cents": 4000}, "rules.ante_min_cents"),
        ({"max_payout_cents": 1.5}, "rules.max_payout_cents"),
        ({"bonus": 1}, "rules.bonus"),
        ([], "rules"),
    ],
)
def test_rules_refuse_bad_options_naming_the_option(options: object, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        CaribbeanRules.from_dict(options)  # type: ignore[arg-type]
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("player", "dealer", "ante", "raised", "field"),
    [
        ("AS KS QS JS", "2D 3D 4D 5D 7C", ANTE, True, "player_cards"),
        ("AS KS QS JS TS", "2D 3D 4D 5D 7C 8C", ANTE, True, "dealer_cards"),
        ("AS AS QS JS TS", "2D 3D 4D 5D 7C", ANTE, True, "player_cards"),
        ("AS KS QS JS TS", "AS 3D 4D 5D 7C", ANTE, True, "cards"),
        ("AS KS QS JS XX", "2D 3D 4D 5D 7C", ANTE, True, "card"),
        ("AS KS QS JS TS", "2D 3D 4D 5D 7C", 999, True, "ante_cents"),
        ("AS KS QS JS TS", "2D 3D 4D 5D 7C", 100_001, True, "ante_cents"),
        ("AS KS QS JS TS", "2D 3D 4D 5D 7C", 1000.0, True, "ante_cents"),
        ("AS KS QS JS TS", "2D 3D 4D 5D 7C", ANTE, 1, "raised"),
    ],
)
def test_settle_refuses_bad_input(player: str, dealer: str, ante: object, raised: object, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        settle(c(player), c(dealer), ante, raised, SHEET)  # type: ignore[arg-type]
    assert caught.value.field == field


def test_the_dealer_qualifies_with_probability_205_364() -> None:
    assert qualify_probability() == Fraction(205, 364)
    assert f"{float(qualify_probability()):.4f}" == "0.5632"


# --- the coup at the table ---------------------------------------------------------------


def deal_all(coup: CaribbeanCoup, cards: list[str]) -> list:
    records = []
    for card in cards:
        records += coup.deal(card)
    return records


def two_box_coup() -> CaribbeanCoup:
    return CaribbeanCoup(SHEET, [CaribbeanAnte(3, "quinn", 2000), CaribbeanAnte(1, "pat", ANTE)])


# Round by round: box 1, box 3, dealer, five times.
BOX1 = c("5S 5H KC 9D 7S")
BOX3 = c("2C 3D 4H 6S 8C")
DEALER = c("5C 5D QH 9S 7H")
ORDER = [card for trio in zip(BOX1, BOX3, DEALER, strict=True) for card in trio]


def test_coup_deals_one_card_to_each_box_then_the_dealer_five_times_and_shows_his_last() -> None:
    coup = two_box_coup()
    assert coup.boxes == (1, 3)
    targets = []
    records = []
    for card in ORDER:
        targets.append(coup.next_draw())
        records += coup.deal(card)
    assert targets == [1, 3, "dealer"] * 5
    assert coup.next_draw() is None
    assert records[-2] == CardDealt(None, "7H", "up", 4)
    assert records[-1] == DealerShows("7H")
    assert [r.face for r in records if isinstance(r, CardDealt)].count("up") == 1
    assert coup.state == "deciding" and coup.dealer_up == "7H"
    assert coup.cards(1) == tuple(BOX1) and coup.cards(3) == tuple(BOX3)
    assert coup.undecided() == (1, 3)


def test_coup_decisions_in_any_order_then_the_dealer_turns_and_every_box_settles() -> None:
    coup = two_box_coup()
    deal_all(coup, ORDER)
    assert coup.raise_(3, 4000) == [BoxDecided(3, "quinn", "raise", 4000)]
    records = coup.raise_(1)
    assert records[0] == BoxDecided(1, "pat", "raise", 2000)
    assert records[1] == DealerRevealed(tuple(DEALER), "pair", True)
    settled = records[2:]
    assert [type(r) for r in settled] == [BoxSettled, BoxSettled]
    assert coup.state == "settled" and coup.settle() == tuple(settled)
    one, three = coup.settle()
    assert (one.box, one.player, one.result.outcome, one.result.net) == (1, "pat", "player_wins", 3000)  # C11
    assert (three.box, three.result.outcome, three.result.net) == (3, "dealer_wins", -6000)
    assert one.result == settle(BOX1, DEALER, ANTE, True, SHEET)


def test_coup_fold_settles_the_ante_lost() -> None:
    coup = two_box_coup()
    deal_all(coup, ORDER)
    coup.fold(3)
    coup.fold(1)
    assert [box.result.net for box in coup.settle()] == [-1000, -2000]


def test_coup_refuses_a_card_dealt_twice_and_anything_out_of_order() -> None:
    coup = two_box_coup()
    coup.deal("AS")
    with pytest.raises(RuleError) as caught:
        coup.deal("AS")
    assert caught.value.field == "card"
    assert not coup.can_deal("AS") and coup.can_deal("KS")
    with pytest.raises(RuleError) as caught:
        coup.fold(1)
    assert caught.value.field == "state"
    with pytest.raises(RuleError) as caught:
        coup.settle()
    assert caught.value.field == "state"


def test_coup_refuses_bad_decisions_and_changes_nothing() -> None:
    coup = two_box_coup()
    deal_all(coup, ORDER)
    for call, field in [
        (lambda: coup.raise_(1, 3000), "amount_cents"),  # the raise is 2 x 1000
        (lambda: coup.raise_(2), "box"),  # no ante on box 2
        (lambda: coup.fold(True), "box"),
        (lambda: coup.deal("2S"), "state"),
    ]:
        with pytest.raises(RuleError) as caught:
            call()
        assert caught.value.field == field
    assert coup.undecided() == (1, 3)
    coup.fold(1)
    with pytest.raises(RuleError) as caught:
        coup.raise_(1)
    assert caught.value.field == "box"
    assert not coup.can_fold(1) and coup.can_raise(3, 4000) and not coup.can_raise(3, 2000)
    coup.raise_(3)
    with pytest.raises(RuleError) as caught:
        coup.fold(3)
    assert caught.value.field == "state"


@pytest.mark.parametrize(
    ("antes", "field"),
    [
        ([], "antes"),
        ([CaribbeanAnte(1, "a", 1000), CaribbeanAnte(1, "b", 1000)], "box"),
        ([CaribbeanAnte(1, "a", 999)], "ante_cents"),
        ([("1", "a", 1000)], "antes"),
    ],
)
def test_coup_refuses_bad_antes(antes: list, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        CaribbeanCoup(SHEET, antes)
    assert caught.value.field == field


@pytest.mark.parametrize(("box", "field"), [(0, "box"), (8, "box"), (True, "box")])
def test_an_ante_is_on_box_1_to_7(box: object, field: str) -> None:
    with pytest.raises(RuleError) as caught:
        CaribbeanAnte(box, "a", 1000)  # type: ignore[arg-type]
    assert caught.value.field == field


@props
@given(st.integers(0, 2**32), st.integers(1, 7), st.lists(st.booleans(), min_size=7, max_size=7))
def test_a_full_table_from_a_shuffled_deck_settles_like_settle(seed: int, boxes: int, raises: list[bool]) -> None:
    order = ShoeOrder.shuffle(1, random.Random(seed)).cards
    antes = [CaribbeanAnte(box, f"p{box}", 1000 * box) for box in range(1, boxes + 1)]
    coup = CaribbeanCoup(SHEET, antes)
    cards = iter(order)
    while coup.state == "dealing":
        coup.deal(next(cards))
    for box in reversed(coup.boxes):
        (coup.raise_ if raises[box - 1] else coup.fold)(box)
    assert len(coup.settle()) == boxes
    dealer_cards = order[boxes :: boxes + 1][:5]
    for settled in coup.settle():
        player_cards = order[settled.box - 1 :: boxes + 1][:5]
        assert settled.result == settle(player_cards, dealer_cards, settled.ante_cents, raises[settled.box - 1])
        assert to_data(settled)["result"]["outcome"] == settled.result.outcome


def test_records_serialise_to_json_data() -> None:
    line = CaribbeanLine("raise", "won", 2000, 5, 12_000, 10_000, 0, Fraction(0), 0)
    assert to_data(line) == {
        "type": "CaribbeanLine",
        "bet": "raise",
        "outcome": "won",
        "stake_cents": 2000,
        "odds": 5,
        "return_cents": 12_000,
        "winnings_cents": 10_000,
        "house_cents": 0,
        "unpaid_fraction": "0",
        "capped_cents": 0,
    }


# --- a card exposed by mistake is burnt (sheet 001) -------------------------------------------

_PLAYER = ["2S", "7H", "9C", "JD", "4S"]
_DEALER = ["AS", "KH", "8C", "5D", "3C"]


def _dealt_coup() -> CaribbeanCoup:
    coup = CaribbeanCoup(SHEET, [CaribbeanAnte(box=1, player="P1", ante_cents=ANTE)])
    for mine, his in zip(_PLAYER, _DEALER, strict=True):
        coup.deal(mine)
        coup.deal(his)
    return coup


def test_a_card_exposed_coming_off_the_deck_is_burnt_and_its_receiver_takes_the_next():
    coup = CaribbeanCoup(SHEET, [CaribbeanAnte(box=1, player="P1", ante_cents=ANTE)])
    coup.deal("2S")
    assert coup.burn("QD") == [CardBurnt(None, "QD", None)]
    assert coup.next_draw() == "dealer"
    assert coup.deal("AS") == [CardDealt(None, "AS", "down", 0)]
    with pytest.raises(RuleError) as refused:
        coup.deal("QD")  # burnt: out of the coup, like every card already out of the deck
    assert refused.value.field == "card"


def test_a_dealt_card_exposed_by_mistake_is_replaced_by_the_next_card_and_the_coup_goes_on():
    coup = _dealt_coup()
    assert coup.state == "deciding"
    assert coup.burn("9C") == [CardBurnt(1, "9C", 2)]
    assert (coup.state, coup.next_draw(), coup.undecided()) == ("dealing", 1, ())
    assert coup.deal("9D") == [CardDealt(1, "9D", "down", 2)]
    assert coup.state == "deciding"
    assert coup.cards(1) == ("2S", "7H", "9D", "JD", "4S")
    coup.fold(1)
    assert coup.settle()[0].result.ante_net == -ANTE


def test_a_dealer_hidden_card_burnt_is_replaced_and_decides_the_qualification():
    coup = _dealt_coup()
    coup.burn("KH")  # A-K would qualify; the replacement Q does not
    coup.deal("QH")
    records = coup.raise_(1)
    revealed = next(r for r in records if isinstance(r, DealerRevealed))
    assert revealed.cards == ("AS", "QH", "8C", "5D", "3C") and revealed.qualifies is False


@pytest.mark.parametrize(
    ("card", "field", "why"),
    [
        ("3C", "card", "the dealer's shown card is face up by rule"),
        ("TS", "card", "a card in no hand"),
        ("XX", "card", "not a card"),
    ],
)
def test_a_burn_that_does_not_apply_is_refused_and_changes_nothing(card, field, why):
    coup = _dealt_coup()
    with pytest.raises(RuleError) as refused:
        coup.burn(card)
    assert refused.value.field == field, why
    assert coup.state == "deciding" and not coup.can_burn(card)


def test_no_burn_from_a_decided_box_while_a_replacement_is_due_or_once_settled():
    two = CaribbeanCoup(SHEET, [CaribbeanAnte(1, "P1", ANTE), CaribbeanAnte(2, "P2", ANTE)])
    for card in ShoeOrder.shuffle(1, random.Random(5)).cards[:15]:
        two.deal(card)
    two.fold(1)
    with pytest.raises(RuleError, match="has decided") as decided:
        two.burn(two.cards(1)[0])
    assert decided.value.field == "card"
    two.burn(two.cards(2)[0])
    with pytest.raises(RuleError) as due:
        two.burn(two.cards(2)[1])
    assert due.value.field == "state"
    coup = _dealt_coup()
    coup.fold(1)
    with pytest.raises(RuleError) as settled:
        coup.burn("2S")
    assert settled.value.field == "state"

"""The black jack table refuses bad play through the HTTP API (the rules' refusals and more).

Written as the behaviour SHOULD be. A card-reading shoe ("reader") lets each test choose every
card; the default rules (preset sheet_000): 6 decks, no hole card, double on 9–11, 3 split hands,
3:2, insurance 2:1, no immediate payout, a seated player on his own box only. Initial deal
order: each box, the dealer's up card, each box again; the dealer's second card comes after
the players. Stakes in cents.

Every refusal is checked to append nothing and to leave balances untouched; every money test
checks that the table win from the ledger equals the settlements' house win and that every
event's postings sum to zero.
"""

import json

import pytest
from django.db.models import Sum

from games.models import Shoe
from games.rules.blackjack_table import PRESETS
from games.selectors import settlements_net_cents, table_win_cents
from games.services.tables import table_close
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event, IdempotencyRecord, Posting
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import (
    ACTOR,
    API_TEST_ROLES,
    cosigned,
    make_patron,
    open_by_count,
    open_by_total,
    open_cage_shift,
    opener_body,
    staff_user,
)

from .card_table_client import CardTableClient


@pytest.fixture(autouse=True)
def _database(request):
    """The database for every test; the races take ``committed_db`` alone (a module-wide
    ``django_db`` mark would set up its flush before ``committed_db``'s replication-role reset)."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


# --- helpers -------------------------------------------------------------------------------


def chips(code):
    return store.balance(accounts.patron_chips(code))


def layout(code="B1"):
    return store.balance(accounts.table_layout(code))


def assert_books(code="B1"):
    """Postings of every event sum to zero; table win (ledger) == Σ(stake − return) (BetSettled)."""
    unbalanced = Posting.objects.values("event_id", "currency").annotate(total=Sum("amount_cents")).exclude(total=0)
    assert not unbalanced.exists(), list(unbalanced)
    assert table_win_cents(code) == settlements_net_cents(code)["house_win"]


class Frozen:
    """Nothing appended, no balance moved, between construction and ``check()``."""

    def __init__(self, *patrons, code="B1"):
        self.patrons, self.code = patrons, code
        self.before = self._snap()

    def _snap(self):
        return (Event.objects.count(), [chips(p) for p in self.patrons], layout(self.code))

    def check(self):
        assert self._snap() == self.before


class Table(CardTableClient):
    """A black jack table B1 driven through the API; calls return the response (status checked by
    the test), so a 500 shows as a status, not an exception."""

    def __init__(self, api, code="B1", mode="reader", rules=None):
        api.raise_request_exception = False
        self.api, self.code = api, code
        open_by_total(code, "blackjack", rules=rules)
        r = api.post(f"/api/tables/{code}/shoes", {"mode": mode}, format="json")
        assert r.status_code == 201, r.json()
        self.shoe = r.json()["shoe"]

    def bet(self, patron, box, stake, seated=True):
        body = {"patron": patron, "box": box, "stake_cents": stake, "seated": seated}
        return self.post(f"/api/rounds/{self.round}/blackjack-bets", body)

    def coup(self, bets):
        """Open a coup, place ``(patron, box, stake, seated)`` bets, close the bets and deal."""
        return self.dealt(self.bet, bets)

    def decide(self, patron, action, box=1, **extra):
        body = {"patron": patron, "box": box, "action": action, **extra}
        return self.post(f"/api/rounds/{self.round}/decisions", body)

    def ok(self, patron, action, box=1, **extra):
        r = self.decide(patron, action, box, **extra)
        assert r.status_code == 200, r.json()
        return r.json()

    def void(self, reason="dealer error"):
        """Void the coup; after the deal a second pit boss signs it (``cosigned``)."""
        return cosigned(self.post(f"/api/rounds/{self.round}/void", {"reason": reason}))


SHEET_004_PAYOUTS = PRESETS["sheet_004"]["immediate_payouts"]


def refused(response, status, fields):
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    if isinstance(fields, str):
        fields = (fields,)
    assert body.get("field") in fields, body
    return body


@pytest.fixture
def bj(api, cage):
    return Table(api)


@pytest.fixture
def bj_behind(api, cage):
    """A table that takes bets behind with boxes still free (sheet 004; sheet 000 waits for a full
    table, option ``behind_only_when_full``) and lets them follow a double or split (option
    ``behind_may_follow``; under both sheets the seated player alone decides)."""
    return Table(api, rules={"behind_only_when_full": False, "behind_may_follow": True})


# --- the rules' refusals ---------------------------------------------------------------------


def test_hitting_a_stood_hand_is_refused(bj):
    p, q = make_patron(10_000), make_patron(10_000)
    bj.coup([(p, 1, 1_000, True), (q, 2, 1_000, True)])
    bj.cards("TS", "9S", "6D", "7H", "8C")  # box 1 T,7 = 17; box 2 9,8 = 17
    bj.ok(p, "stand")
    frozen = Frozen(p, q)
    refused(bj.decide(p, "hit"), 400, ("hand_index", "action", "box"))
    refused(bj.decide(p, "hit", hand_index=0), 400, "hand_index")
    frozen.check()


def test_hitting_a_busted_hand_is_refused(bj):
    p, q = make_patron(10_000), make_patron(10_000)
    bj.coup([(p, 1, 1_000, True), (q, 2, 1_000, True)])
    bj.cards("TS", "9S", "6D", "6H", "8C")
    bj.ok(p, "hit")
    bj.cards("KD")  # 26: busted
    frozen = Frozen(p, q)
    refused(bj.decide(p, "hit", hand_index=0), 400, "hand_index")
    refused(bj.decide(p, "double", hand_index=0), 400, "hand_index")
    frozen.check()


@pytest.mark.parametrize("first, second", [("TS", "2H"), ("AS", "8H"), ("4S", "4H"), ("2S", "6H")])
def test_doubling_outside_9_to_11_is_refused(bj, first, second):
    """12, soft 19, 8, 8: no double under double_on=9-11 (a soft A,8 is 19, not 9)."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards(first, "7D", second)
    frozen = Frozen(p)
    refused(bj.decide(p, "double"), 400, "action")
    frozen.check()


@pytest.mark.parametrize(
    "first, second, total", [("4S", "5H", 9), ("4S", "6H", 10), ("5S", "6H", 11), ("AS", "TH", 21)]
)
def test_doubling_on_9_10_11_takes_a_second_stake(bj, first, second, total):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards(first, "7D", second)
    if total == 21:  # a blackjack against 7 is paid at once: no double
        assert chips(p) == 11_500
        return
    bj.ok(p, "double")
    assert chips(p) == 8_000
    bj.cards("9C", "TD")  # player 18..20, dealer 7,T = 17
    assert chips(p) == 12_000
    assert_books()


def test_splitting_a_non_pair_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("8S", "7D", "9H")
    frozen = Frozen(p)
    refused(bj.decide(p, "split"), 400, "action")
    frozen.check()


def test_ten_values_of_different_ranks_are_a_pair(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("KS", "7D", "QH")
    bj.ok(p, "split")
    assert chips(p) == 8_000


def test_splitting_past_three_hands_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("8S", "7D", "8H")
    bj.ok(p, "split")
    bj.cards("8D")  # hand 0: 8,8 again
    bj.ok(p, "split", hand_index=0)
    bj.cards("8C")  # hand 0: 8,8 a third time — 3 hands already
    assert chips(p) == 7_000
    frozen = Frozen(p)
    refused(bj.decide(p, "split", hand_index=0), 400, "action")
    frozen.check()
    bj.ok(p, "stand", hand_index=0)
    bj.cards("TC")  # hand 1: 8,T
    bj.ok(p, "stand", hand_index=1)
    bj.cards("TH")  # hand 2: 8,T
    bj.ok(p, "stand", hand_index=2)
    assert bj.cards("TS")["state"] == "settled"  # dealer 7,T = 17; 16,18,18 → lost, won, won
    assert chips(p) == 7_000 + 4_000
    assert_books()


def test_insurance_without_a_dealer_ace_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "KD", "9H")
    frozen = Frozen(p)
    refused(bj.decide(p, "insurance", amount_cents=1_000), 400, "action")
    frozen.check()


def test_insurance_on_a_blackjack_box_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("AS", "AD", "KH")
    frozen = Frozen(p)
    refused(bj.decide(p, "insurance", amount_cents=1_000), 400, "action")
    frozen.check()


def test_insurance_after_the_offer_closed_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AD", "7H")
    bj.ok(p, "insurance", amount_cents=0)
    frozen = Frozen(p)
    refused(bj.decide(p, "insurance", amount_cents=1_000), 400, "action")
    frozen.check()


@pytest.mark.parametrize("action, extra", [("hit", {}), ("stand", {}), ("double", {}), ("split", {})])
def test_only_the_seated_player_plays(bj_behind, action, extra):
    seated, behind, stranger = make_patron(10_000), make_patron(10_000), make_patron(10_000)
    bj_behind.coup([(seated, 1, 1_000, True), (behind, 1, 1_000, False)])
    bj_behind.cards("5S", "7D", "5H")
    frozen = Frozen(seated, behind, stranger)
    refused(bj_behind.decide(behind, action, **extra), 400, "bettor")
    refused(bj_behind.decide(stranger, action, **extra), 400, "bettor")
    frozen.check()


@pytest.mark.parametrize("card", ["as", "1S", "10H", "", " A", "A♠", "ＡS", "XX", None, 10])
def test_a_malformed_card_is_400_naming_card(bj, card):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    frozen = Frozen(p)
    refused(bj.card(card), 400, "card")
    frozen.check()
    assert bj.cards("AS")["hands"][0]["cards"] == ["AS"]


def test_acting_on_a_settled_round_is_409_everywhere(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "7D", "TH")
    bj.ok(p, "stand")
    assert bj.cards("TD")["state"] == "settled"
    frozen = Frozen(p)
    refused(bj.card("2C"), 409, "round")
    refused(bj.deal(), 409, "round")
    refused(bj.decide(p, "stand"), 409, "round")
    refused(bj.decide(p, "insurance", amount_cents=0), 409, "round")
    refused(bj.bet(p, 1, 1_000), 409, "round")
    assert bj.void().status_code == 409
    frozen.check()
    assert bj.api.get(f"/api/rounds/{bj.round}/").json()["state"] == "settled"


# --- bets and bets behind ----------------------------------------------------------------------


def test_box_limits_behind(api, cage):
    """Sheet 004's table options (bets beside one's own box, bets behind with boxes free)."""
    bj = Table(api, rules={"preset": "sheet_004", "hole_card": False})
    a, b, c, d = (make_patron(200_000) for _ in range(4))
    bj.open()
    assert bj.bet(a, 1, 1_000, True).status_code == 201
    frozen = Frozen(a, b, c, d)
    refused(bj.bet(b, 1, 1_000, True), 400, "seated")  # two seated
    refused(bj.bet(a, 1, 1_000, False), 400, "box")  # a bettor twice on a box
    refused(bj.bet(b, 1, 99_001, False), 400, "stake_cents")  # box max 100,000 counts the seated stake
    refused(bj.bet(b, 1, 999, False), 400, "stake_cents")  # under the minimum
    refused(bj.bet(b, 8, 1_000, False), 400, "box")
    refused(bj.bet(b, 0, 1_000, False), 400, "box")
    refused(bj.bet(b, True, 1_000, False), 400, "box")
    frozen.check()
    assert bj.bet(b, 1, 1_000, False).status_code == 201
    assert bj.bet(c, 1, 1_000, False).status_code == 201
    frozen = Frozen(a, b, c, d)
    refused(bj.bet(d, 1, 1_000, False), 400, "box")  # a fourth bet
    frozen.check()
    assert bj.bet(a, 2, 1_000, True).status_code == 201  # the seated player also plays box 2


def test_bets_behind_only_when_the_table_is_full(bj):
    """Sheet 000: "Si la table est complète, il est possible de jouer debout et de miser sur la
    case d'un (ou plusieurs) joueur assis": with a box free, a bet behind is refused (400 on
    ``seated``, nothing appended); once the seven boxes are seated it is taken, within the box
    maximum."""
    seven = [make_patron(200_000) for _ in range(7)]
    standing = make_patron(200_000)
    bj.open()
    for box, patron in enumerate(seven[:6], start=1):
        assert bj.bet(patron, box, 1_000, True).status_code == 201
    frozen = Frozen(standing)
    assert "table is full" in refused(bj.bet(standing, 1, 1_000, False), 400, "seated")["detail"]
    frozen.check()
    assert bj.bet(seven[6], 7, 1_000, True).status_code == 201
    refused(bj.bet(standing, 1, 99_001, False), 400, "stake_cents")  # the box's total within its maximum
    assert bj.bet(standing, 1, 1_000, False).status_code == 201


def test_a_bet_beyond_his_chips_is_refused(bj):
    p = make_patron(1_500)
    bj.open()
    frozen = Frozen(p)
    refused(bj.bet(p, 1, 2_000), 400, "stake_cents")
    frozen.check()


def test_betting_behind_an_empty_box_never_500s(bj):
    """A bet behind box 2 with nobody seated there. Refusing it (at the bet, at close-bets or at
    the deal) is fine; a 500 and a coup stuck between close-bets and settlement is not."""
    seated, behind = make_patron(10_000), make_patron(10_000)
    bj.open()
    assert bj.bet(seated, 1, 1_000, True).status_code == 201
    r = bj.bet(behind, 2, 1_000, False)
    if r.status_code == 400:
        return
    assert r.status_code == 201
    r = bj.close()
    if r.status_code != 200:
        assert r.status_code in (400, 409)
        return
    frozen = Frozen(seated, behind)
    r = bj.deal()
    assert r.status_code in (400, 409), (r.status_code, r.content[:300])
    assert r.json()["field"] in ("seated", "box", "round")
    frozen.check()
    assert bj.void().status_code == 200  # the stuck coup can still be voided, every stake back
    assert (chips(seated), chips(behind), layout()) == (10_000, 10_000, 0)


def test_follow_a_double_yes_and_no(bj_behind):
    """Box 1: seated A 1,000, B behind 1,000 follows, C behind 2,000 does not. 5,6 doubled + 9 = 20;
    dealer 7,T = 17: A and B win 2,000 on 2,000; C wins 2,000 on his single 2,000."""
    a, b, c = (make_patron(10_000) for _ in range(3))
    bj_behind.coup([(a, 1, 1_000, True), (b, 1, 1_000, False), (c, 1, 2_000, False)])
    bj_behind.cards("5S", "7D", "6H")
    bj_behind.ok(a, "double")
    # no card until everyone behind answered
    refused(bj_behind.card("9C"), 409, "card")
    refused(bj_behind.decide(a, "follow", follows="double", follow=True), 400, "bettor")
    refused(bj_behind.decide(b, "follow", follows="split", follow=True), 400, ("action", "follows"))
    bj_behind.ok(b, "follow", follows="double", follow=True)
    frozen = Frozen(a, b, c)
    refused(bj_behind.decide(b, "follow", follows="double", follow=True), 400, "bettor")  # answered
    frozen.check()
    bj_behind.ok(c, "follow", follows="double", follow=False)
    assert (chips(a), chips(b), chips(c)) == (8_000, 8_000, 8_000)
    assert bj_behind.cards("9C", "TD")["state"] == "settled"
    assert (chips(a), chips(b), chips(c)) == (12_000, 12_000, 12_000)
    assert layout() == 0
    assert_books()


def test_under_sheet_000_a_bettor_behind_is_never_asked_and_keeps_his_stake(api, cage):
    """Sheet 000: "Le joueur assis est le seul à pouvoir prendre des décisions". A doubles 5,6;
    B behind is not asked (a follow is refused), the card comes at once, and B's 1,000 rides
    on the doubled hand: 20 against 17, A wins 2,000 on 2,000, B 1,000 on 1,000."""
    bj = Table(api, rules={"behind_only_when_full": False})  # sheet 000 otherwise
    a, b = make_patron(10_000), make_patron(10_000)
    bj.coup([(a, 1, 1_000, True), (b, 1, 1_000, False)])
    bj.cards("5S", "7D", "6H")
    bj.ok(a, "double")
    refused(bj.decide(b, "follow", follows="double", follow=True), 400, ("action", "bettor"))
    assert (chips(a), chips(b)) == (8_000, 9_000)
    assert bj.cards("9C", "TD")["state"] == "settled"
    assert (chips(a), chips(b)) == (12_000, 11_000)
    assert layout() == 0
    assert_books()


def test_follow_a_split_yes_and_no(bj_behind):
    """8,8 split; B follows, C does not. Hand 0: 8,T = 18; hand 1: 8,2,T = 20 after a hit;
    dealer 7,T = 17: every stake wins. C keeps his single stake on hand 0."""
    a, b, c = (make_patron(10_000) for _ in range(3))
    bj_behind.coup([(a, 1, 1_000, True), (b, 1, 1_000, False), (c, 1, 1_000, False)])
    bj_behind.cards("8S", "7D", "8H")
    bj_behind.ok(a, "split")
    bj_behind.ok(b, "follow", follows="split", follow=True)
    bj_behind.ok(c, "follow", follows="split", follow=False)
    assert (chips(a), chips(b), chips(c)) == (8_000, 8_000, 9_000)
    bj_behind.cards("TC")
    bj_behind.ok(a, "stand", hand_index=0)
    bj_behind.cards("2C")
    bj_behind.ok(a, "hit", hand_index=1)
    bj_behind.cards("TH")  # 20 — not 21, so it waits
    bj_behind.ok(a, "stand", hand_index=1)
    assert bj_behind.cards("TD")["state"] == "settled"
    assert (chips(a), chips(b), chips(c)) == (12_000, 12_000, 11_000)
    assert layout() == 0
    assert_books()


@pytest.mark.parametrize("action", ["double", "split"])
def test_a_seated_player_who_cannot_cover_a_double_or_split_is_refused(bj, action):
    p = make_patron(1_500)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "7D", "5H")  # 10, and a pair
    frozen = Frozen(p)
    refused(bj.decide(p, action), 400, ("amount_cents", "stake_cents"))
    frozen.check()
    bj.ok(p, "stand")  # the coup plays on


def test_a_bettor_behind_who_cannot_cover_a_follow_is_refused(bj_behind):
    a, b = make_patron(10_000), make_patron(1_500)
    bj_behind.coup([(a, 1, 1_000, True), (b, 1, 1_000, False)])
    bj_behind.cards("5S", "7D", "6H")
    bj_behind.ok(a, "double")
    frozen = Frozen(a, b)
    refused(bj_behind.decide(b, "follow", follows="double", follow=True), 400, ("amount_cents", "stake_cents"))
    frozen.check()
    bj_behind.ok(b, "follow", follows="double", follow=False)


def test_insurance_he_cannot_cover_is_refused(bj):
    p = make_patron(2_500)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AD", "9H")
    frozen = Frozen(p)
    refused(bj.decide(p, "insurance", amount_cents=1_000), 400, "amount_cents")
    frozen.check()
    bj.ok(p, "insurance", amount_cents=500)
    assert chips(p) == 0


def test_insurance_of_a_bettor_behind_is_his_own_and_2_to_1(bj_behind):
    """Seated A 2,000 insures 1,000; B behind 1,000 insures 500. Dealer A,K: each insurance
    returns 3x; the main bets lose. Both net 0."""
    a, b = make_patron(10_000), make_patron(10_000)
    bj_behind.coup([(a, 1, 2_000, True), (b, 1, 1_000, False)])
    bj_behind.cards("TS", "AD", "9H")
    refused(bj_behind.decide(b, "insurance", amount_cents=501), 400, "amount_cents")
    bj_behind.ok(b, "insurance", amount_cents=500)
    bj_behind.ok(a, "insurance", amount_cents=1_000)
    bj_behind.ok(a, "stand")
    assert bj_behind.cards("KD")["state"] == "settled"
    assert (chips(a), chips(b)) == (10_000, 10_000)
    assert_books()


# --- money: blackjack at once, even money, immediate payouts, odd cents ----------------------


def test_odd_cent_blackjack_pays_1501_and_records_the_half_cent(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_001, True)])
    bj.cards("AS", "5D", "KH")  # blackjack against 5: paid at once
    assert chips(p) == 10_000 + 1_501
    (line,) = [e.data for e in Event.objects.filter(type="BetSettled")]
    assert (line["outcome"], line["stake_cents"], line["return_cents"], line["winnings_cents"]) == (
        "blackjack",
        1_001,
        2_502,
        1_501,
    )
    assert line["unpaid_fraction_cents"] == "1/2" and line["paid_at_once"] is True
    assert bj.api.get(f"/api/rounds/{bj.round}/").json()["state"] == "settled"
    assert layout() == 0
    assert_books()


def test_blackjack_paid_at_once_while_another_box_plays(bj):
    p, q = make_patron(10_000), make_patron(10_000)
    bj.coup([(p, 1, 1_000, True), (q, 2, 1_000, True)])
    summary = bj.cards("AS", "TS", "5D", "KH", "7C")
    assert summary["state"] == "dealing" and chips(p) == 11_500
    bj.ok(q, "stand", box=2)
    assert bj.cards("TD")["state"] == "dealing"  # dealer 5,T = 15 draws
    assert bj.cards("2C")["state"] == "settled"  # 17: box 2's 17 pushes
    assert (chips(p), chips(q)) == (11_500, 10_000)
    assert layout() == 0
    assert_books()


def test_even_money_with_a_bettor_behind_pays_both_1_to_1(bj_behind):
    a, b = make_patron(10_000), make_patron(10_000)
    bj_behind.coup([(a, 1, 1_000, True), (b, 1, 3_000, False)])
    bj_behind.cards("AH", "AS", "KH")
    refused(bj_behind.decide(b, "even_money", accept=True), 400, "bettor")
    summary = bj_behind.ok(a, "even_money", accept=True)
    assert summary["state"] == "settled"
    assert (chips(a), chips(b)) == (10_000 + 1_000, 10_000 + 3_000)
    assert_books()


@pytest.mark.parametrize(
    "player_cards, hits, pattern",
    [
        (("7S", "7H"), ("7D",), "three_sevens"),
        (("4S", "4H"), ("4D", "4C", "4S"), "five_fours"),
        (("5S", "5H"), ("5D", "5C"), "four_fives"),
        (("2S", "2H"), ("2D", "2C", "3S", "3H"), "six_cards_21_or_less"),
        (("2S", "3H"), ("4D", "5C", "7S"), "five_cards_21"),
    ],
)
def test_immediate_payouts_pay_1_to_1_at_once(api, cage, player_cards, hits, pattern):
    """Sheet 004's immediate payouts (and the client's five-card 21), at a table that takes them:
    the hand is paid at once; the dealer (no other hand waits) takes no further card."""
    bj = Table(api, rules={"immediate_payouts": SHEET_004_PAYOUTS})
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_001, True)])
    bj.cards(player_cards[0], "9D", player_cards[1])
    for card in hits:
        bj.ok(p, "hit")
        summary = bj.cards(card)
    assert summary["state"] == "settled", summary
    assert chips(p) == 10_000 + 1_001
    (line,) = [e.data for e in Event.objects.filter(type="BetSettled")]
    assert (line["outcome"], line["return_cents"], line["paid_at_once"]) == ("immediate", 2_002, True)
    assert Event.objects.filter(type="ImmediatePayout", data__pattern=pattern).count() == 1
    assert layout() == 0
    assert_books()


def test_dealer_blackjack_without_hole_card_takes_doubled_and_split_stakes(bj):
    """No hole card: a dealer blackjack made after the players takes the doubled stake too."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "TD", "6H")
    bj.ok(p, "double")
    bj.cards("TC")  # 21
    assert bj.cards("AS")["state"] == "settled"  # dealer T,A blackjack
    assert chips(p) == 8_000
    assert_books()


# --- out of turn, wrong moment ---------------------------------------------------------------


def test_decisions_out_of_turn(bj):
    p, q = make_patron(10_000), make_patron(10_000)
    bj.coup([(p, 1, 1_000, True), (q, 2, 1_000, True)])
    bj.cards("TS", "9S", "6D", "6H", "8C")
    frozen = Frozen(p, q)
    refused(bj.decide(q, "stand", box=2), 400, ("box", "action"))  # box 1 plays first
    refused(bj.decide(p, "stand", hand_index=1), 400, "hand_index")  # no hand 1
    refused(bj.decide(p, "stand", box=3), 400, ("box", "bettor"))  # nobody on box 3
    refused(bj.decide(p, "stand", hand_index=-1), 400, "hand_index")
    refused(bj.decide(p, "stand", hand_index="0"), 400, "hand_index")
    refused(bj.decide(p, "even_money", accept=True), 400, "action")
    refused(bj.decide(p, "follow", follows="double", follow=True), 400, ("bettor", "action"))
    refused(bj.decide(p, "surrender"), 400, "action")
    refused(bj.decide(p, "stand", expected_version=0), 409, "expected_version")
    frozen.check()


def test_a_follow_without_follows_names_follows(bj_behind):
    a, b = make_patron(10_000), make_patron(10_000)
    bj_behind.coup([(a, 1, 1_000, True), (b, 1, 1_000, False)])
    bj_behind.cards("5S", "7D", "6H")
    bj_behind.ok(a, "double")
    frozen = Frozen(a, b)
    refused(bj_behind.decide(b, "follow", follow=True), 400, "follows")
    refused(bj_behind.decide(b, "follow", follows="double"), 400, "follow")
    frozen.check()


def test_a_decision_without_its_amount_or_answer_names_the_field(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AD", "9H")
    frozen = Frozen(p)
    refused(bj.decide(p, "insurance"), 400, "amount_cents")
    refused(bj.decide(p, "insurance", amount_cents=-1), 400, "amount_cents")
    refused(bj.decide(p, "insurance", amount_cents=500.0), 400, "amount_cents")
    frozen.check()


def test_a_card_while_a_decision_is_awaited_is_409(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "7D", "9H")
    frozen = Frozen(p)
    refused(bj.card("2C"), 409, "card")
    frozen.check()


def test_a_decision_while_a_card_is_due_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "7D")
    frozen = Frozen(p)
    r = bj.decide(p, "stand")
    assert r.status_code in (400, 409) and r.json()["field"] in ("state", "action", "round"), r.json()
    frozen.check()


def test_deal_before_close_bets_and_deal_twice_are_409(bj):
    p = make_patron(10_000)
    bj.open()
    assert bj.bet(p, 1, 1_000).status_code == 201
    frozen = Frozen(p)
    refused(bj.deal(), 409, "round")
    refused(bj.card("AS"), 409, "round")
    refused(bj.decide(p, "stand"), 409, "round")
    frozen.check()
    assert bj.close().status_code == 200
    assert bj.deal().status_code == 200
    frozen = Frozen(p)
    refused(bj.deal(), 409, "round")
    frozen.check()


def test_deal_without_a_bet_is_409(bj):
    bj.open()
    assert bj.close().status_code == 200
    frozen = Frozen()
    refused(bj.deal(), 409, "round")
    frozen.check()
    assert bj.void().status_code == 200


def test_roulette_endpoints_on_a_black_jack_round(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    frozen = Frozen(p)
    body = {"patron": p, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "rouge"}}
    refused(bj.post(f"/api/rounds/{bj.round}/bets", body), 400, "round")
    refused(bj.post(f"/api/rounds/{bj.round}/result", {"number": 7}), 400, "round")
    frozen.check()


def test_black_jack_endpoints_on_a_roulette_round(bj, table):
    p = make_patron(10_000)
    r = bj.post("/api/tables/R1/rounds")
    rid = r.json()["round"]
    frozen = Frozen(p, code="R1")
    refused(bj.post(f"/api/rounds/{rid}/blackjack-bets", {"patron": p, "box": 1, "stake_cents": 1_000}), 400, "round")
    assert bj.post(f"/api/rounds/{rid}/close-bets").status_code == 200
    frozen = Frozen(p, code="R1")
    refused(bj.post(f"/api/rounds/{rid}/deal"), 400, "round")
    refused(bj.post(f"/api/rounds/{rid}/cards", {"card": "AS"}), 400, "round")
    refused(bj.post(f"/api/rounds/{rid}/decisions", {"patron": p, "box": 1, "action": "hit"}), 400, "round")
    refused(bj.post("/api/tables/R1/shoes", {"mode": "reader"}), 409, "table")
    frozen.check()


# --- shoes -----------------------------------------------------------------------------------


def test_shoe_start_twice_and_close_mid_coup_are_409(bj):
    p = make_patron(10_000)
    frozen = Frozen(p)
    refused(bj.post("/api/tables/B1/shoes", {"mode": "reader"}), 409, "table")
    refused(bj.post("/api/tables/B1/shoes", {"mode": "shuffled"}), 409, "table")
    refused(bj.post("/api/tables/B1/shoes", {"mode": "magic"}), 400, "mode")
    frozen.check()
    bj.coup([(p, 1, 1_000, True)])
    frozen = Frozen(p)
    refused(bj.post(f"/api/shoes/{bj.shoe}/close"), 409, "shoe")
    with pytest.raises(StateConflict) as mid_coup:
        table_close(code="B1", actor=ACTOR)
    assert mid_coup.value.field == "table"
    frozen.check()


def test_a_closed_shoe_refuses_new_coups(bj):
    assert bj.post(f"/api/shoes/{bj.shoe}/close").status_code == 200
    refused(bj.post(f"/api/shoes/{bj.shoe}/close"), 409, "shoe")
    refused(bj.post("/api/tables/B1/rounds"), 409, "table")


def test_a_shuffled_shoe_deals_itself_and_refuses_reported_cards(api, cage):
    bj = Table(api, mode="shuffled")
    p = make_patron(10_000)
    summary = bj.coup([(p, 1, 1_000, True)])
    assert len(summary["hands"][0]["cards"]) == 2
    if summary["state"] == "dealing":
        refused(bj.card("AS"), 409, ("shoe", "card"))


def _answer_everything(bj, summary):
    """Play a shoe-dealt coup to its end: stand, decline insurance/even money, do not follow."""
    while summary["state"] == "dealing":
        wait = summary["awaiting"]
        assert wait is not None, summary
        bettor = wait["bettors"][0]
        if wait["kind"] == "insurance":
            summary = bj.ok(bettor, "insurance", box=wait["box"], amount_cents=0)
        elif wait["kind"] == "even_money":
            summary = bj.ok(bettor, "even_money", box=wait["box"], accept=False)
        elif wait["kind"] == "follow":
            summary = bj.ok(bettor, "follow", box=wait["box"], follows=wait["follows"], follow=False)
        else:
            summary = bj.ok(bettor, "stand", box=wait["box"], hand_index=wait["hand_index"])
    return summary


def _play_until_the_cut_card_comes_out_mid_coup(bj, players):
    """Coups of 5 boxes until the cut card comes out during a coup still waiting for a decision.
    Returns that coup's summary (None if every cut card came out at the end of a coup)."""
    for _ in range(80):
        summary = bj.coup([(p, box, 1_000, True) for box, p in enumerate(players, start=1)])
        if summary["state"] == "dealing" and Shoe.objects.get(pk=bj.shoe).state == Shoe.State.EXHAUSTED:
            return summary
        _answer_everything(bj, summary)
        if Shoe.objects.get(pk=bj.shoe).state == Shoe.State.EXHAUSTED:
            return None
    raise AssertionError("the cut card never came out")


def test_a_new_shoe_cannot_start_while_the_last_coup_of_an_exhausted_shoe_plays(api, cage):
    """The cut card comes out: "the coup in play finishes" with that shoe. Starting a new shoe
    then (which closes and reveals the exhausted one) must wait for the coup to settle."""
    players = [make_patron(500_000) for _ in range(5)]
    for attempt in range(6):
        bj = Table(api, code=f"B{attempt + 1}", mode="shuffled")
        summary = _play_until_the_cut_card_comes_out_mid_coup(bj, players)
        if summary is not None:
            break
    else:
        pytest.skip("the cut card never came out mid-coup")
    frozen = Frozen(*players, code=bj.code)
    refused(bj.post(f"/api/tables/{bj.code}/shoes", {"mode": "shuffled"}), 409, ("table", "shoe"))
    refused(bj.post(f"/api/shoes/{bj.shoe}/close"), 409, "shoe")
    frozen.check()
    _answer_everything(bj, summary)
    # the exhausted shoe: no new coup until a new shoe
    refused(bj.post(f"/api/tables/{bj.code}/rounds"), 409, "table")
    assert bj.post(f"/api/tables/{bj.code}/shoes", {"mode": "shuffled"}).status_code == 201
    assert_books(bj.code)


def test_a_shoe_session_balances(cage):
    import random

    from demo.blackjack import play_blackjack_session

    report = play_blackjack_session(coups=60, players=4, rng=random.Random(7))
    assert report.shoe_faults == []
    assert report.table_win_cents == report.settlements["house_win"]
    assert replay_check() == []
    assert verify_chain().ok


# --- void ------------------------------------------------------------------------------------


def test_void_before_the_deal_returns_every_stake(bj_behind):
    a, b = make_patron(10_000), make_patron(10_000)
    bj_behind.open()
    assert bj_behind.bet(a, 1, 1_000, True).status_code == 201
    assert bj_behind.bet(b, 1, 2_000, False).status_code == 201
    assert bj_behind.close().status_code == 200
    assert bj_behind.void().status_code == 200
    assert (chips(a), chips(b), layout()) == (10_000, 10_000, 0)
    assert_books()


@pytest.mark.parametrize(
    "cards, action, extra",
    [
        (("5S", "TD", "6H"), "double", {}),
        (("8S", "TD", "8H"), "split", {}),
        (("TS", "AD", "9H"), "insurance", {"amount_cents": 1_000}),
    ],
)
def test_void_after_a_second_stake_returns_it(bj, cards, action, extra):
    """Voiding a coup in dealing must give back every cent on the layout (or be refused): the
    original stake, and what a double, a split or insurance added."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards(*cards)
    bj.ok(p, action, **extra)
    assert chips(p) < 8_000
    r = bj.void()
    if r.status_code == 409:
        return
    assert r.status_code == 200
    assert (chips(p), layout()) == (10_000, 0)
    assert_books()


def test_void_after_a_blackjack_paid_at_once_does_not_pay_it_twice(bj):
    p, q = make_patron(10_000), make_patron(10_000)
    bj.coup([(p, 1, 1_000, True), (q, 2, 1_000, True)])
    bj.cards("AS", "TS", "5D", "KH", "7C")
    assert chips(p) == 11_500
    r = bj.void()
    if r.status_code == 409:
        return
    assert r.status_code == 200
    assert layout() == 0
    assert chips(p) in (10_000, 11_500)  # undone, or kept — never stake back twice
    assert chips(q) == 10_000
    assert_books()


# --- rule options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules, field",
    [
        ({"decks": 0}, "rules.decks"),
        ({"decks": 9}, "rules.decks"),
        ({"decks": "6"}, "rules.decks"),
        ({"hole_card": "yes"}, "rules.hole_card"),
        ({"double_on": "10-11"}, "rules.double_on"),
        ({"max_split_hands": 0}, "rules.max_split_hands"),
        ({"blackjack_pays": "3:0"}, "rules.blackjack_pays"),
        ({"blackjack_pays": 1.5}, "rules.blackjack_pays"),
        ({"immediate_payouts": [{"pattern": "seven_sevens", "pays": "1:1"}]}, "rules.immediate_payouts"),
        ({"immediate_payouts": "none"}, "rules.immediate_payouts"),
        ({"min_bet_cents": 0}, "rules.min_bet_cents"),
        ({"min_bet_cents": 5_000, "max_box_cents": 1_000}, "rules.min_bet_cents"),
        ({"house_edge": "2"}, "rules.house_edge"),
        ({"surrender": True}, "rules.surrender"),
    ],
)
def test_bad_black_jack_table_rules_are_400(api, cage, croupier, rules, field):
    api.raise_request_exception = False
    r = api.post("/api/tables/B1/opener", opener_body("blackjack", rules=rules), format="json")
    refused(r, 400, field)
    assert not Event.objects.filter(type="TableOpened").exists()


def test_hole_card_insurance_and_a_peeked_blackjack(api, cage):
    """hole_card: box, up, box, hole. Dealer A + K in the hole: insurance 1,000 on 2,000 pays
    3,000, the main bet loses 2,000 (net 0); the coup ends at the peek, no decision is asked."""
    bj = Table(api, rules={"hole_card": True})
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    summary = bj.cards("TS", "AD", "9H", "KC")
    assert summary["awaiting"]["kind"] == "insurance"
    summary = bj.ok(p, "insurance", amount_cents=1_000)
    assert summary["state"] == "settled"
    assert chips(p) == 10_000
    assert_books()


def test_six_to_five_on_odd_cents_after_a_declined_even_money(api, cage):
    bj = Table(api, rules={"hole_card": True, "blackjack_pays": "6:5"})
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_001, True)])
    bj.cards("AS", "TD", "KH", "7C")
    summary = bj.ok(p, "even_money", accept=False)
    assert summary["state"] == "settled"
    (line,) = [e.data for e in Event.objects.filter(type="BetSettled")]
    assert (line["return_cents"], line["winnings_cents"], line["unpaid_fraction_cents"]) == (2_202, 1_201, "1/5")
    assert chips(p) == 10_000 + 1_201
    assert_books()


def test_double_on_any_allows_a_double_on_12(api, cage):
    bj = Table(api, rules={"double_on": "any"})
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "7D", "2H")
    bj.ok(p, "double")
    bj.cards("8C", "TD")  # 20 against 17
    assert chips(p) == 12_000


def test_immediate_payouts_switched_off(api, cage):
    bj = Table(api, rules={"immediate_payouts": []})
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("7S", "9D", "7H")
    bj.ok(p, "hit")
    summary = bj.cards("7D")  # 21: stands, waits for the dealer
    assert summary["state"] == "dealing" and chips(p) == 9_000
    assert bj.cards("TC")["state"] == "settled"  # dealer 19
    assert chips(p) == 11_000


def test_table_odds_the_ledger_cannot_post_are_refused_at_open_or_paid(api, croupier, django_user_model):
    """Odds up to 999999:1 and a box maximum up to 10**10 are accepted, but a posting over the
    ledger's 10**12-cent bound is refused at settlement: the card that makes the pattern can
    then never be reported and the coup never settles. Refuse such rules at open, or pay."""
    from cashier.services.cage import cage_open

    cage_open(cash_cents=100_000_000, chips_cents=100_000_000, actor=ACTOR)
    open_cage_shift()
    api.raise_request_exception = False
    rules = {"max_box_cents": 10_000_000, "immediate_payouts": [{"pattern": "three_sevens", "pays": "999999:1"}]}
    r = open_by_count(api, "B1", croupier, game="blackjack", rules=rules)
    if r.status_code == 400:
        assert r.json()["field"].startswith("rules")
        return
    assert r.status_code == 201
    assert api.post("/api/tables/B1/shoes", {"mode": "reader"}, format="json").status_code == 201
    bj = Table.__new__(Table)
    bj.api, bj.code = api, "B1"
    p = make_patron(2_000_000)
    bj.coup([(p, 1, 2_000_000, True)])
    bj.cards("7S", "9D", "7H")
    bj.ok(p, "hit")
    r = bj.card("7D")
    assert r.status_code == 200, r.json()
    assert r.json()["state"] == "settled"


# --- reads and projections after black jack ---------------------------------------------------


def test_projections_and_reads_after_black_jack_coups(bj):
    from ledger.projections import catch_up_all

    p = make_patron(10_000)
    bj.coup([(p, 1, 1_001, True)])
    bj.cards("AS", "5D", "KH")
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("8S", "AD", "8H")
    bj.ok(p, "insurance", amount_cents=500)
    bj.ok(p, "split")
    bj.cards("7C")
    bj.ok(p, "stand", hand_index=0)
    bj.cards("7D")
    bj.ok(p, "hit", hand_index=1)
    bj.cards("7H")  # hand 1: 8,7,7 = 22, busted
    assert bj.cards("9C")["state"] == "settled"  # dealer A,9 = 20: hand 0 (15) and insurance lose
    assert chips(p) == 10_000 + 1_501 - 2_500
    catch_up_all()
    for url in (
        f"/api/audit/round/{bj.round}/",
        "/api/audit/table/B1/",
        f"/api/audit/patron/{p}/",
        "/api/stats/tables/",
        "/api/ratings/",
        "/api/balances/",
        "/api/events/?limit=500",
        "/api/tables/B1/rounds/",
        "/api/health/",
    ):
        r = bj.api.get(url)
        assert r.status_code == 200, (url, r.status_code, r.content[:300])
    assert replay_check() == []
    assert verify_chain().ok
    assert_books()


# --- idempotency, versions, reads --------------------------------------------------------------


def test_a_retried_decision_appends_nothing(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "TD", "6H")
    body = {"patron": p, "box": 1, "action": "double"}
    url = f"/api/rounds/{bj.round}/decisions"
    first = bj.api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dbl-1")
    assert first.status_code == 200
    frozen = Frozen(p)
    again = bj.api.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="dbl-1")
    assert (again.status_code, again.json()) == (200, first.json())
    other = bj.api.post(url, {**body, "action": "hit"}, format="json", HTTP_IDEMPOTENCY_KEY="dbl-1")
    assert other.status_code == 409
    frozen.check()
    assert chips(p) == 8_000


def test_round_and_shoe_reads_mid_coup(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "TD", "6H")
    r = bj.api.get(f"/api/rounds/{bj.round}/")
    assert r.status_code == 200 and r.json()["state"] == "dealing"
    s = bj.api.get(f"/api/shoes/{bj.shoe}/")
    assert s.status_code == 200 and s.json()["cards_drawn"] == 3
    assert "order" not in s.json() and "salt" not in s.json()


def test_replay_and_chain_after_a_busy_coup(bj_behind):
    a, b, c = (make_patron(50_000) for _ in range(3))
    bj_behind.coup([(a, 1, 2_000, True), (b, 1, 1_000, False), (c, 2, 1_000, True)])
    bj_behind.cards("8S", "5C", "AD", "8H", "6C")  # box 1: 8,8; box 2: 5,6; dealer A
    bj_behind.ok(a, "insurance", amount_cents=1_000)
    bj_behind.ok(b, "insurance", amount_cents=0)
    bj_behind.ok(c, "insurance", box=2, amount_cents=500)
    bj_behind.ok(a, "split")
    bj_behind.ok(b, "follow", follows="split", follow=True)
    bj_behind.cards("3D")  # hand 0: 8,3 = 11
    bj_behind.ok(a, "double", hand_index=0)
    bj_behind.ok(b, "follow", follows="double", follow=True)
    bj_behind.cards("TD")  # 21
    bj_behind.cards("9H")  # hand 1: 8,9 = 17
    bj_behind.ok(a, "stand", hand_index=1)
    bj_behind.ok(c, "double", box=2)
    bj_behind.cards("KC")  # box 2: 21
    assert bj_behind.cards("7S")["state"] == "settled"  # dealer A,7 = soft 18
    # a: ins −1,000; hand 0 4,000 won +4,000; hand 1 2,000 lost −2,000  → +1,000
    # b: hand 0 2,000 won +2,000; hand 1 1,000 lost −1,000 → +1,000
    # c: ins −500; 2,000 won +2,000 → +1,500
    assert (chips(a), chips(b), chips(c)) == (51_000, 51_000, 51_500)
    assert layout() == 0
    assert_books()
    assert replay_check() == []
    assert verify_chain().ok


# --- races (PostgreSQL, real commits) --------------------------------------------------------


def _racer(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    client.raise_request_exception = False
    return client


@pytest.fixture
def racer():
    return staff_user("bj-racer", *API_TEST_ROLES)


def _race_table(user):
    from cashier.services.cage import cage_open

    cage_open(cash_cents=10_000_000, chips_cents=10_000_000, actor=ACTOR)
    open_cage_shift()
    return Table(_racer(user))


@pytest.mark.postgres
def test_two_decisions_at_once_with_the_same_version_one_applies(committed_db, racer):
    from tests.integration.concurrency import run_concurrently

    bj = _race_table(racer)
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    version = bj.cards("5S", "7D", "6H")["version"]
    url = f"/api/rounds/{bj.round}/decisions"

    def decide(action):
        body = {"patron": p, "box": 1, "action": action, "expected_version": version}
        return lambda: _racer(racer).post(url, body, format="json").status_code

    outcomes = run_concurrently(decide("double"), decide("stand"), decide("hit"), decide("double"))
    assert sorted(outcomes) == [200, 409, 409, 409], outcomes
    decided = Event.objects.filter(stream=f"round/{bj.round}", type="PlayerDecided").count()
    assert decided == 1
    assert verify_chain().ok
    assert replay_check() == []
    assert_books()


@pytest.mark.postgres
def test_two_doubles_at_once_take_one_stake(committed_db, racer):
    """No expected_version: one double applies; the other is refused (4xx, never 500), and only
    one second stake is taken."""
    from tests.integration.concurrency import run_concurrently

    bj = _race_table(racer)
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "7D", "6H")
    url = f"/api/rounds/{bj.round}/decisions"

    def double():
        return _racer(racer).post(url, {"patron": p, "box": 1, "action": "double"}, format="json").status_code

    outcomes = run_concurrently(*([double] * 4))
    assert outcomes.count(200) == 1 and all(s in (400, 409) for s in outcomes if s != 200), outcomes
    assert chips(p) == 8_000
    assert verify_chain().ok
    assert replay_check() == []


@pytest.mark.postgres
def test_two_deals_and_two_cards_at_once(committed_db, racer):
    from tests.integration.concurrency import run_concurrently

    bj = _race_table(racer)
    p = make_patron(10_000)
    bj.open()
    assert bj.bet(p, 1, 1_000).status_code == 201
    assert bj.close().status_code == 200

    def deal():
        return _racer(racer).post(f"/api/rounds/{bj.round}/deal", {}, format="json").status_code

    assert sorted(run_concurrently(deal, deal, deal)) == [200, 409, 409]

    def card(c):
        return lambda: _racer(racer).post(f"/api/rounds/{bj.round}/cards", {"card": c}, format="json").status_code

    outcomes = run_concurrently(card("TS"), card("7D"), card("9H"), card("2C"))
    assert outcomes.count(200) == 3 and outcomes.count(409) == 1, outcomes
    assert Event.objects.filter(stream=f"round/{bj.round}", type="CardDealt").count() == 3
    assert len(Shoe.objects.get(pk=bj.shoe).drawn) == 3
    assert verify_chain().ok
    assert replay_check() == []


def test_a_seated_player_bets_only_on_his_own_box_and_the_two_beside_it(api, cage):
    """Sheet 004 (option ``beside_own_box`` 1, its preset's): seated at box 3, he may also bet on
    2 and 4, not on 5. A patron not seated in the coup still bets behind any seated box."""
    bj = Table(api, rules={"beside_own_box": 1, "behind_only_when_full": False})
    sits, four, five, standing = (make_patron(10_000) for _ in range(4))
    bj.open()
    assert bj.bet(sits, 3, 1_000, True).status_code == 201
    assert bj.bet(four, 4, 1_000, True).status_code == 201
    assert bj.bet(five, 5, 1_000, True).status_code == 201
    assert bj.bet(sits, 4, 1_000, False).status_code == 201
    assert "own box 3" in str(refused(bj.bet(sits, 5, 1_000, False), 400, "box"))
    assert bj.bet(standing, 5, 1_000, False).status_code == 201


def test_sitting_down_far_from_ones_other_bets_is_refused(api, cage):
    bj = Table(api, rules={"beside_own_box": 1, "behind_only_when_full": False})
    first, far = make_patron(10_000), make_patron(10_000)
    bj.open()
    assert bj.bet(first, 1, 1_000, True).status_code == 201
    assert bj.bet(far, 1, 1_000, False).status_code == 201  # not seated yet: any box
    refused(bj.bet(far, 5, 1_000, True), 400, "box")
    assert bj.bet(far, 2, 1_000, True).status_code == 201


def test_any_box_when_the_table_allows_it(api, cage, croupier):
    table = Table(api, code="B2", rules={"beside_own_box": None, "behind_only_when_full": False})
    a, b = make_patron(10_000), make_patron(10_000)
    table.open()
    assert table.bet(a, 1, 1_000, True).status_code == 201
    assert table.bet(b, 7, 1_000, True).status_code == 201
    assert table.bet(a, 7, 1_000, False).status_code == 201
    refused(
        table.post("/api/tables/B3/opener", opener_body("blackjack", 1, rules={"beside_own_box": 9})),
        400,
        "rules.beside_own_box",
    )


def test_the_dealers_hole_card_reads_none_in_every_answer_until_the_coup_is_settled(api, cage):
    """Sheet 004's hole card lies face down: the deal's and each decision's answer (kept as the
    command's idempotency record) show the dealer's up card and ``None`` for the hole card until
    the coup is settled, as every other reader does."""
    bj = Table(api, rules={"preset": "sheet_004"})
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    dealt = bj.cards("TS", "6H", "9D", "7C")  # box 1: T, 9; the dealer: 6 up, 7 in the hole
    assert (dealt["state"], dealt["dealer"]) == ("dealing", ["6H", None])
    r = bj.post(
        f"/api/rounds/{bj.round}/decisions", {"patron": p, "box": 1, "action": "stand"}, HTTP_IDEMPOTENCY_KEY="k"
    )
    assert r.status_code == 200, r.json()
    assert (r.json()["state"], r.json()["dealer"]) == ("dealing", ["6H", None])  # his 13 draws a card
    stored = [json.dumps(record.result) for record in IdempotencyRecord.objects.all()]
    assert len(stored) >= 1 and not any("7C" in result for result in stored)
    settled = bj.cards("5S")  # 18
    assert (settled["state"], settled["dealer"]) == ("settled", ["6H", "7C", "5S"])

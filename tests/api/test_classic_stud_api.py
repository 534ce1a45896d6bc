"""Classic five-card stud through the HTTP API (RULES.md §Classic five-card stud).

Base stake 100 cents, so the caps are 1,000 / 2,000 / 4,000 / 8,000 by betting round; antes
on. Most tables here take their cards from the dealer's terminal (``card_source: reported``) so
each test chooses every card; seats are numbered from the dealer's left and cards are dealt in
seat order: the hole cards, then an up card each (round 1), an up card each still in (rounds 2
and 3), the last card face down (round 4).

Money: the ante and every bet, call and raise go patron → layout (the pot) on their own event;
at the end the rake goes layout → tray (``RakeTaken``) and each player's uncalled chips and
shares of pots layout → patron (``BetSettled``). Every hand is checked to leave the layout at
0, every event's postings to sum to 0, the chain to verify, ``replay-check`` to find nothing,
and the table's win from the ledger to be the rake. Every refusal appends nothing and moves
no chip.
"""

import pytest
from django.db.models import Sum

from cashier.services.cage import chips_redeem
from games.models import Bet, Round, Shoe
from games.rules.shoe import ShoeOrder, verify_commitment
from games.selectors import settlements_net_cents, table_win_cents
from games.services.classic_stud import on_layout_cents
from games.services.shoes import verify_shoe
from ledger import accounts, projections, store
from ledger.models import Event, Posting
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import ACTOR, make_patron, open_by_total, opener_body

from .card_table_client import CardTableClient

pytestmark = pytest.mark.django_db


# --- helpers -------------------------------------------------------------------------------


def chips(code):
    return store.balance(accounts.patron_chips(code))


def layout(table):
    return store.balance(accounts.table_layout(table))


def tray(table):
    return store.balance(accounts.table_tray(table))


def rake_posted(table):
    return sum(e.data["rake_cents"] for e in Event.objects.filter(type="RakeTaken", data__table=table))


def assert_books(table):
    """The layout is empty, each event's postings sum to zero, the chain verifies, the models
    replay from the events, and the table's win (ledger) is the rake = the settlements' house win."""
    assert layout(table) == 0
    unbalanced = Posting.objects.values("event_id", "currency").annotate(total=Sum("amount_cents")).exclude(total=0)
    assert not unbalanced.exists(), list(unbalanced)
    assert verify_chain().ok
    assert replay_check() == []
    assert table_win_cents(table) == rake_posted(table) == settlements_net_cents(table)["house_win"]


class Frozen:
    """Nothing appended, no balance moved, between construction and ``check()``."""

    def __init__(self, table, *patrons):
        self.table, self.patrons = table, patrons
        self.before = self._snap()

    def _snap(self):
        return (Event.objects.count(), [chips(p) for p in self.patrons], layout(self.table), tray(self.table))

    def check(self):
        assert self._snap() == self.before


class StudTable(CardTableClient):
    """A classic stud table driven through the API; calls return the response, so a 500 would
    show as a status, not an exception."""

    def __init__(self, api, code="S1", **rules):
        api.raise_request_exception = False
        self.api, self.code = api, code
        open_by_total(code, "classic_stud", 1_000_000, rules={"card_source": "reported", **rules})

    def sit(self, patron, seat, stack=None):
        body = {"patron": patron, "seat": seat}
        if stack is not None:
            body["stack_cents"] = stack
        return self.post(f"/api/rounds/{self.round}/stud-seats", body)

    def hand(self, *players):
        """Open a coup, seat ``(patron, seat)`` pairs, close the bets and deal."""
        return self.dealt(self.sit, players)

    def act(self, seat, action, amount=None, expect=200, **extra):
        body = {"seat": seat, "action": action, **extra}
        if amount is not None:
            body["amount_cents"] = amount
        r = self.post(f"/api/rounds/{self.round}/stud-actions", body)
        assert r.status_code == expect, r.json()
        return r.json()

    def refused(self, seat, action, amount=None, *, field, status=400, frozen, **extra):
        body = self.act(seat, action, amount, expect=status, **extra)
        assert body["field"] == field, body
        frozen.check()
        return body

    def state(self):
        r = self.api.get(f"/api/rounds/{self.round}/stud-hand")
        assert r.status_code == 200, r.json()
        return r.json()


@pytest.fixture
def s1(api, cage):
    """Table S1: reported cards, 5 % rake."""
    return StudTable(api, "S1", rake_pct=5)


# The full hand: seats 1 and 3 hold K-J-9-7-2 in different suits (a tie), seat 2 Q-8-5-4-3.
# Dealing order: hole cards, then up cards.
FULL = {
    1: ["KS", "9H", "7C", "JD", "2S"],
    2: ["3C", "QS", "4D", "8C", "5H"],
    3: ["KH", "9D", "7S", "JC", "2D"],
}


def test_a_full_hand_opener_caps_odd_cent_split_and_rake(s1):
    """Antes 3 × 100. Round 1: the queen showing (seat 2) opens, not seat 1: bet 101, call, seat 1
    raises to the cap (1,000), calls. Round 2: seat 2's queen opens again: bet 100, seat 3 raises to
    555, seat 1 calls, seat 2 folds. Rounds 3 and 4: seats 1 and 3 both show a jack highest: seat 1
    (nearest the dealer's left) opens; checks. Equal hands split the pot of 4,510 less the rake
    (5 % = 225.5, rounded down to 225): 4,285 = 2,143 to seat 1 (the odd cent: nearest the
    dealer's left) and 2,142 to seat 3."""
    p1, p2, p3 = (make_patron(10_000) for _ in range(3))
    dealt = s1.hand((p1, 1), (p2, 2), (p3, 3))
    assert dealt["needs_card"] == {"seat": 1, "face": "hole"}
    assert [chips(p) for p in (p1, p2, p3)] == [9_900] * 3 and layout("S1") == 300  # the antes, nothing more

    summary = s1.cards(*(FULL[s][0] for s in (1, 2, 3)), *(FULL[s][1] for s in (1, 2, 3)))
    assert summary["awaiting"]["seat"] == 2  # QS is the highest up card
    assert summary["awaiting"]["actions"] == ["bet", "check", "fold"]
    assert summary["awaiting"]["cap_cents"] == 1_000
    assert [s["up_cards"] for s in summary["seats"]] == [["9H"], ["QS"], ["9D"]]
    assert "cards" not in summary["seats"][0]  # the hole cards stay secret while the hand plays

    s1.act(2, "bet", 101)
    s1.act(3, "call")
    assert chips(p3) == 9_799
    s1.act(1, "raise", 1_000)  # to the round's cap
    turn = s1.state()["awaiting"]
    assert (turn["seat"], turn["actions"], turn["to_call_cents"]) == (2, ["call", "fold"], 899)
    s1.act(2, "call")
    summary = s1.act(3, "call")
    assert summary["needs_card"] == {"seat": 1, "face": "up"}
    assert summary["pots"] == [{"pot": 0, "amount_cents": 3_300, "eligible": [1, 2, 3]}]

    summary = s1.cards(*(FULL[s][2] for s in (1, 2, 3)))
    assert (summary["betting_round"], summary["awaiting"]["seat"]) == (2, 2)
    s1.act(2, "bet", 100)
    s1.act(3, "raise", 555, patron=p3)
    s1.act(1, "call")
    summary = s1.act(2, "fold")
    assert summary["needs_card"] == {"seat": 1, "face": "up"}  # seat 2 gets no more cards

    summary = s1.cards(FULL[1][3], FULL[3][3])
    assert summary["awaiting"]["seat"] == 1  # J and J: the tie goes nearest the dealer's left
    s1.act(1, "parole")
    s1.act(3, "check")
    summary = s1.cards(FULL[1][4], FULL[3][4])
    assert (summary["awaiting"]["seat"], summary["needs_card"]) == (1, None)
    s1.act(1, "check")
    summary = s1.act(3, "check")

    assert summary["state"] == "settled"
    result = summary["result"]
    assert result["showdown"] is True
    assert [(h["seat"], h["cards"], h["category"]) for h in result["hands"]] == [
        (1, FULL[1], "high card"),
        (3, FULL[3], "high card"),
    ]
    assert result["pots"] == [
        {"pot": 0, "amount_cents": 4_510, "winners": [1, 3], "shares": [[1, 2_143], [3, 2_142]], "rake_cents": 225}
    ]
    assert [chips(p) for p in (p1, p2, p3)] == [10_000 - 1_655 + 2_143, 10_000 - 1_200, 10_000 - 1_655 + 2_142]

    (rake,) = Event.objects.filter(type="RakeTaken")
    assert (rake.data["rake_cents"], rake.data["rake_owed_cents"]) == (225, "451/2")
    assert sorted((p.account, p.amount_cents) for p in rake.postings.all()) == [
        ("table:S1:layout", -225),
        ("table:S1:tray", 225),
    ]
    (pot,) = Event.objects.filter(type="PotAwarded")
    assert (pot.data["odd_cents"], pot.data["winners"]) == (1, [1, 3])
    lines = {e.data["seat"]: e.data for e in Event.objects.filter(type="BetSettled")}
    assert {s: (d["outcome"], d["stake_cents"], d["return_cents"]) for s, d in lines.items()} == {
        1: ("won", 1_655, 2_143),
        2: ("lost", 1_200, 0),
        3: ("won", 1_655, 2_142),
    }
    assert {b.position["seat"]: (b.state, b.stake_cents, b.return_cents) for b in Bet.objects.all()} == {
        1: (Bet.State.WON, 100, 2_143),
        2: (Bet.State.LOST, 100, 0),
        3: (Bet.State.WON, 100, 2_142),
    }
    settled = Event.objects.get(type="RoundSettled").data
    assert (settled["staked_cents"], settled["returned_cents"], settled["house_win_cents"]) == (4_510, 4_285, 225)
    assert table_win_cents("S1") == 225
    assert_books("S1")


def test_every_action_is_an_event_with_its_postings(s1):
    """Each ante, bet, call and raise moves exactly its chips patron → layout on its own event;
    a check or a fold moves nothing."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    s1.act(1, "bet", 300)
    s1.act(2, "raise", 700)
    s1.act(1, "call")
    acted = [
        (e.data["seat"], e.data["action"], e.data["amount_cents"], e) for e in Event.objects.filter(type="PlayerActed")
    ]
    assert [a[:3] for a in acted] == [(1, "bet", 300), (2, "raise", 700), (1, "call", 400)]
    for seat, _, amount, event in acted:
        patron = p1 if seat == 1 else p2
        assert sorted((p.account, p.amount_cents) for p in event.postings.all()) == sorted(
            [(f"patron:{patron}:chips", -amount), ("table:S1:layout", amount)]
        )
    antes = Event.objects.filter(type="BetPlaced")
    assert [sorted(p.amount_cents for p in e.postings.all()) for e in antes] == [[-100, 100], [-100, 100]]
    assert layout("S1") == 200 + 1_400
    s1.cards("4C", "5D")
    summary = s1.act(1, "fold")  # seat 1 (the ace) opens round 2, and gives up
    assert summary["state"] == "settled" and summary["result"]["showdown"] is False
    assert Event.objects.filter(type="PlayerActed").order_by("position").last().postings.count() == 0
    # Seat 2 takes the pot of 1,600 unseen, less 5 % (80): no hand is shown.
    assert summary["result"]["hands"] == []
    assert (chips(p1), chips(p2)) == (5_000 - 800, 5_000 - 800 + 1_520)
    assert_books("S1")


# The side-pot hand: seat 2 (600 chips) shows the ace and has trips aces; seat 1 trips kings,
# seat 3 a pair of queens.
SIDE = {
    1: ["KC", "KS", "KD", "2C", "3C"],
    2: ["AC", "AS", "AD", "8H", "9S"],
    3: ["QC", "QS", "4D", "5D", "7C"],
}


def test_a_short_stack_all_in_makes_a_side_pot(s1):
    """Seat 2 sits with 600: ante 100, then all in for 500 on round 1. Seat 3 calls, seat 1 raises
    to 1,000 and seat 3 calls: the main pot is 3 × 600 = 1,800 (seats 1, 2, 3), the side pot
    2 × 500 = 1,000 (seats 1, 3). Seat 2 cannot act any more; seats 1 and 3 go on and add 200 each
    to the side pot. Showdown: trips aces take the main pot (1,800 − 90 rake), trips kings the
    side pot (1,400 − 70 rake)."""
    p1, p2, p3 = make_patron(10_000), make_patron(600), make_patron(10_000)
    s1.hand((p1, 1), (p2, 2), (p3, 3))
    summary = s1.cards(*(SIDE[s][0] for s in (1, 2, 3)), *(SIDE[s][1] for s in (1, 2, 3)))
    assert summary["awaiting"]["seat"] == 2 and summary["awaiting"]["max_total_cents"] == 500
    frozen = Frozen("S1", p1, p2, p3)
    s1.refused(2, "bet", 600, field="amount_cents", frozen=frozen)  # table stakes: he has 500 left
    summary = s1.act(2, "bet", 500)
    assert summary["seats"][1]["all_in"] is True and chips(p2) == 0
    s1.act(3, "call")
    s1.act(1, "raise", 1_000)
    summary = s1.act(3, "call")
    assert summary["pots"] == [
        {"pot": 0, "amount_cents": 1_800, "eligible": [1, 2, 3]},
        {"pot": 1, "amount_cents": 1_000, "eligible": [1, 3]},
    ]
    summary = s1.cards(*(SIDE[s][2] for s in (1, 2, 3)))
    assert summary["awaiting"]["seat"] == 1  # seat 2 shows the ace but is all in: he does not open
    s1.act(1, "bet", 200)
    s1.act(3, "call")
    s1.cards(*(SIDE[s][3] for s in (1, 2, 3)))
    s1.act(1, "check")
    s1.act(3, "check")
    s1.cards(*(SIDE[s][4] for s in (1, 2, 3)))
    s1.act(1, "check")
    summary = s1.act(3, "check")
    assert summary["state"] == "settled"
    assert [(p["amount_cents"], p["winners"], p["rake_cents"]) for p in summary["result"]["pots"]] == [
        (1_800, [2], 90),
        (1_400, [1], 70),
    ]
    assert [chips(p) for p in (p1, p2, p3)] == [10_000 - 1_300 + 1_330, 1_710, 10_000 - 1_300]
    assert table_win_cents("S1") == 160
    assert_books("S1")


def test_chips_nobody_matched_go_back_unraked(s1):
    """Seat 1 bets 1,000; seat 2 folds: the 1,000 nobody matched goes back to seat 1, and the
    rake is taken only on the antes (5 % of 200 = 10)."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    s1.act(1, "bet", 1_000)
    s1.act(2, "fold")
    (line,) = [e.data for e in Event.objects.filter(type="BetSettled", data__seat=1)]
    assert (line["stake_cents"], line["uncalled_cents"], line["won_cents"], line["return_cents"]) == (
        1_100,
        1_000,
        190,
        1_190,
    )
    assert (chips(p1), chips(p2)) == (5_090, 4_900)
    assert_books("S1")


def test_every_refusal_appends_nothing_and_moves_no_chip(s1):
    """Bad input, each refused with a clear error naming the field: a raise of the
    wrong size, acting out of turn, a bet over the round's cap, a check when a bet is pending,
    a card dealt twice from one deck, folding after the showdown; and more."""
    p1, p2, p3 = (make_patron(10_000) for _ in range(3))
    s1.hand((p1, 1), (p2, 2), (p3, 3))
    s1.cards(*(FULL[s][0] for s in (1, 2, 3)))
    frozen = Frozen("S1", p1, p2, p3)

    body = s1.card("KS").json()  # seat 1's hole card, again
    assert (body["field"], body["error"]) == ("card", "invalid") and "already dealt" in body["detail"]
    assert s1.card("KX").json()["field"] == "card"
    assert s1.act(2, "bet", 100, expect=409)["field"] == "round"  # cards are due: no betting now
    frozen.check()

    s1.cards(*(FULL[s][1] for s in (1, 2, 3)))
    frozen = Frozen("S1", p1, p2, p3)
    body = s1.refused(1, "check", field="seat", frozen=frozen)  # seat 2 (the queen) opens
    assert "seat 2 is to act" in body["detail"]
    assert s1.card("4H").status_code == 409  # a decision is awaited, not a card
    body = s1.refused(2, "bet", 1_001, field="amount_cents", frozen=frozen)  # over round 1's cap
    assert "cap of 1000" in body["detail"]
    s1.refused(2, "bet", 99, field="amount_cents", frozen=frozen)  # under the base stake
    s1.refused(2, "call", field="action", frozen=frozen)  # nothing to call
    s1.refused(2, "check", 100, field="amount_cents", frozen=frozen)  # a check takes no amount
    s1.refused(2, "bet", field="amount_cents", frozen=frozen)  # a bet needs one
    s1.refused(2, "check", patron=p1, field="patron", frozen=frozen)  # not the player at seat 2
    s1.refused(9, "check", field="seat", frozen=frozen)  # the serializer: seats are 1-7
    s1.refused(2, "shove", field="action", frozen=frozen)
    s1.refused(2, "bet", "100", field="amount_cents", frozen=frozen)  # cents are JSON integers

    s1.act(2, "bet", 200)
    frozen = Frozen("S1", p1, p2, p3)
    body = s1.refused(3, "check", field="action", frozen=frozen)  # a bet is pending
    assert "bet is pending" in body["detail"]
    body = s1.refused(3, "raise", 300, field="amount_cents", frozen=frozen)  # by 100 < the bet of 200
    assert "wrong size" in body["detail"]
    s1.refused(3, "raise", 1_100, field="amount_cents", frozen=frozen)  # over the cap
    s1.refused(3, "bet", 400, field="action", frozen=frozen)  # there is a bet: raise
    s1.refused(1, "call", field="seat", frozen=frozen)  # out of turn
    s1.act(3, "raise", 1_000)  # to the cap
    frozen = Frozen("S1", p1, p2, p3)
    body = s1.refused(1, "raise", 1_000, field="action", frozen=frozen)
    assert "cap" in body["detail"]
    s1.refused(1, "fold", expected_version=1, field="expected_version", status=409, frozen=frozen)  # stale

    # Play it out to the showdown, then try to fold.
    s1.act(1, "fold")
    s1.act(2, "call")
    s1.cards(FULL[2][2], FULL[3][2])
    s1.act(2, "check")
    s1.act(3, "check")
    s1.cards(FULL[2][3], FULL[3][3])
    s1.act(2, "check")
    s1.act(3, "check")
    s1.cards(FULL[2][4], FULL[3][4])
    s1.act(2, "check")
    assert s1.act(3, "check")["state"] == "settled"
    frozen = Frozen("S1", p1, p2, p3)
    body = s1.refused(2, "fold", field="round", status=409, frozen=frozen)
    assert "after the showdown" in body["detail"]
    assert s1.card("4H").status_code == 409
    frozen.check()
    assert_books("S1")


def test_sitting_down_refusals(s1):
    """A seat is 1–7 and holds one player; a player sits once; the stack is chips he holds and at
    least the base stake; nobody sits after the bets are closed, and a hand needs two players."""
    p1, p2, poor = make_patron(1_000), make_patron(1_000), make_patron(50)
    s1.open()
    assert s1.sit(p1, 1).status_code == 201
    frozen = Frozen("S1", p1, p2, poor)
    checks = [
        (s1.sit(p2, 1), "seat", "invalid"),
        (s1.sit(p1, 2), "patron", "invalid"),
        (s1.sit(p2, 8), "seat", "invalid"),
        (s1.sit(p2, 2, stack=1_001), "stack_cents", "insufficient_funds"),
        (s1.sit(p2, 2, stack=99), "stack_cents", "invalid"),
        (s1.sit(poor, 2), "stack_cents", "insufficient_funds"),
        (s1.sit("P99999", 2), "patron", "invalid"),
    ]
    for response, field, error in checks:
        assert response.status_code == 400 and (response.json()["field"], response.json()["error"]) == (field, error)
    frozen.check()
    assert s1.close().status_code == 200
    frozen = Frozen("S1", p1, p2, poor)
    assert s1.sit(p2, 2).status_code == 409
    assert s1.deal().status_code == 409  # one player: void the coup
    frozen.check()
    r = s1.post(f"/api/rounds/{s1.round}/void", {"reason": "one player"})
    assert r.status_code == 200 and chips(p1) == 1_000  # the ante goes back
    assert_books("S1")


def test_a_stack_smaller_than_the_chips_held_is_table_stakes(s1):
    """Sitting with 300 of his 5,000: after the ante he can bet 200 at most."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.open()
    assert s1.sit(p1, 1, stack=300).json()["stack_cents"] == 300
    assert s1.sit(p2, 2).json()["stack_cents"] == 5_000
    s1.close()
    s1.deal()
    s1.cards("2C", "3D", "AS", "KH")
    assert s1.state()["awaiting"]["max_total_cents"] == 200
    frozen = Frozen("S1", p1, p2)
    s1.refused(1, "bet", 201, field="amount_cents", frozen=frozen)
    s1.act(1, "bet", 200)
    assert s1.state()["seats"][0]["all_in"] is True and chips(p1) == 4_700


def test_a_retried_action_appends_once(s1):
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    body = {"seat": 1, "action": "bet", "amount_cents": 300}
    path = f"/api/rounds/{s1.round}/stud-actions"
    first = s1.post(path, body, HTTP_IDEMPOTENCY_KEY="bet-1")
    events = Event.objects.count()
    again = s1.post(path, body, HTTP_IDEMPOTENCY_KEY="bet-1")
    assert (first.status_code, again.status_code) == (200, 200) and first.json() == again.json()
    assert Event.objects.count() == events and chips(p1) == 4_600
    other = s1.post(path, {**body, "amount_cents": 400}, HTTP_IDEMPOTENCY_KEY="bet-1")
    assert other.status_code == 409 and other.json()["error"] == "idempotency_key_reused"


def test_shuffled_deck_committed_at_the_deal_and_revealed_at_the_end(api, cage):
    """The default card source: the backend shuffles a fresh 52-card deck, records its SHA-256
    commitment at the deal, deals from it, and reveals the order and the salt in the hand's last
    event; every card dealt is the card at its index. Two hands, two decks."""
    s2 = StudTable(api, "S2", card_source="shuffled")
    p1, p2 = make_patron(10_000), make_patron(10_000)
    for _ in range(2):
        summary = s2.hand((p1, 1), (p2, 2))
        assert summary["needs_card"] is None and summary["awaiting"] is not None  # 4 cards out at once
        assert s2.card("AS").status_code == 409  # nobody reports cards at this table
        while summary["state"] != "settled":
            summary = s2.act(summary["awaiting"]["seat"], "check")
        assert summary["result"]["showdown"] is True
    decks = list(Shoe.objects.order_by("version", "id"))
    assert len(decks) == 2 and {d.state for d in decks} == {Shoe.State.CLOSED}
    for settled in Event.objects.filter(type="RoundSettled"):
        deck = settled.data["deck"]
        started = Event.objects.get(type="DealingStarted", data__round=settled.data["round"]).data
        assert started["commitment"] == deck["commitment"] and len(deck["salt"]) == 32
        assert verify_commitment(ShoeOrder(tuple(deck["order"])), deck["salt"], started["commitment"])
        dealt = Event.objects.filter(type="CardDealt", data__round=settled.data["round"]).order_by("position")
        assert [(e.data["index"], e.data["card"]) for e in dealt] == list(enumerate(deck["order"][:10]))
        assert verify_shoe(deck["shoe"]) == []
    assert_books("S2")


def test_projections_count_the_hand(s1):
    """Table statistics: the win is the rake, the handle every chip put in; ratings: each
    player's actual win is what he lost, and his theoretical win his share of the rake taken
    (the house only rakes: 40 over 800 put in, 400 each → 20 each)."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    s1.act(1, "bet", 300)
    s1.act(2, "call")
    s1.cards("4C", "5D")
    s1.act(1, "fold")  # seat 2 takes 800 less 40 rake
    projections.catch_up_all()
    (row,) = s1.api.get("/api/stats/tables/").json()["results"]
    assert (row["table"], row["win_cents"], row["handle_cents"], row["bets"], row["coups"]) == ("S1", 40, 800, 2, 1)
    ratings = {r["patron"]: r for r in s1.api.get("/api/ratings/").json()["results"]}
    assert (ratings[p1]["actual_win_cents"], ratings[p2]["actual_win_cents"]) == (400, -360)
    assert (ratings[p1]["theoretical_win_cents"], ratings[p2]["theoretical_win_cents"]) == (20, 20)
    assert (row["house_edge"], row["theoretical_win_cents"]) == ("0.000000", 40)


def test_reading_the_hand_before_and_after_the_deal(s1):
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.open()
    s1.sit(p2, 4)
    s1.sit(p1, 2)
    before = s1.state()
    assert (before["state"], before["engine_state"]) == ("betting", None)
    assert before["seats"] == [
        {"seat": 2, "patron": p1, "stack_cents": 5_000},
        {"seat": 4, "patron": p2, "stack_cents": 5_000},
    ]
    s1.close()
    s1.deal()
    assert s1.state()["needs_card"] == {"seat": 2, "face": "hole"}
    assert s1.api.get("/api/rounds/not-a-round/stud-hand").status_code == 404


def test_a_bad_card_source_is_refused_at_opening(api, cage, croupier):
    body = opener_body("classic_stud", 1_000_000, rules={"card_source": "psychic"})
    r = api.post("/api/tables/S3/opener", body, format="json")
    assert r.status_code == 400 and r.json()["field"] == "rules.card_source"
    body["rules"] = {"caps": [10, 20, 40]}
    assert api.post("/api/tables/S3/opener", body, format="json").json()["field"] == "rules.caps"


def test_stud_endpoints_refuse_another_games_coup(api, cage, table):
    r = api.post("/api/tables/R1/rounds", {}, format="json")
    roulette = r.json()["round"]
    p = make_patron(1_000)
    body = api.post(f"/api/rounds/{roulette}/stud-seats", {"patron": p, "seat": 1}, format="json").json()
    assert body["field"] == "round"


def test_chips_that_left_the_players_hands_cannot_be_put_in(s1):
    """The stack is not taken at the start of the hand: a player who redeemed his chips at the
    cage meanwhile cannot call with them (400, nothing appended); he can still fold."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    s1.act(1, "bet", 1_000)
    chips_redeem(patron=p2, amount_cents=4_500, actor=ACTOR)
    frozen = Frozen("S1", p1, p2)
    body = s1.refused(2, "call", field="amount_cents", frozen=frozen)
    assert body["error"] == "insufficient_funds"
    assert s1.act(2, "fold")["state"] == "settled"
    assert_books("S1")


def test_what_each_seat_has_on_the_layout_mid_hand(s1):
    """``on_layout_cents`` (for voiding a hand in the middle): the ante and every chip put in."""
    p1, p2 = make_patron(5_000), make_patron(5_000)
    s1.hand((p1, 1), (p2, 2))
    s1.cards("2C", "3D", "AS", "KH")
    s1.act(1, "bet", 300)
    s1.act(2, "raise", 800)
    coup = Round.objects.get(pk=s1.round)
    bets = {b.position["seat"]: str(b.id) for b in coup.bets.all()}
    assert on_layout_cents(coup) == {bets[1]: 400, bets[2]: 900}
    assert sum(on_layout_cents(coup).values()) == layout("S1")

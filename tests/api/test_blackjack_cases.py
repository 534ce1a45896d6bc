"""Black jack cases C01–C06 (shared/cases) through the HTTP API, with a card-reading shoe so the
cards are exactly the case's. Default rules: 6 decks, no hole card (the dealer's second card
comes after the players), double on 9–11, 3:2, insurance 2:1. Stakes in cents."""

import pytest

from ledger import accounts, store
from ledger.models import Event
from ledger.verify import verify_chain
from tests.conftest import make_patron, open_by_total

pytestmark = pytest.mark.django_db


class Table:
    """A narrated black jack table: one coup at a time, cards reported by the shoe."""

    def __init__(self, api, code="B1", rules=None):
        self.api, self.code = api, code
        open_by_total(code, "blackjack", rules=rules or None)
        assert api.post(f"/api/tables/{code}/shoes", {"mode": "reader"}, format="json").status_code == 201

    def coup(self, bets):
        self.round = self.api.post(f"/api/tables/{self.code}/rounds", {}, format="json").json()["round"]
        for patron, box, stake, seated in bets:
            body = {"patron": patron, "box": box, "stake_cents": stake, "seated": seated}
            response = self.api.post(f"/api/rounds/{self.round}/blackjack-bets", body, format="json")
            assert response.status_code == 201, response.json()
        assert self.api.post(f"/api/rounds/{self.round}/close-bets", {}, format="json").status_code == 200
        assert self.api.post(f"/api/rounds/{self.round}/deal", {}, format="json").status_code == 200

    def cards(self, *cards):
        for card in cards:
            response = self.api.post(f"/api/rounds/{self.round}/cards", {"card": card}, format="json")
            assert response.status_code == 200, (card, response.json())
        return response.json()

    def decide(self, patron, action, box=1, expect=200, **extra):
        body = {"patron": patron, "box": box, "action": action, **extra}
        response = self.api.post(f"/api/rounds/{self.round}/decisions", body, format="json")
        assert response.status_code == expect, response.json()
        return response.json()

    def state(self):
        return self.api.get(f"/api/rounds/{self.round}/").json()


def chips(code):
    return store.balance(accounts.patron_chips(code))


@pytest.fixture
def bj(api, cage):
    return Table(api)


def test_c01_no_blackjack_after_a_split(bj):
    """Split A♠A♥ for 10 a hand: K on the first (21, paid 1:1 — not 3:2), 7 on the second;
    dealer 10,9 = 19. Return 20 on hand 1, hand 2 loses: the coup nets 0."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("AS", "TD", "AH")
    bj.decide(p, "split")
    bj.cards("KD", "7C")  # split aces take one card each
    summary = bj.cards("9C")  # the dealer's second card
    assert summary["state"] == "settled"
    settled = [e.data for e in Event.objects.filter(type="BetSettled").order_by("position")]
    assert [(s["hand_index"], s["outcome"], s["return_cents"]) for s in settled] == [(0, "won", 2_000), (1, "lost", 0)]
    assert chips(p) == 10_000
    assert bj.state()["bets"][0]["state"] == "pushed"


def test_c01_split_ace_21_against_a_three_card_21_pushes(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("AS", "TD", "AH")
    bj.decide(p, "split")
    bj.cards("KD", "7C", "5C", "6H")  # dealer 10,5,6 = 21
    settled = [e.data for e in Event.objects.filter(type="BetSettled").order_by("position")]
    assert [(s["outcome"], s["return_cents"]) for s in settled] == [("pushed", 1_000), ("lost", 0)]
    assert chips(p) == 9_000


def test_c02_no_split_after_a_hit(bj):
    """8,8 for 10, hit, 3 (19): a split is refused, no second stake is taken."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("8S", "6D", "8H")
    bj.decide(p, "hit")
    bj.cards("3C")
    before, events = chips(p), Event.objects.count()
    refused = bj.decide(p, "split", expect=400)
    assert refused["field"] in ("action", "hand_index")
    assert (chips(p), Event.objects.count()) == (before, events) == (9_000, events)


def test_c03_insurance_pays_2_to_1(bj):
    """Stake 20, insurance 10; dealer A then K; player 10,9: insurance returns 30, the main bet
    loses 20: the coup nets 0."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AS", "9H")
    bj.decide(p, "insurance", amount_cents=1_000)
    assert chips(p) == 7_000
    bj.decide(p, "stand")
    assert bj.cards("KD")["state"] == "settled"
    assert chips(p) == 10_000


def test_c03_insurance_lost_and_the_hand_plays_on(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AS", "9H")
    bj.decide(p, "insurance", amount_cents=1_000)
    bj.decide(p, "stand")
    bj.cards("7D")  # dealer A,7 = soft 18 stands; player 19 wins 20
    assert chips(p) == 10_000 - 1_000 + 2_000


def test_c03_insurance_over_half_the_stake_is_refused(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AS", "9H")
    events = Event.objects.count()
    assert bj.decide(p, "insurance", amount_cents=1_001, expect=400)["field"] == "amount_cents"
    assert (chips(p), Event.objects.count()) == (8_000, events)


@pytest.mark.parametrize(
    "accept, dealer_second, returned",
    [(True, None, 2_000), (False, "KD", 1_000), (False, "7D", 2_500)],
)
def test_c04_even_money(bj, accept, dealer_second, returned):
    """A,K for 10 against a dealer ace. Taken: 20 at once, hand closed. Declined and dealer
    blackjack: push, 10. Declined, no dealer blackjack: 3:2, 25."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("AH", "AS", "KH")
    summary = bj.decide(p, "even_money", accept=accept)
    if dealer_second:
        summary = bj.cards(dealer_second)
    assert summary["state"] == "settled"
    assert chips(p) == 9_000 + returned


def test_c05_several_aces(bj):
    """A,A,A,6 = soft 19 for 10; dealer 10,7: the player wins, return 20."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("AS", "TD", "AH")
    bj.decide(p, "hit")
    bj.cards("AD")
    bj.decide(p, "hit")
    bj.cards("6C")
    bj.decide(p, "stand")
    bj.cards("7S")
    assert chips(p) == 11_000


def test_c06_a_doubled_21_against_a_dealer_21_is_a_push(bj):
    """5,6 doubled to 20 + K = 21; dealer 10,6,5 = 21: return 20, not 40."""
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("5S", "TD", "6H")
    bj.decide(p, "double")
    assert chips(p) == 8_000
    bj.cards("KC", "6D", "5C")
    assert chips(p) == 10_000
    (line,) = [e.data for e in Event.objects.filter(type="BetSettled")]
    assert (line["outcome"], line["stake_cents"], line["return_cents"]) == ("pushed", 2_000, 2_000)
    assert verify_chain().ok


def test_a_card_the_shoe_cannot_contain_is_refused(bj):
    """Six boxes each receive the ace of spades: a seventh AS from six decks is refused."""
    players = [make_patron(10_000) for _ in range(6)]
    bj.coup([(p, box, 1_000, True) for box, p in enumerate(players, start=1)])
    bj.cards(*["AS"] * 6)
    events = Event.objects.count()
    response = bj.api.post(f"/api/rounds/{bj.round}/cards", {"card": "AS"}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "card" and "seventh AS" in response.json()["detail"]
    assert Event.objects.count() == events
    assert bj.cards("KD")["dealer"] == ["KD"]


def test_a_decision_by_a_player_not_seated_at_that_box_is_refused(api, cage):
    bj = Table(api, rules={"behind_only_when_full": False})
    seated, behind = make_patron(10_000), make_patron(10_000)
    bj.coup([(seated, 1, 1_000, True), (behind, 1, 1_000, False)])
    bj.cards("9S", "6D", "7H")
    events = Event.objects.count()
    assert bj.decide(behind, "hit", expect=400)["field"] == "bettor"
    assert Event.objects.count() == events


def test_acting_on_a_settled_round_is_409(bj):
    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "7D", "TH")
    bj.decide(p, "stand")
    assert bj.cards("TD")["state"] == "settled"  # dealer 17 stands; 20 wins
    assert bj.decide(p, "hit", expect=409)["field"] == "round"


def test_replay_check_after_black_jack_coups(bj):
    from ledger.replay import replay_check

    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("AS", "TD", "AH")
    bj.decide(p, "split")
    bj.cards("KD", "7C", "9C")
    assert replay_check() == []


def test_ratings_and_table_statistics_give_the_theoretical_win_of_the_tables_rules(bj):
    """The default table (preset sheet_000) has the exact edge 0.6236 % per initial bet:
    10 EUR stood on 19 against 10,8 → 6.236 cents of theory, 6 rounded half up."""
    from ledger import projections

    p = make_patron(10_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("TS", "TD", "9H")
    bj.decide(p, "stand")
    assert bj.cards("8C")["state"] == "settled"
    projections.catch_up_all()
    (rating,) = bj.api.get("/api/ratings/", {"patron": p}).json()["results"]
    assert rating["theoretical_win_cents"] == 6
    (row,) = bj.api.get("/api/stats/tables/").json()["results"]
    assert row["house_edge"] == "0.006236" and "exact combinatorial analysis" in row["house_edge_basis"]
    assert row["theoretical_win_cents"] == 6

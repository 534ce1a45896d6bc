"""Caribbean stud cases C10–C12 (shared/cases) through the HTTP API: ante 10, raise 20, the rule
sheet's pay table; cards reported by the dealer's terminal so they are exactly the case's."""

import pytest

from games.selectors import settlements_net_cents, table_win_cents
from ledger import accounts, store
from ledger.models import Event
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import cosigned, make_patron, open_by_total

pytestmark = pytest.mark.django_db


class StudTable:
    def __init__(self, api, code="C1", rules=None):
        self.api, self.code = api, code
        open_by_total(code, "caribbean_stud", 1_000_000, rules={"card_source": "reported", **(rules or {})})

    def coup(self, antes):
        self.round = self.api.post(f"/api/tables/{self.code}/rounds", {}, format="json").json()["round"]
        for patron, box, ante in antes:
            body = {"patron": patron, "box": box, "ante_cents": ante}
            response = self.api.post(f"/api/rounds/{self.round}/antes", body, format="json")
            assert response.status_code == 201, response.json()
        assert self.api.post(f"/api/rounds/{self.round}/close-bets", {}, format="json").status_code == 200
        assert self.api.post(f"/api/rounds/{self.round}/deal", {}, format="json").status_code == 200

    def deal_hands(self, player, dealer):
        """One box: the cards go player, dealer, player, dealer… five times each."""
        for mine, his in zip(player, dealer, strict=True):
            for card in (mine, his):
                response = self.api.post(f"/api/rounds/{self.round}/cards", {"card": card}, format="json")
                assert response.status_code == 200, (card, response.json())
        return response.json()

    def decide(self, patron, action, box=1, expect=200):
        body = {"patron": patron, "box": box, "action": action}
        response = self.api.post(f"/api/rounds/{self.round}/caribbean-decisions", body, format="json")
        assert response.status_code == expect, response.json()
        return response.json()


def chips(code):
    return store.balance(accounts.patron_chips(code))


@pytest.fixture
def stud(api, cage):
    return StudTable(api)


def _play(stud, player, dealer, action="raise"):
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    assert stud.deal_hands(player, dealer)["dealer_up"] == dealer[-1]
    stud.decide(p, action)
    return p


def test_c10_the_wheel_is_a_five_high_straight(stud):
    """A♣2♦3♥4♠5♣ against K♠K♦9♣6♥2♠ (qualifies): ante +10, raise 5:1 = +100: return 140."""
    p = _play(stud, ["AC", "2D", "3H", "4S", "5C"], ["KS", "KD", "9C", "6H", "2S"])
    assert chips(p) == 10_000 - 3_000 + 14_000
    lines = [(e.data["line"], e.data["return_cents"]) for e in Event.objects.filter(type="BetSettled")]
    assert lines == [("ante", 2_000), ("raise", 12_000)]


def test_c11_kickers_decide(stud):
    """5♠5♥K♣9♦7♠ against 5♣5♦Q♥9♠7♥: the player wins: ante +10, raise 1:1 = +20: return 60."""
    p = _play(stud, ["5S", "5H", "KC", "9D", "7S"], ["5C", "5D", "QH", "9S", "7H"])
    assert chips(p) == 10_000 - 3_000 + 6_000


def test_c12_dealer_does_not_qualify(stud):
    """Dealer Q♠J♦8♣5♥3♠: the ante pays 1:1 (+10), the raise is returned: return 40, not 30."""
    p = _play(stud, ["AS", "AH", "4C", "7D", "9S"], ["QS", "JD", "8C", "5H", "3S"])
    assert chips(p) == 10_000 - 3_000 + 4_000


def test_a_fold_loses_the_ante_and_the_coup_balances(stud):
    p = _play(stud, ["2S", "7H", "9C", "JD", "4S"], ["AS", "KH", "8C", "5D", "3C"], action="fold")
    assert chips(p) == 9_000
    assert table_win_cents("C1") == settlements_net_cents("C1")["house_win"] == 1_000
    assert verify_chain().ok and replay_check() == []


def test_a_card_dealt_twice_from_one_deck_is_refused(stud):
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    assert stud.api.post(f"/api/rounds/{stud.round}/cards", {"card": "AS"}, format="json").status_code == 200
    events = Event.objects.count()
    response = stud.api.post(f"/api/rounds/{stud.round}/cards", {"card": "AS"}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "card")
    assert Event.objects.count() == events


def test_a_decision_before_the_cards_are_out_and_after_the_showdown(stud):
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    assert stud.decide(p, "raise", expect=400)["field"] == "state"
    stud.deal_hands(["2S", "7H", "9C", "JD", "4S"], ["AS", "KH", "8C", "5D", "3C"])
    stud.decide(p, "fold")
    assert stud.decide(p, "raise", expect=409)["field"] == "round"


def test_an_ante_the_patron_cannot_back_with_a_raise_is_refused(stud):
    p = make_patron(2_500)
    stud.round = stud.api.post("/api/tables/C1/rounds", {}, format="json").json()["round"]
    response = stud.api.post(
        f"/api/rounds/{stud.round}/antes", {"patron": p, "box": 1, "ante_cents": 1_000}, format="json"
    )
    assert (response.status_code, response.json()["field"]) == (400, "ante_cents")
    assert chips(p) == 2_500


def test_a_shuffled_deck_is_committed_and_revealed(api, cage):
    from games.models import Shoe
    from games.services.shoes import verify_shoe

    open_by_total("C2", "caribbean_stud", 1_000_000)
    players = [make_patron(10_000) for _ in range(3)]
    coup = api.post("/api/tables/C2/rounds", {}, format="json").json()["round"]
    for box, p in enumerate(players, start=1):
        api.post(f"/api/rounds/{coup}/antes", {"patron": p, "box": box, "ante_cents": 1_000}, format="json")
    api.post(f"/api/rounds/{coup}/close-bets", {}, format="json")
    assert api.post(f"/api/rounds/{coup}/deal", {}, format="json").json()["undecided"] == [1, 2, 3]
    for box, p in enumerate(players, start=1):
        api.post(f"/api/rounds/{coup}/caribbean-decisions", {"patron": p, "box": box, "action": "raise"}, format="json")
    shoe = Shoe.objects.get(table__code="C2")
    assert shoe.state == "closed" and verify_shoe(str(shoe.id)) == []
    assert Event.objects.filter(type="CardDealt", data__shoe=str(shoe.id)).count() == 20
    assert table_win_cents("C2") == settlements_net_cents("C2")["house_win"]
    assert replay_check() == []


def test_a_void_after_a_raise_returns_the_raise_too(stud):
    a, b = make_patron(10_000), make_patron(10_000)
    stud.coup([(a, 1, 1_000), (b, 2, 1_000)])
    cards = ["2S", "3S", "AH", "4S", "5S", "AD", "6S", "7S", "AC", "8S", "9S", "KD", "TS", "JS", "KC"]
    for card in cards:  # box 1, box 2, dealer, five times
        assert stud.api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json").status_code == 200
    stud.decide(a, "raise")
    assert chips(a) == 7_000
    response = cosigned(stud.api.post(f"/api/rounds/{stud.round}/void", {"reason": "misdeal"}, format="json"))
    assert response.status_code == 200
    assert (chips(a), chips(b)) == (10_000, 10_000)
    assert store.balance(accounts.table_layout("C1")) == 0
    assert replay_check() == [] and verify_chain().ok


def test_ratings_and_table_statistics_give_the_theoretical_win_on_the_ante(stud):
    """The ante carries the table's edge per ante (sheet pay table 4.108 %), the raise
    none: 10 EUR ante → 41.08 cents of theory, 41 rounded half up."""
    from ledger import projections

    p = _play(stud, ["5S", "5H", "KC", "9D", "7S"], ["5C", "5D", "QH", "9S", "7H"])
    projections.catch_up_all()
    (rating,) = stud.api.get("/api/ratings/", {"patron": p}).json()["results"]
    assert rating["theoretical_win_cents"] == 41
    (row,) = stud.api.get("/api/stats/tables/").json()["results"]
    assert (row["house_edge"], row["theoretical_win_cents"]) == ("0.040841", 41)  # 1,000 × 4.0841 %
    assert "exact" in row["house_edge_basis"]

"""Sheet 001 through the HTTP API: a card exposed by mistake is burnt and the coup goes on; the
deck is changed at the patrons' request, a new deck with its order committed."""

import pytest

from games.models import Shoe
from games.services.shoes import verify_shoe
from ledger.models import Event
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.api.test_caribbean_cases import StudTable, chips
from tests.conftest import cosigned, make_patron

pytestmark = pytest.mark.django_db

PLAYER = ["2S", "7H", "9C", "JD", "4S"]
DEALER = ["AS", "KH", "8C", "5D", "3C"]


def burn(stud, card, expect=200):
    response = stud.api.post(f"/api/rounds/{stud.round}/burnt-cards", {"card": card}, format="json")
    assert response.status_code == expect, response.json()
    return response.json()


def report(stud, card):
    response = stud.api.post(f"/api/rounds/{stud.round}/cards", {"card": card}, format="json")
    assert response.status_code == 200, (card, response.json())
    return response.json()


@pytest.fixture
def stud(api, cage):
    return StudTable(api)


def test_a_card_exposed_off_the_deck_is_burnt_and_its_receiver_takes_the_next(stud):
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    report(stud, "2S")
    answer = burn(stud, "QD")  # the dealer's first card shows as it comes off the deck
    assert (answer["burnt"], answer["next_card_to"]) == ("QD", "dealer")
    (burnt,) = Event.objects.filter(type="CardBurnt")
    assert {k: burnt.data[k] for k in ("card", "box", "from", "index", "reason")} == {
        "card": "QD",
        "box": None,
        "from": "deck",
        "index": 1,
        "reason": "exposed by mistake",
    }
    assert burnt.postings.count() == 0
    refused = stud.api.post(f"/api/rounds/{stud.round}/cards", {"card": "QD"}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "card")
    report(stud, "AS")  # the dealer's first card after all
    for mine, his in zip(PLAYER[1:], DEALER[1:], strict=True):
        report(stud, mine)
        report(stud, his)
    stud.decide(p, "fold")
    dealer = Event.objects.get(type="DealerRevealed").data["cards"]
    assert dealer[0] == "AS" and "QD" not in dealer
    assert chips(p) == 9_000
    assert verify_chain().ok and replay_check() == []


def test_a_dealt_card_exposed_by_mistake_is_replaced_from_the_committed_order(api, cage):
    stud = StudTable(api, rules={"card_source": "shuffled"})
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    dealt = Event.objects.filter(type="CardDealt", data__round=stud.round).order_by("position")
    mine = [e.data["card"] for e in dealt if e.data["box"] == 1]
    deck = Shoe.objects.get(pk=dealt[0].data["shoe"])
    answer = burn(stud, mine[2])
    assert answer["state"] == "dealing" and answer["burnt"] == mine[2]
    replacement = Event.objects.filter(type="CardDealt", data__round=stud.round).order_by("-position")[0]
    assert (replacement.data["index"], replacement.data["card"]) == (10, deck.order[10])  # the next card of the deck
    assert Event.objects.get(type="CardBurnt").data["place"] == 2
    stud.decide(p, "fold")
    hand = Event.objects.get(type="BetSettled").data
    assert hand["stake_cents"] == 1_000
    assert verify_shoe(str(deck.id)) == []  # every dealt card still sits at its index in the revealed order
    assert verify_chain().ok and replay_check() == []


def test_a_burn_that_does_not_apply_is_refused_and_records_nothing(stud):
    p = make_patron(10_000)
    stud.round = stud.api.post("/api/tables/C1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    assert burn(stud, "QD", expect=409)["field"] == "round"  # betting: no card is out
    stud.api.post(f"/api/rounds/{stud.round}/antes", {"patron": p, "box": 1, "ante_cents": 1_000}, format="json")
    stud.api.post(f"/api/rounds/{stud.round}/close-bets", {}, format="json")
    stud.api.post(f"/api/rounds/{stud.round}/deal", {}, format="json")
    stud.deal_hands(PLAYER, DEALER)
    events = Event.objects.count()
    assert burn(stud, "3C", expect=400)["field"] == "card"  # the dealer's shown card
    assert burn(stud, "TS", expect=400)["field"] == "card"  # in no hand
    assert burn(stud, "ZZ", expect=400)["field"] == "card"
    response = stud.api.post(f"/api/rounds/{stud.round}/burnt-cards", {}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "card")
    assert Event.objects.count() == events
    stud.decide(p, "fold")
    assert burn(stud, "2S", expect=409)["field"] == "round"  # settled


def test_the_deck_changed_at_a_patrons_request_is_a_new_committed_deck_the_coup_is_dealt_from(api, cage):
    stud = StudTable(api, rules={"card_source": "shuffled"})
    p = make_patron(10_000)
    stud.round = api.post("/api/tables/C1/rounds", {}, format="json").json()["round"]
    first = api.post(f"/api/rounds/{stud.round}/deck-changes", {"patron": p}, format="json")
    assert first.status_code == 201, first.json()
    second = api.post(f"/api/rounds/{stud.round}/deck-changes", {}, format="json").json()
    assert len(second["commitment"]) == 64 and second["shoe"] != first.json()["shoe"]
    changes = [e.data for e in Event.objects.filter(type="DeckChanged").order_by("position")]
    assert [(c["requested_by"], c["replaces"]) for c in changes] == [(p, None), (None, first.json()["shoe"])]
    assert Shoe.objects.get(pk=first.json()["shoe"]).state == Shoe.State.CLOSED  # revealed, no card drawn
    assert verify_shoe(first.json()["shoe"]) == []
    api.post(f"/api/rounds/{stud.round}/antes", {"patron": p, "box": 1, "ante_cents": 1_000}, format="json")
    api.post(f"/api/rounds/{stud.round}/close-bets", {}, format="json")
    api.post(f"/api/rounds/{stud.round}/deal", {}, format="json")
    assert Event.objects.get(type="DealingStarted", data__round=stud.round).data["shoe"] == second["shoe"]
    late = api.post(f"/api/rounds/{stud.round}/deck-changes", {}, format="json")
    assert (late.status_code, late.json()["field"]) == (409, "round")
    stud.decide(p, "fold")
    assert verify_shoe(second["shoe"]) == []
    assert verify_chain().ok and replay_check() == []


def test_a_deck_change_for_an_unknown_patron_is_refused(stud):
    stud.round = stud.api.post("/api/tables/C1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    response = stud.api.post(f"/api/rounds/{stud.round}/deck-changes", {"patron": "P-NOBODY"}, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "patron")
    assert Event.objects.count() == events


def test_after_a_coup_voided_mid_deal_the_next_coup_burns_and_settles_on_its_own_deck(stud):
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])
    report(stud, "AS")
    report(stud, "KD")
    void = cosigned(stud.api.post(f"/api/rounds/{stud.round}/void", {"reason": "misdeal"}, format="json"))
    assert void.status_code == 200
    stud.coup([(p, 1, 1_000)])  # a new coup, a new deck: AS and KD are back in it
    report(stud, "AS")
    burn(stud, "KD")
    for card in ("2C", "7H", "KH", "9C", "8C", "JD", "5D", "4S", "3C"):  # dealer, box, dealer, …
        report(stud, card)
    stud.decide(p, "fold")
    dealt = Event.objects.filter(type="DealingStarted", data__round=stud.round).get().data["shoe"]
    deck = Shoe.objects.get(pk=dealt)
    assert deck.state == Shoe.State.CLOSED and deck.drawn[:2] == ["AS", "KD"]
    assert Event.objects.get(type="DealerRevealed", data__round=stud.round).data["cards"] == [
        "2C",
        "KH",
        "8C",
        "5D",
        "3C",
    ]
    assert chips(p) == 9_000
    assert verify_chain().ok and replay_check() == []


def test_a_voided_coups_deck_is_closed_and_revealed_and_the_next_coup_deals_from_a_fresh_one(api, cage):
    stud = StudTable(api, rules={"card_source": "shuffled"})
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])  # dealt at once: the box's five cards and the dealer's
    voided = stud.round
    deck = Event.objects.get(type="DealingStarted", data__round=voided).data["shoe"]
    dealt = [e.data["card"] for e in Event.objects.filter(type="CardDealt", data__round=voided).order_by("position")]
    assert len(dealt) == 10 and Shoe.objects.get(pk=deck).state == Shoe.State.IN_PLAY
    void = cosigned(api.post(f"/api/rounds/{voided}/void", {"reason": "misdeal"}, format="json"))
    assert void.status_code == 200, void.json()

    closed = Shoe.objects.get(pk=deck)
    assert closed.state == Shoe.State.CLOSED
    (event,) = Event.objects.filter(stream=f"shoe/{deck}", type="ShoeClosed")
    assert (event.data["reason"], event.data["round"], event.data["cards_drawn"]) == ("coup voided", voided, 10)
    assert event.data["order"][:10] == dealt  # revealed: the cards dealt are the order's first ten
    assert verify_shoe(deck) == []
    returned = Event.objects.get(type="RoundVoided", data__round=voided)
    assert event.position == returned.position + 1  # the void's own command closes it, right after RoundVoided
    assert not Shoe.objects.filter(table__code="C1", state=Shoe.State.IN_PLAY).exists()

    stud.coup([(p, 1, 1_000)])
    fresh = Event.objects.get(type="DealingStarted", data__round=stud.round).data["shoe"]
    assert fresh != deck
    assert set(Event.objects.filter(type="CardDealt", data__round=stud.round).values_list("data__shoe", flat=True)) == {
        fresh
    }
    assert list(Shoe.objects.filter(table__code="C1", state=Shoe.State.IN_PLAY).values_list("id", flat=True)) == [
        Shoe.objects.get(pk=fresh).id
    ]
    stud.decide(p, "fold")
    assert chips(p) == 9_000  # the voided coup's ante came back; the second one is lost
    assert verify_chain().ok and replay_check() == []


def test_a_deck_changed_for_a_coup_voided_before_the_deal_is_closed_with_it(stud):
    p = make_patron(10_000)
    stud.round = stud.api.post("/api/tables/C1/rounds", {}, format="json").json()["round"]
    changed = stud.api.post(f"/api/rounds/{stud.round}/deck-changes", {"patron": p}, format="json").json()["shoe"]
    void = stud.api.post(f"/api/rounds/{stud.round}/void", {"reason": "table closes early"}, format="json")
    assert void.status_code == 200, void.json()
    assert Shoe.objects.get(pk=changed).state == Shoe.State.CLOSED
    closing = Event.objects.get(stream=f"shoe/{changed}", type="ShoeClosed").data
    assert (closing["reason"], closing["round"], closing["cards_drawn"]) == ("coup voided", stud.round, 0)
    stud.coup([(p, 1, 1_000)])
    assert Event.objects.get(type="DealingStarted", data__round=stud.round).data["shoe"] != changed
    assert verify_chain().ok and replay_check() == []

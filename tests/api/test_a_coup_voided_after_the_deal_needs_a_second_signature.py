"""A coup voided once its cards are out (at roulette, once betting closed) needs a second
signature: one pit boss alone gets 202 and nothing is voided; he cannot sign his own request;
another pit boss or a cage supervisor confirming from his own login voids it, recorded with
``approved_by``, every stake back. Before the deal one pit boss voids it at once, as always."""

import pytest

from approvals.models import Approval
from games.models import Bet, Round
from games.services.bets import bet_place
from games.services.blackjack import blackjack_bet_place, blackjack_deal, blackjack_report_card
from games.services.rounds import round_close_bets, round_open, round_void
from games.services.shoes import shoe_start
from games.services.tables import table_open
from ledger import accounts, store
from ledger.models import Event
from staff.roles import Role, RoleRequired
from tests.conftest import ACTOR, approve, make_patron, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "super1": Role.CAGE_SUPERVISOR, "dealer1": Role.DEALER}
STAKE = 5_000


@pytest.fixture
def clients(cage):
    return staff_clients(STAFF)


def chips(patron: str) -> int:
    return store.balance(accounts.patron_chips(patron))


def voids(coup: str) -> list[dict]:
    return list(Event.objects.filter(stream=f"round/{coup}", type="RoundVoided").values_list("data", flat=True))


def blackjack_coup(*, cards: tuple[str, ...]) -> tuple[str, str]:
    """A black jack coup at B1 (card-reading shoe) with one bet of ``STAKE``, dealing started
    and ``cards`` reported. Returns ``(patron, coup)``."""
    table_open(code="B1", game="blackjack", opener_cents=5_000_000, actor=ACTOR, rules={})
    shoe_start(table="B1", actor=ACTOR, mode="reader")
    patron = make_patron(100_000)
    coup = round_open(table="B1", actor=ACTOR)["round"]
    blackjack_bet_place(round_id=coup, patron=patron, box=1, stake_cents=STAKE, seated=True, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    blackjack_deal(round_id=coup, actor=ACTOR)
    for card in cards:
        blackjack_report_card(round_id=coup, card=card, actor=ACTOR)
    return patron, coup


def roulette_coup(*, closed: bool) -> tuple[str, str]:
    """A coup at roulette R1 with 50 EUR on rouge, its betting closed or not."""
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = {"type": "chance_simple", "chance": "rouge"}
    bet_place(round_id=coup, patron=patron, stake_cents=STAKE, bet=bet, actor=ACTOR)
    if closed:
        round_close_bets(round_id=coup, actor=ACTOR)
    return patron, coup


def ask(client, coup: str):
    return client.post(f"/api/rounds/{coup}/void", {"reason": "card exposed"}, format="json")


def test_one_pit_boss_alone_after_the_cards_are_out_waits_and_nothing_is_voided(clients):
    patron, coup = blackjack_coup(cards=("KS",))
    response = ask(clients["pit1"], coup)
    assert response.status_code == 202, response.json()
    approval = response.json()["approval"]
    assert approval["state"] == "pending" and approval["kind"] == "round_void"
    assert approval["waiting_for"] == [{"slot": "approver", "roles": ["pit_boss", "cage_supervisor"], "user": None}]
    assert Round.objects.get(pk=coup).state == Round.State.DEALING
    assert list(Bet.objects.filter(round_id=coup).values_list("state", flat=True)) == [Bet.State.PLACED]
    assert voids(coup) == []
    assert chips(patron) == 100_000 - STAKE


def test_the_pit_boss_who_asked_cannot_sign_his_own_void(clients):
    _, coup = blackjack_coup(cards=("KS",))
    response = approve(ask(clients["pit1"], coup), clients["pit1"])
    assert response.status_code == 403, response.json()
    assert Round.objects.get(pk=coup).state == Round.State.DEALING
    assert voids(coup) == []
    assert Approval.objects.get().state == Approval.State.PENDING


def test_a_dealer_cannot_sign_a_void(clients):
    _, coup = blackjack_coup(cards=("KS",))
    assert approve(ask(clients["pit1"], coup), clients["dealer1"]).status_code == 403
    assert voids(coup) == []


@pytest.mark.parametrize("signer", ["pit2", "super1"])
def test_another_supervisor_confirming_voids_the_coup_with_his_signature(clients, signer):
    patron, coup = blackjack_coup(cards=("KS", "9H"))
    response = approve(ask(clients["pit1"], coup), clients[signer])
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["state"], body["bets_returned"], body["approved_by"]) == ("voided", 1, signer)
    assert body["approval"]["state"] == "confirmed"
    assert Round.objects.get(pk=coup).state == Round.State.VOIDED
    assert list(Bet.objects.filter(round_id=coup).values_list("state", flat=True)) == [Bet.State.RETURNED]
    (voided,) = voids(coup)
    assert (voided["reason"], voided["approved_by"]) == ("card exposed", signer)
    assert chips(patron) == 100_000  # the stake is back
    assert Event.objects.get(type="RoundVoided").actor == "pit1"  # the void is the maker's


def test_a_second_void_of_the_same_coup_waits_behind_the_first(clients):
    _, coup = blackjack_coup(cards=("KS",))
    assert ask(clients["pit1"], coup).status_code == 202
    second = ask(clients["pit2"], coup)
    assert (second.status_code, second.json()["field"]) == (409, "round_id")


def test_roulette_after_rien_ne_va_plus_waits_for_a_second_signature(clients):
    patron, coup = roulette_coup(closed=True)
    response = ask(clients["pit1"], coup)
    assert response.status_code == 202, response.json()
    assert Round.objects.get(pk=coup).state == Round.State.CLOSED_FOR_BETS
    assert voids(coup) == []
    assert approve(response, clients["pit2"]).status_code == 200
    assert voids(coup)[0]["approved_by"] == "pit2"
    assert chips(patron) == 100_000


def test_roulette_with_betting_open_is_voided_at_once_by_one_pit_boss(clients):
    patron, coup = roulette_coup(closed=False)
    response = ask(clients["pit1"], coup)
    assert response.status_code == 200, response.json()
    assert (response.json()["state"], response.json()["bets_returned"]) == ("voided", 1)
    assert "approved_by" not in response.json()
    assert not Approval.objects.exists()
    (voided,) = voids(coup)
    assert "approved_by" not in voided
    assert chips(patron) == 100_000


def test_a_card_game_dealing_before_its_first_card_is_voided_at_once(clients):
    """The card-reading shoe has reported no card yet: nothing of the coup is out."""
    patron, coup = blackjack_coup(cards=())
    assert Round.objects.get(pk=coup).state == Round.State.DEALING
    response = ask(clients["pit1"], coup)
    assert response.status_code == 200, response.json()
    assert not Approval.objects.exists()
    assert Round.objects.get(pk=coup).state == Round.State.VOIDED
    assert chips(patron) == 100_000


def test_the_service_refuses_a_void_after_the_deal_without_another_signer(clients):
    _, coup = blackjack_coup(cards=("KS",))
    with pytest.raises(RoleRequired, match="second signature"):
        round_void(round_id=coup, reason="card exposed", actor="pit1")
    with pytest.raises(RoleRequired):
        round_void(round_id=coup, reason="card exposed", actor="pit1", approver="pit1")
    with pytest.raises(RoleRequired):
        round_void(round_id=coup, reason="card exposed", actor="pit1", approver="dealer1")
    assert Round.objects.get(pk=coup).state == Round.State.DEALING
    assert voids(coup) == []


def test_the_void_waits_on_the_other_pit_boss_approvals_page_and_his_approval_voids_it(clients, client):
    from django.contrib.auth import get_user_model

    patron, coup = blackjack_coup(cards=("KS",))
    approval = ask(clients["pit1"], coup).json()["approval"]["id"]
    client.force_login(get_user_model().objects.get(username="pit2"))
    page = client.get("/dashboard/approvals/").content.decode()
    assert "Void coup 1 at table B1 after its deal, every stake back: “card exposed”" in page
    assert f"/dashboard/approvals/{approval}/approve" in page
    client.post(f"/dashboard/approvals/{approval}/approve")
    assert voids(coup)[0]["approved_by"] == "pit2"
    assert chips(patron) == 100_000


def test_the_demo_voids_a_coup_it_left_past_the_deal_with_its_supervisors_signature(cage):
    from demo.day import SUPERVISOR
    from demo.roulette import void_leftover_coup

    patron, coup = roulette_coup(closed=True)
    void_leftover_coup("R1")
    assert voids(coup)[0]["approved_by"] == SUPERVISOR
    assert chips(patron) == 100_000

"""Someone holding the application's database credentials raises a bet's stake with raw SQL
after its ``BetPlaced`` recorded less (or gives the bet to another patron, or sets it aside as
returned): the settlement that would pay from the row refuses instead, 409 naming the bet and
the field, nothing appended, every balance as it was. The check is the coup's own (its sealed
events folded, ``games.bet_record``), made by every settling command: a row set back before
anyone runs ``ledger replay-check`` can no longer have paid on the raised figure meanwhile."""

import json

import pytest
from django.db import connection

from games.models import Bet, Round
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result, round_void
from games.services.tables import table_open
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.replay import replay_check
from ledger.verify import verify_chain
from patrons.models import Patron
from staff.roles import Role
from tests.conftest import ACTOR, make_patron, open_by_total, staff_user
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db

RED = {"type": "chance_simple", "chance": "rouge"}


def _sql_update_bet(bet_id, **columns) -> None:
    """``UPDATE games_bet SET <columns>`` around the application."""
    assignments, params = [], []
    for name, value in columns.items():
        assignments.append(f"{name} = %s")
        params.append(value)
    params.append(Bet._meta.pk.get_db_prep_value(bet_id, connection))
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE games_bet SET {', '.join(assignments)} WHERE id = %s", params)


def _chips(code: str) -> int:
    return store.balance(accounts.patron_chips(code))


# --- baccarat: the card games' settlement (card_table.close_coup) -------------------------------


def _baccarat_coup(api, patron: str) -> tuple[str, str]:
    open_by_total("P1", "baccarat", rules={})
    assert api.post("/api/tables/P1/shoes", {"mode": "reader"}, format="json").status_code == 201
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    placed = api.post(
        f"/api/rounds/{round_id}/baccarat-bets",
        {"patron": patron, "bet": "player", "stake_cents": 1_000},
        format="json",
    )
    assert placed.status_code == 201, placed.json()
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").status_code == 200
    return round_id, placed.json()["bet"]


# Player 2,3 = 5 draws K → 5; banker 2,2 = 4 stands: the player's bet wins even money.
PLAYER_WINS = ["2S", "2H", "3D", "2C", "KC"]


def _report(api, round_id: str, cards: list[str]):
    response = None
    for card in cards:
        response = api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json")
        if response.status_code != 200:
            return response
    return response


def test_a_baccarat_stake_raised_with_raw_sql_is_not_paid_and_set_back_pays_the_ledgers_stake(api, cage):
    patron = make_patron(10_000)
    round_id, bet = _baccarat_coup(api, patron)
    _sql_update_bet(bet, stake_cents=30_000)
    _report(api, round_id, PLAYER_WINS[:4])  # the coup wants its fifth card before it settles
    head = store.head()

    refused = api.post(f"/api/rounds/{round_id}/cards", {"card": PLAYER_WINS[4]}, format="json")

    assert refused.status_code == 409, refused.json()
    body = json.dumps(refused.json())
    assert f"bet {bet} of coup 1 at P1 differs from its ledger events (stake_cents)" in body
    assert store.head() == head
    assert not Event.objects.filter(type__in=("BetSettled", "BetResolved", "RoundSettled")).exists()
    assert _chips(patron) == 9_000  # the 1,000 staked is on the layout, nothing paid
    assert Round.objects.get(pk=round_id).state == Round.State.DEALING
    assert Bet.objects.get(pk=bet).state == Bet.State.PLACED

    # Set back, the row is what the ledger placed: the coup settles on 1,000, not 30,000.
    _sql_update_bet(bet, stake_cents=1_000)
    settled = api.post(f"/api/rounds/{round_id}/cards", {"card": PLAYER_WINS[4]}, format="json")
    assert settled.status_code == 200, settled.json()
    assert settled.json()["state"] == "settled"
    assert _chips(patron) == 11_000
    assert verify_chain().ok and replay_check() == []


def test_a_baccarat_bet_given_to_another_patron_with_raw_sql_is_not_paid(api, cage):
    patron, other = make_patron(10_000), make_patron(10_000)
    round_id, bet = _baccarat_coup(api, patron)
    _sql_update_bet(bet, patron_id=Patron.objects.get(code=other).pk)
    _report(api, round_id, PLAYER_WINS[:4])
    head = store.head()

    refused = _report(api, round_id, PLAYER_WINS[4:])

    assert refused.status_code == 409
    assert "differs from its ledger events (patron)" in json.dumps(refused.json())
    assert store.head() == head
    assert (_chips(patron), _chips(other)) == (9_000, 10_000)


# --- roulette: the result settles every bet of the coup from its rows ---------------------------


@pytest.fixture
def roulette_coup(cage):
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    placed = bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=RED, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    return coup, placed["bets"][0]["bet"], patron


def test_a_roulette_stake_raised_with_raw_sql_settles_nothing(roulette_coup):
    coup, bet, patron = roulette_coup
    _sql_update_bet(bet, stake_cents=30_000)
    head = store.head()

    with pytest.raises(StateConflict) as refused:
        round_record_result(round_id=coup, number=1, actor=ACTOR)  # 1 is red: the bet wins

    assert f"bet {bet} of coup 1 at R1 differs from its ledger events (stake_cents)" in refused.value.message
    assert refused.value.field == "bet"
    assert store.head() == head
    assert Round.objects.get(pk=coup).state == Round.State.CLOSED_FOR_BETS
    assert _chips(patron) == 99_000

    _sql_update_bet(bet, stake_cents=1_000)
    settled = round_record_result(round_id=coup, number=1, actor=ACTOR)
    assert (settled["staked_cents"], settled["returned_cents"]) == (1_000, 2_000)
    assert _chips(patron) == 101_000


def test_a_roulette_bet_set_aside_as_returned_with_raw_sql_settles_nothing(roulette_coup):
    """A losing bet marked ``returned`` would be left out of the settlement (its stake never
    taken by the tray): its state differs from its events."""
    coup, bet, _ = roulette_coup
    _sql_update_bet(bet, state="returned", return_cents=1_000)
    head = store.head()

    with pytest.raises(StateConflict) as refused:
        round_record_result(round_id=coup, number=2, actor=ACTOR)

    assert "differs from its ledger events (state, return_cents)" in refused.value.message
    assert store.head() == head


def test_a_void_gives_back_no_stake_raised_with_raw_sql(roulette_coup):
    coup, bet, patron = roulette_coup
    _sql_update_bet(bet, stake_cents=30_000)
    head = store.head()

    signer = staff_user("pit2", Role.PIT_BOSS).username  # betting is closed: a second pit boss signs
    with pytest.raises(StateConflict) as refused:
        round_void(round_id=coup, reason="the ball left the wheel", actor=ACTOR, approver=signer)

    assert "differs from its ledger events (stake_cents)" in refused.value.message
    assert store.head() == head
    assert _chips(patron) == 99_000


def test_untouched_bets_settle_as_before(roulette_coup):
    coup, _, patron = roulette_coup
    settled = round_record_result(round_id=coup, number=2, actor=ACTOR)  # 2 is black: the bet loses
    assert (settled["staked_cents"], settled["returned_cents"], settled["bets_settled"]) == (1_000, 0, 1)
    assert _chips(patron) == 99_000
    assert replay_check() == []


def test_a_placement_forged_at_the_tail_to_match_the_raised_row_is_left_out(roulette_coup):
    """The row raised and a ``BetPlaced`` of 30,000 INSERTed after it, hashed as the store
    hashes but without the application's seal: the settlement folds only sealed events."""
    coup, bet, patron = roulette_coup
    placed = Event.objects.get(type="BetPlaced").data
    forge("BetPlaced", {**placed, "stake_cents": 30_000}, f"round/{coup}")
    _sql_update_bet(bet, stake_cents=30_000)

    with pytest.raises(StateConflict, match=r"differs from its ledger events \(stake_cents\)"):
        round_record_result(round_id=coup, number=1, actor=ACTOR)

    assert _chips(patron) == 99_000

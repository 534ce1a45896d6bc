"""The application's database role can rewrite a shoe's row, order included: cards swapped in
the undealt part of the order (the same cards, another order), a salt or the count of cards out
changed. Before any card is drawn the row is checked against the commitment of its sealed
``ShoeShuffled`` and the cards the ledger recorded drawn: a stray shoe deals nothing (409) and
``ledger replay-check`` names it."""

import json

import pytest
from django.db import connection

from games.models import Shoe
from ledger.models import Event
from ledger.replay import replay_check
from tests.conftest import make_patron

from .test_baccarat_table import open_table

pytestmark = pytest.mark.django_db


def _shuffled_coup(api, patron):
    """A coup at P1 with bets closed, dealt from a shuffled shoe; returns the round id."""
    if not Shoe.objects.filter(table__code="P1", state="in_play").exists():
        assert api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    bet = {"patron": patron, "bet": "player", "stake_cents": 1_000}
    assert api.post(f"/api/rounds/{round_id}/baccarat-bets", bet, format="json").status_code == 201
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    return round_id


def _raw_update(shoe, column, value):
    """``UPDATE games_shoe SET column = value`` as the application's role could, past the services."""
    value = value if column == "salt" else json.dumps(value)
    key = shoe.id if connection.vendor == "postgresql" else shoe.id.hex  # SQLite keeps a UUID as hex
    with connection.cursor() as cursor:
        cursor.execute(f'UPDATE games_shoe SET "{column}" = %s WHERE id = %s', [value, key])


@pytest.fixture
def one_coup_dealt(api, cage):
    open_table(api)
    patron = make_patron(100_000)
    first = _shuffled_coup(api, patron)
    assert api.post(f"/api/rounds/{first}/deal", {}, format="json").status_code == 200
    return patron


def _natural_next(shoe):
    """The order with four undealt cards brought to the top, dealt player, banker, player,
    banker: 9H KS to the player (a natural 9), KD KC to the banker (0)."""
    order, out = list(shoe.order), len(shoe.drawn)
    rest = order[out:]
    wanted = ["9H", "KD", "KS", "KC"]  # player 9H KS = 9, banker KD KC = 0
    for card in wanted:
        rest.remove(card)
    return order[:out] + wanted + rest


def test_an_untouched_shoe_deals_and_replays_clean(api, one_coup_dealt):
    second = _shuffled_coup(api, one_coup_dealt)
    assert api.post(f"/api/rounds/{second}/deal", {}, format="json").status_code == 200
    assert replay_check() == []


def test_undealt_cards_reordered_deal_nothing_and_replay_check_names_the_shoe(api, one_coup_dealt):
    shoe = Shoe.objects.get(state="in_play")
    reordered = _natural_next(shoe)
    assert sorted(reordered) == sorted(shoe.order) and reordered != shoe.order
    _raw_update(shoe, "order", reordered)
    second = _shuffled_coup(api, one_coup_dealt)
    events = Event.objects.count()
    response = api.post(f"/api/rounds/{second}/deal", {}, format="json")
    assert response.status_code == 409
    assert "the shoe differs from its sealed shuffle" in str(response.json())
    assert Event.objects.count() == events  # nothing appended
    assert Shoe.objects.get(pk=shoe.pk).drawn == shoe.drawn
    faults = [(d.kind, d.id, d.field, d.live) for d in replay_check()]
    assert faults == [("shoe", str(shoe.id), "order", "its order and salt do not give the sealed commitment")]


@pytest.mark.parametrize(
    ("column", "change", "fault"),
    [
        ("salt", lambda shoe: "0" * 32, "its order and salt do not give the sealed commitment"),
        ("drawn", lambda shoe: shoe.order[: len(shoe.drawn) + 4], "cards are out of it, the ledger took"),
        ("drawn", lambda shoe: shoe.order[: len(shoe.drawn) - 4], "cards are out of it, the ledger took"),
    ],
    ids=["salt", "cards-skipped", "cards-put-back"],
)
def test_a_salt_or_count_of_cards_out_changed_deals_nothing(api, one_coup_dealt, column, change, fault):
    shoe = Shoe.objects.get(state="in_play")
    _raw_update(shoe, column, change(shoe))
    second = _shuffled_coup(api, one_coup_dealt)
    events = Event.objects.count()
    assert api.post(f"/api/rounds/{second}/deal", {}, format="json").status_code == 409
    assert Event.objects.count() == events
    assert any(d.field == "order" and fault in d.live for d in replay_check())

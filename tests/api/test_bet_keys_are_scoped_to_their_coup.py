"""A bet's own idempotency key belongs to its coup (``games.services.bet_keys``): the same
key at another table is another bet, never refused nor answered with the first; a retry on the
same coup places nothing twice. A key that is no text (a lone UTF-16 surrogate) is a 400
naming its field, never a 500."""

import json

import pytest

from games.models import Bet
from games.services.rounds import round_open
from games.services.tables import table_open
from ledger.models import IdempotencyRecord
from tests.conftest import ACTOR, make_patron, open_by_total

pytestmark = pytest.mark.django_db

ROUGE = {"type": "chance_simple", "chance": "rouge"}


@pytest.fixture
def two_coups(table) -> tuple[str, str]:
    """A coup in betting at R1 and one at R2."""
    table_open(code="R2", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    return round_open(table="R1", actor=ACTOR)["round"], round_open(table="R2", actor=ACTOR)["round"]


def place(api, coup: str, patron: str, key: str):
    body = {"patron": patron, "stake_cents": 1_000, "bet": ROUGE}
    return api.post(f"/api/rounds/{coup}/bets", body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_the_same_bet_key_at_two_tables_places_two_bets_and_a_retry_places_none(api, two_coups):
    r1, r2 = two_coups
    patron = make_patron(100_000)
    first = place(api, r1, patron, "bet-7")
    other_table = place(api, r2, patron, "bet-7")
    assert (first.status_code, other_table.status_code) == (201, 201), other_table.json()
    assert other_table.json()["round"] == r2 and other_table.json()["bets"] != first.json()["bets"]
    retry = place(api, r1, patron, "bet-7")
    assert retry.status_code == 201 and retry.json() == first.json()
    assert Bet.objects.filter(round_id=r1).count() == Bet.objects.filter(round_id=r2).count() == 1
    assert set(IdempotencyRecord.objects.filter(key__endswith=":bet-7").values_list("key", flat=True)) == {
        f"dealer1 bet:{r1}:bet-7",  # the placer's own key, scoped to its coup
        f"dealer1 bet:{r2}:bet-7",
    }


def test_a_bet_key_longer_than_a_coup_can_scope_is_a_400_naming_it(api, two_coups):
    response = place(api, two_coups[0], make_patron(100_000), "k" * 151)
    assert response.status_code == 400
    assert response.json()["field"] == "idempotency_key"


def test_a_baccarat_bet_key_at_two_tables_places_two_bets(api, cage):
    coups = []
    for code in ("P1", "P2"):
        open_by_total(code, "baccarat")
        assert api.post(f"/api/tables/{code}/shoes", {"mode": "shuffled"}, format="json").status_code == 201
        coups.append(api.post(f"/api/tables/{code}/rounds", {}, format="json").json()["round"])
    patron = make_patron(100_000)
    body = {"patron": patron, "bet": "banker", "stake_cents": 1_000}
    answers = [
        api.post(f"/api/rounds/{coup}/baccarat-bets", body, format="json", HTTP_IDEMPOTENCY_KEY="b-1") for coup in coups
    ]
    assert [a.status_code for a in answers] == [201, 201], answers[1].json()
    assert [Bet.objects.filter(round_id=coup).count() for coup in coups] == [1, 1]


def test_a_lone_surrogate_in_a_batch_bets_key_is_a_400_naming_the_field(api, two_coups):
    patron = make_patron(100_000)
    bet = {"patron": patron, "stake_cents": 1_000, "bet": ROUGE, "key": "KEY"}
    raw = json.dumps({"bets": [bet]}).replace('"KEY"', '"\\ud800"')  # JSON's escape, as a client sends it
    response = api.generic("POST", f"/api/rounds/{two_coups[0]}/bet-batches", raw, "application/json")
    assert response.status_code == 400, response.content
    body = json.loads(response.content)
    assert body["field"] == "bets[0].key" and "surrogate" in body["detail"]
    assert not Bet.objects.filter(round_id=two_coups[0]).exists()

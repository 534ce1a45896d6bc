"""Someone holding the application's database credentials raises a table's maximum in its row
(``games_table.rules``) with raw SQL: a 5,000 EUR bet at a table whose recorded maximum is
300 EUR. The rules a command plays by must be the ones the table's sealed events set (its
latest ``TableOpened`` or ``TableRulesChanged``, ``games.table_record``): the bet, a settlement
and a rules change are refused, 409 naming the rule, nothing appended; set back, the table
plays again, by its recorded maximum."""

import json

import pytest
from django.db import connection

from games.models import Bet, Table
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.table_rules import table_rules_change
from games.services.tables import table_open
from ledger import store
from ledger.errors import BetRefused, StateConflict
from ledger.models import Event
from tests.conftest import ACTOR, make_patron, open_by_total, staff_user

pytestmark = pytest.mark.django_db

RED = {"type": "chance_simple", "chance": "rouge"}
MAX = 30_000  # 300 EUR


def _raise_the_maximum_in_the_row(code: str, cents: int) -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "UPDATE games_table SET rules = jsonb_set(rules, '{max_bet_cents}', %s::jsonb) WHERE code = %s",
                [str(cents), code],
            )
        else:
            cursor.execute(
                "UPDATE games_table SET rules = json_set(rules, '$.max_bet_cents', %s) WHERE code = %s", [cents, code]
            )


@pytest.fixture
def roulette(cage):
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={"max_bet_cents": MAX})
    return round_open(table="R1", actor=ACTOR)["round"]


def test_a_maximum_raised_in_the_row_lets_no_5000_eur_bet_through(roulette):
    patron = make_patron(1_000_000)
    _raise_the_maximum_in_the_row("R1", 100_000_000)
    assert Table.objects.get(code="R1").rules["max_bet_cents"] == 100_000_000
    head = store.head()

    with pytest.raises(StateConflict) as refused:
        bet_place(round_id=roulette, patron=patron, stake_cents=500_000, bet=RED, actor=ACTOR)

    assert "table R1's rules differ from its ledger events (max_bet_cents)" in refused.value.message
    assert refused.value.field == "rules"
    assert store.head() == head
    assert not Bet.objects.exists()


def test_set_back_the_table_plays_by_its_recorded_maximum(roulette):
    patron = make_patron(1_000_000)
    _raise_the_maximum_in_the_row("R1", 100_000_000)
    _raise_the_maximum_in_the_row("R1", MAX)

    with pytest.raises(BetRefused):
        bet_place(round_id=roulette, patron=patron, stake_cents=500_000, bet=RED, actor=ACTOR)
    placed = bet_place(round_id=roulette, patron=patron, stake_cents=MAX, bet=RED, actor=ACTOR)
    assert placed["total_cents"] == MAX


def test_a_maximum_raised_in_the_row_settles_nothing_and_is_sealed_into_no_rules_change(roulette):
    patron = make_patron(1_000_000)
    bet_place(round_id=roulette, patron=patron, stake_cents=1_000, bet=RED, actor=ACTOR)
    round_close_bets(round_id=roulette, actor=ACTOR)
    _raise_the_maximum_in_the_row("R1", 100_000_000)
    head = store.head()

    with pytest.raises(StateConflict, match="differ from its ledger events"):
        round_record_result(round_id=roulette, number=1, actor=ACTOR)
    with pytest.raises(StateConflict, match=r"differ from its ledger events \(max_bet_cents\)"):
        table_rules_change(code="R1", rules={"min_bet_cents": 500}, actor=staff_user("pit1", "pit_boss").username)

    assert store.head() == head
    assert not Event.objects.filter(type__in=("ResultRecorded", "TableRulesChanged")).exists()


def test_a_baccarat_maximum_raised_in_the_row_is_refused_over_http(api, cage):
    open_by_total("P1", "baccarat", rules={"max_bet_cents": MAX})
    assert api.post("/api/tables/P1/shoes", {"mode": "reader"}, format="json").status_code == 201
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    patron = make_patron(1_000_000)
    _raise_the_maximum_in_the_row("P1", 100_000_000)
    head = store.head()

    response = api.post(
        f"/api/rounds/{round_id}/baccarat-bets",
        {"patron": patron, "bet": "player", "stake_cents": 500_000},
        format="json",
    )

    assert response.status_code == 409, response.json()
    assert "table P1's rules differ from its ledger events (max_bet_cents)" in json.dumps(response.json())
    assert store.head() == head

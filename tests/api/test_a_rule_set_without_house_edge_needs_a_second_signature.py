"""A table rule set whose exact house edge is ≤ 0 on some bet is a decision for two logins:
baccarat paying the banker 1:1 (``banker_commission_pct`` 0: banker edge −1.2351 %, the player
has the advantage) waits (202) for another pit boss or a cage supervisor, when the table opens
and when its rules change; the maker never signs it himself, and the service refuses it (403)
without the signature. Cents; edges exact (``games.rules.house_edges``)."""

from fractions import Fraction

import pytest

from games.models import Table
from games.rules import baccarat
from games.services.table_rules import table_rules_change
from games.services.tables import table_open
from ledger.models import Event
from staff.roles import Role, RoleRequired
from tests.conftest import OPENER, staff_clients

pytestmark = pytest.mark.django_db

NO_COMMISSION = {"banker_commission_pct": 0}


@pytest.fixture
def clients(cage):
    return staff_clients(
        {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "super1": Role.CAGE_SUPERVISOR, "dealer1": Role.DEALER}
    )


def confirm(client, response):
    return client.post(f"/api/approvals/{response.json()['approval']['id']}/confirm", {}, format="json")


def test_the_no_commission_banker_gives_the_player_the_advantage():
    edge = baccarat.house_edge("banker", baccarat.BaccaratRules.from_dict(NO_COMMISSION))
    assert edge < 0 and round(float(edge) * 100, 4) == -1.2351
    assert edge == -baccarat.house_edge("player", baccarat.BaccaratRules.from_dict({}))
    assert isinstance(edge, Fraction)


def counted(rules: dict) -> dict:
    """A counted opener of 50,000.00 EUR, asked by ``pit1`` and confirmed by ``dealer1``."""
    return {"game": "baccarat", "opener": OPENER, "dealer": "dealer1", "pit_boss": "pit1", "rules": rules}


def test_opening_with_a_banker_paid_1_to_1_waits_for_a_second_login(clients):
    asked = clients["pit1"].post("/api/tables/P9/opener", counted(NO_COMMISSION), format="json")
    assert asked.status_code == 202, asked.json()
    assert [w["slot"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer", "edge_approver"]
    assert confirm(clients["dealer1"], asked).status_code == 202  # the count confirmed: the rules still wait
    assert not Event.objects.filter(type="TableOpened").exists()
    assert confirm(clients["pit1"], asked).status_code == 403  # never the maker
    opened = confirm(clients["pit2"], asked)
    assert opened.status_code == 201, opened.json()
    data = Event.objects.get(type="TableOpened", data__table="P9").data
    assert data["edge_approved_by"] == "pit2" and data["without_edge"] == {"banker": "-1.2351 %"}


def test_a_rule_set_with_an_edge_opens_at_once(clients):
    asked = clients["pit1"].post("/api/tables/P9/opener", counted({}), format="json")
    assert [w["slot"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer"]  # the count alone
    assert confirm(clients["dealer1"], asked).status_code == 201
    assert "edge_approved_by" not in Event.objects.get(type="TableOpened").data


def test_changing_the_rules_to_no_commission_waits_for_a_second_login(clients):
    table_open(code="P9", game="baccarat", opener_cents=5_000_000, actor="pit1", rules={})
    asked = clients["pit1"].post("/api/tables/P9/rules", {"rules": NO_COMMISSION}, format="json")
    assert asked.status_code == 202, asked.json()
    assert Table.objects.get(code="P9").rules["banker_commission_pct"] == 5
    changed = confirm(clients["super1"], asked)
    assert changed.status_code == 200, changed.json()
    assert Table.objects.get(code="P9").rules["banker_commission_pct"] == 0
    assert Event.objects.get(type="TableRulesChanged").data["edge_approved_by"] == "super1"
    # a limit changed on that table, the pit boss's page included, asks nobody again: the bets
    # without an edge are those two logins chose, none is added
    limit = clients["pit1"].post("/api/tables/P9/rules", {"rules": {"min_bet_cents": 1_000}}, format="json")
    assert limit.status_code == 200, limit.json()
    assert "edge_approved_by" not in Event.objects.filter(type="TableRulesChanged").last().data
    assert table_rules_change(code="P9", rules={"min_bet_cents": 2_000}, actor="pit1")["changed"] == ["min_bet_cents"]


def test_the_services_refuse_a_rule_set_without_edge_unsigned(clients):
    with pytest.raises(RoleRequired, match="no edge"):
        table_open(code="P9", game="baccarat", opener_cents=5_000_000, actor="pit1", rules=NO_COMMISSION)
    table_open(code="P9", game="baccarat", opener_cents=5_000_000, actor="pit1", rules={})
    with pytest.raises(RoleRequired, match="no edge"):
        table_rules_change(code="P9", rules=NO_COMMISSION, actor="pit1")

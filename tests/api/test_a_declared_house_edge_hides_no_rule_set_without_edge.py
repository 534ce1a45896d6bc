"""The second login for a rule set without a house edge reads the rules' own edge, not a figure
typed beside them: black jack's ``house_edge`` option (the theoretical edge the ratings use) set
to 1 % does not let one pit boss open, or change to, a table paying a black jack 2:1 (the
player's advantage, about 1.6 %). And a bet two logins already let go without an edge asks
again when a later change makes it worse for the house."""

import pytest

from games.services.table_rules import table_rules_change
from games.services.tables import rules_without_edge, table_open
from staff.roles import Role, RoleRequired
from tests.conftest import OPENER, staff_clients

pytestmark = pytest.mark.django_db

TWO_TO_ONE = {"blackjack_pays": "2:1"}
DECLARED = {"house_edge": "1/100"}


@pytest.fixture
def clients(cage):
    return staff_clients({"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "dealer1": Role.DEALER})


def test_black_jack_paying_2_to_1_has_no_edge_whatever_edge_is_declared():
    assert [bet for bet, _ in rules_without_edge("blackjack", TWO_TO_ONE | DECLARED)] == ["blackjack"]


def test_a_declared_edge_does_not_open_a_no_edge_table_alone(clients):
    with pytest.raises(RoleRequired, match="no edge"):
        table_open(code="B9", game="blackjack", opener_cents=5_000_000, actor="pit1", rules=TWO_TO_ONE | DECLARED)
    body = {
        "game": "blackjack",
        "opener": OPENER,
        "dealer": "dealer1",
        "pit_boss": "pit1",
        "rules": TWO_TO_ONE | DECLARED,
    }
    asked = clients["pit1"].post("/api/tables/B9/opener", body, format="json")
    assert asked.status_code == 202, asked.json()
    assert [w["slot"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer", "edge_approver"]


def test_a_declared_edge_set_first_does_not_let_a_no_edge_change_through(clients):
    table_open(code="B9", game="blackjack", opener_cents=5_000_000, actor="pit1", rules={})
    table_rules_change(code="B9", rules=DECLARED, actor="pit1")  # an edge still: nobody asked
    with pytest.raises(RoleRequired, match="no edge"):
        table_rules_change(code="B9", rules=TWO_TO_ONE, actor="pit1")
    assert clients["pit1"].post("/api/tables/B9/rules", {"rules": TWO_TO_ONE}, format="json").status_code == 202


def test_a_bet_let_go_without_edge_asks_again_when_made_worse(clients):
    table_open(
        code="B9", game="blackjack", opener_cents=5_000_000, actor="pit1", rules=TWO_TO_ONE, edge_approver="pit2"
    )
    with pytest.raises(RoleRequired, match="no edge"):
        table_rules_change(code="B9", rules={"blackjack_pays": "3:1"}, actor="pit1")
    # a limit, or a change that gives the house back some of it, asks nobody
    assert table_rules_change(code="B9", rules={"min_bet_cents": 2_000}, actor="pit1")["changed"] == ["min_bet_cents"]

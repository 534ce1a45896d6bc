"""GET /api/approvals/ for a dealer: the approvals of the table he is assigned to, never another
table's, even one naming him while he deals at an open table; its detail is a 404 to him. A
dealer at no table reads the opener naming him (the opening assigns him). A pit boss reads them
all."""

import pytest

from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from staff.roles import Role
from staff.services import dealer_assign
from tests.conftest import OPENER, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "dealer1": Role.DEALER, "dealer2": Role.DEALER}


@pytest.fixture
def approvals(cage) -> dict:
    """Three pending approvals: a coup of T1 to reverse (pit2 to sign), T2's counted opener
    (dealer2 to sign), T3's counted opener (dealer1 to sign); dealer1 deals at T1."""
    clients = staff_clients(STAFF)
    table_open(code="T1", game="english_roulette", opener_cents=5_000_000, actor="pit1", rules={})
    dealer_assign(dealer="dealer1", table="T1", actor="pit1")
    coup = round_open(table="T1", actor="pit1")["round"]
    round_close_bets(round_id=coup, actor="pit1")
    round_record_result(round_id=coup, number=7, actor="pit1")
    pit1 = clients["pit1"]
    asked = {
        "T1": pit1.post(f"/api/rounds/{coup}/reversal", {"reason": "misread", "approver": "pit2"}, format="json"),
        **{
            code: pit1.post(
                f"/api/tables/{code}/opener",
                {"game": "english_roulette", "opener": OPENER, "dealer": dealer, "pit_boss": "pit1", "rules": {}},
                format="json",
            )
            for code, dealer in (("T2", "dealer2"), ("T3", "dealer1"))
        },
    }
    assert {code: r.status_code for code, r in asked.items()} == {"T1": 202, "T2": 202, "T3": 202}
    return {"clients": clients, "ids": {code: r.json()["approval"]["id"] for code, r in asked.items()}}


def listed(client) -> set[str]:
    response = client.get("/api/approvals/")
    assert response.status_code == 200
    return {a["id"] for a in response.json()["results"]}


def test_a_dealer_lists_his_tables_approvals_only_and_a_free_dealer_the_opener_naming_him(approvals):
    ids, clients = approvals["ids"], approvals["clients"]
    assert listed(clients["dealer1"]) == {ids["T1"]}  # T3's opener names him, but he deals at T1
    assert listed(clients["dealer2"]) == {ids["T2"]}  # not assigned anywhere: named in T2's only
    assert listed(clients["pit2"]) == set(ids.values())


def test_another_tables_approval_is_a_404_to_a_dealer(approvals):
    ids, clients = approvals["ids"], approvals["clients"]
    assert clients["dealer1"].get(f"/api/approvals/{ids['T2']}").status_code == 404
    assert clients["dealer1"].get(f"/api/approvals/{ids['T1']}").status_code == 200
    assert clients["pit1"].get(f"/api/approvals/{ids['T2']}").status_code == 200

"""GET /api/approvals/ for a runner (or a drop or count team's member) holding no other role: the
approvals he takes part in or that wait for his role (a slip to carry), never the rest of the
floor's and the cage's (a coup's reversal, a cage reversal); their detail is a 404 to him. A pit
boss still reads them all."""

import pytest

from approvals.services import approval_request
from cashier.services.slips import slip_request
from games.services.rounds import round_close_bets, round_open, round_record_result
from staff.roles import Role
from tests.conftest import SHIFT_CASHIER, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "run1": Role.RUNNER, "run2": Role.RUNNER}


@pytest.fixture
def pending(table) -> dict:
    """A fill of R1 waiting for run1 to carry it, and a coup of R1 to reverse (pit2 to sign)."""
    clients = staff_clients(STAFF)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 5}, actor="pit1")["serial"]
    carry = approval_request(
        kind="slip_issue", payload={"kind": "fill", "serial": serial, "runner": "run1"}, actor=SHIFT_CASHIER
    )
    coup = round_open(table="R1", actor="pit1")["round"]
    round_close_bets(round_id=coup, actor="pit1")
    round_record_result(round_id=coup, number=7, actor="pit1")
    reverse = clients["pit1"].post(
        f"/api/rounds/{coup}/reversal", {"reason": "misread", "approver": "pit2"}, format="json"
    )
    assert reverse.status_code == 202, reverse.json()
    return {"clients": clients, "carry": carry["approval"]["id"], "reverse": reverse.json()["approval"]["id"]}


def listed(client) -> set[str]:
    response = client.get("/api/approvals/")
    assert response.status_code == 200
    return {a["id"] for a in response.json()["results"]}


def test_a_runner_lists_the_slip_he_is_to_carry_and_not_the_coups_reversal(pending):
    clients = pending["clients"]
    assert listed(clients["run1"]) == {pending["carry"]}
    assert listed(clients["pit2"]) == {pending["carry"], pending["reverse"]}


def test_a_slip_named_for_another_runner_is_not_listed_and_a_reversal_is_a_404_to_a_runner(pending):
    clients = pending["clients"]
    assert listed(clients["run2"]) == set()
    assert clients["run1"].get(f"/api/approvals/{pending['reverse']}").status_code == 404
    assert clients["run1"].get(f"/api/approvals/{pending['carry']}").status_code == 200

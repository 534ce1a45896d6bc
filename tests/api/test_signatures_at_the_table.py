"""The signatures a dealer gives at his table, through the API: a request is addressed to the
table's assigned dealer (one naming another dealer is 400 on ``dealer`` at once, saying whom the
table's dealer is), a fill is accepted with the dealer's own count (the slip's piece for piece,
400 on ``count`` otherwise, nothing written), and a void needs the word VOID typed and withdraws
what still waited on its slip."""

import pytest

from approvals.models import Approval
from approvals.replay import check_approvals
from approvals.services import approval_request
from cashier.services.slips import slip_issue, slip_request
from cashier.slip_models import Slip
from ledger import store
from ledger.models import Event
from staff.models import DealerAssignment
from staff.roles import Role
from staff.services import dealer_release
from tests.conftest import CAGE_STAFF, OPENER, approve, hand_cage_to, open_counted_table, staff_clients

pytestmark = pytest.mark.django_db

STAFF = CAGE_STAFF | {"dealer2": Role.DEALER}


@pytest.fixture
def clients(cage):
    clients = staff_clients(STAFF)
    hand_cage_to("cash1")  # the issuing cashier's own window
    assert open_counted_table(clients).status_code == 201  # T1, dealt by dealer1 (his opening assigned him)
    return clients


def refused(response, status: int, field: str, before) -> dict:
    assert response.status_code == status, response.content
    assert response.json()["field"] == field and store.head() == before
    return response.json()


def carried_fill() -> str:
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 5, "2500": 4}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    return serial


def test_a_closer_naming_no_dealer_is_addressed_to_the_tables_assigned_dealer(clients):
    asked = clients["pit1"].post("/api/tables/T1/closer", {"closer": OPENER, "pit_boss": "pit2"}, format="json")
    assert asked.status_code == 202, asked.json()
    assert [w["user"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer1", "pit2"]
    assert Approval.objects.get(kind="table_close_counted").payload["dealer"] == "dealer1"


def test_a_closer_naming_a_dealer_not_assigned_to_the_table_is_400_on_dealer_naming_its_dealer(clients):
    before = store.head()
    body = {"closer": OPENER, "dealer": "dealer2", "pit_boss": "pit2"}
    error = refused(clients["pit1"].post("/api/tables/T1/closer", body, format="json"), 400, "dealer", before)
    assert "dealer2 is not the dealer of table T1: its dealer is dealer1" in error["detail"]
    assert not Approval.objects.exclude(kind__in=("table_open_counted", "cage_shift_close")).exists()


def test_a_closer_at_a_table_nobody_deals_naming_a_dealer_who_deals_no_table_is_400(clients):
    dealer_release(dealer="dealer1", actor="pit1")  # he would never see the request: a dealer signs at his table
    before = store.head()
    body = {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit2"}
    error = refused(clients["pit1"].post("/api/tables/T1/closer", body, format="json"), 400, "dealer", before)
    assert "no dealer is assigned to table T1, and dealer1 signs only at the table he deals" in error["detail"]


def test_a_fill_is_accepted_with_the_dealers_own_count_given_with_his_signature(clients):
    serial = carried_fill()
    asked = approval_asked(serial)
    before = store.head()
    wrong = clients["dealer1"].post(f"/api/approvals/{asked}/confirm", {"count": {"10000": 6}}, format="json")
    assert "is not the slip's" in refused(wrong, 400, "count", before)["detail"]
    missing = clients["dealer1"].post(f"/api/approvals/{asked}/confirm", {}, format="json")
    refused(missing, 400, "count", before)
    assert Approval.objects.get(id=asked).state == "pending" and Slip.objects.get().state == "issued"
    done = clients["dealer1"].post(f"/api/approvals/{asked}/confirm", {"count": {"10000": 5, "2500": 4}}, format="json")
    assert done.status_code == 200 and done.json()["state"] == "delivered", done.json()
    delivered = Event.objects.get(type="FillDelivered")
    assert (delivered.data["accepted_by"], delivered.data["counted"]) == ("dealer1", {"10000": 5, "2500": 4})
    assert Event.objects.get(type="ApprovalConfirmed", data__kind="slip_accept").data["count"] == {
        "10000": 5,
        "2500": 4,
    }


def approval_asked(serial: str) -> str:
    asked = approval_request(kind="slip_accept", payload={"kind": "fill", "serial": serial}, actor="pit1")
    assert asked["approval"]["waiting_for"][0]["user"] == "dealer1"
    return asked["approval"]["id"]


def test_a_count_given_with_a_signature_that_counts_nothing_is_400(clients):
    closing = clients["pit1"].post("/api/tables/T1/closer", {"closer": OPENER, "pit_boss": "pit2"}, format="json")
    approval = closing.json()["approval"]["id"]
    before = store.head()
    response = clients["pit2"].post(f"/api/approvals/{approval}/confirm", {"count": {"10000": 1}}, format="json")
    refused(response, 400, "count", before)


def test_a_fill_accepted_at_the_table_without_a_count_is_400_on_count(clients):
    serial = carried_fill()
    before = store.head()
    refused(clients["pit2"].post(f"/api/cage/slips/fill/{serial}/accept", {}, format="json"), 400, "count", before)
    short = clients["pit2"].post(f"/api/cage/slips/fill/{serial}/accept", {"count": {"10000": 5}}, format="json")
    refused(short, 400, "count", before)


def test_a_void_without_the_word_void_typed_is_400_on_confirmation(clients):
    serial = carried_fill()
    before = store.head()
    for typed in ({}, {"confirmation": ""}, {"confirmation": "void"}, {"confirmation": "OK"}):
        body = {"reason": "typo", "approver": "super1"} | typed
        refused(
            clients["pit1"].post(f"/api/cage/slips/fill/{serial}/void", body, format="json"),
            400,
            "confirmation",
            before,
        )
    assert not Approval.objects.exclude(kind__in=("table_open_counted", "cage_shift_close")).exists()


def test_voiding_a_slip_withdraws_the_approvals_still_waiting_on_it_and_they_replay(clients):
    serial = carried_fill()
    accepting = approval_asked(serial)
    body = {"confirmation": "VOID", "reason": "wrong table", "approver": "super1"}
    voided = approve(
        clients["pit1"].post(f"/api/cage/slips/fill/{serial}/void", body, format="json"), clients["super1"]
    )
    assert voided.status_code == 200 and voided.json()["state"] == "voided"
    listed = clients["pit1"].get("/api/approvals/?state=withdrawn").json()["results"]
    assert [(a["id"], a["decided_by"], a["reason"]) for a in listed] == [
        (accepting, "super1", f"fill {serial} was voided")
    ]
    assert clients["dealer1"].get("/api/approvals/?state=pending").json()["results"] == []
    late = clients["dealer1"].post(f"/api/approvals/{accepting}/confirm", {"count": {"10000": 5}}, format="json")
    assert late.status_code == 409 and "withdrawn" in late.json()["detail"]
    assert check_approvals() == []


def test_an_opener_naming_no_dealer_goes_to_the_tables_dealer_and_naming_another_assigns_him(clients):
    closing = clients["pit1"].post("/api/tables/T1/closer", {"closer": OPENER, "pit_boss": "pit2"}, format="json")
    assert approve(closing, clients["pit2"], clients["dealer1"]).status_code == 200
    body = {"game": "english_roulette", "opener": OPENER, "pit_boss": "pit1", "rules": {}}
    asked = clients["pit1"].post("/api/tables/T1/opener", body, format="json")
    assert [w["user"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer1"]
    clients["pit1"].post(f"/api/approvals/{asked.json()['approval']['id']}/reject", {}, format="json")
    other = clients["pit1"].post("/api/tables/T1/opener", body | {"dealer": "dealer2"}, format="json")
    assert [w["user"] for w in other.json()["approval"]["waiting_for"]] == ["dealer2"]
    assert approve(other, clients["dealer2"]).status_code == 201
    assert DealerAssignment.objects.get(dealer__username="dealer2", ended_at__isnull=True).table_code == "T1"

"""A dealer confirms an opener, a closer or a fill only at the table he is assigned to: another
table's request, even one naming him, is a 403 to his signature and absent from his list."""

import pytest

from approvals.models import Approval
from games.models import Table
from staff.services import dealer_table
from tests.conftest import CAGE_STAFF, OPENER, open_counted_table, staff_clients

pytestmark = pytest.mark.django_db


@pytest.fixture
def clients(cage) -> dict:
    return staff_clients(CAGE_STAFF | {"dealer2": "dealer"})


def test_the_dealer_who_confirms_an_opener_is_assigned_to_the_table(clients):
    assert open_counted_table(clients, "T1").status_code == 201
    from django.contrib.auth import get_user_model

    assert dealer_table(get_user_model().objects.get(username="dealer1")) == "T1"


def test_a_dealer_dealing_at_an_open_table_may_not_confirm_another_tables_opener(clients):
    open_counted_table(clients, "T1")
    body = {"game": "english_roulette", "opener": OPENER, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    asked = clients["pit1"].post("/api/tables/T2/opener", body, format="json")
    assert asked.status_code == 202
    approval = asked.json()["approval"]["id"]
    assert approval not in {a["id"] for a in clients["dealer1"].get("/api/approvals/").json()["results"]}
    refused = clients["dealer1"].post(f"/api/approvals/{approval}/confirm")
    assert refused.status_code == 403
    assert "a dealer signs only at the table he is assigned to" in refused.json()["detail"]
    assert not Table.objects.filter(code="T2", state="open").exists()


def test_a_closer_is_confirmed_only_by_a_dealer_of_that_table(clients):
    open_counted_table(clients, "T1")
    body = {"closer": OPENER, "dealer": "dealer2", "pit_boss": "pit1"}
    # Naming another table's dealer is refused at once: he would never see the request.
    refused = clients["pit1"].post("/api/tables/T1/closer", body, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "dealer"
    assert "its dealer is dealer1" in refused.json()["detail"]
    asked = clients["pit1"].post("/api/tables/T1/closer", body | {"dealer": "dealer1"}, format="json")
    assert asked.status_code == 202
    approval = asked.json()["approval"]["id"]
    assert clients["dealer2"].post(f"/api/approvals/{approval}/confirm").status_code == 403
    assert Approval.objects.get(id=approval).state == "pending"
    assert Table.objects.get(code="T1").state == "open"


def test_the_api_closes_a_table_only_with_its_closer_counted_and_confirmed(clients):
    """No path closes a table at its book value: the uncounted close is not an endpoint (a
    pit boss alone closed a table with its closer taken as the book, the count fields ignored)."""
    open_counted_table(clients, "T1")
    body = {"closer": {"50000": 1}, "dealer": "dealer1", "pit_boss": "pit2"}
    assert clients["pit1"].post("/api/tables/T1/close", body, format="json").status_code == 404
    assert Table.objects.get(code="T1").state == "open"
    asked = clients["pit1"].post("/api/tables/T1/closer", body, format="json")
    assert asked.status_code == 202
    assert [w["user"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer1", "pit2"]
    assert Table.objects.get(code="T1").state == "open"

"""Segregation of duties in the count room: the two who removed a drop box (its sealed
``DropBoxRemoved``) are never its counters, whether the count is entered through the service
or asked through the approvals API (refused at once: no approval waits for a count that could
never run); two other counters count it; and one drop-count approval at a time waits per box."""

import pytest
from django.db import connection

from approvals.models import Approval
from cashier.services.count_room import drop_count
from ledger import store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import RoleRequired
from tests.conftest import approve, remove_drop_box, staff_clients

pytestmark = pytest.mark.django_db

# count1 and count2 remove the box (the count team may: ``count_room.REMOVERS``); count3 and
# count4 are the others of the count team.
STAFF = {
    "pit1": "pit_boss",
    "dealer1": "dealer",
    "count1": "count_team",
    "count2": "count_team",
    "count3": "count_team",
    "count4": "count_team",
}
CASH = {"20000": 1, "10000": 1}  # 300.00 EUR: the buy-in


@pytest.fixture
def removed(cage, patron):
    """T1 open with a 300.00 EUR cash buy-in, its box removed by count1 and count2."""
    clients = staff_clients(STAFF)
    body = {"game": "english_roulette", "opener": {"100000": 50}, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    opened = approve(clients["pit1"].post("/api/tables/T1/opener", body, format="json"), clients["dealer1"])
    assert opened.status_code == 201, opened.content
    buy_in = clients["pit1"].post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 30_000}, format="json")
    assert buy_in.status_code == 201, buy_in.content
    clients["day"] = current_gaming_day().isoformat()
    assert remove_drop_box(clients, "T1", clients["day"], removers=("count1", "count2")).status_code == 201
    return clients


def _ask(removed, who: str, counters: list[str]):
    body = {"gaming_day": removed["day"], "cash": CASH, "counters": counters}
    return removed[who].post("/api/tables/T1/drop-count", body, format="json")


@pytest.mark.parametrize("counters", [["count1", "count3"], ["count3", "count2"], ["count1", "count2"]])
def test_the_service_refuses_a_remover_as_counter_and_writes_nothing(removed, counters):
    before = store.head()
    actor = counters[0]
    with pytest.raises(RoleRequired, match="removed the drop box of T1"):
        drop_count(table="T1", gaming_day=removed["day"], cash=CASH, counters=counters, actor=actor)
    assert store.head() == before
    assert not Event.objects.filter(type="DropCounted").exists()


@pytest.mark.parametrize(("who", "counters"), [("count3", ["count3", "count1"]), ("count1", ["count1", "count3"])])
def test_the_approvals_api_refuses_a_remover_as_counter_at_request_time(removed, who, counters):
    before = store.head()
    asked = _ask(removed, who, counters)
    assert asked.status_code == 403, asked.content
    assert "count1 removed the drop box of T1" in asked.json()["detail"]
    assert store.head() == before  # nothing written: no approval waits for it
    assert not Approval.objects.filter(kind="drop_count").exists()


def test_two_counters_other_than_its_removers_count_the_box(removed):
    asked = _ask(removed, "count3", ["count3", "count4"])
    assert asked.status_code == 202, asked.content
    counted = approve(asked, removed["count4"])
    assert counted.status_code == 201, counted.content
    assert counted.json()["counted_cents"] == counted.json()["expected_cents"] == 30_000
    event = Event.objects.get(type="DropCounted")
    assert (event.actor, event.data["counters"]) == ("count3", ["count3", "count4"])


def test_a_second_drop_count_approval_for_the_same_box_is_refused_while_the_first_waits(removed):
    first = _ask(removed, "count3", ["count3", "count4"])
    assert first.status_code == 202, first.content
    before = store.head()
    for who, counters in (("count4", ["count4", "count3"]), ("count3", ["count3", "count4"])):
        second = _ask(removed, who, counters)
        assert second.status_code == 409, second.content
        assert second.json()["field"] == "gaming_day"
        assert "counting a drop box was already asked by count3 and waits for count4" in second.json()["detail"]
    assert store.head() == before
    assert Approval.objects.filter(kind="drop_count", state="pending").count() == 1
    # The first still waits and runs when its second counter confirms.
    counted = approve(first, removed["count4"])
    assert counted.status_code == 201, counted.content
    assert Event.objects.filter(type="DropCounted").count() == 1


def test_the_removers_are_read_from_the_sealed_removal_event_not_its_row(removed, _replication_role_reset):
    """A removal row rewritten with raw SQL (its removers no longer count1) no longer says who
    removed the box: the count is refused (409) rather than trusting the row. The count's own
    command finds the row's seal broken first, and leaves the removal out: the box reads as not
    removed."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the tampering switches the triggers off as a superuser")
    removal = Event.objects.get(type="DropBoxRemoved")
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute(
            f"UPDATE {Event._meta.db_table} SET data = jsonb_set(data::jsonb, '{{removers}}', "
            """'["pit1", "count2"]')::jsonb WHERE position = %s""",
            [removal.position],
        )
        cursor.execute("RESET session_replication_role")
    before = store.head()
    refused = _ask(removed, "count1", ["count1", "count3"])
    assert refused.status_code == 409, refused.content
    assert refused.json()["field"] == "table"
    assert refused.json()["detail"].endswith("has not been removed")
    assert store.head() == before

"""Every signed-in request reads the latest identity event (staff.standing.HEAD_SQL, inside the
login backend's statement): it must cost a few index lookups, not a walk of the ledger written
since that event, which grows with every bet."""

import json

import pytest
from django.db import connection, transaction

from ledger.models import Event
from ledger.store import Leg, NewEvent, append
from staff.identity import EVENT_TYPES
from staff.services import staff_account_create
from staff.standing import HEAD_SQL, identity_head


def _plan_nodes(node: dict):
    yield node
    for child in node.get("Plans", ()):
        yield from _plan_nodes(child)


@pytest.mark.django_db
@pytest.mark.postgres
def test_the_latest_identity_event_is_found_in_the_index_however_many_events_came_after_it():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plan")
    staff_account_create(username="floor_dealer", roles=["dealer"], actor="test")
    latest = Event.chain.filter(type__in=EVENT_TYPES).order_by("-position").values_list("hash", flat=True)[0]
    with transaction.atomic():
        append(
            stream="bets/after",
            expected_version=0,
            actor="test",
            # many kinds, as a real ledger has: the planner then guesses identity events common
            # enough to be met soon walking back from the head
            events=[
                NewEvent(f"Kind{i % 300}", {"i": i}, [Leg("acct:a", 100), Leg("acct:b", -100)]) for i in range(20_000)
            ],
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE ledger_event")
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {HEAD_SQL}")
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    nodes = list(_plan_nodes(plan[0]["Plan"]))
    rows_read = sum(
        n.get("Actual Rows", 0) + n.get("Rows Removed by Filter", 0) for n in nodes if "Scan" in n["Node Type"]
    )
    assert rows_read <= len(EVENT_TYPES) + 1  # one index entry a type, and the event itself
    assert identity_head() == latest

"""With a replica alias configured (here a second connection to the test database, which
stands in for a standby), the read-only pages' and lists' queries run on the replica's
connection and nothing else does: not a write, not a service's transaction, not a request
outside the read-only views."""

from __future__ import annotations

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from ledger import replica
from ledger.models import Event
from tests.conftest import client_as, make_patron, staff_user


@pytest.fixture
def replica_alias(committed_db, settings, monkeypatch):
    """``connections["replica"]``: a connection of its own to the test database (made by hand,
    not through the settings, which the test framework fixed before the test began)."""
    settings.DATABASE_REPLICA_LAG_CHECK_SECONDS = 0.0
    primary = connections["default"]
    second = type(primary)({**primary.settings_dict}, alias="replica")
    connections._connections.replica = second
    monkeypatch.setattr(replica, "configured", lambda: True)
    replica.forget_lag()
    yield second
    second.close()
    delattr(connections._connections, "replica")
    replica.forget_lag()


def test_the_replicas_lag_is_measured_on_its_own_connection(replica_alias):
    make_patron()
    lag = replica.measure()
    assert lag.replica_head == lag.primary_head >= 1
    assert (lag.seconds, lag.positions_behind, lag.in_recovery) == (0.0, 0, False)


def test_a_block_of_reads_runs_on_the_replica_and_its_writes_on_the_primary(replica_alias):
    with (
        CaptureQueriesContext(replica_alias) as on_replica,
        CaptureQueriesContext(connections["default"]) as on_primary,
    ):
        with replica.reads_from_replica() as alias:
            assert alias == "replica"
            on_primary_before = len(on_primary)
            count = Event.objects.count()
            assert len(on_primary) == on_primary_before  # the count was not read on the primary
            make_patron()  # a service: its transaction and every read in it on the primary
    assert any("COUNT(*)" in query["sql"] for query in on_replica.captured_queries)
    assert not any("INSERT" in query["sql"] for query in on_replica.captured_queries)
    assert any("INSERT" in query["sql"] for query in on_primary.captured_queries)
    assert Event.objects.count() > count


def test_the_audit_event_list_reads_the_replica_and_a_write_request_does_not(replica_alias):
    auditor = client_as(staff_user("auditor-r", "auditor"))
    cashier = client_as(staff_user("cashier-r", "cashier"))
    with CaptureQueriesContext(replica_alias) as on_replica:
        assert auditor.get("/api/events/").status_code == 200
    assert any("ledger_event" in query["sql"] for query in on_replica.captured_queries)
    with CaptureQueriesContext(replica_alias) as on_replica:
        response = cashier.post(
            "/api/patrons/register", {"kind": "identified", "name": "Someone", "document": "REP-1"}, format="json"
        )
        assert response.status_code == 201, response.content
    assert on_replica.captured_queries == []


def test_the_metrics_show_the_replicas_lag(replica_alias):
    from django.test import Client

    text = Client().get("/metrics").content.decode()
    assert "casino_replica_up 1.0" in text
    assert "casino_replica_lag_seconds 0.0" in text
    assert "casino_replica_positions_behind 0.0" in text

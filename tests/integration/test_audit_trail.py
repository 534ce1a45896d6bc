"""The audit projection (one line an event, its patron, table and round in columns) and the
audit trail API: odd event data gives the same rows by catch-up and by rebuild in any batches, a
key too long or a position that is no object never stops the projection; the trail's roles,
scopes, pagination and odd keys; the lines truncated, deleted or reset are written again from
the ledger, by two workers at once too."""

import itertools
import threading

import pytest
from django.core.management import call_command
from django.db import connections
from rest_framework.test import APIClient

from ledger import projections
from ledger.models import AuditEntry, Event, ProjectionCheckpoint
from ledger.store import _COPY_FROM, NewEvent
from ledger.verify import verify_chain
from tests.conftest import staff_user
from tests.integration.projection_helpers import (
    append_audited,
    append_events,
    audit_rows,
    audit_rows_by_sql,
    audit_trail,
)


@pytest.fixture(autouse=True)
def _database(request):
    """``db`` unless the test asks for ``committed_db`` (which flushes after resetting its role)."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


# --- the audit projection -------------------------------------------------------------------------

ODD_AUDIT = [
    ("Odd", {"patron": 7, "table": "T1"}, (None, "T1", None)),
    ("Odd", {"patron": "", "table": "", "round": ""}, None),
    ("Odd", {"patron": None, "round": "R9"}, (None, None, "R9")),
    ("Odd", {"patron": {"code": "P1"}, "table": ["T1"], "round": {"round": "R1"}}, None),
    ("Odd", ["patron", "P1"], None),
    ("Odd", "P1", None),
    ("Odd", 5, None),
    ("Odd", {}, None),
    ("Odd", {"patron": True, "table": 0, "round": False}, None),
    ("Odd", {"patron": "P" * 64}, ("P" * 64, None, None)),
    ("Odd", {"patron": " ", "table": "T\u2028é😀"}, (" ", "T\u2028é😀", None)),
    ("Odd", {"nested": {"patron": "P1", "table": "T1"}}, None),
    ("BetPlaced", {"patron": "P1", "table": "T1", "round": "R1"}, ("P1", "T1", "R1")),  # summary falls back
    ("RoundVoided", {"round": "R1", "table": "T1"}, (None, "T1", "R1")),  # no reason: fallback
    ("ChipsPurchased", {"patron": "P1", "amount_cents": "lots"}, ("P1", None, None)),
]


def test_odd_event_data_gives_the_same_audit_rows_by_catch_up_and_rebuild():
    """Keys that are ints, bools, empty, None, nested, or data that is no dict: no line for that
    timeline (and no row without any); 64 characters, a blank, unicode: a line. Catch-up (in
    batches of 1, 3 and all) and rebuild write the same rows on both databases."""
    append_events("audit/odd", [NewEvent(kind, data, []) for kind, data, _ in ODD_AUDIT])
    expected = [(i + 1, *keys) for i, (_, _, keys) in enumerate(ODD_AUDIT) if keys is not None]
    projections.catch_up("audit", batch=1)
    caught_up = audit_rows()
    assert [row[:4] for row in caught_up] == expected
    # A bet placed without its stake reads as its type and data in words, ids left out.
    assert dict((row[0], row[5]) for row in caught_up)[13] == "bet placed: patron P1"
    for size in (3, 5000):
        projections.rebuild(["audit"], batch=size)
        assert audit_rows() == caught_up
    projections.truncate(AuditEntry)
    projections.rebuild()
    assert audit_rows() == caught_up
    assert verify_chain().ok


def test_a_copy_sized_append_gives_the_same_audit_rows_caught_up_or_rebuilt_in_any_batches():
    """A ``_COPY_FROM``-sized append (the events themselves by COPY) projected in batches that
    cut it anywhere; the rebuild with a batch smaller than the ledger (read-ahead on
    PostgreSQL) gives the same rows."""
    events = [
        NewEvent("Burst", {"patron": f"P{i % 7}", "round": "" if i % 3 else f"R{i}"}, [])
        for i in range(_COPY_FROM + 13)
    ]
    append_events("audit/copy", events)
    projections.catch_up("audit", batch=97)
    caught_up = audit_rows()
    assert len(caught_up) == len(events)
    assert sum(1 for row in caught_up if row[3]) == len([i for i in range(len(events)) if i % 3 == 0])
    projections.rebuild(["audit"], batch=128)
    assert audit_rows() == caught_up


# ledger/projections/audit.py, _position: ``.get`` on a position that is not an object would
# raise AttributeError and stop the projection.
@pytest.mark.parametrize("position", [[1, 2], "straight 17", 17])
def test_a_known_event_type_whose_position_is_not_an_object_still_gets_its_line(position):
    """``summary`` of a BetPlaced/BetSettled whose ``position`` is a list, a string or a number
    (data the ledger accepts from any writer): the projection must not stop on it."""
    data = {"patron": "P1", "table": "T1", "stake_cents": 100, "chips": 1, "position": position}
    append_events(
        "audit/position",
        [NewEvent("BetPlaced", data, []), NewEvent("BetSettled", {**data, "outcome": "won", "return_cents": 0}, [])],
    )
    projections.catch_up("audit")
    assert [row[:3] for row in audit_rows()] == [(1, "P1", "T1"), (2, "P1", "T1")]
    if not isinstance(position, int):
        assert audit_rows()[0][5] == f"P1 bets 1.00 EUR on {position} (1 chip)"


# ledger/projections/audit.py, _key: on PostgreSQL the binary COPY into the varchar(64) column
# would refuse such a row, and the projection could never pass that event.
def test_a_timeline_key_of_more_than_64_characters_does_not_stop_the_audit_projection():
    """A patron, table or round of 65+ characters (the ledger takes any data) names no timeline
    (codes are 20 characters at most, a round id 36); the event's other timelines keep it."""
    append_events(
        "audit/long", [NewEvent("Odd", {"patron": "P" * 65, "table": "T1"}, []), NewEvent("Odd", {"table": "T1"}, [])]
    )
    projections.catch_up("audit")
    assert AuditEntry.objects.filter(table="T1").count() == 2
    assert list(AuditEntry.objects.values_list("patron", flat=True)) == [None, None]
    projections.rebuild(["audit"])
    assert AuditEntry.objects.filter(table="T1").count() == 2


# --- the audit trail API ---------------------------------------------------------------------------

_USERS = itertools.count()


def _client(role: str = "auditor") -> APIClient:
    client = APIClient()
    client.force_authenticate(staff_user(f"audit-{role}-{next(_USERS)}", role))
    return client


def test_audit_trail_roles_unknown_scope_empty_and_pagination():
    """auditor, pit_boss, cashier read a trail; dealer and runner get 403; an unknown scope is
    404, an unknown key an empty page, a key too long to be one 404; 150 lines page by
    limit/offset in position order."""
    append_events(
        "audit/api", [NewEvent("Odd", {"patron": "PAG", "table": "T1" if i % 2 else ""}, []) for i in range(150)]
    )
    projections.catch_up("audit")
    for role, status in (("auditor", 200), ("pit_boss", 200), ("cashier", 200), ("dealer", 403), ("runner", 403)):
        assert _client(role).get("/api/audit/patron/PAG/").status_code == status, role
    client = _client()
    for scope in ("nope", "position", "pk", "type", "summary", "Patron", "patron__in"):
        assert client.get(f"/api/audit/{scope}/PAG/").status_code == 404, scope
    for scope in ("patron", "table", "round"):
        body = client.get(f"/api/audit/{scope}/missing/").json()
        assert body["count"] == 0 and body["results"] == []
    first = client.get("/api/audit/patron/PAG/").json()
    assert first["count"] == 150 and len(first["results"]) == 100 and first["next"]
    second = client.get(first["next"]).json()
    positions = [line["position"] for line in first["results"] + second["results"]]
    assert positions == list(range(1, 151))
    assert client.get("/api/audit/table/T1/?limit=10&offset=70").json()["results"][0]["position"] == 142
    # A key longer than any code or name is no path at all (the strict converter): 404, not a 500.
    assert client.get("/api/audit/patron/" + "P" * 300 + "/").status_code == 404


def test_audit_trail_with_a_nul_or_odd_characters_in_the_key_is_not_a_500():
    """A key with NUL (PostgreSQL refuses NUL in text), percent-escapes, spaces: an answer, not a 500."""
    append_events("audit/nul", [NewEvent("Odd", {"patron": "P 1/é"}, [])])
    projections.catch_up("audit")
    client = _client()
    assert client.get("/api/audit/patron/P%201%2F%C3%A9/").status_code in (200, 404)
    assert client.get("/api/audit/patron/P%00x/").status_code in (200, 400, 404)
    assert client.get("/api/audit/patron/P%201/").status_code == 404  # a space: no code or name (strict converter)


def test_audit_trail_roles_and_the_position_as_the_rows_key():
    append_audited("audit/roles")
    projections.catch_up("audit")
    for role, status in (("auditor", 200), ("pit_boss", 200), ("cashier", 200), ("dealer", 403), ("runner", 403)):
        client = APIClient()
        client.force_authenticate(staff_user(f"u-{role}", role))
        assert client.get("/api/audit/patron/P1/").status_code == status, role
    client = APIClient()
    client.force_authenticate(staff_user("reader", "auditor"))
    assert client.get("/api/audit/nope/P1/").status_code == 404
    assert audit_trail(client, "patron", "missing") == []
    # the position as the key, in model operations
    entry = AuditEntry.objects.get(pk=2)
    assert (entry.patron, entry.table, entry.round) == ("P1", "T1", None)
    assert str(entry) == "#2 patron:P1 table:T1 CashBuyIn"
    assert AuditEntry.objects.filter(pk__in=[1, 3]).count() == 2
    entry.type = "Changed"
    entry.save()
    assert AuditEntry.objects.get(pk=2).type == "Changed"
    entry.delete()
    assert not AuditEntry.objects.filter(pk=2).exists()
    assert audit_trail(client, "patron", "P1")[0]["position"] == 1 and len(audit_trail(client, "table", "T1")) == 1


def test_the_schema_describes_the_audit_trail():
    client = APIClient()
    client.force_authenticate(staff_user("schema", "auditor"))
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    text = response.content.decode()
    assert "/api/audit/{scope}/{key}/" in text
    # --validate only: the two "kind" enum-name warnings are known and harmless
    call_command("spectacular", "--validate", "--file", "/dev/null")


# --- the lines written again from the ledger ------------------------------------------------------


def test_audit_lines_truncated_or_deleted_are_rebuilt_from_the_ledger(django_db_blocker):
    # SQLite: DELETE; PostgreSQL: TRUNCATE. Three events, five timeline lines, a row an event.
    append_audited("audit/truncate")
    projections.catch_up_all()
    assert AuditEntry.objects.count() == 3
    projections.truncate(AuditEntry)
    assert AuditEntry.objects.count() == 0
    projections.rebuild(["audit"])
    assert AuditEntry.objects.count() == 3
    AuditEntry.objects.filter(table__isnull=False).delete()
    assert AuditEntry.objects.count() == 1
    projections.rebuild()
    assert AuditEntry.objects.count() == 3


def test_two_workers_catch_up_the_audit_lines_after_a_reset(committed_db):
    for i in range(40):
        append_audited(f"audit/w{i}", f"P{i}")
    projections.catch_up("audit")
    expected = audit_rows_by_sql()
    ProjectionCheckpoint.objects.filter(name="audit").update(position=0)  # as migration 0006 does
    projections.truncate(AuditEntry)
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)

    def worker():
        try:
            barrier.wait(10)
            projections.catch_up("audit", batch=7)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert audit_rows_by_sql() == expected
    assert ProjectionCheckpoint.objects.get(name="audit").position == Event.objects.count()

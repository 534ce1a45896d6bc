"""The ledger's migrations back and forth: 0006 (the audit lines keyed by scope, key and
position), 0007 (one line an event, its patron, table and round in columns) and 0008 (no hash
index, an idempotency key unique only where set). A database that had audit lines under an
earlier shape gets the same timelines back from the ledger after migrating, the trail API reads
the same, the old constraints come back and go; no migration is missing for the models."""

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from rest_framework.test import APIClient

from ledger import projections
from ledger.models import AuditEntry, ProjectionCheckpoint
from ledger.store import _COPY_FROM, Leg, NewEvent, append
from ledger.verify import verify_chain
from tests.conftest import staff_user
from tests.integration.projection_helpers import (
    append_audited,
    append_events,
    audit_lines,
    audit_rows,
    audit_rows_by_sql,
    audit_trail,
)


def _old_lines() -> list[tuple]:
    """The lines of the 0005 and 0006 table (a line a timeline), as ``audit_lines`` gives them."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT scope, key, position, summary, hash FROM ledger_auditentry")
        return sorted(cursor.fetchall())


def _columns() -> set[str]:
    with connection.cursor() as cursor:
        return {column.name for column in connection.introspection.get_table_description(cursor, "ledger_auditentry")}


@pytest.mark.parametrize("old", ["0005_drop_pattern_indexes", "0006_audit_entry_composite_key"])
def test_the_audit_lines_are_written_again_from_the_ledger_after_the_migration(committed_db, old):
    # PostgreSQL (committed_db): SQLite cannot change its schema inside the test's transaction.
    call_command("migrate", "ledger", old, verbosity=0)
    try:
        assert {"scope", "key"} <= _columns() and ("id" in _columns()) == old.startswith("0005")
        with transaction.atomic():
            append(
                stream="t/audit-key",
                expected_version=0,
                actor="t",
                events=[
                    NewEvent("ChipsPurchased", {"patron": "P1", "amount_cents": 500}, [Leg("p", 500), Leg("c", -500)]),
                    NewEvent("CashBuyIn", {"patron": "P1", "table": "T1", "amount_cents": 200}, []),
                    NewEvent("RoundOpened", {"round": "R1", "table": "T1", "number": 1}, []),
                ],
            )
        with connection.cursor() as cursor:  # the lines as the old projector wrote them
            cursor.execute(
                "INSERT INTO ledger_auditentry (scope, key, position, type, summary, hash, occurred_at, gaming_day) "
                "VALUES ('patron', 'P1', 1, 'ChipsPurchased', 'P1 bought 5.00 EUR of chips at the cage', "
                "(SELECT hash FROM ledger_event WHERE position = 1), now(), current_date)"
            )
        assert len(_old_lines()) == 1
        ProjectionCheckpoint.objects.update_or_create(name="audit", defaults={"position": 3})
    finally:
        call_command("migrate", "ledger", verbosity=0)

    assert {"patron", "table", "round"} <= _columns() and "scope" not in _columns()
    assert AuditEntry.objects.count() == 0
    assert ProjectionCheckpoint.objects.get(name="audit").position == 0
    projections.catch_up("audit")
    hashes = dict(AuditEntry.objects.values_list("position", "hash"))
    assert [line[:3] for line in audit_lines()] == [
        ("patron", "P1", 1), ("patron", "P1", 2), ("round", "R1", 3), ("table", "T1", 2), ("table", "T1", 3),
    ]  # fmt: skip
    assert audit_lines()[0][3:] == ("P1 bought 5.00 EUR of chips at the cage", hashes[1])


@pytest.mark.django_db
def test_a_second_line_for_the_same_event_is_refused():
    from django.db import IntegrityError
    from django.utils import timezone

    line = dict(position=1, patron="P1", type="T", hash="h", occurred_at=timezone.now())
    AuditEntry.objects.create(**line, gaming_day=timezone.now().date())
    with pytest.raises(IntegrityError), transaction.atomic():
        AuditEntry.objects.create(**{**line, "patron": None, "table": "T1"}, gaming_day=timezone.now().date())


def _constraints(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.get_constraints(cursor, table))


def test_the_audit_trail_reads_the_same_after_migrating_back_over_its_lines_and_forward(committed_db):
    client = APIClient()
    client.force_authenticate(staff_user("auditor7", "auditor"))
    append_audited("migrate/a")
    projections.catch_up("audit")
    latest = audit_rows_by_sql()
    trail = audit_trail(client, "patron", "P1")
    assert len(trail) == 2 and {"position", "hash", "summary"} <= set(trail[0])
    try:
        call_command("migrate", "ledger", "0006_audit_entry_composite_key", verbosity=0)
        assert {"scope", "key"} <= _columns() and "patron" not in _columns()
        assert ProjectionCheckpoint.objects.get(name="audit").position == 0
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM ledger_auditentry")
            assert cursor.fetchone() == (0,)
        append_audited("migrate/b", "P2")  # appended while the audit table has the old shape
    finally:
        call_command("migrate", "ledger", verbosity=0)
    assert {"patron", "table", "round"} <= _columns() and "scope" not in _columns()
    assert audit_trail(client, "patron", "P1") == []  # short until caught up (deploy/README)
    projections.catch_up("audit")
    assert audit_trail(client, "patron", "P1") == trail
    assert audit_rows_by_sql()[: len(latest)] == latest
    assert len(audit_trail(client, "patron", "P2")) == 2
    before = audit_rows_by_sql()
    projections.rebuild(["audit"])
    assert audit_rows_by_sql() == before
    assert audit_trail(client, "table", "T1") == audit_trail(client, "table", "T1")
    assert len(audit_trail(client, "table", "T1")) == 4
    # twice forward/back again, with lines in the table
    call_command("migrate", "ledger", "0005_drop_pattern_indexes", verbosity=0)
    call_command("migrate", "ledger", verbosity=0)
    projections.catch_up("audit")
    assert audit_rows_by_sql() == before
    assert verify_chain().ok


@pytest.mark.parametrize(
    "old", ["0007_audit_entry_one_line_an_event", "0006_audit_entry_composite_key", "0005_drop_pattern_indexes"]
)
def test_the_ledger_migrates_back_and_forth_with_events_idempotency_keys_and_audit_lines(committed_db, old):
    """Back to 0007/0006/0005 with events (keys and many NULL keys, a COPY-sized batch) and
    audit lines, an append meanwhile, forward again: the old unique constraints come back and
    go, the chain verifies, duplicate keys are still refused, the audit rows come back the same."""
    append_events(
        "migrate/a",
        [NewEvent("Odd", {"patron": f"P{i}", "table": "T1"}, []) for i in range(_COPY_FROM)],
        idempotency_key="M1",
    )
    append_events("migrate/b", [NewEvent("Odd", {"round": "R1"}, [])], idempotency_key="M2")
    projections.catch_up("audit")
    before = audit_rows()
    try:
        call_command("migrate", "ledger", old, verbosity=0)
        names = _constraints("ledger_event")
        assert {"ledger_event_hash_key", "ledger_event_idempotency_key_key"} <= names
        assert "ledger_event_idempotency_key_uniq" not in names
        append_events("migrate/c", [NewEvent("Odd", {"table": "T2"}, [])], idempotency_key="M3")
    finally:
        call_command("migrate", "ledger", verbosity=0)
    names = _constraints("ledger_event")
    assert "ledger_event_hash_key" not in names and "ledger_event_idempotency_key_key" not in names
    assert "ledger_event_idempotency_key_uniq" in names
    with pytest.raises(IntegrityError):
        append_events("migrate/d", [NewEvent("Odd", {}, [])], idempotency_key="M3")
    append_events("migrate/e", [NewEvent("Odd", {"table": "T2"}, [])])
    projections.catch_up("audit")
    rows = audit_rows()
    assert rows[: len(before)] == before and [row[2] for row in rows[len(before) :]] == ["T2", "T2"]
    assert verify_chain().ok


@pytest.mark.django_db
def test_the_models_and_the_migrations_agree():
    """No migration is missing for ledger and games (Event's constraints, AuditEntry, Bet)."""
    call_command("makemigrations", "ledger", "games", "--check", "--dry-run", verbosity=0)

"""Migrations 0006 (the audit lines keyed by scope, key and position) and 0007 (one line an
event, its patron, table and round in columns): a database that had audit lines under an
earlier shape gets the same timelines back from the ledger after migrating."""

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from ledger import projections
from ledger.models import AuditEntry, ProjectionCheckpoint
from ledger.store import Leg, NewEvent, append
from tests.integration.projection_helpers import audit_lines


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

    line = dict(position=1, patron="P1", type="T", summary="s", hash="h", occurred_at=timezone.now())
    AuditEntry.objects.create(**line, gaming_day=timezone.now().date())
    with pytest.raises(IntegrityError), transaction.atomic():
        AuditEntry.objects.create(**{**line, "patron": None, "table": "T1"}, gaming_day=timezone.now().date())

"""Migration 0006 (the audit lines keyed by scope, key and position): a database that had audit
lines under the surrogate id gets the same lines back from the ledger after the migration."""

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from ledger import projections
from ledger.models import AuditEntry, ProjectionCheckpoint
from ledger.store import Leg, NewEvent, append


def _lines() -> list[tuple]:
    return list(
        AuditEntry.objects.order_by("scope", "key", "position").values_list(
            "scope", "key", "position", "type", "summary", "hash", "occurred_at", "gaming_day"
        )
    )


def _columns() -> set[str]:
    with connection.cursor() as cursor:
        return {column.name for column in connection.introspection.get_table_description(cursor, "ledger_auditentry")}


def test_the_audit_lines_are_written_again_from_the_ledger_after_the_migration(committed_db):
    # PostgreSQL (committed_db): SQLite cannot change its schema inside the test's transaction.
    call_command("migrate", "ledger", "0005_drop_pattern_indexes", verbosity=0)
    try:
        assert "id" in _columns()
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
        projections.catch_up("audit")
        before = _lines()
        assert [(scope, key) for scope, key, *_ in before] == [
            ("patron", "P1"), ("patron", "P1"), ("round", "R1"), ("table", "T1"), ("table", "T1"),
        ]  # fmt: skip
    finally:
        call_command("migrate", "ledger", verbosity=0)

    assert "id" not in _columns()
    assert AuditEntry.objects.count() == 0
    assert ProjectionCheckpoint.objects.get(name="audit").position == 0
    projections.catch_up("audit")
    assert _lines() == before


@pytest.mark.django_db
def test_a_second_line_for_the_same_scope_key_and_position_is_refused():
    from django.db import IntegrityError
    from django.utils import timezone

    line = dict(scope="patron", key="P1", position=1, type="T", summary="s", hash="h", occurred_at=timezone.now())
    AuditEntry.objects.create(**line, gaming_day=timezone.now().date())
    with pytest.raises(IntegrityError), transaction.atomic():
        AuditEntry.objects.create(**line, gaming_day=timezone.now().date())

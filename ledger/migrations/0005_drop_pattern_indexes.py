"""PostgreSQL: drop the ``varchar_pattern_ops`` twins Django adds to unique character columns.

``ledger_event.hash`` and ``ledger_event.idempotency_key`` are looked up by equality only (the
unique index serves that); no query uses ``LIKE`` on them, and each twin was one more index
written per event. Django drops "like" indexes with ``IF EXISTS`` should a later
migration alter these fields, so the model state needs no change.
"""

from django.db import migrations

TWINS = ("ledger_event_hash_79a381be_like", "ledger_event_idempotency_key_e2434d7f_like")


def _drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in TWINS:
            schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


def _create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, column in zip(TWINS, ("hash", "idempotency_key"), strict=True):
            schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON ledger_event ({column} varchar_pattern_ops)")


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_statement_level_ledger_checks")]
    operations = [migrations.RunPython(_drop, _create)]

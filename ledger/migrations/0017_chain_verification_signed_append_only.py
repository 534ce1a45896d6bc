"""Each chain verification is signed by the site's key and the table is append-only, as the
ledger's: a failed verification can no longer be set to "intact" or deleted to lift the alarm
(``ledger.verification_records``). The triggers call the ledger's own ``ledger_reject_change``
(0002), so deploy/postgres_roles.sql grants the application SELECT and INSERT only."""

from django.db import migrations, models

TABLE = "ledger_chainverification"

POSTGRES = [
    f"CREATE TRIGGER {TABLE}_no_change BEFORE UPDATE OR DELETE ON {TABLE} "
    "FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();",
    f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
    "FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();",
]
SQLITE = [
    f"CREATE TRIGGER {TABLE}_no_{op.lower()} BEFORE {op} ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, 'ledger is append-only: {op} on {TABLE} is not allowed'); END;"
    for op in ("UPDATE", "DELETE")
]


def create_triggers(apps, schema_editor):
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}.get(schema_editor.connection.vendor)
    if statements is None:
        raise RuntimeError(f"no append-only triggers for {schema_editor.connection.vendor}")
    for sql in statements:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0016_event_position_positive")]

    operations = [
        migrations.AddField(
            model_name="chainverification",
            name="signature",
            field=models.CharField(
                blank=True, default="", help_text="hex Ed25519 of the fields by the site's key", max_length=200
            ),
        ),
        migrations.RunPython(create_triggers, migrations.RunPython.noop),
    ]

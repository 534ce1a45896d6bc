"""A suspicion case's words are kept as they were written: the table refuses UPDATE, DELETE and
TRUNCATE, as the ledger's do (``ledger_reject_change``, ledger/migrations/0002). The deploy's
roles script then grants the application SELECT and INSERT only on it (deploy/postgres_roles.sql:
"any table a later migration protects with the ledger_reject_change() trigger"). The digest each
step's event carries is the second lock, against someone who can lift the first."""

from django.db import migrations

TABLE = "compliance_caserecord"

POSTGRES = [
    f"CREATE TRIGGER {TABLE}_no_change BEFORE UPDATE OR DELETE ON {TABLE} "
    "FOR EACH ROW EXECUTE FUNCTION ledger_reject_change();",
    f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
    "FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change();",
]
SQLITE = [
    f"CREATE TRIGGER {TABLE}_no_{op.lower()} BEFORE {op} ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, 'suspicion case records are append-only: {op} on {TABLE} is not allowed'); END;"
    for op in ("UPDATE", "DELETE")
]


def create_triggers(apps, schema_editor):
    statements = {"postgresql": POSTGRES, "sqlite": SQLITE}.get(schema_editor.connection.vendor)
    if statements is None:
        raise RuntimeError(f"no append-only triggers for {schema_editor.connection.vendor}")
    for sql in statements:
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("compliance", "0001_suspicion_case_records"), ("ledger", "0002_append_only_triggers")]
    operations = [migrations.RunPython(create_triggers, migrations.RunPython.noop)]

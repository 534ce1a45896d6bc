"""Each event carries a seal: an HMAC of its hash under a key outside the database
(``ledger.event_seals``), so that an event INSERTed around the application, with a correct
hash, is told from the application's own.

The column's database default is "" (no seal), so a row inserted without naming it is one
``ledger verify`` names. One ``ALTER TABLE … ADD COLUMN`` with a constant default, on both
databases: it rewrites no row (PostgreSQL 11 and later), so the append-only triggers and
casino_guard's rewrite check are not crossed; Django's own AddField would rebuild the table
on SQLite, which the triggers of its neighbours (naming ``ledger_event``) refuse.
Migrating back keeps the column and its seals: they are the ledger's, and the ledger loses
nothing (the older code does not name the column; its default fills it); forward again, the
column is there already.
Events already in the ledger carry no seal: set ``LEDGER_EVENTS_SEALED_FROM`` to the first
position written after this migration (deploy/README.md, "Event seals").
"""

from django.db import migrations, models


def add_seal_column(apps, schema_editor):
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        columns = {column.name for column in connection.introspection.get_table_description(cursor, "ledger_event")}
    if "seal" not in columns:
        schema_editor.execute("ALTER TABLE ledger_event ADD COLUMN seal varchar(64) DEFAULT '' NOT NULL", params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0014_chain_verification")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_seal_column, migrations.RunPython.noop)],
            state_operations=[
                migrations.AddField(
                    model_name="event",
                    name="seal",
                    field=models.CharField(blank=True, db_default="", default="", max_length=64),
                )
            ],
        )
    ]

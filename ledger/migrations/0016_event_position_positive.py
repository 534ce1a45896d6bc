"""An event's position is 1 or more. Readers take "position > N" from 0, so a row at 0 or below
would be skipped by verify and the seal scan yet counted by a sum of postings.

PostgreSQL gets the CHECK constraint (validated over the rows there: it rewrites none). On
SQLite, Django's AddConstraint would rebuild the table, which the triggers of its neighbours
(naming ``ledger_event``) refuse; a BEFORE INSERT trigger refuses the row there instead.
"""

from django.db import migrations, models

NAME = "ledger_event_position_positive"


def add_check(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE ledger_event ADD CONSTRAINT {NAME} CHECK (position > 0)", params=None)
    else:
        schema_editor.execute(
            f"CREATE TRIGGER {NAME} BEFORE INSERT ON ledger_event WHEN NEW.position <= 0 "
            "BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: ledger_event_position_positive'); END",
            params=None,
        )


def drop_check(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE ledger_event DROP CONSTRAINT IF EXISTS {NAME}", params=None)
    else:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {NAME}", params=None)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0015_event_seal")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunPython(add_check, drop_check)],
            state_operations=[
                migrations.AddConstraint(
                    model_name="event",
                    constraint=models.CheckConstraint(condition=models.Q(position__gt=0), name=NAME),
                )
            ],
        )
    ]

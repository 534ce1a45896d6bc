"""The audit projection's lines keyed by (scope, key, position), without the surrogate id.

A line is read by scope and key in position order, and (scope, key, position) was already
unique: as the primary key it is the table's only index. The id's index and sequence were a
quarter of the server's work when a rebuild writes the lines.

Django does not migrate a table to a composite primary key, so the table is recreated empty
and the audit projector's checkpoint goes back to 0: the projection workers (or
``manage.py ledger rebuild --projection audit``) write the lines again from the ledger, which keeps
every event. The other projections are untouched.
"""

from django.db import migrations, models


def _replay_audit(apps, schema_editor):
    apps.get_model("ledger", "ProjectionCheckpoint").objects.filter(name="audit").update(position=0)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_drop_pattern_indexes")]

    operations = [
        migrations.DeleteModel(name="AuditEntry"),
        migrations.CreateModel(
            name="AuditEntry",
            fields=[
                ("pk", models.CompositePrimaryKey("scope", "key", "position", blank=True, editable=False, primary_key=True, serialize=False)),
                ("position", models.BigIntegerField(help_text="the event's ledger position")),
                ("scope", models.CharField(choices=[("patron", "Patron"), ("table", "Table"), ("round", "Round")], max_length=8)),
                ("key", models.CharField(help_text="patron code, table code or round id", max_length=64)),
                ("type", models.CharField(max_length=80)),
                ("summary", models.CharField(max_length=500)),
                ("hash", models.CharField(max_length=64)),
                ("occurred_at", models.DateTimeField()),
                ("gaming_day", models.DateField()),
            ],
            options={"ordering": ["scope", "key", "position"]},
        ),
        migrations.RunPython(_replay_audit, _replay_audit),
    ]

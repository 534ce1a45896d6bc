"""The audit projection: one line an event, naming its patron, table and round in columns of
their own, where 0006 wrote a line for each of them.

Most events name two or three of them (a settled bet: its patron, table and round), so the
lines repeated their summary, hash and moment; a rebuild wrote about three lines an event,
most of its work. A timeline is now read through a partial index on its column.

As in 0006, the table is recreated empty and the audit projector's checkpoint goes back to
0: the projection workers (or ``manage.py ledger rebuild --projection audit``) write the lines
again from the ledger, which keeps every event.
"""

from django.db import migrations, models


def _replay_audit(apps, schema_editor):
    apps.get_model("ledger", "ProjectionCheckpoint").objects.filter(name="audit").update(position=0)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0006_audit_entry_composite_key")]

    operations = [
        migrations.DeleteModel(name="AuditEntry"),
        migrations.CreateModel(
            name="AuditEntry",
            fields=[
                ("position", models.BigIntegerField(help_text="the event's ledger position", primary_key=True, serialize=False)),
                ("patron", models.CharField(help_text="patron code", max_length=64, null=True)),
                ("table", models.CharField(help_text="table code", max_length=64, null=True)),
                ("round", models.CharField(help_text="round id", max_length=64, null=True)),
                ("type", models.CharField(max_length=80)),
                ("summary", models.CharField(max_length=500)),
                ("hash", models.CharField(max_length=64)),
                ("occurred_at", models.DateTimeField()),
                ("gaming_day", models.DateField()),
            ],
            options={
                "ordering": ["position"],
                "indexes": [
                    models.Index(condition=models.Q(("patron__isnull", False)), fields=["patron", "position"], name="ledger_audit_patron"),
                    models.Index(condition=models.Q(("table__isnull", False)), fields=["table", "position"], name="ledger_audit_table"),
                    models.Index(condition=models.Q(("round__isnull", False)), fields=["round", "position"], name="ledger_audit_round"),
                ],
            },
        ),
        migrations.RunPython(_replay_audit, _replay_audit),
    ]

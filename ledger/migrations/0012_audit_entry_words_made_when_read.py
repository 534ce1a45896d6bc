"""The audit lines no longer store their words (``summary``): they are made from the line's
event when it is read (``ledger.projections.audit.timeline``), and the lines are copied from
the events by the server (``INSERT … SELECT``), where a rebuild decoded every event in Python
to format words no one had asked for yet. Nothing is lost: the event keeps them.

Migrating back brings the column back on an emptied table with the audit projector's
checkpoint at 0, as 0006 and 0007 do: the older code writes the lines, words included, again
from the ledger.
"""

from django.db import migrations, models


def _replay_audit(apps, schema_editor):
    apps.get_model("ledger", "AuditEntry").objects.all().delete()
    apps.get_model("ledger", "ProjectionCheckpoint").objects.filter(name="audit").update(position=0)


class Migration(migrations.Migration):
    dependencies = [("ledger", "0011_projection_rebuild_progress")]

    operations = [
        migrations.RunPython(migrations.RunPython.noop, _replay_audit),
        # a default first, so that migrating back can add the column to a table holding lines
        migrations.AlterField(model_name="auditentry", name="summary", field=models.CharField(max_length=500, default="")),
        migrations.RemoveField(model_name="auditentry", name="summary"),
    ]

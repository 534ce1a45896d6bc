"""The drop team's role group (the drop team may not also be the count team)."""

from django.db import migrations


def create_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="drop_team")


class Migration(migrations.Migration):
    dependencies = [("staff", "0002_devices_and_assignments")]
    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]

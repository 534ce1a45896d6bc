"""The compliance officer's role group: the suspicion cases (compliance app) are his alone."""

from django.db import migrations


def create_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="compliance")


class Migration(migrations.Migration):
    dependencies = [("staff", "0004_password_change_due")]
    operations = [migrations.RunPython(create_group, migrations.RunPython.noop)]

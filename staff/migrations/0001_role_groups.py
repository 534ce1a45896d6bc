"""One auth Group per role of ``staff.roles.Role`` (data migration)."""

from django.db import migrations

ROLES = ["dealer", "pit_boss", "cashier", "cage_supervisor", "count_team", "runner", "auditor", "admin"]


def create_groups(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    for name in ROLES:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]

"""Accounts whose owner must choose a new password at his next login."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0003_drop_team_role_group"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PasswordChangeDue",
            fields=[
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        primary_key=True,
                        related_name="password_change_due",
                        serialize=False,
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                ("since", models.DateTimeField(auto_now_add=True)),
                ("reason", models.CharField(help_text="the change that requires it, in words", max_length=200)),
                ("set_by", models.CharField(max_length=150)),
            ],
        ),
    ]

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("ledger", "0008_event_hash_unindexed_idempotency_key_partial")]

    operations = [
        migrations.AddField(
            model_name="tabledaystats",
            name="theoretical_win",
            field=models.CharField(
                default="0",
                help_text="exact fraction of cents: Σ stake × the house edge of each settled bet",
                max_length=80,
            ),
        ),
    ]

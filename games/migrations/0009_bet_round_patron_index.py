"""Bets indexed by (round, patron): a bet placement reads the patron's bets on the coup."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("cashier", "0005_fill_credit_slips"),
        ("games", "0008_bet_imprisoned_index"),
    ]

    operations = [
        # The composite index first, then the round-only one goes: never a moment without one.
        migrations.AddIndex(
            model_name="bet",
            index=models.Index(fields=["round", "patron"], name="games_bet_round_patron"),
        ),
        migrations.AlterField(
            model_name="bet",
            name="round",
            field=models.ForeignKey(
                db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name="bets", to="games.round"
            ),
        ),
    ]

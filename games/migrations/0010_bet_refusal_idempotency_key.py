"""A refused bet retried with the same Idempotency-Key is recorded once (the floor counted it twice)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_bet_round_patron_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='betrefusal',
            name='fingerprint',
            field=models.CharField(blank=True, default='', help_text='SHA-256 of who sent what (actor, table, coup, patron, stake, kind): a retry is the same', max_length=64),
        ),
        migrations.AddField(
            model_name='betrefusal',
            name='idempotency_key',
            field=models.CharField(blank=True, help_text="the refused request's Idempotency-Key: a retry with it is not counted again", max_length=200, null=True),
        ),
        migrations.AddConstraint(
            model_name='betrefusal',
            constraint=models.UniqueConstraint(condition=models.Q(('idempotency_key__isnull', False)), fields=('idempotency_key', 'fingerprint'), name='games_betrefusal_one_per_retry'),
        ),
    ]

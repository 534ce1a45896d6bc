# Patron and SelfLimit move here from cashier: state only, tables cashier_patron, cashier_selflimit.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('cashier', '0005_fill_credit_slips'),
    ]

    # State only: the tables keep their names and rows (no data moves; db_table is set on the models).
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Patron',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('code', models.CharField(help_text="ledger id: P00001, or 'anon' for unrated play", max_length=20, unique=True)),
                        ('kind', models.CharField(choices=[('identified', 'Identified'), ('anonymous', 'Anonymous')], max_length=12)),
                        ('name', models.CharField(blank=True, max_length=200)),
                        ('document', models.CharField(blank=True, help_text='identity document (AML)', max_length=100)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'cashier_patron',
                        'ordering': ['code'],
                    },
                ),
                migrations.CreateModel(
                    name='SelfLimit',
                    fields=[
                        ('patron', models.OneToOneField(db_column='patron_code', on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='self_limit', serialize=False, to='patrons.patron', to_field='code')),
                        ('max_bet_cents', models.PositiveBigIntegerField(help_text='the largest total stake of one bet placement')),
                        ('week_start', models.DateTimeField(help_text='Friday 00:00 New York of the week of the last change (UTC)')),
                        ('set_at', models.DateTimeField(help_text='when the patron last changed it (UTC)')),
                    ],
                    options={
                        'db_table': 'cashier_selflimit',
                        'constraints': [models.CheckConstraint(condition=models.Q(('max_bet_cents__gt', 0)), name='cashier_self_limit_positive')],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]

# ColourStack moves here from cashier, Bet.patron points at patrons.Patron: state only.

import django.db.models.deletion
import django_fsm
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0011_bet_in_prison_index_fillfactor'),
        ('patrons', '0001_initial'),
    ]

    # State only: the tables keep their names and rows (no data moves; db_table is set on the models).
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='bet',
                    name='patron',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='bets', to='patrons.patron'),
                ),
                migrations.CreateModel(
                    name='ColourStack',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('colour', models.CharField(max_length=20)),
                        ('unit_value_cents', models.PositiveBigIntegerField()),
                        ('state', django_fsm.FSMField(choices=[('active', 'Active'), ('changed_back', 'Changed Back')], default='active', max_length=50, protected=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('patron', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='colour_stacks', to='patrons.patron')),
                        ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='colour_stacks', to='games.table')),
                    ],
                    options={
                        'db_table': 'cashier_colourstack',
                        'ordering': ['table_id', 'colour'],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('state', 'active')), fields=('table', 'colour'), name='cashier_one_active_colour'), models.UniqueConstraint(condition=models.Q(('state', 'active')), fields=('table', 'patron'), name='cashier_one_colour_per_patron')],
                    },
                    bases=(django_fsm.ConcurrentTransitionMixin, models.Model),
                ),
            ],
            database_operations=[],
        ),
    ]

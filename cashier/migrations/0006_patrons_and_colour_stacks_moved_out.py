# Patron and SelfLimit left for patrons, ColourStack for games: state only.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('cashier', '0005_fill_credit_slips'),
        ('games', '0012_colour_stack_from_cashier'),
    ]

    # State only: the tables keep their names and rows (no data moves; db_table is set on the models).
    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name='selflimit',
                    name='patron',
                ),
                migrations.DeleteModel(
                    name='ColourStack',
                ),
                migrations.DeleteModel(
                    name='Patron',
                ),
                migrations.DeleteModel(
                    name='SelfLimit',
                ),
            ],
            database_operations=[],
        ),
    ]

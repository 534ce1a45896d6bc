"""A patron is found by his name whatever its accents, letter case and spaces: a stored
``name_key`` (``patrons.names.name_key``: NFKD, combining marks dropped, case folded, spaces
collapsed), filled here for every patron with a name. Reversible: going back drops the column,
and the name itself is untouched either way. The function is the application's own (not a
frozen copy): the stored key must be exactly what the services compute.
"""

from django.db import migrations, models

from patrons.names import name_key


def fill_name_keys(apps, schema_editor):
    Patron = apps.get_model("patrons", "Patron")
    patrons = [Patron(pk=pk, name_key=name_key(name)) for pk, name in Patron.objects.values_list("id", "name")]
    Patron.objects.bulk_update(patrons, ["name_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("patrons", "0003_patron_document_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="patron",
            name="name_key",
            field=models.TextField(
                blank=True,
                default="",
                editable=False,
                help_text="patrons.names.name_key(name): the name as searched, accents and case aside; blank without one",
            ),
        ),
        # Backwards there is nothing to undo: the column goes with the field.
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
    ]

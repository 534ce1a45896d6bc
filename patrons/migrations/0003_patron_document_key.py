"""One identity document belongs to one patron however it is typed: a stored ``document_key``
(``patrons.documents.document_key``: letter case, spaces, hyphens, full-width and invisible
characters aside), filled here for every patron, and the unique constraint moves from the
upper-cased document to it.

Patrons whose documents already share a key stop the migration with their codes, before any
constraint changes: which of them the document really belongs to is for the cage to decide
(``POST /api/patrons/<code>/identity`` corrects the other, as an event), never for a migration
to guess. The function is the application's own (not a frozen copy): the stored key must be
exactly what the services compute.
"""

from django.db import migrations, models

from patrons.documents import colliding_documents, document_key

KEY_LENGTH = 200


def fill_document_keys(apps, schema_editor):
    Patron = apps.get_model("patrons", "Patron")
    rows = list(Patron.objects.exclude(document="").values_list("id", "code", "document"))
    shared = colliding_documents((code, document) for _, code, document in rows)
    if shared:
        raise RuntimeError(
            "patrons whose identity documents are one once letter case, spaces, hyphens and invisible "
            "characters are set aside (correct each but one through POST /api/patrons/<code>/identity, then "
            f"migrate again): {'; '.join(', '.join(codes) for codes in shared)}"
        )
    keys = {pk: document_key(document) for pk, _, document in rows}
    too_long = sorted(code for pk, code, _ in rows if len(keys[pk]) > KEY_LENGTH)
    if too_long:
        raise RuntimeError(
            f"patrons whose identity document's key is longer than {KEY_LENGTH} characters (correct them through "
            f"POST /api/patrons/<code>/identity, then migrate again): {', '.join(too_long)}"
        )
    patrons = [Patron(pk=pk, document_key=key) for pk, key in keys.items()]
    Patron.objects.bulk_update(patrons, ["document_key"], batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("patrons", "0002_patron_document_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="patron",
            name="document_key",
            field=models.CharField(
                blank=True,
                default="",
                editable=False,
                help_text="patrons.documents.document_key(document): the document as compared, blank when there is none",
                max_length=KEY_LENGTH,
            ),
        ),
        migrations.RunPython(fill_document_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name="patron",
            name="patron_document_unique",
        ),
        migrations.AddConstraint(
            model_name="patron",
            constraint=models.UniqueConstraint(
                condition=models.Q(("document_key", ""), _negated=True),
                fields=("document_key",),
                name="patron_document_key_unique",
            ),
        ),
    ]

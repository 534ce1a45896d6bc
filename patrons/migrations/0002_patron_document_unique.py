"""One identity document belongs to one patron: a unique constraint on the document (letter case
aside; an empty document, the shared anonymous patron's and the nameless walk-ins', is not one).

Patrons who already share a document stop the migration with their codes: which of them the
document really belongs to is for the cage to decide (``POST /api/patrons/<code>/identity``
corrects the other, as an event), never for a migration to guess.
"""

import django.db.models.functions.text
from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Upper


def refuse_shared_documents(apps, schema_editor):
    Patron = apps.get_model("patrons", "Patron")
    shared = (
        Patron.objects.exclude(document="")
        .annotate(key=Upper("document"))
        .values("key")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("key", flat=True)
    )
    if shared:
        groups = [
            ", ".join(Patron.objects.annotate(key=Upper("document")).filter(key=key).values_list("code", flat=True))
            for key in shared
        ]
        raise RuntimeError(
            "patrons sharing one identity document (correct each but one through POST "
            f"/api/patrons/<code>/identity, then migrate again): {'; '.join(groups)}"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("patrons", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(refuse_shared_documents, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="patron",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Upper("document"),
                condition=models.Q(("document", ""), _negated=True),
                name="patron_document_unique",
            ),
        ),
    ]

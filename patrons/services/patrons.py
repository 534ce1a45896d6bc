"""Patron registry. Identity stays in the registry; the ledger learns only the code and kind."""

from django.db.models import Max

from ledger.accounts import ANONYMOUS_PATRON
from ledger.commands import ledger_command
from ledger.errors import InvalidInput
from ledger.identity import digest
from ledger.store import NewEvent

from ..documents import describe, document_key, foreign_characters
from ..models import DOCUMENT_KEY_LENGTH, Patron
from ..names import name_key

IDENTITY_FIELDS = ("name", "document")


def identity_digests(code: str, *, name: str, document: str) -> dict[str, str]:
    """``{"name_digest", "document_digest"}``: the keyed digests of a patron's name and document
    that his identity events carry (the ledger never holds the identity itself: ``ledger.identity``)."""
    return {
        "name_digest": digest("patron name", code, name),
        "document_digest": digest("patron document", code, document),
    }


def check_document_free(document: str, *, patron_id: int | None = None) -> str:
    """One identity document belongs to one patron: the key of ``document``
    (``patrons.documents.document_key``: its Latin letters and digits in capitals), to be stored
    with it; ``""`` for a blank document. Raises
    ``InvalidInput`` (400, field ``document``) when another patron (not ``patron_id``) holds a
    document with that key (the database's unique constraint ``patron_document_key_unique`` says
    the same), when it holds a letter of another script (``foreign_characters``: a look-alike
    or an invisible letter), when a non-blank document has no letter or digit (it would be no document on
    file), or when its key is too long to store. Called under the ledger's writer lock, so two
    desks cannot both register one document."""
    if not document:
        return ""
    foreign = foreign_characters(document)
    if foreign:
        raise InvalidInput(
            "write the document's type and number in Latin letters and digits, as its machine-readable "
            f"zone prints them: {', '.join(describe(char) for char in foreign[:3])} is not one",
            field="document",
        )
    key = document_key(document)
    if not key:
        raise InvalidInput(
            "an identity document reference needs letters or digits, not only spaces, dashes or invisible characters",
            field="document",
        )
    if len(key) > DOCUMENT_KEY_LENGTH:
        raise InvalidInput("this identity document reference is too long once normalized", field="document")
    holder = Patron.objects.filter(document_key=key).exclude(pk=patron_id).values_list("code", flat=True)
    if holder:
        raise InvalidInput(
            f"this identity document is already on file for patron {holder[0]}: find him instead "
            "of registering the person again",
            field="document",
        )
    return key


def patron_register(
    *, kind: str, actor: str, name: str = "", document: str = "", idempotency_key: str | None = None
) -> dict:
    """Register a patron; returns ``{"patron": code, "kind"}``.

    ``kind`` is ``identified`` (a name is required) or ``anonymous`` (unrated play: every
    anonymous registration returns the shared ``anon`` patron). Raises ``InvalidInput`` (400:
    field ``name``, or ``document`` when another patron holds that document).
    """
    if kind not in Patron.Kind.values:
        raise InvalidInput("kind must be 'identified' or 'anonymous'", field="kind")
    if kind == Patron.Kind.IDENTIFIED and not name.strip():
        raise InvalidInput("an identified patron needs a name", field="name")
    document = document.strip() if isinstance(document, str) else document
    request = {"op": "patron_register", "kind": kind, "name": name, "document": document}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        if kind == Patron.Kind.ANONYMOUS:
            patron, created = Patron.objects.get_or_create(code=ANONYMOUS_PATRON, defaults={"kind": kind})
            if not created:
                return cmd.finish({"patron": patron.code, "kind": patron.kind})
        else:
            key = check_document_free(document)
            # Under the ledger writer lock: no other registration can take the same number.
            number = (Patron.objects.aggregate(n=Max("id"))["n"] or 0) + 1
            patron = Patron.objects.create(
                code=f"P{number:05d}",
                kind=kind,
                name=name,
                name_key=name_key(name),
                document=document,
                document_key=key,
            )
        cmd.append(
            stream=f"patron/{patron.code}",
            expected_version=0,
            events=[
                NewEvent(
                    "PatronRegistered",
                    {
                        "patron": patron.code,
                        "kind": patron.kind,
                        **identity_digests(patron.code, name=patron.name, document=patron.document),
                    },
                )
            ],
        )
        return cmd.finish({"patron": patron.code, "kind": patron.kind})


def patron_register_identified(
    *, name: object, document: object, actor: str, idempotency_key: str | None = None
) -> dict:
    """Register a patron at the cage with the identity the AML rules ask for (``aml.identity_on_file``:
    a name and an identity document, type and number), so that he may exchange over the identity
    threshold at once. Returns ``{"patron": code, "kind": "identified"}``. Raises ``InvalidInput``
    (field ``name`` or ``document``: blank or too long), ``RoleRequired`` (403: a cashier or cage
    supervisor registers)."""
    from staff.roles import Role, require_role

    require_role(actor, Role.CASHIER, Role.CAGE_SUPERVISOR, step="registering a patron")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 200:
        raise InvalidInput("the patron's full name, as on his document (1 to 200 characters)", field="name")
    if not isinstance(document, str) or not document.strip() or len(document.strip()) > 100:
        raise InvalidInput(
            "the identity document's type and number (1 to 100 characters) are required by the AML rules",
            field="document",
        )
    return patron_register(
        kind=Patron.Kind.IDENTIFIED,
        name=name.strip(),
        document=document.strip(),
        actor=actor,
        idempotency_key=idempotency_key,
    )

"""Reads about patrons: the registry and their chips (summed from the ledger itself)."""

from core.ids import is_code
from ledger import accounts, store
from ledger.errors import InvalidInput

from .documents import document_key
from .models import Patron
from .names import name_key


def patron_get(code: str, *, field: str = "patron") -> Patron:
    """The patron with ``code``; ``InvalidInput`` naming ``field`` when there is none."""
    # No code holds a NUL (PostgreSQL refuses one in a text parameter: it would be a 500).
    patron = Patron.objects.filter(code=code).first() if isinstance(code, str) and "\x00" not in code else None
    if patron is None:
        if not (isinstance(code, str) and code.strip()):
            raise InvalidInput("a patron code is needed (P00001)", field=field)
        # Said in words on a page: the code as typed when it is one, never a Python repr.
        raise InvalidInput(f"no patron {code}" if is_code(code) else "no patron has that code", field=field)
    return patron


def patron_chips_cents(code: str, currency: str = "EUR") -> int:
    """Value chips the patron holds, in cents, from the ledger itself (never stale)."""
    return store.balance(accounts.patron_chips(code), currency)


def patron_by_document(document: object) -> Patron | None:
    """The patron who holds ``document``, however it is typed (``patrons.documents.document_key``:
    "dupdoc 777" finds the holder of "DUPDOC-777"); None when nobody does, or for a blank document."""
    key = document_key(document) if isinstance(document, str) and "\x00" not in document else ""
    return Patron.objects.filter(document_key=key).first() if key else None


def patron_search(query: object, *, limit: int = 20) -> list[Patron]:
    """Registered patrons (never the shared ``anon``) whose code is ``query``, or whose name or
    identity document contains it (case-insensitive; the name also whatever its accents and
    spaces: "helene" finds "Hélène", ``patrons.names.name_key``; the document also however it is typed:
    "dupdoc 777" finds "DUPDOC-777", ``patrons.documents.document_key``), by code; at most
    ``limit``. A query of fewer than two characters (after trimming) finds nobody: it would list
    the whole registry."""
    from django.db.models import Q

    text = query.strip() if isinstance(query, str) else ""
    if len(text) < 2 or "\x00" in text:
        return []
    match = Q(code__iexact=text) | Q(name__icontains=text) | Q(document__icontains=text)
    searched = name_key(text)
    if len(searched) >= 2:  # accents, case and spaces aside: "helene" finds "Hélène"
        match |= Q(name_key__contains=searched)
    key = document_key(text)
    if len(key) >= 2:  # "--" or "a-" is no document: it would list much of the registry
        match |= Q(document_key__contains=key)
    found = Patron.objects.filter(match)
    return list(found.exclude(code=accounts.ANONYMOUS_PATRON).order_by("code")[:limit])

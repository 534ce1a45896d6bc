"""Reads about patrons: the registry and their chips (summed from the ledger itself)."""

from ledger import accounts, store
from ledger.errors import InvalidInput

from .models import Patron


def patron_get(code: str, *, field: str = "patron") -> Patron:
    """The patron with ``code``; ``InvalidInput`` naming ``field`` when there is none."""
    # No code holds a NUL (PostgreSQL refuses one in a text parameter: it would be a 500).
    patron = Patron.objects.filter(code=code).first() if isinstance(code, str) and "\x00" not in code else None
    if patron is None:
        raise InvalidInput(f"no patron {code!r}", field=field)
    return patron


def patron_chips_cents(code: str, currency: str = "EUR") -> int:
    """Value chips the patron holds, in cents, from the ledger itself (never stale)."""
    return store.balance(accounts.patron_chips(code), currency)


def patron_search(query: object, *, limit: int = 20) -> list[Patron]:
    """Registered patrons (never the shared ``anon``) whose code is ``query``, or whose name or
    identity document contains it (case-insensitive), by code; at most ``limit``. A query of
    fewer than two characters (after trimming) finds nobody: it would list the whole registry."""
    from django.db.models import Q

    text = query.strip() if isinstance(query, str) else ""
    if len(text) < 2 or "\x00" in text:
        return []
    found = Patron.objects.filter(Q(code__iexact=text) | Q(name__icontains=text) | Q(document__icontains=text))
    return list(found.exclude(code=accounts.ANONYMOUS_PATRON).order_by("code")[:limit])

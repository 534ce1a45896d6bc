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

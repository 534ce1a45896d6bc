"""Identity against the ledger: do the live accounts and patrons still match their events?

A password, a role group, the active or superuser flag, a patron's name or document changes
only through a service that appends an event saying so. Someone holding the application's
database credentials can still change the rows with raw SQL and leave the ledger silent. Each
app that owns identity rows registers a check (in its ``AppConfig.ready``) that replays its
identity events into what the rows should hold and names every row that differs;
``manage.py ledger verify`` fails on any, and ``/metrics`` counts them
(``casino_identity_mismatches``).

Secrets and personal data never enter the ledger: an event carries a keyed digest of them
(``digest``: HMAC-SHA256 under ``SECRET_KEY``), enough to tell a change, useless to someone who
reads the ledger (a password hash's digest gives no way to test a guess, and a document
number's cannot be brute-forced without the key). Digests made under a key of
``SECRET_KEY_FALLBACKS`` still match, so rotating the key does not make every row a mismatch.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.conf import settings
from django.utils.crypto import salted_hmac

_SALT = "casino.ledger.identity"


def _digest_with(secret: str, parts: tuple[str, ...]) -> str:
    # A unit separator between the parts: ("ab", "c") and ("a", "bc") differ.
    return salted_hmac(_SALT, "\x1f".join(parts), secret=secret, algorithm="sha256").hexdigest()


def digest(*parts: str) -> str:
    """The keyed digest (64 hex characters) of ``parts`` an event records instead of them."""
    return _digest_with(settings.SECRET_KEY, parts)


def digest_matches(recorded: str, *parts: str) -> bool:
    """Whether ``recorded`` is the digest of ``parts`` under the current key or a former one."""
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(hmac.compare_digest(recorded, _digest_with(secret, parts)) for secret in secrets)


@dataclass(frozen=True)
class Mismatch:
    """A live row (``kind`` ``id``) whose ``field`` differs from what its identity events say;
    never its value (a password hash, a document)."""

    kind: str
    id: str
    field: str

    def __str__(self) -> str:
        if self.field == "(no event)":
            return f"{self.kind} {self.id}: exists, but no identity event in the ledger created it"
        if self.field == "(no row)":
            return f"{self.kind} {self.id}: the ledger's identity events created it, but its row is gone"
        return f"{self.kind} {self.id}: {self.field} differs from the ledger's identity events"


@dataclass(frozen=True)
class Unchecked:
    """A field of every ``kind`` row the check could not compare, and why (the auditor's
    database role may not read password hashes: ``deploy/postgres_roles.sql``)."""

    kind: str
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.kind} {self.field}: not checked ({self.reason})"


Check = Callable[[], Iterable[Mismatch | Unchecked]]
CHECKS: list[Check] = []


def register(check: Check) -> Check:
    if check not in CHECKS:
        CHECKS.append(check)
    return check


def review() -> tuple[list[Mismatch], list[Unchecked]]:
    """Every mismatch of every registered check, in the checks' order, and what was not checked."""
    found = [item for check in CHECKS for item in check()]
    return [m for m in found if isinstance(m, Mismatch)], [u for u in found if isinstance(u, Unchecked)]


def mismatches() -> list[Mismatch]:
    """Every mismatch of every registered check, in the checks' order."""
    return review()[0]

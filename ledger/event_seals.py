"""Each event's seal: a keyed digest of its hash that only the application can make.

The hash chain proves that no stored event was changed, but anybody can compute a correct
hash: someone holding the application's database credentials could INSERT an event at the tail
(a ``DealerAssigned``, a ``StaffPasswordChanged``) whose hash and ``prev_hash`` are right, and
the chain would carry it, the next checkpoint would sign it. The seal is what such an event
lacks: ``HMAC-SHA256(key, hash)`` (64 hex digits), the key derived from ``SECRET_KEY``, which
lives in the application's environment, never in the database. ``ledger.store.append`` seals
every event it writes in the same row.

Who checks:
- ``manage.py ledger verify`` fails at the first event whose seal is missing or wrong;
- the checkpoint writer refuses to sign a head with such an event after the last checkpoint,
  and records a failed verification (``/api/health/ready`` answers 503 until one passes);
- the reads that grant authority (who deals which table, the accounts' passwords, roles and
  flags as their events say) leave such an event out (``sealed``).

Events written before seals existed carry none: ``LEDGER_EVENTS_SEALED_FROM`` (a setting, so
outside the database: default 1, every event) is the first position that must carry one.
A former ``SECRET_KEY`` kept in ``SECRET_KEY_FALLBACKS`` still matches, so rotating the key
does not unseal the ledger. What a seal cannot cover: someone holding both the database and
``SECRET_KEY`` (deploy/README.md, "What a checkpoint cannot cover").
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Iterator
from functools import lru_cache
from typing import Protocol, TypeVar

from django.conf import settings

_SALT = b"casino.ledger.event-seal"


class _Sealable(Protocol):
    position: int
    hash: str
    seal: str


S = TypeVar("S", bound=_Sealable)


@lru_cache(maxsize=8)
def _key(secret: str) -> bytes:
    # Derived once a secret, as Django's salted_hmac derives its key (a seal per event: a
    # 30,000-bet settlement would derive it 30,000 times).
    return hashlib.sha256(_SALT + secret.encode()).digest()


def _seal_with(secret: str, hash_: str) -> str:
    return hmac.new(_key(secret), hash_.encode("ascii"), hashlib.sha256).hexdigest()


def seal(hash_: str) -> str:
    """The seal (64 hex digits) of the event whose hash is ``hash_``, under the current key."""
    return _seal_with(settings.SECRET_KEY, hash_)


def sealed_from() -> int:
    """The first position that must carry a seal (``LEDGER_EVENTS_SEALED_FROM``, default 1)."""
    return max(1, int(getattr(settings, "LEDGER_EVENTS_SEALED_FROM", 1) or 1))


def seal_holds(position: int, hash_: str, recorded: str | None) -> bool:
    """Whether the event at ``position`` with hash ``hash_`` carries its seal (under the current
    key or a former one), or predates seals."""
    if position < sealed_from():
        return True
    if not recorded:
        return False
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(hmac.compare_digest(recorded, _seal_with(secret, hash_)) for secret in secrets)


def seal_fault(position: int, hash_: str, recorded: str | None) -> str:
    """What is wrong with the event's seal, in words, or "" when it holds."""
    if seal_holds(position, hash_, recorded):
        return ""
    if not recorded:
        return "carries no seal: it was written around the application (ledger.event_seals)"
    return "its seal is not the application's: it was written around the application (ledger.event_seals)"


def sealed(events: Iterable[S]) -> Iterator[S]:
    """``events`` without those whose seal does not hold: the reads that grant authority act
    only on what the application wrote (``verify`` names the others)."""
    for event in events:
        if seal_holds(event.position, event.hash, event.seal):
            yield event


SEAL_FIELDS = ("position", "hash", "seal")


def sealed_rows(rows: Iterable[tuple]) -> Iterator[tuple]:
    """``values_list(*SEAL_FIELDS, *rest)`` rows whose seal holds, as ``rest`` (the others
    left out, as ``sealed`` leaves them)."""
    for row in rows:
        if seal_holds(row[0], row[1], row[2]):
            yield row[3:]


def first_unsealed(rows: Iterable[tuple[int, str, str]]) -> int | None:
    """The position of the first ``(position, hash, seal)`` whose seal does not hold, or None."""
    for position, hash_, recorded in rows:
        if not seal_holds(position, hash_, recorded):
            return position
    return None

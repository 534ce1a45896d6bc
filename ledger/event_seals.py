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
  flags as their events say) leave such an event out (``sealed_rows``), and so does the
  checkpoint writer: both recompute the row's hash first, since a seal vouches for a hash
  and a row may carry a hash (and seal) copied from another event.

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
from itertools import islice

from django.conf import settings

from .hashing import HASHED_FIELDS

_SALT = b"casino.ledger.event-seal"


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


# The columns an event's hash covers (``ledger.hashing.HASHED_FIELDS``), then the hash and the
# seal: a read that trusts an event recomputes its hash from these (and its
# postings) before it trusts the seal. A seal only vouches for a hash, and a hash column can be
# copied: a row carrying another event's hash and seal (an assignment to another dealer, or a
# genuine old event replayed at the tail) matches its seal, not its content.
SEAL_FIELDS = (*HASHED_FIELDS, "hash", "seal")
_HASH, _SEAL = len(HASHED_FIELDS), len(HASHED_FIELDS) + 1


def _legs(positions: list[int]) -> dict[int, list[tuple[str, int, str]]]:
    from .models import Posting  # ledger.store imports this module; the models import nothing of it

    legs: dict[int, list[tuple[str, int, str]]] = {}
    rows = Posting.chain.filter(event_id__in=positions).values_list("event_id", "account", "amount_cents", "currency")
    for event_id, account, amount, currency in rows:
        legs.setdefault(event_id, []).append((account, amount, currency))
    return legs


def _authentic(row: tuple, legs: list[tuple[str, int, str]]) -> bool:
    from .hashing import event_hash

    position, hash_, recorded = row[0], row[_HASH], row[_SEAL]
    if position < sealed_from():
        return True
    if not seal_holds(position, hash_, recorded):
        return False
    try:
        recomputed = event_hash(**dict(zip(HASHED_FIELDS, row[:_HASH], strict=True)), postings=legs, stored=True)
    except (TypeError, ValueError):
        return False
    return hmac.compare_digest(recomputed, hash_)


def authenticity(rows: Iterable[tuple], chunk: int = 500, *, postings: bool = False) -> Iterator[tuple[tuple, bool]]:
    """Each ``values_list(*SEAL_FIELDS)`` row with whether it is the application's (its hash
    recomputed from its content and postings, then its seal). ``postings``: most rows carry
    some (a coup's bets), so they are read with every chunk at once."""
    # Most events the authority reads look at carry no postings (an assignment, an account's
    # change): each row is tried without any first, and the postings are read only for the rows
    # that do not match so (one query a chunk, none at all for a login's own events).
    iterator = iter(rows)
    while postings and (batch := list(islice(iterator, chunk))):
        legs = _legs([row[0] for row in batch])
        for row in batch:
            yield row, _authentic(row, legs.get(row[0], []))
    while batch := list(islice(iterator, chunk)):
        verdicts = [_authentic(row, []) for row in batch]
        unmatched = [row[0] for row, held in zip(batch, verdicts, strict=True) if not held]
        legs = _legs(unmatched) if unmatched else {}
        for row, held in zip(batch, verdicts, strict=True):
            yield row, held or (row[0] in legs and _authentic(row, legs[row[0]]))


def sealed_rows(rows: Iterable[tuple], *, chunk: int = 500, postings: bool = False) -> Iterator[tuple]:
    """``values_list(*SEAL_FIELDS, *rest)`` rows that are the application's, as ``rest``: the
    seal holds and the row is what was sealed (its hash recomputed from its content and
    postings). The others are left out: the reads that grant authority act only on what the
    application wrote (``verify`` names the others). ``chunk``: rows whose postings are read at
    once (a reader that wants only the first match asks for few); ``postings``: read with
    every chunk, for rows that mostly carry some (``authenticity``)."""
    for row, authentic in authenticity(rows, chunk, postings=postings):
        if authentic:
            yield row[len(SEAL_FIELDS) :]


def first_unsealed(rows: Iterable[tuple]) -> int | None:
    """The position of the first ``values_list(*SEAL_FIELDS)`` row that is not the
    application's (no seal, another key's, or a seal copied from another event), or None."""
    for row, authentic in authenticity(rows, 2000):
        if not authentic:
            return row[0]
    return None


def sealed_events(queryset) -> list:
    """The events of ``queryset`` (an ``Event`` query, in its order) that are the application's
    (``sealed_rows``): for the few events whose presence decides something (a day's close, a
    day's seal), read as model instances."""
    authentic = {row[0] for row in sealed_rows(queryset.values_list(*SEAL_FIELDS, "position"))}
    return [event for event in queryset if event.position in authentic]

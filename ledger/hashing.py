"""Canonical JSON and the SHA-256 hash chain (DESIGN.md §The ledger).

``hash = SHA-256(canonical JSON of {envelope, postings, prev_hash})``. Canonical JSON sorts
keys, has no whitespace, and holds no floats (money is integer cents), so the same event
hashes the same on SQLite and PostgreSQL and in the standalone export verifier.
"""

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, date, datetime

GENESIS_HASH = "0" * 64


def canonical_json(value: object) -> str:
    """Serialise ``value`` deterministically; raises ``TypeError`` on floats or other types."""
    _reject_floats(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _reject_floats(value: object) -> None:
    # Exact built-in types, the whole of what services append, are checked without recursion
    # or isinstance chains (this walk was the largest cost of hashing a coup; issue 11); any
    # other value takes the general path below, so the rules and messages are the same.
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    _reject_floats_general({key: child})
                stack.append(child)
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            _reject_floats_general(item)


def _reject_floats_general(value: object) -> None:
    if isinstance(value, float):
        raise TypeError("floats are not allowed in ledger data: use integer cents")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("ledger data keys must be strings")
            _reject_floats_general(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _reject_floats_general(item)
    elif value is not None and not isinstance(value, (str, int, bool)):
        raise TypeError(f"{type(value).__name__} is not allowed in ledger data")


def iso_utc(moment: datetime) -> str:
    """``2026-11-29T17:00:00.000000+00:00``: UTC, always with microseconds."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def event_hash(
    *,
    position: int,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    data: object,
    occurred_at: datetime,
    recorded_at: datetime,
    gaming_day: date,
    actor: str,
    correlation_id: str,
    causation_id: str,
    idempotency_key: str | None,
    prev_hash: str,
    postings: Iterable[tuple[str, int, str]],
    stored: bool = False,
) -> str:
    """Hex SHA-256 of an event; ``postings`` are ``(account, amount_cents, currency)`` in any order.

    ``stored=True`` for an event read back from the database (``ledger verify``): its data came
    out of a JSON column, so it can hold nothing but JSON values with string keys, and the
    float check is skipped (a third of verify's time; issue 11). A float put there behind the
    ledger's back still serialises differently from the integer it replaced (``1.0`` is not
    ``1``), so the hash no longer matches and verify reports the event as altered.
    """
    document = {
        "position": position,
        "stream": stream,
        "version": version,
        "type": type,
        "schema_version": schema_version,
        "data": data,
        "occurred_at": iso_utc(occurred_at),
        "recorded_at": iso_utc(recorded_at),
        "gaming_day": gaming_day.isoformat(),
        "actor": actor,
        "correlation_id": correlation_id,
        "causation_id": causation_id,
        "idempotency_key": idempotency_key,
        "prev_hash": prev_hash,
        "postings": sorted([list(p) for p in postings]),
    }
    if stored:
        text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    else:
        text = canonical_json(document)
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(request: object) -> str:
    """SHA-256 of a request, to tell a retry from a reuse of an idempotency key.

    Lenient on purpose (floats, odd types): it runs before validation, on what the client sent.
    """
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()

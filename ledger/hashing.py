"""Canonical JSON and the SHA-256 hash chain (DESIGN.md §The ledger).

``hash = SHA-256(canonical JSON of {envelope, postings, prev_hash})``. Canonical JSON sorts
keys, has no whitespace, and holds no floats (money is integer cents), so the same event
hashes the same on SQLite and PostgreSQL and in the standalone export verifier.
"""

import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, date, datetime

from .jsoncodec import canonical

GENESIS_HASH = "0" * 64
# The envelope an event's hash covers, in ``event_hash``'s keyword order (its postings besides):
# every reader that recomputes a hash, or exports what one covers, names these.
HASHED_FIELDS = (
    "position",
    "stream",
    "version",
    "type",
    "schema_version",
    "data",
    "occurred_at",
    "recorded_at",
    "gaming_day",
    "actor",
    "correlation_id",
    "causation_id",
    "idempotency_key",
    "prev_hash",
)


def canonical_json(value: object) -> str:
    """Serialise ``value`` deterministically; raises ``TypeError`` on floats or other types."""
    return canonical(value, plain=reject_floats(value))


def reject_floats(value: object) -> bool:
    """Raise ``TypeError`` if ``value`` holds a float, a non-string key or a value canonical
    JSON does not hold (anything but dict, list, tuple, str, int, bool and None, or their
    subclasses). Returns whether it is *plain*: built of those exact types only, which
    ``ledger.jsoncodec.canonical`` may hand to orjson (a subclass, an Enum or a QueryDict,
    goes to the standard library, which reads it as this check did)."""
    # Exact built-in types, the whole of what services append, are checked without recursion
    # or isinstance chains (this walk was the largest cost of hashing a coup); any
    # other value takes the general path below, so the rules and messages are the same.
    plain = True
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
                    plain = False
                stack.append(child)
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            _reject_floats_general(item)
            plain = False
    return plain


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


def event_hash(**fields) -> str:
    """Hex SHA-256 of an event: ``event_hash_and_data`` (same keyword arguments) without the
    data's text. ``postings`` are ``(account, amount_cents, currency)`` in any order.

    ``stored=True`` for an event read back from the database (``ledger verify``): its data came
    out of a JSON column, so it can hold nothing but plain JSON values with string keys, and
    the float check is skipped (a third of verify's time). ``ledger.store.append``
    passes it too: it ran ``reject_floats`` before writing anything, and replaced data that was
    not plain (a subclass, an Enum) by the plain values the standard library writes for it.
    Without ``stored`` the data is checked here, and serialised by the standard library unless
    plain. A float put there behind the ledger's back still serialises differently from the
    integer it replaced (``1.0`` is not ``1``), so the hash no longer matches and verify reports
    the event as altered.
    Raises ``TypeError`` for a float or another value canonical JSON does not hold.
    """
    return event_hash_and_data(**fields)[0]


def event_hash_and_data(
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
) -> tuple[str, str]:
    """``(hash, canonical JSON of data)``: ``event_hash``, and the data's text it hashed, which
    the ledger writes to the event's JSON column instead of serialising the data again.

    The hashed text is ``canonical_json`` of the document ``{envelope, postings, prev_hash}``.
    It is assembled here from its parts (the data and the postings serialised by
    ``ledger.jsoncodec.canonical``, the envelope's strings escaped by the standard library's C
    encoder, in sorted key order), which gives the same characters as serialising the whole
    document at half the cost of a coup's hashing; any value of a type the parts do
    not expect takes the whole-document path instead.
    ``tests/unit/test_ledger_hashing.py`` checks that both give the same text.
    """
    legs = sorted([list(p) for p in postings])
    plain = stored or reject_floats(data)
    if (
        type_(stream) is str and type_(type) is str and type_(actor) is str and type_(correlation_id) is str
        and type_(causation_id) is str and type_(prev_hash) is str and type_(position) is int
        and type_(version) is int and type_(schema_version) is int and type_(gaming_day) is date
        and (idempotency_key is None or type_(idempotency_key) is str)
        and all(_is_leg(leg) for leg in legs)
    ):  # fmt: skip
        constant = (stream, type, schema_version, occurred_at, recorded_at, gaming_day, actor, correlation_id,
                    causation_id, idempotency_key)  # fmt: skip
        parts = _envelope_parts.get(constant)
        if parts is None:
            parts = _envelope_text(*constant, recorded_is_occurred=recorded_at is occurred_at)
        head, middle, tail = parts
        data_text = canonical(data, plain=plain)
        text = (
            f'{head}{data_text}{middle}{position},"postings":{canonical(legs, plain=True)},'
            f'"prev_hash":{_string(prev_hash)}{tail}{version}}}'
        )
    else:
        occurred = iso_utc(occurred_at)
        recorded = occurred if recorded_at is occurred_at else iso_utc(recorded_at)
        document = {
            "position": position,
            "stream": stream,
            "version": version,
            "type": type,
            "schema_version": schema_version,
            "data": data,
            "occurred_at": occurred,
            "recorded_at": recorded,
            "gaming_day": gaming_day.isoformat(),
            "actor": actor,
            "correlation_id": correlation_id,
            "causation_id": causation_id,
            "idempotency_key": idempotency_key,
            "prev_hash": prev_hash,
            "postings": legs,
        }
        text = canonical_json(document) if not stored else canonical(document)  # not plain: standard library
        data_text = canonical(data, plain=plain)
    return hashlib.sha256(text.encode()).hexdigest(), data_text


# The text around an event's data, position, postings, previous hash and version, per envelope:
# the events of one append share it (a settlement's 30,000 events, one stream, one moment), and
# writing it out (two moments, six strings escaped) was half the cost of hashing one of them.
_envelope_parts: dict[tuple, tuple[str, str, str]] = {}


def _envelope_text(
    stream: str,
    type: str,
    schema_version: int,
    occurred_at: datetime,
    recorded_at: datetime,
    gaming_day: date,
    actor: str,
    correlation_id: str,
    causation_id: str,
    idempotency_key: str | None,
    *,
    recorded_is_occurred: bool,
) -> tuple[str, str, str]:
    """The canonical document's text, in sorted key order, before the data, between the data and
    the position, and between the previous hash and the version; kept in ``_envelope_parts``."""
    occurred = iso_utc(occurred_at)
    recorded = occurred if recorded_is_occurred else iso_utc(recorded_at)
    parts = (
        f'{{"actor":{_string(actor)},"causation_id":{_string(causation_id)},'
        f'"correlation_id":{_string(correlation_id)},"data":',
        f',"gaming_day":"{gaming_day.isoformat()}",'
        f'"idempotency_key":{"null" if idempotency_key is None else _string(idempotency_key)},'
        f'"occurred_at":"{occurred}","position":',
        f',"recorded_at":"{recorded}","schema_version":{schema_version},"stream":{_string(stream)},'
        f'"type":{_string(type)},"version":',
    )
    if len(_envelope_parts) >= 1024:
        _envelope_parts.clear()
    _envelope_parts[(stream, type, schema_version, occurred_at, recorded_at, gaming_day, actor, correlation_id,
                     causation_id, idempotency_key)] = parts  # fmt: skip
    return parts


type_ = type  # ``event_hash_and_data`` has a parameter named ``type`` (the event's)
_string = json.encoder.encode_basestring  # a str as its JSON literal (C)


def _is_leg(leg: list) -> bool:
    return len(leg) == 3 and type_(leg[0]) is str and type_(leg[1]) is int and type_(leg[2]) is str


def fingerprint(request: object) -> str:
    """SHA-256 of a request, to tell a retry from a reuse of an idempotency key.

    Lenient on purpose (floats, odd types): it runs before validation, on what the client sent.
    """
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()

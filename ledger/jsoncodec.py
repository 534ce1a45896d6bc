"""JSON text in and out of the ledger's hot paths, by orjson, with the standard library's exact
result kept for what orjson does not take.

``canonical(value)`` is the ledger's canonical JSON (sorted keys, no whitespace, non-ASCII
as is): the text its hashes are computed over, so it must never change by a byte. orjson
writes the same text as ``json.dumps(sort_keys=True, separators=(",", ":"),
ensure_ascii=False)`` eight times faster (a coup's hash chain spent half its time there;
issue 11); for what orjson refuses (integers beyond 64 bits, lone surrogates, nesting
deeper than 255, keys that are not text) the standard library writes the text instead, so
the result and the errors are the standard library's. ``tests/unit/test_ledger_jsoncodec.py``
checks the two agree on generated values.

``loads(text)`` decodes JSON text. Bytes (the database's own text of a jsonb column, as
``JsonbBytesLoader`` hands it over) go to orjson, two to three times faster than the standard
library's scanner on event data, unless they hold a run of 19 digits or more: orjson reads an
integer beyond 64 bits as a float, without a word, and a float in ledger data no longer
hashes as the integer it was (verify would report the event as altered). Every integer of 18
digits or fewer fits 64 bits, so the check is exact; it is one ``bytes.translate`` (half a
microsecond an event, where a regular expression took six). Those, whatever orjson refuses,
and ``str`` go to the standard library (its C scanner called directly, a third faster than
``json.loads``), so its values and errors are the ones returned and raised.
"""

import json

import orjson
from psycopg.adapt import Loader

_SORTED = orjson.OPT_SORT_KEYS
_standard = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def canonical(value: object) -> str:
    """Canonical JSON text of ``value`` (dicts, lists, tuples, str, int, bool, None). Raises
    ``TypeError`` or ``ValueError`` as ``json.dumps`` does for what it cannot write (the
    caller checks for floats first: ``ledger.hashing.reject_floats``)."""
    try:
        return orjson.dumps(value, option=_SORTED).decode()
    except TypeError:  # orjson.JSONEncodeError is one: beyond 64 bits, surrogates, depth
        return _standard(value)


_scan = json.JSONDecoder().scan_once
_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))  # digit: "0"; else " "
_WIDE = b"0" * 19  # the shortest run of digits that may not fit 64 bits (2**63 has 19)


def loads(text: str | bytes) -> object:
    """The value of JSON ``text`` (the whole text must be one value); raises
    ``json.JSONDecodeError`` (a ``ValueError``) if it is not JSON."""
    if type(text) is bytes:
        if _WIDE not in text.translate(_DIGITS):
            try:
                return orjson.loads(text)
            except orjson.JSONDecodeError:  # NaN, 1e400, a lone surrogate, nesting past 1024
                pass
        return json.loads(text)
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        end = -1
    return value if end == len(text) else json.loads(text)  # json.loads raises the error


class JsonbBytesLoader(Loader):
    """psycopg loader of a jsonb column as its text's bytes, for ``loads``: register it on a
    cursor (``cursor.adapters.register_loader("jsonb", JsonbBytesLoader)``) that reads event
    data in bulk (Django's own loader gives ``str``, which orjson would encode again)."""

    def load(self, data) -> bytes:
        return bytes(data)

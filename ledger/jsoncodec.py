"""JSON text in and out of the ledger's hot paths, by orjson, with the standard library's exact
result kept for what orjson does not take.

``canonical(value, plain=...)`` is the ledger's canonical JSON (sorted keys, no whitespace,
non-ASCII as is): the text its hashes are computed over, so it must never change by a byte.
For plain values (exact built-in types, as ``reject_floats`` reports and as data read from a
JSON column is) orjson writes the same text as ``json.dumps(sort_keys=True,
separators=(",", ":"), ensure_ascii=False)`` eight times faster (a coup's hash chain spent half
its time there). Everything else, and what orjson refuses (integers beyond 64 bits,
lone surrogates, nesting deeper than 255), the standard library writes, so the result and the
errors are always the standard library's. ``tests/unit/test_ledger_jsoncodec.py`` checks the
two agree on generated values.

``loads(text)`` decodes JSON text. Bytes (the database's own text of a jsonb column, as
``JsonbBytesLoader`` hands it over) go to orjson, two to three times faster than the standard
library's scanner on event data, unless they hold a run of 19 digits or more: orjson reads an
integer beyond 64 bits as a float, without a word, and a float in ledger data no longer
hashes as the integer it was (verify would report the event as altered). Every integer of 18
digits or fewer fits 64 bits, so the check is exact; it is one ``bytes.translate`` (half a
microsecond an event, where a regular expression took six). Those, whatever orjson refuses,
and ``str`` go to the standard library (its C scanner called directly, a third faster than
``json.loads``), so its values and errors are the ones returned and raised. (One difference
is left: orjson reads arrays nested 1,000 to 1,024 deep, where the standard library stops at
its recursion limit; ``canonical`` refuses such depth first, so no event holds it.)
"""

import json

import orjson
from psycopg.adapt import Loader

# Plain values only reach orjson (``canonical``); should a subclass, a dataclass or a datetime
# slip in all the same, ``_refuse`` sends the whole value to the standard library.
_OPTIONS = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_standard = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode


def _refuse(value: object):
    raise TypeError(f"{type(value).__name__}: written by the standard library")


def canonical(value: object, *, plain: bool = False) -> str:
    """Canonical JSON text of ``value``: what ``json.dumps`` with the canonical settings writes,
    and its ``TypeError`` or ``ValueError`` for what it cannot write. ``plain``: the caller knows
    ``value`` is built of exact dict, list, tuple, str, int, bool and None only
    (``ledger.hashing.reject_floats`` tells, and data read from a JSON column is), which orjson
    writes the same; anything else goes to the standard library (orjson writes an Enum member
    by its value where the standard library writes its int or str, and reads a container's
    storage where the standard library calls its items() and __iter__)."""
    if plain:
        try:
            return orjson.dumps(value, default=_refuse, option=_OPTIONS).decode()
        except TypeError:  # orjson.JSONEncodeError is one: beyond 64 bits, surrogates, depth
            pass
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

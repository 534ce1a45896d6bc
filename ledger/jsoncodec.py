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

``loads(text)`` decodes JSON text with the standard library's C scanner, called directly (a
third faster than ``json.loads``). Not orjson: it reads an integer beyond 64 bits as a float,
without a word, and a float in ledger data no longer hashes as the integer it was (verify
would report the event as altered); spotting such integers in the text first cost more than
orjson saved.
"""

import json

import orjson

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


def loads(text: str) -> object:
    """The value of JSON ``text`` (the whole text must be one value); raises
    ``json.JSONDecodeError`` (a ``ValueError``) if it is not JSON."""
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        end = -1
    return value if end == len(text) else json.loads(text)  # json.loads raises the error

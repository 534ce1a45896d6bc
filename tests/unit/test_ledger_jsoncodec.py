"""``ledger.jsoncodec``: orjson's text is the standard library's canonical text, byte for byte,
and what orjson refuses still gives the standard library's result or error; ``loads`` reads
integers beyond 64 bits as integers."""

import collections
import enum
import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.hashing import reject_floats
from ledger.jsoncodec import canonical, loads


def _standard(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# Every code point but the surrogates (orjson refuses those; tested apart): quotes,
# backslashes, the C0 controls, DEL, U+2028/2029, the BOM, non-BMP characters.
characters = st.characters(codec="utf-8")
text = st.text(characters, max_size=16)
keys = st.text(characters, max_size=6)  # short keys collide and sort against each other
integers = st.integers(min_value=-(2**63), max_value=2**64 - 1)  # orjson's own range
json_values = st.recursive(
    st.none() | st.booleans() | integers | text,
    lambda children: (
        st.lists(children, max_size=5) | st.tuples(children, children) | st.dictionaries(keys, children, max_size=6)
    ),
    max_leaves=30,
)


@settings(max_examples=1500, deadline=None)
@given(json_values)
def test_canonical_is_the_standard_librarys_text(value):
    assert canonical(value, plain=True) == _standard(value)


def _typed(value) -> str:
    """``value`` written so that types count: 1, 1.0 and True differ (``==`` says they do not)."""
    return json.dumps(value, sort_keys=True)


wide_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | text,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(keys, children, max_size=6),
    max_leaves=30,
)


@settings(max_examples=800, deadline=None)
@given(wide_values)
def test_loads_gives_back_the_value_of_the_text_with_its_types(value):
    compact = _standard(value)
    spaced = json.dumps(value, ensure_ascii=False)  # PostgreSQL's jsonb text: ': ' and ', '
    for text in (compact, spaced, compact.encode(), spaced.encode()):  # str: scanner; bytes: orjson
        assert _typed(loads(text)) == _typed(value)


@pytest.mark.parametrize(
    "value",
    [
        {"n": 2**64},  # beyond orjson's integers
        {"n": -(2**63) - 1},
        [10**200, -(10**200)],
        {"s": "lone \ud800 surrogate"},  # orjson refuses it; the standard library writes it
        {"\udfff": 1},
        {"é": 1, "e": 2, "É": 3, "😀": 4, "\uffff": 5, "𐀀": 6, "\x00": 7, "": 8},
        {"ctl": "".join(map(chr, range(0x20))) + "\x7f\u2028\u2029\ufeff"},
        {"a": {"z": [1, {"y": None, "b": True}], "a": False}},
    ],
)
def test_values_orjson_refuses_or_that_sort_subtly_give_the_standard_text(value):
    assert canonical(value, plain=True) == _standard(value)


def test_nesting_deeper_than_orjson_takes_gives_the_standard_text():
    value: object = 1
    for _ in range(300):  # orjson stops at 255 levels
        value = [value]
    assert canonical(value, plain=True) == _standard(value)


def test_what_the_standard_library_cannot_write_raises_its_error():
    deep: object = 1
    for _ in range(sys.getrecursionlimit() + 10):
        deep = {"d": deep}
    with pytest.raises(RecursionError):
        canonical(deep, plain=True)
    with pytest.raises(ValueError):
        canonical({"n": 10**5000}, plain=True)  # more digits than int's str conversion allows
    # and what it writes, it writes (ledger.hashing.reject_floats refuses such keys first)
    assert canonical({1: "a key that is not text"}, plain=True) == _standard({1: "a key that is not text"})


@pytest.mark.parametrize(
    "text",
    [
        "[18446744073709551616]",  # orjson alone reads these as floats
        '{"n": -9223372036854775809}',
        "[123456789012345678901234567890]",
        "[" + "9" * 400 + "]",
        '{"s": "1234567890123456789", "n": 18446744073709551615}',
        "[1000000000000000000, -999999999999999999]",  # 19 and 18 digits, both fit
    ],
)
@pytest.mark.parametrize("kind", [str, bytes])
def test_integers_beyond_64_bits_are_read_as_integers(text, kind):
    got = loads(text if kind is str else text.encode())
    assert _typed(got) == _typed(json.loads(text))
    assert "." not in _typed(got) and "e+" not in _typed(got)


@pytest.mark.parametrize(
    "text",
    ["NaN", "[1e400]", '"\\ud800"', '["\\udfff", 1]', "[" * 900 + "]" * 900, '{"a": 1, "a": 2}', " [1] "],
)
def test_what_orjson_refuses_reads_as_the_standard_library_reads_it(text):
    expected = repr(json.loads(text))
    assert repr(loads(text.encode())) == expected
    assert repr(loads(text)) == expected


def test_nesting_deeper_than_the_standard_library_reads_raises_its_error():
    text = "[" * 5000 + "]" * 5000  # orjson stops at 1024 levels, the standard library at its recursion limit
    for form in (text, text.encode()):
        with pytest.raises(RecursionError):
            loads(form)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "nul", '{"a" 1}'])
@pytest.mark.parametrize("kind", [str, bytes])
def test_text_that_is_not_json_raises_the_standard_error(text, kind):
    with pytest.raises(json.JSONDecodeError):
        loads(text if kind is str else text.encode())


class _Five(enum.IntEnum):
    """An Enum whose value is not its int: orjson writes the value, the standard library the int."""

    A = 5

    def __new__(cls, number):
        member = int.__new__(cls, number)
        member._value_ = "five"
        return member


class _Last(dict):
    """A dict whose items() are not its storage (as Django's QueryDict, whose items() give each
    key's last value)."""

    def items(self):
        return [(key, values[-1]) for key, values in super().items()]


@pytest.mark.parametrize(
    "value",
    [
        {"a": _Five.A},
        _Last(a=[1.5, 2]),  # the float is in its storage only: neither the check nor the text sees it
        collections.OrderedDict([("b", 1), ("a", 2)]),
        {"s": type("S", (str,), {})("text")},
        [type("L", (list,), {"__iter__": lambda self: iter([9])})([1, 2])],
    ],
    ids=["enum value not its int", "items() not storage", "OrderedDict", "str subclass", "list __iter__"],
)
def test_values_holding_a_subclass_are_not_plain_and_get_the_standard_text(value):
    assert reject_floats(value) is False
    assert canonical(value, plain=reject_floats(value)) == _standard(value)


@settings(max_examples=300, deadline=None)
@given(json_values)
def test_values_of_exact_built_in_types_are_plain(value):
    assert reject_floats(value) is True

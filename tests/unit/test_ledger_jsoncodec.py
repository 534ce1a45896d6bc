"""``ledger.jsoncodec``: orjson's text is the standard library's canonical text, byte for byte,
for every value ``reject_floats`` lets through (enums, subclasses, containers whose iteration is
overridden, edge integers, lone surrogates, deep nesting), and what orjson refuses still gives
the standard library's result or error; ``loads`` gives json.loads' values, types and errors and
reads integers beyond 64 bits as integers."""

import collections
import enum
import json
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.hashing import canonical_json, reject_floats
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


# --- odd values the ledger accepts: enums, subclasses, overridden iteration, edges, depths --------


class _Int(enum.IntEnum):
    A = 1


class _Str(enum.StrEnum):
    A = "x"


class _StrValueDiffers(enum.StrEnum):
    def __new__(cls, text, label):
        member = str.__new__(cls, text)
        member._value_ = label
        return member

    A = ("text", "label")


class _IntValueDiffers(int, enum.Enum):
    def __new__(cls, number, label):
        member = int.__new__(cls, number)
        member._value_ = label
        return member

    A = (5, "five")


class _Flag(enum.IntFlag):
    R = 1
    W = 2


class _StrOtherStr(str):
    def __str__(self):
        return "other"


class _IntOtherRepr(int):
    def __repr__(self):
        return "999"


class _KeysOverridden(dict):
    def keys(self):
        return ["zz"]

    def __iter__(self):
        return iter(["zz"])


class _LenOverridden(list):
    def __len__(self):
        return 0


class _TupleIter(tuple):
    def __iter__(self):
        return iter(["fake"])


_Pair = collections.namedtuple("_Pair", "a b")


def _nested(depth: int, leaf: object = 1, kind: str = "list") -> object:
    value = leaf
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


ACCEPTED_ODD_VALUES = {
    "int enum": {"a": _Int.A},
    "str enum": {"a": _Str.A},
    "str enum whose value differs": {"a": _StrValueDiffers.A},
    "int enum whose value differs": {"a": _IntValueDiffers.A},
    "int flag": [_Flag.R | _Flag.W, _Flag.R],
    "str subclass with __str__": {"a": _StrOtherStr("abc")},
    "int subclass with __repr__": {"a": _IntOtherRepr(7)},
    "enum and str-subclass keys": {_Str.A: 1, _StrOtherStr("k"): 2},
    "bools": [True, False, None],
    "dict keys/__iter__ overridden": _KeysOverridden(a=1),
    "list __len__ overridden": _LenOverridden([1, 2]),
    "tuple __iter__ overridden": _TupleIter((1, 2)),
    "namedtuple": _Pair(1, 2),
    "OrderedDict": collections.OrderedDict([("b", 1), ("a", 2)]),
    "defaultdict": collections.defaultdict(int, {"b": 1, "a": 2}),
    "Counter": collections.Counter("abca"),
    "edge ints": [2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 0, -0, 10**4000],
    "controls and separators": [
        "".join(map(chr, range(0x20))) + "\x7f\x80\x9f\u2028\u2029\ufeff\ufffe\uffff\U0010ffff"
    ],
    "lone surrogates": ["\ud800", "a\udfffb", {"\udbff": "\udc00\ud800"}],
    "empties": [{}, [], (), "", {"": ""}],
    "keys sorting by code point": {"a": 1, "B": 2, "é": 3, "😀": 4, "\uffff": 5, "\U00010000": 6, "\x00": 7, "": 8},
    "list depth 254": _nested(254),
    "list depth 255": _nested(255),
    "list depth 256": _nested(256),
    "dict depth 255": _nested(255, kind="dict"),
    "dict depth 256": _nested(256, kind="dict"),
    "depth 600": _nested(600, leaf={"s": "\ud800", "n": 2**70}),
}


@pytest.mark.parametrize("name", ACCEPTED_ODD_VALUES)
def test_canonical_of_each_odd_value_the_ledger_accepts_is_the_standard_text(name):
    value = ACCEPTED_ODD_VALUES[name]
    plain = reject_floats(value)  # the ledger accepts it, and says whether orjson may write it
    assert canonical(value, plain=plain) == _standard(value)


# orjson reads a dict subclass's storage, the standard library (and reject_floats) call its
# items(). Django's MultiValueDict/QueryDict (request.POST, request.query_params) keep lists
# internally and give the last value from items(): such values are not plain, so canonical()
# leaves them to the standard library and writes the document json.dumps writes.
class _ItemsOverridden(dict):
    def items(self):
        return [("k", "shown")]


class _IterOverridden(list):
    def __iter__(self):
        return iter(["shown"])


def _query_dict():
    from django.http import QueryDict

    return QueryDict("a=1&a=2&b=3")


@pytest.mark.parametrize(
    "make",
    [lambda: _ItemsOverridden(a=1), lambda: _IterOverridden([1, 2]), _query_dict],
    ids=["dict items() overridden", "list __iter__ overridden", "QueryDict"],
)
def test_canonical_of_a_container_whose_iteration_is_overridden_is_the_standard_text(make, settings):
    value = make()
    assert reject_floats(value) is False
    assert canonical(value, plain=reject_floats(value)) == _standard(value)  # not orjson's text of the storage


def test_reject_floats_and_canonical_see_the_same_values(settings):
    # reject_floats walks items()/__iter__; orjson would write the storage, so a float hidden in a
    # MultiValueDict's list (or behind an overridden items()/__iter__) would pass the check and be
    # written and hashed. Such values are not plain (ledger/jsoncodec.py, canonical's ``plain``):
    # the standard library writes them through the same items() and __iter__ the check walked,
    # so the float it never sees is never written either.
    from django.utils.datastructures import MultiValueDict

    for value in (MultiValueDict({"amount_cents": [1e16, 500]}), _IterOverridden([0.5])):
        text = canonical_json(value)
        assert text == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert "1e16" not in text and "0.5" not in text, text


# --- loads ---------------------------------------------------------------------------------------

TEXTS = [
    b"1e5", b"1.0", b"-0", b"-0.0", b"0e0", b"-0e0", b"1E400", b"-1E400", b"1e-400", b"1.7976931348623157e308",
    b"1.7976931348623159e308", b"4.9406564584124654e-324", b"2.4703282292062328e-324", b"2.2250738585072011e-308",
    b"9007199254740993.0", b"123456789012345678", b"-123456789012345678", b"999999999999999999",
    b"9223372036854775807", b"9223372036854775808", b"18446744073709551615", b"18446744073709551616",
    b"-9223372036854775808", b"-9223372036854775809", b"1" + b"0" * 400, b"1.00000000000000000",
    b"0.1", b"1e22", b"1e23",
    b'"\\u0000"', b'"\\ud800"', b'"\\ud800\\udc00"', b'"\\udc00\\ud800"', b'"\\/"', b'"\x7f"', b'"\xed\xa0\x80"',
    b'"\\u2028\xe2\x80\xa9"', b'{"a":1,"a":2}', b'{"a":1,"b":2,"a":3}', b" 1 ", b"\t[1]\r\n", b"\xef\xbb\xbf{}",
    b'{"big": 12345678901234567890, "small": 1}', b'{"a": "1234567890123456789", "n": 1.5}', b"[1e5, 100000, 1.0]",
    b"[" * 900 + b"]" * 900,
]  # fmt: skip
BAD = [
    b"NaN",
    b"Infinity",
    b"[1,]",
    b"01",
    b"1.",
    b".5",
    b"+1",
    b"1e",
    b'"\t"',
    b'"a\x00"',
    b"",
    b"1 2",
    b"[1] x",
    b"\x0c1",
]


def _typed_or_repr(value) -> str:
    """As ``_typed``, and a float as its repr (a bare float at the top level counts too)."""
    return repr(value) if isinstance(value, float) else json.dumps(value, sort_keys=True)


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_loads_of_edge_numbers_and_strings_gives_json_loads_values_and_types(text):
    assert _typed_or_repr(loads(text)) == _typed_or_repr(json.loads(text))
    as_str = text.decode("utf-8", "surrogatepass")
    try:
        expected = _typed_or_repr(json.loads(as_str))
    except ValueError as exc:  # a BOM: json.loads refuses it in a str
        with pytest.raises(type(exc)):
            loads(as_str)
    else:
        assert _typed_or_repr(loads(as_str)) == expected


@pytest.mark.parametrize("text", BAD, ids=range(len(BAD)))
def test_loads_refuses_what_json_loads_refuses(text):
    try:
        expected = _typed_or_repr(json.loads(text))
    except ValueError as exc:
        with pytest.raises(type(exc)):
            loads(text)
        with pytest.raises(type(exc)):
            loads(text.decode("utf-8", "surrogatepass"))
    else:  # NaN, Infinity: accepted by both
        assert _typed_or_repr(loads(text)) == expected


def test_loads_of_nesting_json_loads_cannot_read_raises_as_it_does():
    # 1000 to 1024 levels are read by orjson from bytes, while json.loads (and loads of the same
    # text as str, the SQLite path) raise RecursionError. canonical() refuses that depth first,
    # so such data cannot be appended.
    text = b"[" * 1010 + b"]" * 1010
    with pytest.raises(RecursionError):
        json.loads(text)
    with pytest.raises(RecursionError):
        loads(text.decode())
    loads(text)  # orjson reads it from bytes

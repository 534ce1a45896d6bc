"""Event data written, verified, read back by the projections, rebuilt and exported keeps its
values and types (``ledger.jsoncodec``: orjson, with the standard library where orjson would
read an integer beyond 64 bits as a float, or write a subclass's storage rather than what it
shows): big integers, enums, dict and list subclasses, odd text, deep nesting; a float hidden
in a MultiValueDict never reaches the ledger."""

import collections
import enum
import json

import pytest
from django.core.management import call_command
from django.db import transaction

from ledger import projections, store
from ledger.hashing import canonical_json
from ledger.models import AuditEntry, Event
from ledger.projections import Batch
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain
from tests.conftest import ACTOR

DATA = [
    {"n": 10**30, "m": -(2**63) - 1, "edge": 2**64, "i64": -(2**63), "u64": 2**64 - 1},
    {"big": [10**400], "text": "1234567890123456789 in a string", "nested": {"deep": [[[-(10**19)]]]}},
    {"s": 'é 😀 \u2028 \x7f \x01 "quoted" \\back', "é": 1, "e": 2, "": None, "t": True, "f": False},
    {"plain": 42, "cents": -500, "list": [1, 2, 3]},
]


@pytest.mark.django_db
@pytest.mark.parametrize("size", [1, 500])  # JSON document write; COPY
def test_data_round_trips_through_append_verify_and_the_projections(size):
    events = [NewEvent("Tested", DATA[i % len(DATA)], [Leg("a", 100), Leg("b", -100)]) for i in range(size)]
    with transaction.atomic():
        saved = append(stream="t/json", expected_version=0, events=events, actor="t")
    assert len(saved) == size

    result = verify_chain()
    assert (result.ok, result.checked) == (True, size), result

    read = Batch(after=0, upto=size).events
    assert [e["data"] for e in read] == [e.data for e in events]
    for got, sent in zip(read, events, strict=True):
        # ints stay ints: == would take the float 1e30 for 10**30; jsonb reorders keys
        assert json.dumps(got["data"], sort_keys=True) == json.dumps(sent.data, sort_keys=True)


ODD_DATA = [
    {"data": {"data": 1}, "postings": [["x", 1, "EUR"]], "prev_hash": "0" * 64},
    {"\u2028": "\u2029", "q": 'a"b\\c/d', "ctl": "\x01\x1f\x7f", "é": "ü", "🎰": "\U0001f3b0"},
    {"big": 2**80, "neg": -(2**80), "max": 2**63 - 1, "min": -(2**63), "over": 2**63, "deep": [[[[{"a": []}]]]]},
    {"": "", " ": " ", "a b": None, "true": True, "1": 1, "-0": 0, "1e5": "1e5"},
    {"\ud7ff": 1, "\ue000": 2, "\uffff": 3, "\U00010000": 4},  # UTF-16 and code point orders differ
    {"k": "x" * 10_000},
    {"t": (1, 2, (3,))},
]


@pytest.mark.django_db
@pytest.mark.parametrize("data", ODD_DATA, ids=[str(i) for i in range(len(ODD_DATA))])
def test_store_append_of_odd_data_verifies(data):
    with transaction.atomic():
        store.append(stream="odd/data", expected_version=0, events=[NewEvent("Odd", data)], actor=ACTOR)
    with transaction.atomic():  # two events: the COPY path on PostgreSQL
        store.append(
            stream="odd/data",
            expected_version=1,
            events=[
                NewEvent("Odd", data, postings=[Leg("a", 1, "EUR"), Leg("b", -1, "EUR")]),
                NewEvent("Odd", {"wrap": data}),
            ],
            actor=ACTOR,
            idempotency_key="clé \u2028 \"'\\",
        )
    result = verify_chain()
    assert result.ok, result
    stored = list(Event.objects.filter(stream="odd/data").order_by("position").values_list("data", flat=True))
    normal = canonical_json(data)
    assert [canonical_json(d) for d in stored] == [normal, normal, canonical_json({"wrap": data})]


# --- enums, subclasses, edges and depths, end to end: append, verify, read, rebuild, export ------


class _Kind(enum.IntEnum):
    A = 7


class _Label(enum.StrEnum):
    X = "x-label"


def _nested(depth: int, leaf: object = 1) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


ODD_EVENT_DATA = [
    {"n": 2**63, "m": 2**64 - 1, "o": -(2**63), "p": -(2**63) - 1, "q": 2**64, "r": 10**300},
    {"kind": _Kind.A, "label": _Label.X, _Label.X: "enum key", "ordered": collections.OrderedDict(b=1, a=2)},
    {"counter": collections.Counter("abca"), "dd": collections.defaultdict(int, z=1), "t": (1, (2, 3), ())},
    {"s": '\u2028\u2029\x7f\x01\x1f\ufeff\ufffe\uffff\U0010ffff é 😀 "q" \\b \t\n', "": "", "é": {}, "E": []},
    {"deep254": _nested(254), "deep256": _nested(256, {"k": "v"}), "deep400": _nested(400)},
    {"patron": "P-ODD", "table": "T\u2028", "round": "R" * 64, "amount_cents": 1_000_000_000_000_000_000},
]


def _odd_events() -> list[NewEvent]:
    return [
        NewEvent("OddData", data, [Leg("odd:a", 100 + i), Leg("odd:b", -100 - i)])
        for i, data in enumerate(ODD_EVENT_DATA)
    ]


def _plain(value) -> str:
    """Types count (1, 1.0 and True differ); enums and subclasses written as the standard library does."""
    return json.dumps(value, sort_keys=True)


@pytest.mark.django_db
def test_odd_data_appends_verifies_and_reads_back_the_same_after_a_rebuild(django_db_blocker):
    with transaction.atomic():
        append(stream="odd/values", expected_version=0, actor="t", events=_odd_events())
    result = verify_chain()
    assert (result.ok, result.checked) == (True, len(ODD_EVENT_DATA)), result
    read = Batch(after=0, upto=len(ODD_EVENT_DATA)).events
    assert [_plain(e["data"]) for e in read] == [_plain(d) for d in ODD_EVENT_DATA]
    assert [_plain(e.data) for e in Event.objects.order_by("position")] == [_plain(d) for d in ODD_EVENT_DATA]
    projections.rebuild()
    projections.catch_up_all()
    assert AuditEntry.objects.filter(patron="P-ODD").count() == 1
    assert verify_chain().ok


# reject_floats walks a dict subclass through items() (a list subclass through __iter__); orjson
# would write what the object stores. Django's MultiValueDict (QueryDict: request.POST,
# request.query_params) stores lists and shows the last value, so a float in the list would pass
# append's check and be hashed as orjson writes it ("1e16"): PostgreSQL would store the jsonb
# number 10000000000000000 and verify report the event as altered; SQLite would keep the float.
# ledger/store.py (_checked) and ledger/jsoncodec.py (canonical's ``plain``) prevent both.
@pytest.mark.django_db
def test_a_float_hidden_in_a_multivaluedict_is_refused_or_the_chain_still_verifies():
    from django.utils.datastructures import MultiValueDict

    from ledger.errors import InvalidInput

    data = MultiValueDict({"amount_cents": [1e16, 500]})
    try:
        with transaction.atomic():
            append(stream="hidden/float", expected_version=0, actor="t", events=[NewEvent("Hidden", data, [])])
    except InvalidInput:
        return  # refused: what the ledger promises for floats
    stored = Event.objects.get(stream="hidden/float").data
    result = verify_chain()
    assert result.ok, result  # not "altered" at position 1 (PostgreSQL)
    # ledger/store.py (_checked): data holding a subclass is stored and hashed as the standard
    # library reads it, through items(), the values reject_floats checked: no float in the ledger.
    assert stored == {"amount_cents": 500}, stored


@pytest.mark.django_db
def test_a_querydict_is_stored_as_the_standard_library_writes_it():
    # A QueryDict's items() give {"a":"2"}; orjson would write and hash its storage
    # ({"a":["1","2"]}): PostgreSQL would store that text (the data silently changed), SQLite's
    # bulk_create Django's json.dumps text under a hash of the other, and verify_chain would
    # report the fresh event as altered. The standard library's text is stored and hashed.
    from django.http import QueryDict

    with transaction.atomic():
        append(stream="query/dict", expected_version=0, actor="t", events=[NewEvent("Query", QueryDict("a=1&a=2"), [])])
    assert Event.objects.get(stream="query/dict").data == {"a": "2"}
    assert verify_chain().ok


@pytest.mark.django_db
def test_the_export_of_a_day_with_odd_data_verifies(tmp_path):
    from ledger.export.verify_export import verify
    from ledger.export.writer import export_to_dir
    from ledger.gaming_day import current_gaming_day
    from ledger.seal import seal_gaming_day

    with transaction.atomic():
        append(stream="odd/export", expected_version=0, actor="t", events=_odd_events())
    day = current_gaming_day()
    seal_gaming_day(day=day, actor="auditor1")
    export_to_dir(day, tmp_path / "x")
    report = verify(str(tmp_path / "x"))
    assert report.ok, report.message
    call_command("verify_export", str(tmp_path / "x"))

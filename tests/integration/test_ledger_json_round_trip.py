"""Event data written, verified and read back by the projections keeps its values and types
(``ledger.jsoncodec``: orjson, with the standard library where orjson would read an integer
beyond 64 bits as a float)."""

import json

import pytest
from django.db import transaction

from ledger import store
from ledger.hashing import canonical_json
from ledger.models import Event
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

"""Event data written, verified and read back by the projections keeps its values and types
(``ledger.jsoncodec``: orjson, with the standard library where orjson would read an integer
beyond 64 bits as a float)."""

import json

import pytest
from django.db import transaction

from ledger.projections import Batch
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain

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

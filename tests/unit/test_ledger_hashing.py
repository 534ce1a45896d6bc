"""ledger.hashing.event_hash_and_data assembles the hashed text from its parts; it must
give, character for character, the canonical JSON of the whole document that DESIGN.md §The
ledger defines and that ``verify_export.py`` recomputes, for every input, and refuse what that
refuses."""

import hashlib
import json
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.hashing import canonical_json, event_hash, event_hash_and_data, iso_utc

text = st.text(st.characters(codec="utf-8"), max_size=12)  # quotes, backslashes, controls, non-ASCII
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)
moments = st.datetimes(
    min_value=datetime(2000, 1, 1),
    max_value=datetime(2100, 1, 1),
    timezones=st.sampled_from([UTC, timezone(timedelta(hours=2))]),
)
legs = st.lists(st.tuples(text, st.integers(min_value=-(10**12), max_value=10**12), text), max_size=4)


def _standard(value) -> str:
    """Canonical JSON as defined (DESIGN.md §The ledger), by the standard library."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _reference(fields: dict) -> tuple[str, str]:
    """The definition: canonical JSON of the whole document, by the standard library."""
    document = {
        **{k: v for k, v in fields.items() if k not in ("postings", "stored")},
        "occurred_at": iso_utc(fields["occurred_at"]),
        "recorded_at": iso_utc(fields["recorded_at"]),
        "gaming_day": fields["gaming_day"].isoformat(),
        "postings": sorted([list(p) for p in fields["postings"]]),
    }
    return hashlib.sha256(_standard(document).encode()).hexdigest(), _standard(fields["data"])


@st.composite
def envelopes(draw, scalar=text):
    occurred = draw(moments)
    return dict(
        position=draw(st.integers(min_value=1, max_value=2**62)),
        stream=draw(scalar),
        version=draw(st.integers(min_value=1, max_value=2**31)),
        type=draw(scalar),
        schema_version=draw(st.integers(min_value=0, max_value=9)),
        data=draw(json_values),
        occurred_at=occurred,
        recorded_at=draw(st.just(occurred) | moments),
        gaming_day=draw(st.dates()),
        actor=draw(scalar),
        correlation_id=draw(scalar),
        causation_id=draw(scalar),
        idempotency_key=draw(st.none() | scalar),
        prev_hash=draw(st.just("0" * 64) | scalar),
        postings=draw(legs),
    )


@settings(max_examples=400, deadline=None)
@given(envelopes())
def test_assembled_text_is_the_canonical_document(fields):
    try:
        expected = _reference(fields)
    except UnicodeEncodeError:  # a lone surrogate: neither path can hash it
        with pytest.raises(UnicodeEncodeError):
            event_hash_and_data(**fields)
        return
    assert event_hash_and_data(**fields) == expected
    assert event_hash(**fields) == expected[0]
    assert event_hash(**fields, stored=True) == expected[0]


# Values of other types in the envelope take the whole-document path: same text, same refusals.
odd = st.none() | st.booleans() | st.integers() | text | st.lists(st.integers(), max_size=2)


@settings(max_examples=300, deadline=None)
@given(envelopes(scalar=odd))
def test_envelope_values_of_other_types_hash_as_the_document(fields):
    try:
        expected = _reference(fields)
    except (UnicodeEncodeError, TypeError) as exc:
        with pytest.raises(type(exc)):
            event_hash_and_data(**fields)
        return
    assert event_hash_and_data(**fields) == expected


def _example(**overrides) -> dict:
    moment = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    fields = dict(
        position=7, stream="round/1", version=1, type="BetSettled", schema_version=1,
        data={"stake_cents": 500, "b": [1, "é\"\\\n"]}, occurred_at=moment, recorded_at=moment,
        gaming_day=date(2026, 11, 29), actor="dealer", correlation_id="c", causation_id="",
        idempotency_key=None, prev_hash="0" * 64,
        postings=[("table:T1:tray", 500, "EUR"), ("patron:P1:chips", -500, "EUR")],
    )  # fmt: skip
    return {**fields, **overrides}


def test_a_known_event_hashes_to_its_recorded_value():
    """Pinned (computed by the whole-document code, before the text was assembled from parts): a change to the
    text would orphan every hash already in a ledger."""
    hash_, data_text = event_hash_and_data(**_example())
    assert data_text == '{"b":[1,"é\\"\\\\\\n"],"stake_cents":500}'
    assert canonical_json(json.loads(_DOCUMENT)) == _DOCUMENT
    assert hash_ == hashlib.sha256(_DOCUMENT.encode()).hexdigest()
    assert hash_ == "3a5950d016d031f85c25f9fe8c17013c87f40c1315dbfc4a3ed077b0ff4c2894"


_DOCUMENT = (
    '{"actor":"dealer","causation_id":"","correlation_id":"c","data":{"b":[1,"é\\"\\\\\\n"],"stake_cents":500},'
    '"gaming_day":"2026-11-29","idempotency_key":null,"occurred_at":"2026-11-30T05:00:00.000000+00:00",'
    '"position":7,"postings":[["patron:P1:chips",-500,"EUR"],["table:T1:tray",500,"EUR"]],'
    '"prev_hash":"' + "0" * 64 + '","recorded_at":"2026-11-30T05:00:00.000000+00:00","schema_version":1,'
    '"stream":"round/1","type":"BetSettled","version":1}'
)


@pytest.mark.parametrize(
    "overrides",
    [
        {"data": {"stake": 1.5}},
        {"data": {1: "integer key"}},
        {"data": {"when": date(2026, 1, 1)}},
        {"postings": [("a", 1.0, "EUR"), ("b", -1, "EUR")]},
        {"actor": 2.5},
    ],
)
def test_floats_and_other_types_are_refused(overrides):
    with pytest.raises(TypeError):
        event_hash_and_data(**_example(**overrides))


# Data that looks like the envelope around it (its keys, quotes, separators, escapes) does not
# change where the assembled text puts it: the hash is the whole document's.
_ENVELOPE_KEYS = st.sampled_from(
    ["data", "postings", "prev_hash", "actor", "type", "version", '"data":', "}", "\u2028", "\\", '"', "é", "\x7f"]
)
_odd_text = st.text(st.characters(codec="utf-8"), max_size=6) | _ENVELOPE_KEYS
_odd_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**200), max_value=2**200) | _odd_text,
    lambda c: st.lists(c, max_size=3) | st.tuples(c, c) | st.dictionaries(_odd_text, c, max_size=4),
    max_leaves=15,
)


def _reference_hash(fields: dict) -> str:
    """The whole document's hash, its text by ``canonical_json``."""
    document = {
        **{k: v for k, v in fields.items() if k != "postings"},
        "occurred_at": iso_utc(fields["occurred_at"]),
        "recorded_at": iso_utc(fields["recorded_at"]),
        "gaming_day": fields["gaming_day"].isoformat(),
        "postings": sorted([list(p) for p in fields["postings"]]),
    }
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


@settings(max_examples=300, deadline=None)
@given(data=_odd_values, stream=_odd_text, key=st.none() | _odd_text)
def test_envelope_looking_data_hashes_as_the_document(data, stream, key):
    moment = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    fields = dict(
        position=2**62, stream=stream, version=1, type="T", schema_version=1, data=data, occurred_at=moment,
        recorded_at=moment, gaming_day=date(2026, 11, 29), actor="a", correlation_id="", causation_id="",
        idempotency_key=key, prev_hash="0" * 64, postings=[("b", -(2**63), "EUR"), ("a", 2**63, "EUR")],
    )  # fmt: skip
    try:
        expected = _reference_hash(fields)
    except UnicodeEncodeError:
        return
    assert event_hash_and_data(**fields)[0] == expected

"""The append's write paths: PostgreSQL writes a batch as one JSON document a table in
one pipeline, and a large one (a roulette settlement) by COPY, the hash chain computed in both
while the postings are written; both must keep every rule of the contract. Run on SQLite too
(one path there: ``bulk_create``)."""

import pytest
from django.db import IntegrityError, transaction

from ledger import store
from ledger.errors import InvalidInput
from ledger.models import Event, Posting
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain

pytestmark = pytest.mark.django_db

SIZES = [1, 2, 50, store._COPY_FROM - 1, store._COPY_FROM, store._COPY_FROM + 7, 2 * store._COPY_CHUNK + 3]


def _events(n: int, start: int = 0) -> list[NewEvent]:
    return [
        NewEvent("Tested", {"i": start + i, "nested": {"cents": [1, 2]}}, [Leg("a", 100 + i), Leg("b", -100 - i)])
        for i in range(n)
    ]


@pytest.mark.parametrize("size", SIZES)
def test_a_batch_of_any_size_is_written_whole_and_chained(size):
    with transaction.atomic():
        first = append(stream="t/one", expected_version=0, events=_events(1), actor="tester")
    with transaction.atomic():
        saved = append(stream="t/batch", expected_version=0, events=_events(size, 1), actor="tester")
    assert [e.position for e in saved] == list(range(2, size + 2))
    assert [e.version for e in saved] == list(range(1, size + 1))
    assert saved[0].prev_hash == first[0].hash
    assert Event.objects.count() == size + 1 and Posting.objects.count() == 2 * (size + 1)
    last = Event.objects.get(position=size + 1)
    assert last.hash == saved[-1].hash and last.data == {"i": size, "nested": {"cents": [1, 2]}}
    assert sorted(last.postings.values_list("account", "amount_cents")) == [("a", 99 + size), ("b", -99 - size)]
    assert not saved[-1]._state.adding
    result = verify_chain()
    assert (result.ok, result.checked, result.head_hash) == (True, size + 1, saved[-1].hash)


# What COPY's text format escapes (backslash, tab, newline, carriage return) and its NULL marker.
ODD = "a\\b\tc\nd\re \\N \\. é"


@pytest.mark.parametrize("size", [2, store._COPY_FROM])
def test_texts_with_copys_special_characters_are_stored_as_given(size):
    from datetime import UTC, datetime, timedelta, timezone

    moment = datetime(2026, 11, 30, 5, 0, 0, 0, tzinfo=timezone(timedelta(hours=-3)))
    events = [
        NewEvent(f"Odd{ODD}", {"s": ODD, ODD: [ODD]}, [Leg(f"acc:{ODD}", 7), Leg("b", -7)], occurred_at=moment)
        for _ in range(size)
    ]
    with transaction.atomic():
        saved = append(stream=f"t/{ODD}", expected_version=0, events=events, actor=ODD, correlation_id=ODD,
                       causation_id=ODD, idempotency_key=ODD)  # fmt: skip
    stored = list(Event.objects.order_by("position"))
    assert [(e.stream, e.type, e.actor, e.correlation_id, e.causation_id) for e in stored] == [
        (f"t/{ODD}", f"Odd{ODD}", ODD, ODD, ODD)
    ] * size
    assert [e.idempotency_key for e in stored] == [ODD] + [None] * (size - 1)
    assert stored[-1].data == {"s": ODD, ODD: [ODD]} and stored[-1].hash == saved[-1].hash
    assert stored[0].occurred_at == moment and stored[0].occurred_at.astimezone(UTC).hour == 8
    assert Posting.objects.filter(account=f"acc:{ODD}").count() == size
    result = verify_chain()
    assert (result.ok, result.checked) == (True, size), result


@pytest.mark.parametrize("size", [1, 2, store._COPY_FROM])
def test_a_refused_row_writes_nothing_and_raises_djangos_integrity_error(size):
    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="tester", idempotency_key="key-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        append(stream="t/b", expected_version=0, events=_events(size), actor="tester", idempotency_key="key-1")
    assert Event.objects.count() == 1 and Posting.objects.count() == 2


def test_the_caller_keeps_its_work_when_the_append_fails_in_the_database():
    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="tester", idempotency_key="key-1")
        try:
            append(stream="t/b", expected_version=0, events=_events(3), actor="tester", idempotency_key="key-1")
        except IntegrityError:
            pass
        append(stream="t/c", expected_version=0, events=_events(2), actor="tester")
    assert list(Event.objects.values_list("stream", flat=True)) == ["t/a", "t/c", "t/c"]
    assert verify_chain().ok


def test_a_float_anywhere_in_the_data_is_refused_before_anything_is_written():
    events = _events(3) + [NewEvent("Tested", {"deep": [{"x": 1.5}]}, [Leg("a", 1), Leg("b", -1)])]
    with pytest.raises(InvalidInput, match="floats are not allowed") as err, transaction.atomic():
        append(stream="t/f", expected_version=0, events=events, actor="tester")
    assert err.value.field == "data" and Event.objects.count() == 0


def test_verify_reports_a_float_forged_into_stored_data_as_an_alteration():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("forging a row behind the triggers is shown on PostgreSQL")
    with transaction.atomic():
        (event,) = append(
            stream="t/v", expected_version=0, events=[NewEvent("Tested", {"cents": 1}, [])], actor="tester"
        )
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # ends with the test's transaction
        cursor.execute("UPDATE ledger_event SET data = '{\"cents\": 1.0}' WHERE position = %s", [event.position])
        cursor.execute("SET LOCAL session_replication_role = origin")
    result = verify_chain()
    assert (result.ok, result.first_bad_position) == (False, event.position)
    assert "altered" in result.reason


@pytest.mark.parametrize("size", [1, 50, store._COPY_FROM])
def test_text_that_cannot_be_hashed_is_refused_and_the_postings_already_sent_are_undone(size):
    """A lone surrogate passes the float check but not the hash (UTF-8 has no code for it): it
    is found after the postings went to the server (PostgreSQL), so the savepoint undoes them."""
    events = _events(size - 1) + [NewEvent("Tested", {"name": "\ud800"}, [Leg("a", 1), Leg("b", -1)])]
    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="tester")
        with pytest.raises(InvalidInput) as err:
            append(stream="t/s", expected_version=0, events=events, actor="tester")
        append(stream="t/c", expected_version=0, events=_events(2), actor="tester")
    assert err.value.field == "data"
    assert list(Event.objects.values_list("stream", flat=True)) == ["t/a", "t/c", "t/c"]
    assert Posting.objects.count() == 6 and verify_chain().ok


@pytest.mark.parametrize("size", [store._COPY_FROM - 1, store._COPY_FROM])
def test_a_settlement_sized_append_runs_without_garbage_collections_and_restarts_them(monkeypatch, size):
    import gc

    real, collecting = store.event_hash_and_data, []

    def watched(**fields):
        collecting.append(gc.isenabled())
        return real(**fields)

    monkeypatch.setattr(store, "event_hash_and_data", watched)
    assert gc.isenabled()
    with transaction.atomic():
        append(stream="t/gc", expected_version=0, events=_events(size), actor="tester")
    assert set(collecting) == {size < store._COPY_FROM}  # paused from the COPY size on
    assert gc.isenabled()


def test_the_collector_pause_restarts_collections_after_an_error_and_keeps_an_outer_pause():
    import gc

    with pytest.raises(ZeroDivisionError), store.collector_paused():
        assert not gc.isenabled()
        1 / 0  # noqa: B018
    assert gc.isenabled()
    gc.disable()
    try:
        with store.collector_paused():
            pass
        assert not gc.isenabled()  # paused by someone else before: left paused
    finally:
        gc.enable()


# A bulk append sends its rows a chunk at a time: the last event of the third chunk.
STREAMED = 2 * store._COPY_CHUNK + 3


@pytest.mark.parametrize("size", [3, STREAMED])
def test_a_float_in_a_late_chunk_is_refused_and_the_rows_already_sent_are_undone(size):
    """On PostgreSQL a bulk append has sent the earlier chunks' postings when it checks a later
    event: the refusal still leaves nothing of the append, and the caller's work stands."""
    events = _events(size - 1) + [NewEvent("Tested", {"deep": [{"x": 1.5}]}, [Leg("a", 1), Leg("b", -1)])]
    with transaction.atomic():
        append(stream="t/a", expected_version=0, events=_events(1), actor="tester")
        with pytest.raises(InvalidInput, match="floats are not allowed") as err:
            append(stream="t/f", expected_version=0, events=events, actor="tester", idempotency_key="k")
        append(stream="t/c", expected_version=0, events=_events(2), actor="tester")
    assert err.value.field == "data"
    assert list(Event.objects.values_list("stream", flat=True)) == ["t/a", "t/c", "t/c"]
    assert Posting.objects.count() == 6 and verify_chain().ok


@pytest.mark.parametrize("size", [3, STREAMED])
def test_postings_dated_on_a_closed_gaming_day_are_refused_in_a_batch_of_any_size(size):
    """The closed day is found once every chunk's postings were sent (PostgreSQL, bulk): the
    append is refused as a whole all the same, the day's close stays the last word."""
    from datetime import UTC, datetime

    from ledger.errors import StateConflict
    from ledger.gaming_day import current_gaming_day, gaming_day_stream

    moment = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)
    day = current_gaming_day(moment)
    with transaction.atomic():
        append(stream=gaming_day_stream(day), expected_version=0, events=[NewEvent("GamingDayClosed", {})],
               actor="tester")  # fmt: skip
    late = [NewEvent("Tested", {"i": i}, [Leg("a", 5), Leg("b", -5)]) for i in range(size - 1)]
    late.append(NewEvent("Tested", {"late": True}, [Leg("a", 5), Leg("b", -5)], occurred_at=moment))
    with pytest.raises(StateConflict, match=f"gaming day {day} is closed") as err, transaction.atomic():
        append(stream="t/late", expected_version=0, events=late, actor="tester")
    assert err.value.field == "gaming_day"
    assert Event.objects.count() == 1 and Posting.objects.count() == 0

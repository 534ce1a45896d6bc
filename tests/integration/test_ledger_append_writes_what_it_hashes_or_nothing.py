"""The append writes exactly what it hashed, or nothing, at both batch sizes (tip, lock and
savepoint in one pipeline with prepared statements; rows as JSON documents below 500 events,
COPY from 500 on; the caller's ``also`` statements): an envelope value that is not text, data
the hash cannot serialise or null data is InvalidInput with nothing written; odd text in every
field is written as hashed; a failing ``also`` statement or an interruption after it undoes the
batch and leaves the transaction usable; the prepared tip read outliving a migration is a 409 to
retry, and appends go on after the prepared statements are dropped."""

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction

from ledger.errors import InvalidInput
from ledger.models import Event, Posting
from ledger.store import Leg, NewEvent, append
from ledger.verify import verify_chain

SIZES = [1, 500]  # one JSON pipeline; COPY


@pytest.fixture(autouse=True)
def _database(request):
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


def _events(n: int, **fields) -> list[NewEvent]:
    data = fields.pop("data", None)
    return [
        NewEvent(
            fields.get("type", "Tested"),
            {"i": i} if data is None else data,
            [Leg(fields.get("account", "a"), 100 + i), Leg("b", -100 - i)],
            schema_version=fields.get("schema_version", 1),
        )
        for i in range(n)
    ]


def _seed() -> None:
    with transaction.atomic():
        append(stream="seed", expected_version=0, events=_events(1), actor="t")


def _assert_untouched(events: int = 1) -> None:
    assert Event.objects.count() == events and Posting.objects.count() == 2 * events
    result = verify_chain()
    assert (result.ok, result.checked) == (True, events), result


def _in_pipeline() -> bool:
    return connection.vendor == "postgresql" and connection.connection.pgconn.pipeline_status != 0


# --- envelope values the hash and the columns would see differently -------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_a_schema_version_given_as_text_is_refused_not_written_under_a_hash_it_does_not_match(size):
    # Unchecked, "2" would be hashed as the JSON string "2" but land in the smallint column as 2
    # (the JSON document puts it in unquoted on PostgreSQL, COPY and the ORM convert it): the
    # append would succeed and verify_chain report the event as altered, on both backends and
    # both sizes; below 500 events on PostgreSQL the text would even be pasted into the rows'
    # JSON document as is (a value such as '1,"position":9' is JSON, not a number). ledger/store.py
    # refuses it: InvalidInput (field schema_version), nothing written.
    _seed()
    with pytest.raises(InvalidInput):
        with transaction.atomic():
            append(stream="t/sv", expected_version=0, events=_events(size, schema_version="2"), actor="t")
    _assert_untouched()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("field", ["actor", "type", "idempotency_key", "correlation_id"])
def test_an_envelope_value_that_is_not_text_is_invalid_input_and_never_breaks_the_chain(size, field):
    # Unchecked, a non-str envelope value (an int actor, event type, idempotency key or
    # correlation id) would be hashed as a JSON number, then: on PostgreSQL below 500 events a raw
    # TypeError from the JSON document's encoder (after the postings went; undone, but not a
    # ledger error); from 500 events on (COPY) and on SQLite at every size written as the text
    # "7", and verify_chain would report the event as altered. ledger/store.py refuses it:
    # InvalidInput, nothing written (a UUID correlation id is InvalidInput too, from the hash).
    _seed()
    kwargs = {"actor": "t"}
    events = _events(size, type=7) if field == "type" else _events(size)
    if field != "type":
        kwargs[field] = 7
    with pytest.raises(InvalidInput):
        with transaction.atomic():
            append(stream="t/env", expected_version=0, events=events, **kwargs)
    _assert_untouched()


# --- data the hash cannot serialise: InvalidInput, not a raw Python error -------------------------


def _deep(depth: int) -> dict:
    data: dict = {}
    node = data
    for _ in range(depth):
        node["a"] = {}
        node = node["a"]
    return data


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kind", ["int of 5,000 digits", "nested 3,000 deep"])
def test_data_the_hash_cannot_serialise_is_invalid_input_and_writes_nothing(size, kind):
    # reject_floats passes both (an int, dicts), then the hash's JSON encoder raises ValueError
    # ("Exceeds the limit (4300 digits) for integer string conversion") or RecursionError. Left
    # raw, that would be a 500 from any endpoint that lets such data through, on both backends,
    # after the postings were sent on PostgreSQL; the contract says InvalidInput for data that is
    # not canonical JSON, and ledger/store.py turns both into it, nothing written.
    _seed()
    data = {"x": 10**5000} if kind.startswith("int") else _deep(3000)
    with pytest.raises(InvalidInput):
        with transaction.atomic():
            append(stream="t/data", expected_version=0, events=_events(size, data=data), actor="t")
    _assert_untouched()


@pytest.mark.postgres
def test_null_data_is_refused_alike_whatever_the_batch_size():
    # ``data=None`` is hashed as null. Below 500 events json_to_recordset would turn the JSON
    # null into SQL NULL and the NOT NULL column refuse it (IntegrityError); from 500 on, COPY
    # would write the jsonb value null and accept the batch. SQLite refuses it at every size.
    # The same events are refused whatever the number that goes at once (ledger/store.py).
    if connection.vendor != "postgresql":
        pytest.skip("the two PostgreSQL write paths")
    _seed()
    outcomes = []
    for size in SIZES:
        events = [NewEvent("Tested", None, [Leg("a", 1), Leg("b", -1)]) for _ in range(size)]
        try:
            with transaction.atomic():
                append(stream=f"t/null{size}", expected_version=0, events=events, actor="t")
            outcomes.append("written")
        except (InvalidInput, DatabaseError) as exc:
            outcomes.append(f"refused: {type(exc).__name__}")
    assert outcomes[0].startswith("refused")
    assert outcomes[1] == outcomes[0]


# --- the prepared tip read outliving a migration --------------------------------------------------


def _other_connection() -> psycopg.Connection:
    return psycopg.connect(**connection.get_connection_params(), autocommit=True)


@pytest.mark.postgres
def test_the_prepared_tip_read_after_a_column_type_change_is_a_409_to_retry_and_the_retry_goes_through(
    committed_db,
):
    # The append's own tip read (any command but a bet placement, which passes its tip) is a
    # prepared statement. After another connection changes the type of a column it returns (an
    # AlterField of ledger_event.hash's max_length), the next append on a kept connection meets
    # "cached plan must not change result type": Django's NotSupportedError, a 500 if left raw.
    # The store turns it into SchemaChanged (409, retry), as core.rawsql.fetch_prepared does for
    # the bet placement's reads, and the retry goes through.
    from ledger.errors import SchemaChanged

    _seed()  # prepares the lock and the tip read on this connection
    with _other_connection() as other:
        other.execute("ALTER TABLE ledger_event ALTER COLUMN hash TYPE varchar(65)")
    try:
        with pytest.raises(SchemaChanged):
            with transaction.atomic():
                append(stream="t/stale", expected_version=0, events=_events(1), actor="t")
        with transaction.atomic():
            saved = append(stream="t/stale", expected_version=0, events=_events(1), actor="t")
        assert saved[0].position == 2
    finally:
        with _other_connection() as other:
            other.execute("ALTER TABLE ledger_event ALTER COLUMN hash TYPE varchar(64)")
    assert verify_chain().ok


# --- what a failing ``also`` statement leaves behind, at both sizes -------------------------------


class _Unadaptable:
    pass


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "also, error",
    [
        (("SELECT %s", [_Unadaptable()]), "ProgrammingError"),
        (("SELECT %s, %s", [1]), "ProgrammingError"),
        (("SELECT %s", ["a\x00b"]), "DataError"),
        (("SELECT %s::bigint", [10**30]), "DataError"),
        (("SELECT '100%'", []), "ProgrammingError"),
    ],
    ids=["unadaptable", "too-few-params", "nul", "bigint-overflow", "lone-percent"],
)
def test_a_bad_also_statement_is_a_django_error_writes_nothing_and_the_transaction_goes_on(size, also, error):
    """A value psycopg refuses while binding an ``also`` statement client-side (raised inside
    the pipeline, before the events' statement was synced) or the server refuses: Django's
    error class, no row of the batch, the connection out of pipeline mode, and the caller's
    transaction usable for the next append, which takes the next position."""
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL pipeline and COPY paths")
    _seed()
    with transaction.atomic():
        with pytest.raises(DatabaseError) as exc:
            append(stream="t/also", expected_version=0, events=_events(size), actor="t", also=[also])
        assert type(exc.value).__module__ == "django.db.utils" and type(exc.value).__name__ == error
        assert not _in_pipeline()
        assert Event.objects.count() == 1 and Posting.objects.count() == 2
        saved = append(stream="t/also", expected_version=0, events=_events(size), actor="t")
    assert [e.position for e in saved] == list(range(2, size + 2))
    _assert_untouched(size + 1)


@pytest.mark.postgres
@pytest.mark.parametrize("size", SIZES)
def test_a_keyboard_interrupt_after_an_also_statement_is_sent_undoes_the_batch(size, monkeypatch):
    """KeyboardInterrupt right after the ``also`` statement went into the pipeline (or was run,
    after COPY): the pipeline is synced and closed, the savepoint undoes events and postings."""
    if connection.vendor != "postgresql":
        pytest.skip("the PostgreSQL pipeline and COPY paths")

    class Interrupted(psycopg.ClientCursor):
        def execute(self, *args, **kwargs):
            super().execute(*args, **kwargs)
            raise KeyboardInterrupt

    _seed()
    with transaction.atomic():
        monkeypatch.setattr(psycopg, "ClientCursor", Interrupted)  # the store's lookup only
        with pytest.raises(KeyboardInterrupt):
            append(stream="t/kbd", expected_version=0, events=_events(size), actor="t", also=[("SELECT 1", [])])
        monkeypatch.undo()
        assert not _in_pipeline()
        saved = append(stream="t/kbd", expected_version=0, events=_events(size), actor="t")
    assert saved[0].position == 2
    _assert_untouched(size + 1)


# --- odd text written as hashed, and prepared statements dropped between appends ------------------

ODD = "k\\\"'\n\t\r\x01\x1f\x7f\u2028\u2029é\U0001f600 \\u0000 %s %% {}"


@pytest.mark.parametrize("size", SIZES)
def test_odd_text_in_every_envelope_field_account_and_data_is_written_as_hashed(size):
    _seed()
    data = {ODD: ODD, "": {}, "list": [ODD, [], {}], "big": 2**63, "neg": -(2**70), "long": 10**4000}
    with transaction.atomic():
        events = _events(size, data=data, account=f"acc/{ODD}", type=f"T{ODD}"[:80])
        append(
            stream=f"s/{ODD}",
            expected_version=0,
            events=events,
            actor=ODD,
            correlation_id=ODD[:64],
            causation_id=ODD[:64],
            idempotency_key=f"key/{ODD}",
        )
    first = Event.objects.get(position=2)
    assert (first.stream, first.actor, first.idempotency_key, first.data) == (f"s/{ODD}", ODD, f"key/{ODD}", data)
    assert set(Posting.objects.filter(event_id=2).values_list("account", flat=True)) == {f"acc/{ODD}", "b"}
    _assert_untouched(size + 1)


@pytest.mark.postgres
@pytest.mark.parametrize("statement", ["DEALLOCATE ALL", "DISCARD PLANS", "SELECT 1; DEALLOCATE ALL"])
def test_appends_go_through_after_the_prepared_statements_are_dropped_in_the_same_transaction(statement):
    if connection.vendor != "postgresql":
        pytest.skip("prepared statements")
    _seed()
    with transaction.atomic():
        append(stream="t/d", expected_version=0, events=_events(2), actor="t")
        with connection.cursor() as cursor:
            cursor.execute(statement)
        append(stream="t/d", expected_version=2, events=_events(3), actor="t")
    _assert_untouched(6)

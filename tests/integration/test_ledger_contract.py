"""The ledger's contract, run on whichever backend the suite runs on (SQLite and PostgreSQL
both run it: scripts/test.sh). DESIGN.md §The ledger."""

import hashlib

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, IntegrityError, connection, transaction

from ledger import projections, store
from ledger.commands import ledger_command
from ledger.errors import IdempotencyKeyReused, InvalidInput, UnbalancedPostings, VersionConflict
from ledger.hashing import GENESIS_HASH
from ledger.models import AuditEntry, Event, IdempotencyRecord, Posting
from ledger.store import _COPY_FROM, Leg, NewEvent, append
from ledger.verify import verify_chain
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


def _append(stream="test/s", expected=0, legs=None, data=None, n=1, key=None):
    legs = [Leg("a", 100), Leg("b", -100)] if legs is None else legs
    with transaction.atomic():
        return append(
            stream=stream,
            expected_version=expected,
            events=[NewEvent("Tested", data or {"i": i}, legs) for i in range(n)],
            actor="tester",
            idempotency_key=key,
        )


def _raw(sql, params=()):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_append_numbers_positions_and_versions_and_chains_hashes():
    first = _append(n=2)
    second = _append(stream="test/other", expected=0)
    assert [e.position for e in first + second] == [1, 2, 3]
    assert [e.version for e in first] == [1, 2] and second[0].version == 1
    assert first[0].prev_hash == GENESIS_HASH
    assert first[1].prev_hash == first[0].hash and second[0].prev_hash == first[1].hash
    result = verify_chain()
    assert (result.ok, result.checked, result.head_position, result.head_hash) == (True, 3, 3, second[0].hash)


@pytest.mark.parametrize("table", ["ledger_event", "ledger_posting", "ledger_idempotencyrecord"])
def test_update_and_delete_are_refused_by_the_database(table):
    with ledger_command(actor="t", request={"op": "x"}, idempotency_key="k1") as cmd:
        cmd.append(stream="test/s", expected_version=0, events=[NewEvent("Tested", {}, [Leg("a", 5), Leg("b", -5)])])
        cmd.finish({"ok": True})
    column = {"ledger_event": "actor", "ledger_posting": "account", "ledger_idempotencyrecord": "fingerprint"}[table]
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(f"UPDATE {table} SET {column} = 'forged'")
    with pytest.raises(DatabaseError, match="append-only"):
        _raw(f"DELETE FROM {table}")
    if connection.vendor == "postgresql":
        _raw("SET CONSTRAINTS ALL IMMEDIATE")  # fire the deferred FK checks TRUNCATE would wait on
        with pytest.raises(DatabaseError, match="append-only"):
            _raw(f"TRUNCATE {table} CASCADE")
    assert Event.objects.count() == 1 and Posting.objects.count() == 2 and IdempotencyRecord.objects.count() == 1


def test_orm_update_and_delete_are_refused_too():
    (event,) = _append()
    with pytest.raises(DatabaseError):
        with transaction.atomic():
            Event.objects.filter(pk=event.pk).update(actor="forged")
    with pytest.raises(DatabaseError):
        with transaction.atomic():
            Posting.objects.filter(event=event).delete()
    assert Event.objects.get().actor == "tester"


def test_unbalanced_postings_are_refused_and_nothing_is_written():
    _append()
    with pytest.raises(UnbalancedPostings, match="do not sum to zero"):
        _append(expected=1, legs=[Leg("a", 100), Leg("b", -90)])
    with pytest.raises(UnbalancedPostings):  # balanced in total but not per currency
        _append(expected=1, legs=[Leg("a", 100, "EUR"), Leg("b", -100, "USD")])
    assert Event.objects.count() == 1 and Posting.objects.count() == 2


def test_the_database_itself_refuses_an_unbalanced_event():
    """Even an insert that skips ledger.store is checked by the event's insert trigger."""
    with pytest.raises(DatabaseError, match="sum to zero"):
        with transaction.atomic():
            Posting.objects.create(event_id=1, account="a", amount_cents=100, currency="EUR")
            _raw(
                "INSERT INTO ledger_event (position, stream, version, type, schema_version, data, occurred_at,"
                " recorded_at, gaming_day, actor, correlation_id, causation_id, prev_hash, hash)"
                " VALUES (1, 's', 1, 'Forged', 1, '{}', '2026-01-01 00:00:00+00', '2026-01-01 00:00:00+00',"
                " '2026-01-01', 'x', '', '', %s, 'h')",
                [GENESIS_HASH],
            )
    assert Event.objects.count() == 0


def test_a_posting_cannot_be_added_to_a_written_event():
    (event,) = _append()
    with pytest.raises(DatabaseError, match="already written"):
        with transaction.atomic():
            Posting.objects.create(event=event, account="c", amount_cents=0, currency="EUR")


def test_stale_expected_version_is_a_conflict_and_writes_nothing():
    _append(n=5)
    with pytest.raises(VersionConflict, match="version 5, not the expected 4"):
        _append(expected=4)
    assert Event.objects.count() == 5


@pytest.mark.parametrize("data", [{"x": 1.5}, {"x": [1, {"y": 0.1}]}, {"x": object()}])
def test_floats_and_non_json_values_are_refused(data):
    with pytest.raises(InvalidInput):
        _append(data=data)
    assert Event.objects.count() == 0


@pytest.mark.parametrize("amount", [10.0, True, 0])
def test_postings_must_be_nonzero_integer_cents(amount):
    with pytest.raises(UnbalancedPostings):
        _append(legs=[Leg("a", amount), Leg("b", -amount)])


def _bypass_triggers(cursor):
    """What an attacker with the database's keys could do: edit without the triggers."""
    if connection.vendor == "postgresql":
        cursor.execute("SET LOCAL session_replication_role = replica")
    else:
        for (name,) in cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
            cursor.execute(f'DROP TRIGGER "{name}"')


@pytest.mark.parametrize(
    "tamper, reason",
    [
        ("UPDATE ledger_event SET data = '{\"i\": 99}' WHERE position = 3", "altered"),
        ("UPDATE ledger_posting SET amount_cents = 1 WHERE event_id = 3", "sum to zero"),
        ("DELETE FROM ledger_event WHERE position = 3", "missing"),
        ("UPDATE ledger_event SET actor = 'mallory' WHERE position = 3", "altered"),
    ],
)
def test_verify_names_the_first_tampered_position(tamper, reason):
    _append(n=5)
    assert verify_chain().ok
    with transaction.atomic():
        with connection.cursor() as cursor:
            _bypass_triggers(cursor)
            if tamper.startswith("DELETE"):
                cursor.execute("DELETE FROM ledger_posting WHERE event_id = 3")
            cursor.execute(tamper)
        result = verify_chain()
        assert (result.ok, result.first_bad_position, result.checked) == (False, 3, 2)
        assert reason in result.reason
        with pytest.raises(CommandError, match="BROKEN at position 3"):
            call_command("ledger", "verify")
        transaction.set_rollback(True)


def test_verify_command_reports_an_intact_chain(capsys):
    _append(n=3)
    call_command("ledger", "verify")
    assert "ledger chain intact: 3 events, head position 3" in capsys.readouterr().out


def test_idempotent_retry_returns_the_first_result_and_appends_nothing():
    def run(amount):
        with ledger_command(actor="t", request={"op": "pay", "amount": amount}, idempotency_key="key-1") as cmd:
            if cmd.replayed:
                return cmd.result
            (event,) = cmd.append(
                stream="test/s",
                expected_version=0,
                events=[NewEvent("Paid", {}, [Leg("a", amount), Leg("b", -amount)])],
            )
            return cmd.finish({"event": event.position, "amount": amount})

    assert run(200) == {"event": 1, "amount": 200}
    assert run(200) == {"event": 1, "amount": 200}
    with pytest.raises(IdempotencyKeyReused):
        run(300)
    assert Event.objects.count() == 1 and Event.objects.get().idempotency_key == "t key-1"  # the actor's own key


def _forge_events(cursor, positions, prev=GENESIS_HASH):
    """Insert event rows behind ``ledger.store``'s back, in one statement."""
    values = ", ".join(
        f"({p}, 's', {p}, 'Forged', 1, '{{}}', '2026-01-01 00:00:00+00', '2026-01-01 00:00:00+00',"
        f" '2026-01-01', 'x', '', '', '{prev}', 'h{p}')"
        for p in positions
    )
    cursor.execute(
        "INSERT INTO ledger_event (position, stream, version, type, schema_version, data, occurred_at,"
        f" recorded_at, gaming_day, actor, correlation_id, causation_id, prev_hash, hash) VALUES {values}"
    )


def test_one_unbalanced_event_among_many_in_one_statement_is_refused():
    """The check runs once per statement on PostgreSQL (over all its rows): a forged batch whose
    second event does not balance is refused whole, and the position is named."""
    with pytest.raises(DatabaseError, match="sum to zero"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, account, amount_cents, currency) VALUES "
                "(1, 'a', 100, 'EUR'), (1, 'b', -100, 'EUR'), (2, 'a', 100, 'EUR'), (2, 'b', -99, 'EUR'),"
                " (3, 'a', 5, 'EUR'), (3, 'b', -5, 'EUR')"
            )
            _forge_events(cursor, [1, 2, 3])
    assert Event.objects.count() == 0 and Posting.objects.count() == 0


def test_postings_for_a_new_and_a_written_event_in_one_statement_are_refused():
    (event,) = _append()
    with pytest.raises(DatabaseError, match="already written"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_posting (event_id, account, amount_cents, currency) VALUES "
                f"(99, 'a', 1, 'EUR'), ({event.position}, 'c', 1, 'EUR')"
            )
    assert Posting.objects.count() == 2


@pytest.mark.parametrize("size", [1, 50])
def test_a_refused_append_leaves_the_callers_transaction_usable(size):
    """A version conflict or bad data inside a longer transaction writes nothing and the caller
    can go on appending in the same transaction: positions stay gap-free and the chain whole."""
    with transaction.atomic():
        append(stream="t/a", expected_version=0, actor="tester", events=[NewEvent("Tested", {"i": 0})])
        with pytest.raises(VersionConflict):
            append(stream="t/a", expected_version=0, actor="tester", events=[NewEvent("Tested", {})] * size)
        with pytest.raises(InvalidInput):
            append(
                stream="t/b",
                expected_version=0,
                actor="tester",
                events=[NewEvent("Tested", {"i": i}) for i in range(size - 1)] + [NewEvent("Tested", {"x": 0.5})],
            )
        saved = append(
            stream="t/b", expected_version=0, actor="tester", events=[NewEvent("Tested", {"i": i}) for i in range(size)]
        )
    assert [e.position for e in saved] == list(range(2, size + 2))
    assert Event.objects.count() == size + 1
    result = verify_chain()
    assert (result.ok, result.checked, result.head_hash) == (True, size + 1, saved[-1].hash)


# --- the idempotency key: unique where set, at every batch size, replayed by a command ----------


def test_the_event_table_has_no_hash_index_and_a_partial_unique_idempotency_key():
    """PostgreSQL: no unique hash index, idempotency key unique only where not NULL (partial)."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's indexes")
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ledger_event'")
        indexes = dict(cursor.fetchall())
    assert not any("(hash)" in definition for definition in indexes.values()), indexes
    partial = indexes["ledger_event_idempotency_key_uniq"]
    assert "UNIQUE" in partial and "WHERE (idempotency_key IS NOT NULL)" in partial
    assert [name for name, d in indexes.items() if "(idempotency_key)" in d] == ["ledger_event_idempotency_key_uniq"]


@pytest.mark.parametrize("sizes", [(1, 1), (3, _COPY_FROM), (_COPY_FROM, 2), (_COPY_FROM, _COPY_FROM + 1)])
def test_a_duplicate_idempotency_key_is_refused_at_any_batch_size_and_the_caller_goes_on(sizes):
    """Two appends with the same key, by JSON (small) or COPY (>= _COPY_FROM) batches: the
    second is refused (IntegrityError), writes nothing, and the caller's transaction goes on;
    within a batch only the first event carries the key (many NULLs, no conflict)."""
    first, second = sizes

    def events(n: int, tag: str) -> list[NewEvent]:
        return [NewEvent("Dup", {"patron": f"{tag}{i}"}, [Leg("dup:a", 1 + i), Leg("dup:b", -1 - i)]) for i in range(n)]

    with transaction.atomic():
        append(stream="dup/a", expected_version=0, actor="t", events=events(first, "a"), idempotency_key="K")
        head = store.head()
        with pytest.raises(IntegrityError):
            append(stream="dup/b", expected_version=0, actor="t", events=events(second, "b"), idempotency_key="K")
        assert store.head() == head
        append(stream="dup/c", expected_version=0, actor="t", events=events(second, "c"), idempotency_key="K2")
    assert Event.objects.count() == first + second
    assert list(Event.objects.exclude(idempotency_key=None).values_list("idempotency_key", flat=True)) == ["K", "K2"]
    assert Event.objects.filter(idempotency_key=None).count() == first + second - 2
    assert verify_chain().ok
    projections.catch_up("audit")
    assert AuditEntry.objects.count() == first + second


def test_a_command_retried_with_its_idempotency_key_is_replayed_not_refused(cage):
    """Through ``ledger_command``: the same key and request is answered from the record (one
    event); the same key for another request is a 409, not an IntegrityError."""
    from cashier.services.cage import chips_purchase

    patron = make_patron()
    first = chips_purchase(patron=patron, amount_cents=500, actor=ACTOR, idempotency_key="retry-1")
    events = Event.objects.count()
    assert chips_purchase(patron=patron, amount_cents=500, actor=ACTOR, idempotency_key="retry-1") == first
    assert Event.objects.count() == events
    with pytest.raises(IdempotencyKeyReused):
        chips_purchase(patron=patron, amount_cents=600, actor=ACTOR, idempotency_key="retry-1")
    assert Event.objects.filter(idempotency_key=f"{ACTOR} retry-1").count() == 1  # the actor's own key


def test_an_idempotency_key_is_the_actors_own_another_person_picking_it_is_neither_blocked_nor_told(cage):
    """A key is recorded with its actor: another cashier who sends the same key (guessed, or a
    predictable one) records his own request, and learns nothing of the first."""
    from ledger.commands import scoped_key
    from patrons.services.patrons import patron_register

    first = patron_register(kind="identified", name="Ann Lee", actor=ACTOR, idempotency_key="batch-1")
    again = patron_register(kind="identified", name="Ann Lee", actor=ACTOR, idempotency_key="batch-1")
    other = patron_register(kind="identified", name="Bo Chen", actor="cashier9", idempotency_key="batch-1")
    assert again == first and other["patron"] != first["patron"]
    assert set(IdempotencyRecord.objects.filter(key__endswith=" batch-1").values_list("key", flat=True)) == {
        f"{ACTOR} batch-1",
        "cashier9 batch-1",
    }
    # Another's scoped record named as one's own key: a request of one's own, nothing told.
    third = patron_register(kind="identified", name="Cy Dee", actor="cashier9", idempotency_key=f"{ACTOR} batch-1")
    assert third["patron"] not in (first["patron"], other["patron"])
    long = "k" * 200  # too long to sit beside a name: recorded by its digest, still the actor's own
    assert scoped_key("cosigner", long) == "cosigner sha256:" + hashlib.sha256(long.encode()).hexdigest()[:40]
    assert len(scoped_key("u" * 150, long)) <= 200

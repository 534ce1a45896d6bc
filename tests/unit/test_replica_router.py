"""Which database a read goes to: the primary by default, the replica only inside a
``reads_from_replica`` block, and there only while the replica is fit (lag within the bound,
its ledger head at the position asked for, reachable) and no transaction is open. Writes
always go to the primary."""

from __future__ import annotations

import math

import pytest
from django.db import OperationalError, transaction
from django.test import RequestFactory

from games.models import Table
from ledger import metrics, replica
from ledger.models import Event


@pytest.fixture
def fake_replica(monkeypatch, settings):
    """A replica configured whose measured lag the test sets (``state["lag"]``, or an error)."""
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = 5.0
    settings.DATABASE_REPLICA_LAG_CHECK_SECONDS = 0.0
    state = {"lag": replica.lag_of(primary_head=10, replica_head=10, delay=0.2, in_recovery=True), "measured": 0}

    def measure():
        state["measured"] += 1
        if isinstance(state["lag"], Exception):
            raise state["lag"]
        return state["lag"]

    monkeypatch.setattr(replica, "configured", lambda: True)
    monkeypatch.setattr(replica, "measure", measure)
    replica.forget_lag()
    yield state
    replica.forget_lag()


def read_alias_of(model=Event) -> str:
    return replica.ReplicaRouter().db_for_read(model)


def blocks(database: str, reason: str) -> float:
    return metrics.replica_read_blocks.labels(database, reason)._value.get()


def test_reads_go_to_the_primary_outside_a_replica_block(fake_replica):
    assert read_alias_of() == "default"


def test_reads_in_a_replica_block_go_to_the_replica_when_it_is_within_the_lag_bound(fake_replica):
    before = blocks("replica", "replica")
    with replica.reads_from_replica() as alias:
        assert alias == "replica"
        assert read_alias_of(Event) == read_alias_of(Table) == "replica"
    assert read_alias_of() == "default"
    assert blocks("replica", "replica") == before + 1


def test_a_replica_behind_the_lag_bound_leaves_the_reads_on_the_primary(fake_replica):
    fake_replica["lag"] = replica.lag_of(primary_head=50, replica_head=40, delay=7.5, in_recovery=True)
    before = blocks("default", "lag")
    with replica.reads_from_replica() as alias:
        assert alias == "default"
        assert read_alias_of() == "default"
    assert blocks("default", "lag") == before + 1


def test_a_replica_out_of_reach_leaves_the_reads_on_the_primary(fake_replica):
    fake_replica["lag"] = OperationalError("connection refused")
    with replica.reads_from_replica() as alias:
        assert alias == "default"
        assert read_alias_of() == "default"


def test_without_a_replica_configured_a_block_reads_the_primary():
    assert not replica.configured()
    with replica.reads_from_replica() as alias:
        assert alias == "default"
        assert read_alias_of() == "default"


def test_writes_go_to_the_primary_even_in_a_replica_block(fake_replica):
    with replica.reads_from_replica():
        assert replica.ReplicaRouter().db_for_write(Event) == "default"


def test_migrations_never_run_on_the_replica():
    router = replica.ReplicaRouter()
    assert router.allow_migrate("default", "ledger") and not router.allow_migrate("replica", "ledger")


@pytest.mark.django_db
def test_a_transaction_opened_in_a_replica_block_reads_the_primary(fake_replica):
    with replica.reads_from_replica():
        assert read_alias_of() == "replica"
        with transaction.atomic():
            assert read_alias_of() == "default"  # a read that may decide a write
        assert read_alias_of() == "replica"


@pytest.mark.django_db
def test_a_replica_block_entered_inside_a_transaction_reads_the_primary(fake_replica):
    with transaction.atomic(), replica.reads_from_replica() as alias:
        assert alias == "default"
        assert read_alias_of() == "default"


@pytest.mark.django_db
def test_a_ledger_command_in_a_replica_block_reads_the_primary(fake_replica):
    from ledger.commands import ledger_command

    with replica.reads_from_replica(), ledger_command(actor="tester", request={"op": "probe"}):
        assert read_alias_of() == "default"


def test_an_export_bounded_by_a_position_reads_the_replica_once_it_holds_that_position(fake_replica):
    # Seconds behind, but the seal at position 40 is there: the export's range is complete.
    fake_replica["lag"] = replica.lag_of(primary_head=50, replica_head=45, delay=60.0, in_recovery=True)
    with replica.reads_from_replica(min_position=40) as alias:
        assert alias == "replica"
    with replica.reads_from_replica(min_position=48) as alias:
        assert alias == "default"


def test_a_position_the_reused_measurement_lacks_is_measured_again(fake_replica, settings):
    settings.DATABASE_REPLICA_LAG_CHECK_SECONDS = 60.0
    fake_replica["lag"] = replica.lag_of(primary_head=50, replica_head=45, delay=1.0, in_recovery=True)
    with replica.reads_from_replica():
        pass
    with replica.reads_from_replica():
        pass
    assert fake_replica["measured"] == 1  # reused within the check interval
    fake_replica["lag"] = replica.lag_of(primary_head=52, replica_head=52, delay=1.0, in_recovery=True)
    with replica.reads_from_replica(min_position=52) as alias:
        assert alias == "replica"
    assert fake_replica["measured"] == 2


def test_the_lag_is_zero_once_the_replica_holds_the_primarys_head_however_old_its_last_replay():
    idle = replica.lag_of(primary_head=9, replica_head=9, delay=3600.0, in_recovery=True)
    assert (idle.seconds, idle.positions_behind) == (0.0, 0)


def test_the_lag_behind_is_the_age_of_the_last_replayed_transaction():
    behind = replica.lag_of(primary_head=12, replica_head=9, delay=2.5, in_recovery=True)
    assert (behind.seconds, behind.positions_behind) == (2.5, 3)
    never = replica.lag_of(primary_head=12, replica_head=0, delay=None, in_recovery=True)
    assert never.seconds == math.inf


def test_a_replica_view_reads_the_replica_on_get_only(fake_replica):
    seen = []

    @replica.replica_view
    def view(request):
        seen.append(read_alias_of())
        return None

    factory = RequestFactory()
    view(factory.get("/dashboard/"))
    view(factory.post("/dashboard/"))
    assert seen == ["replica", "default"]


def test_a_client_who_wrote_reads_from_the_replica_only_once_it_has_his_writes(fake_replica):
    fake_replica["lag"] = replica.lag_of(primary_head=12, replica_head=10, delay=0.2, in_recovery=True)
    token = replica.must_see(12)
    try:
        with replica.reads_from_replica() as alias:
            assert alias == "default"
        fake_replica["lag"] = replica.lag_of(primary_head=12, replica_head=12, delay=0.0, in_recovery=True)
        with replica.reads_from_replica() as alias:
            assert alias == "replica"
    finally:
        replica._must_see.reset(token)
    fake_replica["lag"] = replica.lag_of(primary_head=12, replica_head=10, delay=0.2, in_recovery=True)
    with replica.reads_from_replica() as alias:  # nothing written: the lag bound decides
        assert alias == "replica"


def test_the_position_a_response_wrote_comes_back_as_the_next_requests_floor(fake_replica):
    from django.http import HttpResponse

    from ledger.middleware import POSITION_HEADER, READ_AFTER_COOKIE, ReadYourWritesMiddleware

    seen, before = [], (replica._must_see.get(), replica.written())

    def view(request):
        seen.append(replica._must_see.get())
        if request.method == "POST":
            replica.wrote(42)
        return HttpResponse("ok")

    middleware = ReadYourWritesMiddleware(view)
    wrote = middleware(RequestFactory().post("/api/anything"))
    assert wrote[POSITION_HEADER] == "42"
    cookie = wrote.cookies[READ_AFTER_COOKIE]
    assert cookie["httponly"] and cookie["max-age"] == 300
    read = RequestFactory().get("/dashboard/")
    read.COOKIES[READ_AFTER_COOKIE] = cookie.value
    assert POSITION_HEADER not in middleware(read)
    forged = RequestFactory().get("/dashboard/")
    forged.COOKIES[READ_AFTER_COOKIE] = "999"  # not signed: ignored
    middleware(forged)
    middleware(RequestFactory().get("/api/tables/", HTTP_X_LEDGER_READ_AFTER="77"))
    assert seen == [0, 42, 0, 77]
    assert (replica._must_see.get(), replica.written()) == before  # each request's own, reset after it


@pytest.mark.django_db
def test_a_commit_notes_the_position_it_wrote(fake_replica, django_capture_on_commit_callbacks):
    from ledger import store
    from ledger.store import NewEvent

    token = replica._written.set(0)
    try:
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            store.lock_writers()
            (event,) = store.append(stream="test/written", expected_version=0, events=[NewEvent("TestNoted", {})],
                                    actor="pit1")  # fmt: skip
            assert replica.written() == 0  # not before the commit
        assert replica.written() == event.position
    finally:
        replica._written.reset(token)

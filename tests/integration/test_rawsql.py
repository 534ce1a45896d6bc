"""The hot path's plain SQL (core/rawsql.py) against what the ORM reads and writes:
a bet placement's reads, the bet rows and round version written in the append's round trip,
and an ``also=`` statement that fails undoing the whole append."""

import pytest
from django.db import DatabaseError, connection, transaction

from core import rawsql
from games.models import Bet, Round, Table
from games.selectors import _bet_placement_reads_orm, bet_placement_reads
from games.services.bets import bet_place
from games.services.rounds import round_open
from ledger import store
from ledger.commands import ledger_command
from ledger.errors import NotFound, VersionConflict
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, Posting
from ledger.store import NewEvent, append
from ledger.verify import verify_chain
from patrons.models import Patron
from tests.conftest import ACTOR, set_self_limit

pytestmark = pytest.mark.django_db


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def test_bet_placement_reads_match_the_orm(colour_patron):
    """Round, table and patron as the ORM loads them; the patron's bets, self-limit and chips."""
    patron = colour_patron
    coup = round_open(table="R1", actor=ACTOR)["round"]
    plein = {"type": "plein", "numbers": [17]}
    bet_place(round_id=coup, patron=patron, stake_cents=1_000, bet=plein, chips="colour", actor=ACTOR)
    bet_place(
        round_id=coup, patron=patron, stake_cents=1_500, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )
    set_self_limit(patron, 40_000)
    with transaction.atomic():
        reads = bet_placement_reads(coup, patron)
        orm = _bet_placement_reads_orm(reads.coup.pk, patron)
    assert _fields(reads.coup) == _fields(Round.objects.get(pk=coup)) == _fields(orm.coup)
    assert _fields(reads.coup.table) == _fields(Table.objects.get(code="R1"))
    assert reads.coup.table.rules == Table.objects.get(code="R1").rules  # JSON decoded, not text
    assert _fields(reads.patron) == _fields(Patron.objects.get(code=patron))
    assert (reads.self_limit_cents, reads.chips_cents) == (orm.self_limit_cents, orm.chips_cents) == (40_000, 78_500)
    assert sorted(reads.placed, key=str) == sorted(orm.placed, key=str)
    assert sorted(stake for _, stake in reads.placed) == [1_000, 1_500]
    assert {p["type"] for p, _ in reads.placed} == {"plein", "chance_simple"}


def test_bet_placement_reads_of_unknowns(table, patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    with transaction.atomic():
        nobody = bet_placement_reads(coup, "P99999")
        assert (nobody.patron, nobody.self_limit_cents, nobody.chips_cents, nobody.placed) == (None, None, 0, [])
        assert bet_placement_reads(coup, 12).patron is None  # not a code at all
        for missing in ("00000000-0000-0000-0000-000000000000", "not-a-uuid"):
            with pytest.raises(NotFound) as exc:
                bet_placement_reads(missing, patron)
            assert exc.value.field == "round"


def test_insert_and_update_write_what_the_orm_would(table, patron):
    coup = Round.objects.get(pk=round_open(table="R1", actor=ACTOR)["round"])
    who = Patron.objects.get(code=patron)
    bets = [
        Bet(round=coup, patron=who, position={"type": "plein", "numbers": [n]}, stake_cents=100 * n) for n in (1, 2)
    ]
    coup.version += 7
    with transaction.atomic():
        with connection.cursor() as cursor:
            for sql, params in (rawsql.insert(bets), rawsql.update(coup, ["version"])):
                cursor.execute(sql, params)
    assert all(not b._state.adding and b.placed_at is not None for b in bets)
    for bet in bets:
        stored = Bet.objects.get(pk=bet.pk)
        assert _fields(stored) == _fields(bet)
        assert (stored.state, stored.chips, stored.prison_level) == ("placed", "value", 0)
    assert Round.objects.get(pk=coup.pk).version == coup.version


@pytest.mark.parametrize("size", [1, 3])
def test_a_failing_also_statement_undoes_the_append(size, table, patron):
    """Its events, postings and earlier statements go; the caller's transaction stays usable."""
    coup = Round.objects.get(pk=round_open(table="R1", actor=ACTOR)["round"])
    events_before, postings_before = Event.objects.count(), Posting.objects.count()
    who = Patron.objects.get(code=patron)
    bet = Bet(round=coup, patron=who, position={"type": "plein", "numbers": [5]}, stake_cents=100)
    coup.version = 99
    duplicate = Bet(id=bet.id, round=coup, patron=who, position={"type": "plein", "numbers": [6]}, stake_cents=100)
    with transaction.atomic():
        with pytest.raises(DatabaseError):
            append(
                stream="t/also",
                expected_version=0,
                actor=ACTOR,
                events=[NewEvent("Tested", {"i": i}) for i in range(size)],
                also=[rawsql.insert([bet]), rawsql.update(coup, ["version"]), rawsql.insert([duplicate])],
            )
        saved = append(stream="t/also", expected_version=0, actor=ACTOR, events=[NewEvent("Tested", {"i": 0})])
    assert Event.objects.count() == events_before + 1 and Posting.objects.count() == postings_before
    assert not Bet.objects.filter(pk=bet.pk).exists()
    assert Round.objects.get(pk=coup.pk).version != 99
    result = verify_chain()
    assert (result.ok, result.head_hash) == (True, saved[-1].hash)


def test_an_announced_bet_writes_its_bets_and_version_with_its_events(colour_patron):
    """Tiers du cylindre: 6 events (the COPY path), 6 bet rows, the round at version 7."""
    coup = round_open(table="R1", actor=ACTOR)["round"]
    announce = {"name": "tiers_du_cylindre"}
    placed = bet_place(
        round_id=coup, patron=colour_patron, stake_cents=200, announce=announce, chips="colour", actor=ACTOR
    )
    assert len(placed["bets"]) == Bet.objects.filter(round_id=coup).count() == 6
    stored = Round.objects.get(pk=coup)
    assert stored.version == placed["version"] == Event.objects.filter(stream=f"round/{coup}").count() == 7


def _tip_read_here(stream: str):
    """The stream's tip as a caller reads it in its own statement (``store.TIP_SQL``)."""
    with connection.cursor() as cursor:
        day = current_gaming_day()
        cursor.execute(f"SELECT {store.TIP_SQL}", store.tip_params(stream, day))
        return store.Tip.from_row(cursor.fetchone(), day)


pg_only = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="the caller's tip is PostgreSQL's path")


@pg_only
def test_bet_placement_reads_give_the_round_streams_tip(table, patron):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    with transaction.atomic():
        store.lock_writers()
        tip = bet_placement_reads(coup, patron).tip
        here = _tip_read_here(f"round/{coup}")
        last = Event.objects.order_by("-position").first()
        assert (tip.version, tip.position, tip.hash) == (here.version, here.position, here.hash)
        assert (tip.version, tip.position, tip.hash) == (1, last.position, last.hash)
        assert tip.now.tzinfo is not None and tip.now <= here.now


@pg_only
@pytest.mark.parametrize("size", [1, 3])
def test_an_append_with_the_callers_tip_chains_as_its_own_read_would(size, cage):
    with transaction.atomic():
        store.lock_writers()
        tip = _tip_read_here("t/tip")
        saved = append(
            stream="t/tip",
            expected_version=0,
            actor=ACTOR,
            events=[NewEvent("Tested", {"i": i}) for i in range(size)],
            writer_locked=True,
            tip=tip,
        )
    assert [e.version for e in saved] == list(range(1, size + 1))
    assert saved[0].position == tip.position + 1 and saved[0].prev_hash == tip.hash
    result = verify_chain()
    assert (result.ok, result.head_hash) == (True, saved[-1].hash)


@pg_only
@pytest.mark.parametrize("size", [1, 3])
def test_a_refused_append_with_the_callers_tip_leaves_the_transaction_usable(size, cage):
    """A stale tip (another append since), a version conflict, a value the driver refuses
    before sending (NUL) and a statement the server refuses: nothing written, and the caller
    goes on in the same transaction."""
    events = [NewEvent("Tested", {"i": i}) for i in range(size)]
    before = Event.objects.count()
    with transaction.atomic():
        store.lock_writers()
        stale = _tip_read_here("t/tip")
        append(stream="t/other", expected_version=0, actor=ACTOR, events=events, writer_locked=True)
        with pytest.raises(DatabaseError):  # position taken: the chain cannot fork
            append(stream="t/tip", expected_version=0, actor=ACTOR, events=events, writer_locked=True, tip=stale)
        tip = _tip_read_here("t/tip")
        with pytest.raises(VersionConflict):
            append(stream="t/tip", expected_version=5, actor=ACTOR, events=events, writer_locked=True, tip=tip)
        with pytest.raises((DatabaseError, ValueError)):
            append(stream="t/tip", expected_version=0, actor="nul\x00", events=events, writer_locked=True, tip=tip)
        with pytest.raises(DatabaseError):
            append(
                stream="t/tip",
                expected_version=0,
                actor=ACTOR,
                events=events,
                writer_locked=True,
                tip=tip,
                also=[("SELECT 1 / 0", [])],
            )
        saved = append(stream="t/tip", expected_version=0, actor=ACTOR, events=events, writer_locked=True, tip=tip)
    assert Event.objects.count() == before + 2 * size
    result = verify_chain()
    assert (result.ok, result.head_hash) == (True, saved[-1].hash)


@pg_only
def test_a_callers_tip_needs_the_writer_lock_and_the_commands_first_append(cage):
    with transaction.atomic():
        with pytest.raises(RuntimeError):
            append(stream="t/x", expected_version=0, actor=ACTOR, events=[NewEvent("T", {})], tip=_tip_read_here("t/x"))
    with pytest.raises(RuntimeError), ledger_command(actor=ACTOR, request={"op": "test"}) as cmd:
        tip = _tip_read_here("t/y")
        cmd.append(stream="t/x", expected_version=0, events=[NewEvent("T", {})])
        cmd.append(stream="t/y", expected_version=0, events=[NewEvent("T", {})], tip=tip)
    assert not Event.objects.filter(stream__in=["t/x", "t/y"]).exists()

"""A rebuild (one pass, one transaction, read ahead on a second connection, the
audit's COPY kept open) gives exactly what the incremental catch-up gives, and a rebuild that
fails half-way leaves the projections as they were."""

import random

import pytest

from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger import projections
from ledger.models import Event, ProjectionCheckpoint, TableDayStats
from tests.conftest import ACTOR, make_patron

from .projection_helpers import burst, snapshot


def _replay_incrementally(batch: int) -> None:
    """Empty every projection and catch it up batch by batch, as the workers do."""
    for projector in projections.REGISTRY.values():
        projector.reset()
    ProjectionCheckpoint.objects.update(position=0)
    projections.catch_up_all(batch=batch)


def _count_read_ahead(monkeypatch) -> list:
    """The batches the read-ahead thread delivers, recorded."""
    delivered = []
    real = projections._ReadAhead.next

    def next_batch(self):
        work = real(self)
        if work is not None:
            delivered.append((work.after, work.upto))
        return work

    monkeypatch.setattr(projections._ReadAhead, "next", next_batch)
    return delivered


def _patrons_in_order() -> dict:
    return {(t.table, t.gaming_day): t.patrons for t in TableDayStats.objects.all()}


def _play_coups(coups: int) -> None:
    """Coups at R1: even chances on value chips, pleins on colour chips, a cash buy-in (the
    drop), zero under la partage: every kind of audit line and statistic of a roulette day."""
    rng = random.Random(7)
    players = [make_patron(200_000) for _ in range(3)]
    colours = [make_patron(100_000) for _ in range(2)]
    for patron, colour in zip(colours, ("red", "blue"), strict=True):
        colour_chips_buy(table="R1", patron=patron, chips=200, unit_value_cents=100, colour=colour, actor=ACTOR)
    table_buy_in(code="R1", patron=players[0], amount_cents=50_000, actor=ACTOR)
    for number in [0, *(rng.randrange(37) for _ in range(coups - 1))]:
        coup = round_open(table="R1", actor=ACTOR)["round"]
        for patron in players:
            bet = {"type": "chance_simple", "chance": rng.choice(["rouge", "noir", "pair", "impair"])}
            bet_place(round_id=coup, patron=patron, stake_cents=rng.choice([1_000, 2_500]), bet=bet, actor=ACTOR)
        for patron in colours:
            bet = {"type": "plein", "numbers": [rng.randrange(37)]}
            bet_place(round_id=coup, patron=patron, stake_cents=300, chips="colour", bet=bet, actor=ACTOR)
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=number, actor=ACTOR)


@pytest.mark.postgres
def test_a_rebuild_read_ahead_on_committed_events_equals_the_incremental_catch_up(committed_db, table, monkeypatch):
    _play_coups(12)
    _replay_incrementally(batch=13)
    incremental, patrons = snapshot(), _patrons_in_order()
    delivered = _count_read_ahead(monkeypatch)
    head = Event.objects.count()
    assert projections.rebuild(batch=17) == dict.fromkeys(projections.names(), head)
    assert delivered[:2] == [(0, 17), (17, 34)] and delivered[-1][1] == head  # all of it read ahead
    assert snapshot() == incremental
    assert _patrons_in_order() == patrons  # in the order they first played, too
    assert {row["lag"] for row in projections.lag()} == {0}


@pytest.mark.django_db
def test_a_rebuild_reads_itself_what_the_read_ahead_cannot_see(table, monkeypatch):
    """In a transaction not yet committed (as here), the second connection sees no event."""
    for _ in range(3):
        make_patron(10_000)
    _replay_incrementally(batch=2)
    incremental = snapshot()
    delivered = _count_read_ahead(monkeypatch)
    assert projections.rebuild(batch=3) == dict.fromkeys(projections.names(), Event.objects.count())
    assert delivered == []
    assert snapshot() == incremental


def _failing_at_third_batch(monkeypatch, name: str) -> None:
    projector = projections.REGISTRY[name]
    real = projector.rebuilder

    def rebuilder():
        fold = real()
        feed, fed = fold.feed, []

        def failing(batch):
            fed.append(batch)
            if len(fed) == 3:
                raise RuntimeError("the third batch fails")
            feed(batch)

        fold.feed = failing
        return fold

    monkeypatch.setattr(projector, "rebuilder", rebuilder)


@pytest.mark.postgres
def test_a_rebuild_failing_half_way_with_its_copy_open_changes_nothing(committed_db, cage, monkeypatch):
    make_patron(10_000)
    burst(1_000, accounts=7)  # audit lines (each names a patron) and balances
    projections.catch_up_all()
    before = snapshot()
    checkpoints = dict(ProjectionCheckpoint.objects.values_list("name", "position"))
    _failing_at_third_batch(monkeypatch, "ratings")  # fed after the audit, whose COPY is open
    with pytest.raises(RuntimeError, match="third batch"):
        projections.rebuild(batch=100)
    assert snapshot() == before
    assert dict(ProjectionCheckpoint.objects.values_list("name", "position")) == checkpoints


@pytest.mark.django_db
def test_a_rebuild_failing_half_way_changes_nothing(cage, monkeypatch):
    for _ in range(4):
        make_patron(10_000)
    projections.catch_up_all()
    before = snapshot()
    _failing_at_third_batch(monkeypatch, "table_stats")
    with pytest.raises(RuntimeError, match="third batch"):
        projections.rebuild(batch=2)
    assert snapshot() == before
    monkeypatch.undo()
    assert projections.rebuild(batch=2) == dict.fromkeys(projections.names(), Event.objects.count())
    assert snapshot() == before

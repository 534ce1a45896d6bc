"""A ratings or table statistics row edited with raw SQL (a patron's staked total and theoretical
win inflated for his comps, a table's win) is named by ``ledger replay-check``, which compares
both read models with a rebuild from the events and writes nothing."""

import random

import pytest
from django.db import connection

from demo.roulette import play_demo_session
from ledger import projections
from ledger.models import PatronDayRating, ProjectionCheckpoint, TableDayStats
from ledger.projection_check import check_projection_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def played():
    play_demo_session(spins=4, seated=2, rng=random.Random(11), out=lambda *a, **k: None)
    projections.catch_up_all()


def _raw(sql: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_untouched_read_models_match_their_rebuild(played):
    assert PatronDayRating.objects.count() >= 1 and TableDayStats.objects.count() >= 1
    assert check_projection_rows() == []


def test_an_inflated_rating_is_named_and_left_as_found(played):
    rating = PatronDayRating.objects.order_by("patron").first()
    true_staked, true_theory = rating.staked_cents, rating.theoretical_win
    _raw(
        "UPDATE ledger_patrondayrating SET staked_cents = %s, theoretical_win = %s WHERE id = %s",
        [50_000_000, "2500000", rating.id],
    )
    found = {(d.kind, d.id, d.field): (d.live, d.replayed) for d in check_projection_rows()}
    key = f"{rating.patron} {rating.gaming_day}"
    assert found == {
        ("patron day rating", key, "staked_cents"): (50_000_000, true_staked),
        ("patron day rating", key, "theoretical_win"): ("2500000", true_theory),
    }
    assert PatronDayRating.objects.get(id=rating.id).staked_cents == 50_000_000  # nothing rewritten
    assert ProjectionCheckpoint.objects.get(name="ratings").position >= 1


def test_a_table_win_edited_is_named(played):
    stats = TableDayStats.objects.order_by("table").first()
    _raw("UPDATE ledger_tabledaystats SET win_cents = win_cents + 100000 WHERE id = %s", [stats.id])
    found = [(d.kind, d.field, d.live - d.replayed) for d in check_projection_rows()]
    assert found == [("table day statistics", "win_cents", 100_000)]

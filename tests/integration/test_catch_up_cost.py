"""What one projections' catch-up costs (ledger.projections.catch_up_all, the Celery task's
body): several processes publish one task per burst each, so most tasks find their events
already applied by another; and one that applies events does it in one transaction per
projection, up to the head it read when it started."""

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ledger import projections, seal_scan
from ledger.models import Event, ProjectionCheckpoint
from ledger.store import Leg, NewEvent, append
from tests.conftest import make_patron


def _statements(queries, *texts: str) -> int:
    return sum(1 for q in queries if all(text in q["sql"] for text in texts))


# one projection's checkpoint read to apply a batch (FOR UPDATE on PostgreSQL)
CHECKPOINT_LOCK = ('FROM "ledger_projectioncheckpoint" WHERE "ledger_projectioncheckpoint"."name" = ',)


@pytest.mark.django_db
def test_a_catch_up_with_nothing_left_to_apply_reads_the_head_and_the_checkpoints_and_locks_nothing(cage):
    make_patron(10_000)
    projections.catch_up_all()
    with CaptureQueriesContext(connection) as queries:
        assert projections.catch_up_all() == dict.fromkeys(projections.names(), 0)
    assert len(queries) == 2, [q["sql"] for q in queries]
    assert _statements(queries, *CHECKPOINT_LOCK) == 0


@pytest.mark.django_db
def test_a_burst_is_applied_in_one_transaction_per_projection_with_one_read_of_the_head(cage):
    projections.catch_up_all()
    before = Event.objects.count()
    make_patron(10_000)
    make_patron(20_000)
    burst = Event.objects.count() - before
    with CaptureQueriesContext(connection) as queries:
        applied = projections.catch_up_all()
    assert burst == 4 and applied == dict.fromkeys(projections.names(), burst)
    assert _statements(queries, *CHECKPOINT_LOCK) == len(projections.names())  # no second pass finding nothing
    assert _statements(queries, 'MAX("ledger_event"."position")') == 1
    head = Event.objects.order_by("-position").values_list("position", flat=True)[0]
    assert set(ProjectionCheckpoint.objects.values_list("position", flat=True)) == {head}


@pytest.mark.django_db
def test_a_catch_up_stops_at_the_head_it_read_and_the_next_one_applies_a_later_commit(cage, monkeypatch):
    make_patron(10_000)
    projections.catch_up_all()
    head = Event.objects.order_by("-position").values_list("position", flat=True)[0]
    make_patron(5_000)  # two events to apply
    refresh = seal_scan.refresh

    def a_commit_lands_meanwhile():
        # after the catch-up read the head: the commit's own catch-up (published after it) covers it
        with transaction.atomic():
            append(
                stream="late/1",
                expected_version=0,
                actor="t",
                events=[NewEvent("Late", {}, [Leg("x", 3), Leg("y", -3)])],
            )
        return refresh()

    monkeypatch.setattr(seal_scan, "refresh", a_commit_lands_meanwhile)
    assert projections.catch_up_all() == dict.fromkeys(projections.names(), 2)
    assert set(ProjectionCheckpoint.objects.values_list("position", flat=True)) == {head + 2}
    monkeypatch.setattr(seal_scan, "refresh", refresh)
    assert projections.catch_up_all() == dict.fromkeys(projections.names(), 1)
    assert set(ProjectionCheckpoint.objects.values_list("position", flat=True)) == {head + 3}

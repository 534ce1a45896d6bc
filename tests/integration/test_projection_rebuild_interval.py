"""A rebuild shortens the GIL's switch interval while it runs (the read-ahead thread
gets the GIL back sooner) and gives the process its own interval back, even when it fails."""

import sys

import pytest

from ledger import projections
from tests.conftest import make_patron


def _interval_seen_by(monkeypatch, name: str) -> list[float]:
    """The switch interval each of ``name``'s feeds ran under, recorded."""
    projector = projections.REGISTRY[name]
    real, seen = projector.rebuilder, []

    def rebuilder():
        fold = real()
        feed = fold.feed

        def recording(batch):
            seen.append(sys.getswitchinterval())
            feed(batch)

        fold.feed = recording
        return fold

    monkeypatch.setattr(projector, "rebuilder", rebuilder)
    return seen


@pytest.mark.django_db
def test_a_rebuild_runs_under_a_short_switch_interval_and_restores_it(cage, monkeypatch):
    for _ in range(3):
        make_patron(10_000)
    seen = _interval_seen_by(monkeypatch, "ratings")
    before = sys.getswitchinterval()
    projections.rebuild(batch=2)
    assert seen and set(seen) == {min(before, projections.SWITCH_INTERVAL)}
    assert sys.getswitchinterval() == before


@pytest.mark.django_db
def test_a_failing_rebuild_restores_the_switch_interval(cage, monkeypatch):
    make_patron(10_000)
    before = sys.getswitchinterval()

    class Failing:
        def feed(self, batch):
            raise RuntimeError("the fold fails")

    monkeypatch.setattr(projections.REGISTRY["audit"], "rebuilder", Failing)
    with pytest.raises(RuntimeError, match="fold fails"):
        projections.rebuild()
    assert sys.getswitchinterval() == before

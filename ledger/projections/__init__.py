"""Projections: read models built only from the ledger's events (DESIGN.md §Projections).

Each projector keeps a checkpoint (the last position it applied) and advances it in the same
transaction as its rows, so running it twice, or in two workers at once, applies each event
once (C18): the checkpoint row is locked ``FOR UPDATE`` while a batch is applied, and a
worker killed mid-batch rolls the whole batch back.

Why no event is skipped (C16): ``ledger.store.append`` serialises writers, so a position
is visible only after every lower one has committed. The runner still refuses to read past
a hole in the positions (it stops before it), so even a future writer that broke that rule
could not make a projector skip an event.
"""

from collections.abc import Iterable, Sequence
from typing import Protocol

from django.db import IntegrityError, transaction
from django.db.models import Max, Prefetch

from ..models import Event, Posting, ProjectionCheckpoint

BATCH = 2000


class Projector(Protocol):
    name: str

    def apply(self, events: Sequence[Event]) -> None:
        """Fold ``events`` (position order, postings prefetched) into the read model."""

    def reset(self) -> None:
        """Delete every row of the read model."""


REGISTRY: dict[str, Projector] = {}


def register(projector: Projector) -> Projector:
    REGISTRY[projector.name] = projector
    return projector


def names() -> list[str]:
    return list(REGISTRY)


def _checkpoint_for_update(name: str) -> ProjectionCheckpoint:
    try:
        with transaction.atomic():
            ProjectionCheckpoint.objects.get_or_create(name=name)
    except IntegrityError:  # another worker created it first
        pass
    return ProjectionCheckpoint.objects.select_for_update().get(name=name)


def _contiguous(events: list[Event], after: int) -> list[Event]:
    """The events up to the first hole in the positions (there should be none)."""
    for index, event in enumerate(events):
        if event.position != after + index + 1:
            return events[:index]
    return events


def catch_up(name: str, *, batch: int = BATCH, max_batches: int | None = None) -> int:
    """Apply every committed event after ``name``'s checkpoint; returns how many were applied."""
    projector = REGISTRY[name]
    applied = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            checkpoint = _checkpoint_for_update(name)
            events = _contiguous(
                list(
                    Event.objects.filter(position__gt=checkpoint.position)
                    .order_by("position")
                    .prefetch_related(Prefetch("postings", queryset=Posting.objects.order_by("id")))[:batch]
                ),
                checkpoint.position,
            )
            if not events:
                return applied
            projector.apply(events)
            checkpoint.position = events[-1].position
            checkpoint.save(update_fields=["position"])
        applied += len(events)
        batches += 1
    return applied


def catch_up_all(*, batch: int = BATCH) -> dict[str, int]:
    return {name: catch_up(name, batch=batch) for name in REGISTRY}


def rebuild(which: Iterable[str] | None = None, *, batch: int = BATCH) -> dict[str, int]:
    """Drop the named projections (default: all) and replay them from position 0."""
    applied = {}
    for name in which or names():
        projector = REGISTRY[name]
        with transaction.atomic():
            checkpoint = _checkpoint_for_update(name)
            projector.reset()
            checkpoint.position = 0
            checkpoint.save(update_fields=["position"])
        applied[name] = catch_up(name, batch=batch)
    return applied


def lag() -> list[dict]:
    """Per projector: ``{"projection", "checkpoint", "head", "lag"}`` in positions."""
    head = Event.objects.aggregate(p=Max("position"))["p"] or 0
    checkpoints = dict(ProjectionCheckpoint.objects.values_list("name", "position"))
    return [
        {
            "projection": name,
            "checkpoint": checkpoints.get(name, 0),
            "head": head,
            "lag": head - checkpoints.get(name, 0),
        }
        for name in REGISTRY
    ]


# Registration order is the catch-up order.
from . import balances, audit, table_stats, ratings  # noqa: E402, F401, I001

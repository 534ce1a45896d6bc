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

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from django.db import IntegrityError, transaction
from django.db.models import Max

from ..models import Event, Posting, ProjectionCheckpoint

BATCH = 5000
EVENT_FIELDS = ("position", "type", "data", "occurred_at", "gaming_day", "hash")


@dataclass
class Batch:
    """The committed events ``after < position <= upto``, read lazily as plain rows.

    Projectors ask only for what they need: the balance projector never loads an event, it
    sums the postings in SQL; the others read ``events`` (dicts of ``EVENT_FIELDS``).
    """

    after: int
    upto: int
    _events_of_types: dict = field(default_factory=dict)

    @property
    def size(self) -> int:
        return self.upto - self.after

    def _range(self, queryset, key: str):
        return queryset.filter(**{f"{key}__gt": self.after, f"{key}__lte": self.upto})

    @cached_property
    def events(self) -> list[dict]:
        return list(self._range(Event.objects, "position").order_by("position").values(*EVENT_FIELDS))

    def events_of(self, *types: str) -> list[dict]:
        """Only the events of ``types``, filtered in the database."""
        if types not in self._events_of_types:
            rows = self._range(Event.objects, "position").filter(type__in=types).order_by("position")
            self._events_of_types[types] = list(rows.values(*EVENT_FIELDS))
        return self._events_of_types[types]

    @cached_property
    def postings_by_event(self) -> dict[int, list[tuple[str, int, str]]]:
        legs: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
        rows = self._range(Posting.objects, "event_id").order_by("event_id", "id")
        for event_id, account, amount, currency in rows.values_list("event_id", "account", "amount_cents", "currency"):
            legs[event_id].append((account, amount, currency))
        return legs

    def postings(self):
        """The batch's postings as a queryset (for aggregates in SQL)."""
        return self._range(Posting.objects, "event_id")


class Projector(Protocol):
    name: str

    def apply(self, batch: Batch) -> None:
        """Fold the batch's events into the read model (inside the checkpoint's transaction)."""

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


def _next_batch(after: int, size: int) -> Batch | None:
    """The next run of contiguous committed positions after ``after`` (at most ``size``)."""
    head = Event.objects.aggregate(p=Max("position"))["p"] or 0
    upto = min(head, after + size)
    if upto <= after:
        return None
    found = Event.objects.filter(position__gt=after, position__lte=upto).count()
    if found != upto - after:  # a hole: stop right before it (see the module docstring)
        positions = Event.objects.filter(position__gt=after, position__lte=upto).order_by("position")
        for expected, position in enumerate(positions.values_list("position", flat=True), start=after + 1):
            if position != expected:
                upto = expected - 1
                break
        if upto <= after:
            return None
    return Batch(after, upto)


def catch_up(name: str, *, batch: int = BATCH, max_batches: int | None = None) -> int:
    """Apply every committed event after ``name``'s checkpoint; returns how many were applied."""
    projector = REGISTRY[name]
    applied = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            checkpoint = _checkpoint_for_update(name)
            work = _next_batch(checkpoint.position, batch)
            if work is None:
                return applied
            projector.apply(work)
            checkpoint.position = work.upto
            checkpoint.save(update_fields=["position"])
        applied += work.size
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

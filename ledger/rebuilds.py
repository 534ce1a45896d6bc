"""Projection rebuilds as Celery tasks, one a projection, run in parallel.

``rebuild_request(names=…)`` marks each projection's rebuild queued (``ProjectionRebuild``)
and, once that commits, sends one ``ledger.tasks.rebuild_projection`` a projection as a Celery
group: with several workers the four rebuild at once, each in a process of its own.
``rebuild_run(name=…)`` is what a task does: ``projections.rebuild([name])`` (one transaction;
readers and the catch-up wait on its locks, never see a half-built read model), reporting its
progress as it goes, then its end: succeeded, or failed with the error.

The rebuild's own transaction shows nothing until it commits, so on PostgreSQL the progress
is written on a second connection in autocommit, at most every ``PROGRESS_SECONDS``. Its
UPDATE skips a row another transaction holds (``SKIP LOCKED``): a progress line is never
worth waiting for. SQLite (the demo, eager tasks) shows the start and the end only.

``rebuild_status()`` gives per projection: state, events done and total, percent, rate
(events/s), seconds left, started / finished (UTC) and the error.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import timedelta

from django.db import connection, connections, transaction
from django.utils import timezone

from . import projections
from .errors import Conflict, InvalidInput
from .models import Event, ProjectionRebuild

logger = logging.getLogger(__name__)

PROGRESS_SECONDS = 0.5  # how often a running rebuild writes its progress
# A rebuild queued or running that has shown no sign of life this long is taken as abandoned
# (its worker died): a new request may replace it.
STALE_SECONDS = 600
ACTIVE = (ProjectionRebuild.State.QUEUED, ProjectionRebuild.State.RUNNING)


def _head() -> int:
    return Event.objects.order_by("-position").values_list("position", flat=True).first() or 0


def _last_sign_of_life(row: ProjectionRebuild):
    return row.progress_at or row.started_at or row.queued_at


def rebuild_request(*, names: Iterable[str] | None = None, actor: str = "") -> list[str]:
    """Queue a rebuild of ``names`` (default: every projection), one task each, in parallel.

    Returns the names queued. Raises ``InvalidInput`` (field ``projections``) for a name that
    is no projection, ``Conflict`` when one of them is already queued or running (and alive:
    heard from in the last ``STALE_SECONDS``). The tasks are sent after the commit; without a
    broker (eager Celery) they run one after the other inside this call.
    """
    chosen = list(dict.fromkeys(names or projections.names()))
    unknown = [name for name in chosen if name not in projections.REGISTRY]
    if unknown or not chosen:
        raise InvalidInput(
            f"no such projection: {', '.join(unknown) or '(none named)'}; known: {', '.join(projections.names())}",
            field="projections",
        )
    now = timezone.now()
    with transaction.atomic():
        rows = {row.name: row for row in ProjectionRebuild.objects.select_for_update().filter(name__in=chosen)}
        busy = [
            name
            for name, row in sorted(rows.items())
            if row.state in ACTIVE and now - _last_sign_of_life(row) < timedelta(seconds=STALE_SECONDS)
        ]
        if busy:
            raise Conflict(f"a rebuild of {', '.join(busy)} is already {rows[busy[0]].state}")
        total = _head()
        for name in chosen:
            ProjectionRebuild.objects.update_or_create(
                name=name,
                defaults={
                    "state": ProjectionRebuild.State.QUEUED,
                    "events_done": 0,
                    "events_total": total,
                    "queued_at": now,
                    "started_at": None,
                    "progress_at": None,
                    "finished_at": None,
                    "error": "",
                    "requested_by": actor[:150],
                },
            )
        transaction.on_commit(lambda: _send(chosen))
    return chosen


def _send(names: list[str]) -> None:
    from celery import current_app, group

    # Asked by name: the tasks call this module's services, so it never imports them.
    rebuild_projection = current_app.tasks["ledger.tasks.rebuild_projection"]

    if rebuild_projection.app.conf.task_always_eager:
        # One after the other, here; a failure is recorded on its row and the others still run.
        for name in names:
            rebuild_projection.apply(args=(name,), throw=False)
        return
    group(rebuild_projection.s(name) for name in names).apply_async()


class _ProgressWriter:
    """Writes a running rebuild's events done, at most every ``PROGRESS_SECONDS``, on a
    connection of its own (PostgreSQL), so readers see it while the rebuild's transaction is open."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.done = 0
        self.written_at = time.monotonic()
        self.side = connections.create_connection("default") if connection.vendor == "postgresql" else None

    def advance(self, count: int) -> None:
        self.done += count
        now = time.monotonic()
        if self.side is not None and now - self.written_at >= PROGRESS_SECONDS:
            self.written_at = now
            try:
                with self.side.cursor() as cursor:
                    cursor.execute(
                        "UPDATE ledger_projectionrebuild SET events_done = %s, progress_at = now() WHERE name = "
                        "(SELECT name FROM ledger_projectionrebuild WHERE name = %s FOR UPDATE SKIP LOCKED)",
                        [self.done, self.name],
                    )
            except Exception:  # a progress line lost is no reason to stop a rebuild
                logger.warning("could not write the progress of the %s rebuild", self.name, exc_info=True)

    def close(self) -> None:
        if self.side is not None:
            self.side.close()


def rebuild_run(*, name: str, batch: int = projections.BATCH) -> int:
    """Rebuild projection ``name`` now (what ``ledger.tasks.rebuild_projection`` runs), writing
    its progress to its ``ProjectionRebuild`` row. Returns the position it was rebuilt to.
    An error is recorded on the row (state failed, its text) and raised again."""
    if name not in projections.REGISTRY:
        raise InvalidInput(f"no such projection: {name}", field="projections")
    total = _head()
    now = timezone.now()
    running = {
        "state": ProjectionRebuild.State.RUNNING,
        "events_done": 0,
        "events_total": total,
        "started_at": now,
        "progress_at": now,
        "finished_at": None,
        "error": "",
    }
    # Queued by ``rebuild_request``, or run directly (a task sent by hand): queued now.
    ProjectionRebuild.objects.update_or_create(
        name=name, create_defaults={**running, "queued_at": now}, defaults=running
    )
    writer = _ProgressWriter(name)
    try:
        position = projections.rebuild([name], batch=batch, on_batch=writer.advance)[name]
    except Exception as error:
        ProjectionRebuild.objects.filter(name=name).update(
            state=ProjectionRebuild.State.FAILED,
            events_done=writer.done,
            finished_at=timezone.now(),
            error=f"{type(error).__name__}: {error}"[:2000],
        )
        raise
    finally:
        writer.close()
    ProjectionRebuild.objects.filter(name=name).update(
        state=ProjectionRebuild.State.SUCCEEDED,
        events_done=position,
        events_total=position,
        progress_at=timezone.now(),
        finished_at=timezone.now(),
    )
    return position


def rebuild_status() -> dict[str, dict | None]:
    """Per projection, its last rebuild started as a task, or None: ``{"state", "events_done",
    "events_total", "percent", "events_per_second", "seconds_left", "queued_at", "started_at",
    "finished_at", "error", "requested_by"}`` (times aware, UTC; rate over the time since it
    started, to its last progress; ``seconds_left`` None unless running at a known rate)."""
    rows = {row.name: row for row in ProjectionRebuild.objects.all()}
    return {name: _status(rows[name]) if name in rows else None for name in projections.names()}


def _status(row: ProjectionRebuild) -> dict:
    rate = None
    until = row.finished_at or row.progress_at
    if row.started_at and until and until > row.started_at and row.events_done:
        rate = row.events_done / (until - row.started_at).total_seconds()
    left = None
    if row.state == ProjectionRebuild.State.RUNNING and rate:
        left = max(0, row.events_total - row.events_done) / rate
    return {
        "state": row.state,
        "events_done": row.events_done,
        "events_total": row.events_total,
        "percent": round(100 * row.events_done / row.events_total, 1) if row.events_total else 100.0,
        "events_per_second": round(rate) if rate is not None else None,
        "seconds_left": round(left, 1) if left is not None else None,
        "queued_at": row.queued_at,
        "started_at": row.started_at,
        "finished_at": row.finished_at,
        "error": row.error,
        "requested_by": row.requested_by,
    }

"""The games' Celery tasks (found by ``autodiscover_tasks``)."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError

from ledger import outage
from ledger.gaming_day import current_gaming_day

from .services.investigations import raise_alarms


@shared_task(name="games.tasks.raise_fluctuation_alarms")
def raise_fluctuation_alarms() -> list[str] | None:
    """Open an investigation (as ``system``) of each table and patron of the current gaming day
    beyond the house's confidence that has none open (``games.protection``); the ids opened.
    The database out of reach: None, and beat runs it again."""
    try:
        return raise_alarms(current_gaming_day())
    except DatabaseError as exc:
        if not outage.unreachable(exc):
            raise
        outage.noted_unavailable(exc)
        return None

"""Celery tasks: they take ids (or nothing) and call a service."""

from celery import shared_task

from . import projections


@shared_task(name="ledger.tasks.catch_up_projections")
def catch_up_projections() -> dict[str, int]:
    """Catch every projection up with the ledger; idempotent (a redelivery applies nothing)."""
    return projections.catch_up_all()

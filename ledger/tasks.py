"""Celery tasks: they take ids (or nothing) and call a service."""

from celery import shared_task

from .projections import catch_up_balances


@shared_task(name="ledger.tasks.project_balances")
def project_balances() -> int:
    """Catch the account-balance projection up with the ledger; idempotent."""
    return catch_up_balances()

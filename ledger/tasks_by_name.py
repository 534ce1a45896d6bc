"""The ledger's Celery tasks (``ledger.tasks``) found by name in the project's Celery app.

The tasks call the ledger's services, and some services send a task (the projections'
catch-up after a commit, a rebuild): asked by name, the services never import the tasks."""

from __future__ import annotations


def task(name: str):
    """The task ``ledger.tasks.<name>``. A process that is no worker (a shell, a command) has not
    imported the apps' task modules yet (``autodiscover_tasks`` is lazy): they are imported
    the first time, as a worker imports them when it starts."""
    from celery import current_app

    qualified = f"ledger.tasks.{name}"
    if qualified not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[qualified]

"""Celery application.

With no ``CELERY_BROKER_URL`` in the environment tasks run eagerly in-process
(``task_always_eager``), so the demo needs no broker; CI and production point it at
RabbitMQ (or Redis). DESIGN.md §Projections.
"""

import os
import time

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# --- Operations: log lines of the worker and beat ------------------------------------------------
@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def _structured_log_lines(logger, **kwargs):
    """Celery sets up its own handlers (with ``--loglevel``); in production (``LOG_FORMAT=json``)
    they write the same JSON lines as the web processes, with the task's name and id."""
    from django.conf import settings

    from core.logs import ContextFilter, JsonFormatter

    for handler in logger.handlers:
        handler.addFilter(ContextFilter())
        if settings.LOG_FORMAT == "json":
            handler.setFormatter(JsonFormatter())


# task id -> (the token restoring the log context before it: an eager task's request, start time)
_running: dict = {}


@signals.task_prerun.connect
def _task_started(task_id=None, task=None, **kwargs):
    from core import logs

    _running[task_id] = (logs.start(request_id=task_id, task=getattr(task, "name", None)), time.perf_counter())


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **kwargs):
    """End the task's log context; record its run time (``casino_celery_task_seconds``)."""
    from core import logs
    from ledger import metrics

    started = _running.pop(task_id, None)
    if started is None:
        return
    token, at = started
    logs.end(token)
    metrics.celery_task_seconds.labels(getattr(task, "name", "unknown"), state or "UNKNOWN").observe(
        time.perf_counter() - at
    )

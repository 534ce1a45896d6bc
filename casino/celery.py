"""Celery application.

With no ``CELERY_BROKER_URL`` in the environment tasks run eagerly in-process
(``task_always_eager``), so the demo needs no broker; CI and production point it at
RabbitMQ (or Redis). DESIGN.md §Projections.
"""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# --- Operations: log lines of the worker and beat (issue 25) -------------------------------------
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


_log_contexts: dict = {}  # task id -> the token restoring the context before it (an eager task's request)


@signals.task_prerun.connect
def _task_log_context(task_id=None, task=None, **kwargs):
    from core import logs

    _log_contexts[task_id] = logs.start(request_id=task_id, task=getattr(task, "name", None))


@signals.task_postrun.connect
def _task_log_context_end(task_id=None, **kwargs):
    from core import logs

    token = _log_contexts.pop(task_id, None)
    if token is not None:
        logs.end(token)

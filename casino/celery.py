"""Celery application.

With no ``CELERY_BROKER_URL`` in the environment tasks run eagerly in-process
(``task_always_eager``), so the demo needs no broker; CI and production point it at
RabbitMQ (or Redis). DESIGN.md §Projections.
"""

import os
import time

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")


def _closed_redis_channel_is_a_connection_error() -> None:
    """kombu's Redis channel, closed after its connection was released (the broker gone), still
    restores its unacknowledged messages (tasks a worker holds for a countdown) and asks its
    released connection for a host: ``AttributeError: 'NoneType' object has no attribute
    'hostname'`` (celery/kombu#582, seen again with kombu 5.7.0) ended the worker instead of its
    reconnecting. Raised as the connection error it is, the close's own ``ignore_errors`` lets
    it go; the messages stay in Redis's unacked hash, restored once their visibility timeout
    passes, and beat's catch-up every few seconds does the same work meanwhile."""
    try:
        from kombu.transport import redis as kombu_redis
        from redis.exceptions import ConnectionError as RedisConnectionError
    except ImportError:  # no Redis client installed: the transport is not used
        return
    connparams = kombu_redis.Channel._connparams
    if getattr(connparams, "casino_guarded", False):
        return

    def guarded(self, asynchronous=False):
        if self.connection is None or self.connection.client is None:
            raise RedisConnectionError("the broker connection was released: nothing to restore through it")
        return connparams(self, asynchronous=asynchronous)

    guarded.casino_guarded = True
    kombu_redis.Channel._connparams = guarded


_closed_redis_channel_is_a_connection_error()

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

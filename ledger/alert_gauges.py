"""The gauges the alert rules read (deploy/prometheus-alerts.yml), measured at each scrape of
``/metrics`` (``casino.metrics`` registers ``AlertGauges``).

Each family is read in its own transaction, whose statements PostgreSQL stops after
``METRICS_QUERY_TIMEOUT_SECONDS`` (``statement_timeout``, local to it): a slow or locked database
costs a scrape that long a read at most. A gauge that could not be read is left out of the scrape
(logged on ``ledger.alert_gauges``), never reported as a reassuring value; ``casino_ready`` is
then 0, since the probe could not say yes either.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, transaction
from prometheus_client.core import GaugeMetricFamily

from . import checkpoints, health

log = logging.getLogger(__name__)


@contextmanager
def bounded() -> Iterator[None]:
    """On PostgreSQL, a transaction whose statements may each take ``METRICS_QUERY_TIMEOUT_SECONDS``
    (``SET LOCAL``: the connection, kept for the next requests, keeps its own). On SQLite no
    transaction: a file has no server to wait on, and the settings' ``BEGIN IMMEDIATE`` would hold
    the write lock for the scrape."""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic():
        milliseconds = max(1, round(settings.METRICS_QUERY_TIMEOUT_SECONDS * 1000))
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [f"{milliseconds}ms"])
        yield


class AlertGauges:
    """The gauges an operator alerts on, read afresh at each scrape:

    - ``casino_ready``: 1 when ``GET /api/health/ready`` would answer 200, else 0: the same
      verdict, from the same function (``ledger.health.readiness``: database, writable, broker,
      projections, seal, chain);
    - ``casino_broker_up``: 1 when ``CELERY_BROKER_URL`` took a connection within
      ``HEALTH_BROKER_TIMEOUT_SECONDS``, else 0: the readiness's own broker check, not a second
      connection. Absent without a broker (the tasks then run in-process: nothing to be down);
    - ``casino_checkpoint_age_seconds``: seconds since the latest checkpoint was written (``+Inf``
      while none was), with ``casino_ledger_unanchored_events``, the events after it
      (``ledger.checkpoints.staleness``). A checkpoint is written only when the head moved, so
      on a quiet night the age grows with nothing wrong: alert on the age while events wait;
    - ``casino_unsealed_day_age_seconds``: seconds since the end of the oldest ended gaming day
      whose events no seal holds yet, 0 while every ended day is sealed
      (``ledger.health.unsealed_day_age_seconds``; the readiness's ``seal`` check compares it
      with ``HEALTH_SEAL_GRACE_HOURS``).

    Why that last one and not the age of the latest seal: a seal is owed by a day that was
    played, so a closed casino (a day off, a quiet week) would page with the latest seal's age
    while nothing is owed; and a busy casino that sealed yesterday but not the day before looks
    fresh by it. The oldest day owing a seal is the regulator's question, counts whether the day
    was closed and its seal refused, or never closed at all, and is 0 when nothing is owed.
    """

    def collect(self):
        yield from self._readiness()
        yield from self._checkpoints()
        yield from self._seals()

    def _readiness(self):
        ready = GaugeMetricFamily("casino_ready", "Whether /api/health/ready answers 200 (1) or 503 (0)")
        try:
            with bounded():
                verdict = health.readiness()
        except Exception:  # the database would not even open a transaction: not ready
            log.warning("metrics: readiness unreadable", exc_info=True)
            verdict = None
        ready.add_metric([], 1 if verdict and verdict["ready"] else 0)
        yield ready
        if settings.CELERY_TASK_ALWAYS_EAGER:
            return
        broker = GaugeMetricFamily("casino_broker_up", "Whether the Celery broker took a connection in time")
        broker.add_metric([], 1 if verdict and verdict["checks"]["broker"]["ok"] else 0)
        yield broker

    def _checkpoints(self):
        try:
            with bounded():
                age, unanchored = checkpoints.staleness()
        except Exception:
            log.warning("metrics: checkpoint age unreadable", exc_info=True)
            return
        seconds = GaugeMetricFamily(
            "casino_checkpoint_age_seconds", "Seconds since the latest ledger checkpoint was written (+Inf: none yet)"
        )
        seconds.add_metric([], age)
        yield seconds
        events = GaugeMetricFamily(
            "casino_ledger_unanchored_events", "Ledger events after the latest checkpoint (0: it holds the head)"
        )
        events.add_metric([], unanchored)
        yield events

    def _seals(self):
        try:
            with bounded():
                age = health.unsealed_day_age_seconds()
        except Exception:
            log.warning("metrics: unsealed day age unreadable", exc_info=True)
            return
        gauge = GaugeMetricFamily(
            "casino_unsealed_day_age_seconds",
            "Seconds since the end of the oldest ended gaming day no seal holds yet (0: none)",
        )
        gauge.add_metric([], age)
        yield gauge

"""The process's Prometheus metrics, served at ``/metrics`` (``casino.metrics``).

Defined here, in the lowest layer that runs Django, so every layer can record into them:

- ``casino_http_request_seconds{view,method}`` (histogram) and
  ``casino_http_requests_total{view,method,status}``: each HTTP request, by URL name;
- ``casino_commands_total{command,outcome}`` (``committed``, ``replayed``, ``refused``) and
  ``casino_command_seconds{command}``: each write command (``ledger_command``), named by its
  request's ``op``;
- ``casino_command_refusals_total{command,reason}``: refused commands by error code
  (``insufficient_funds``, ``state_conflict``…; a refused bet by its limit: ``table_maximum``…);
- ``casino_ledger_append_seconds`` (histogram) and ``casino_ledger_events_appended_total``:
  each ``ledger.store.append`` and the events it wrote (events/s: ``rate()`` of the counter);
- ``casino_celery_task_seconds{task,state}``: each Celery task's run time;
- ``casino_projection_lag_positions{projection}``: read from the database at scrape time;
- ``casino_replica_read_blocks_total{database,reason}``: each ``reads_from_replica`` block
  where a replica is configured, by the database it read (``replica``, ``default``) and why
  (``replica``, ``lag``, ``behind_position``, ``unavailable``, ``transaction``);
- ``casino_replica_lag_seconds``, ``casino_replica_positions_behind``, ``casino_replica_up``:
  measured at scrape time (``casino.metrics``, ``ledger.replica``);
- ``casino_ready``, ``casino_broker_up``, ``casino_checkpoint_age_seconds``,
  ``casino_ledger_unanchored_events``, ``casino_unsealed_day_age_seconds``: measured at scrape
  time for the alert rules (``ledger.alert_gauges``, deploy/prometheus-alerts.yml);
- ``casino_database_up``: 1 when the database answered at scrape time, else 0 (``casino.metrics``,
  ``ledger.outage.probe``); while it is 0 the metrics read from the database are left out.

Several processes (gunicorn workers, Celery workers) on one host share their counts when
``PROMETHEUS_MULTIPROC_DIR`` names a directory writable by all of them, emptied at boot
(prometheus-client's multiprocess mode; deploy/README.md "Metrics").
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

# Buckets in seconds: a bet placement is ~5-15 ms, an append under a millisecond to a few.
_FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_TASKS = (0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 1800.0)

http_request_seconds = Histogram(
    "casino_http_request_seconds", "HTTP request latency by view (URL name)", ["view", "method"], buckets=_FAST
)
http_requests = Counter("casino_http_requests", "HTTP requests by view and status", ["view", "method", "status"])
commands = Counter("casino_commands", "Write commands by outcome", ["command", "outcome"])
command_seconds = Histogram("casino_command_seconds", "Write command duration", ["command"], buckets=_FAST)
command_refusals = Counter("casino_command_refusals", "Refused write commands by reason", ["command", "reason"])
ledger_append_seconds = Histogram("casino_ledger_append_seconds", "ledger.store.append latency", buckets=_FAST)
ledger_events_appended = Counter("casino_ledger_events_appended", "Events appended to the ledger")
replica_read_blocks = Counter(
    "casino_replica_read_blocks",
    "Blocks of replica-eligible reads by the database that served them",
    ["database", "reason"],
)
celery_task_seconds = Histogram("casino_celery_task_seconds", "Celery task run time", ["task", "state"], buckets=_TASKS)


def refusal_reason(error: BaseException) -> str:
    """The label of a refusal: a refused bet's limit kind, a domain error's code, else its class."""
    kind = getattr(error, "kind", None)
    if isinstance(kind, str):
        return kind
    code = getattr(error, "code", None)
    return code if isinstance(code, str) else type(error).__name__

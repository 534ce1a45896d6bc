"""``GET /metrics``: the Prometheus text format (the metrics: ``ledger.metrics``).

Who may read it: a client whose address is in ``METRICS_ALLOWED_IPS`` (default loopback: a
Prometheus on the same host, or scraping through an SSH tunnel), or one sending
``Authorization: Bearer <METRICS_TOKEN>`` when that token is set. Anyone else gets 403. Behind
a load balancer every request comes from the balancer's address: scrape each node directly,
or use the token (deploy/README.md "Metrics"). A request that carries a proxy's header
(``X-Forwarded-For``, ``Forwarded``, ``X-Real-IP``) came through a proxy — one on this host
makes anyone look like 127.0.0.1 — so it needs the token whatever its address.

The gauges the alert rules read (readiness, broker, checkpoint and seal ages) are
``ledger.alert_gauges``'s; the suspicion cases waiting and overdue ``compliance.metrics``'s.
``casino_database_up`` is measured at each scrape (``ledger.outage.probe``: a connection of its
own, ``METRICS_DATABASE_TIMEOUT_SECONDS``): 1 when the database answered, else 0, and then the
metrics read from the database are left out and the scrape still answers 200.

With ``PROMETHEUS_MULTIPROC_DIR`` set, the counts of every process on the host that writes
there (gunicorn workers, Celery workers) are summed; without it, this process's own.
"""

from __future__ import annotations

import hmac
import os

from django.conf import settings
from django.db import DatabaseError
from django.http import HttpResponse, JsonResponse
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

from compliance.metrics import SuspicionCaseGauges
from ledger import checkpoints, identity, outage, projections, replica
from ledger.alert_gauges import AlertGauges


class ProjectionLagCollector:
    """``casino_projection_lag_positions{projection}``, read from the database at each scrape."""

    def collect(self):
        gauge = GaugeMetricFamily(
            "casino_projection_lag_positions", "Positions a projection is behind the ledger head", labels=["projection"]
        )
        for row in projections.lag():
            gauge.add_metric([row["projection"]], row["lag"])
        yield gauge


class CheckpointCollector:
    """``casino_ledger_checkpoints_missing``: checkpoints the database recorded writing whose file
    is no longer in ``LEDGER_CHECKPOINT_DIR`` (deleted, renamed or moved); 0 when all are there.
    Read at each scrape (``ledger.checkpoints.missing_files``); alert on anything above 0."""

    def collect(self):
        gauge = GaugeMetricFamily(
            "casino_ledger_checkpoints_missing",
            "Recorded ledger checkpoints whose file is missing from the checkpoint directory",
        )
        gauge.add_metric([], len(checkpoints.missing_files()))
        yield gauge


class IdentityCollector:
    """``casino_identity_mismatches``: staff accounts, dealer assignments and patrons whose
    password hash, groups, flags, names, document, table or end differ from their events
    (changed with raw SQL, not through the services; ``ledger.identity``), one per field. Read at each scrape; alert on
    anything above 0, ``manage.py ledger verify`` names them."""

    def collect(self):
        gauge = GaugeMetricFamily(
            "casino_identity_mismatches",
            "Identity fields of staff accounts, dealer assignments and patrons that differ from the ledger's events",
        )
        gauge.add_metric([], len(identity.mismatches()))
        yield gauge


class ReplicaLagCollector:
    """Where ``DATABASE_REPLICA_URL`` is set, measured afresh at each scrape (``ledger.replica``):
    ``casino_replica_up`` (1: the replica and the primary answered), ``casino_replica_lag_seconds``
    (0 once its ledger head reached the primary's; +Inf before it replayed anything) and
    ``casino_replica_positions_behind``. Alert on the lag above ``DATABASE_REPLICA_MAX_LAG_SECONDS``:
    past it the replica's reads fall back to the primary. Nothing without a replica."""

    def collect(self):
        if not replica.configured():
            return
        up = GaugeMetricFamily("casino_replica_up", "Whether the read replica and the primary could be read")
        try:
            lag = replica.current_lag(fresh=True)
        except Exception:  # a scrape reports the replica down, it does not fail
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        seconds = GaugeMetricFamily(
            "casino_replica_lag_seconds", "Seconds the read replica is behind the primary (0: ledger heads equal)"
        )
        seconds.add_metric([], lag.seconds)
        yield seconds
        behind = GaugeMetricFamily("casino_replica_positions_behind", "Ledger positions the read replica lacks")
        behind.add_metric([], lag.positions_behind)
        yield behind


class DatabaseUpCollector:
    """``casino_database_up``: 1 when the database answered this scrape's probe, else 0."""

    def __init__(self, up: bool):
        self.up = up

    def collect(self):
        gauge = GaugeMetricFamily("casino_database_up", "Whether the database answered SELECT 1 at this scrape")
        gauge.add_metric([], 1 if self.up else 0)
        yield gauge


PROXY_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


def allowed(request) -> bool:
    """The token when it is set and offered; else an address of ``METRICS_ALLOWED_IPS`` on a
    request that no proxy relayed."""
    token = settings.METRICS_TOKEN
    if token:
        offered = request.headers.get("Authorization", "")
        if hmac.compare_digest(offered.encode(), f"Bearer {token}".encode()):
            return True
    if any(header in request.META for header in PROXY_HEADERS):
        return False
    return request.META.get("REMOTE_ADDR") in settings.METRICS_ALLOWED_IPS


def metrics_view(request):
    if not allowed(request):
        return JsonResponse(
            {"error": "permission_denied", "detail": "metrics are for the monitoring's address or token"},
            status=403,
        )
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    up = outage.probe(timeout=settings.METRICS_DATABASE_TIMEOUT_SECONDS)
    read = b""
    if up:
        from_database = CollectorRegistry()
        from_database.register(ProjectionLagCollector())
        from_database.register(CheckpointCollector())
        from_database.register(IdentityCollector())
        from_database.register(ReplicaLagCollector())
        from_database.register(
            AlertGauges()
        )  # readiness, broker, checkpoint and seal ages (deploy/prometheus-alerts.yml)
        from_database.register(SuspicionCaseGauges())  # suspicion cases waiting and overdue
        try:
            read = generate_latest(from_database)
        except DatabaseError as exc:  # gone between the probe and the reads
            if not outage.unreachable(exc):
                raise
            outage.noted_unavailable(exc)
            up = False
    database = CollectorRegistry()
    database.register(DatabaseUpCollector(up))
    body = generate_latest(registry) + generate_latest(database) + read
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)

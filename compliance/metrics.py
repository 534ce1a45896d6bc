"""The suspicion cases' gauges for the alert rules (deploy/prometheus-alerts.yml), read afresh at
each scrape of ``/metrics`` (``casino.metrics`` registers ``SuspicionCaseGauges``):

- ``casino_suspicion_cases_waiting``: cases still owing a decision or a filing;
- ``casino_suspicion_cases_overdue``: those past their deadline (SAR-C: 30 days after the case
  opened; TRACFIN: the casino's own target). Alert on anything above 0: a report owed late.

Counts only: a gauge names no case and no patron (the scrape is not the compliance role's).
Unreadable (a slow or locked database, ``ledger.alert_gauges.bounded``), both are left out of
the scrape and logged, never reported as 0.
"""

from __future__ import annotations

import logging

from prometheus_client.core import GaugeMetricFamily

from ledger.alert_gauges import bounded

from .selectors import overdue_count

log = logging.getLogger(__name__)


class SuspicionCaseGauges:
    def collect(self):
        try:
            with bounded():
                waiting, overdue = overdue_count()
        except Exception:
            log.warning("metrics: suspicion cases unreadable", exc_info=True)
            return
        gauge = GaugeMetricFamily("casino_suspicion_cases_waiting", "Suspicion cases owing a decision or a filing")
        gauge.add_metric([], waiting)
        yield gauge
        gauge = GaugeMetricFamily(
            "casino_suspicion_cases_overdue", "Suspicion cases past their filing deadline (SAR-C: 30 days)"
        )
        gauge.add_metric([], overdue)
        yield gauge

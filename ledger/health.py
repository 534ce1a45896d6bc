"""Readiness checks: can this process serve, and is the ledger's back office keeping up?

``readiness()`` runs six checks and returns ``{"ready": bool, "failing": [names],
"checks": {name: {"ok": bool, ...}}}``:

- ``database``: a ``SELECT 1`` on the default connection;
- ``writable``: the database takes writes (PostgreSQL: not a standby in recovery, and
  ``transaction_read_only`` off). A node pointed at a standby serves no writes: it says so
  here and the balancer routes nothing to it (its writes answer 503 ``read_only``);
- ``broker``: a connection to ``CELERY_BROKER_URL`` within ``HEALTH_BROKER_TIMEOUT_SECONDS``
  (ok without a broker: the tasks then run in-process, as in the demo);
- ``projections``: every projection at most ``HEALTH_MAX_PROJECTION_LAG`` positions behind the
  ledger head;
- ``seal``: no closed gaming day left unsealed more than ``HEALTH_SEAL_GRACE_HOURS`` after its
  end (0 turns the check off). The oldest unsealed day is the gaming day of the first event
  after the latest seal's range (positions follow time, so that is the oldest one;
  ``oldest_unsealed_day``).
- ``chain``: the last recorded verification of the hash chain (``manage.py ledger verify``,
  ``ledger.models.ChainVerification``) did not find it broken (none recorded yet: ok). Where
  and why it broke stays with the operator's verify; the probe says only that it did.

A check that raises is failing (never a 500) with a fixed word of what failed ("database
unavailable", "broker unavailable", …): the probe answers anyone, and a driver's message names
hosts, ports and users. The error itself goes to the log (``ledger.health``); a database out of
reach only once an outage (``ledger.outage``), however often the balancer probes.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection

from . import outage, projections, verification_records
from .gaming_day import current_gaming_day
from .models import Event
from .seal import SEAL_EVENT, latest_seal
from .store import closed_gaming_days

log = logging.getLogger(__name__)
# What a failing check says to the caller; the error's own message stays in the log.
UNAVAILABLE = {
    "database": "database unavailable",
    "writable": "database write state unreadable",
    "broker": "broker unavailable",
    "projections": "projection lag unreadable",
    "seal": "seal state unreadable",
    "chain": "chain verification unreadable",
}
READ_ONLY = "the database is read-only (a standby, or default_transaction_read_only): this node cannot record writes"
CHAIN_BROKEN = "the ledger's hash chain was found broken at its last verification"
BALANCES_DIFFER = "the ledger's last verification found balances or accounts differing from the events"
# The ledger's append-only tables: the application appends to each (deploy/postgres_roles.sql
# grants it INSERT; the database's owner could take it away: every append would then fail).
APPENDED = ("ledger_event", "ledger_posting", "ledger_idempotencyrecord")


def database() -> dict:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {"ok": True, "vendor": connection.vendor}


def writable() -> dict:
    if connection.vendor != "postgresql":
        return {"ok": True}
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery(), current_setting('transaction_read_only')")
        in_recovery, read_only = cursor.fetchone()
    if in_recovery or read_only == "on":
        return {"ok": False, "error": READ_ONLY, "in_recovery": bool(in_recovery)}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t FROM unnest(%s::text[]) AS t WHERE NOT has_table_privilege('public.' || t, 'INSERT')",
            [list(APPENDED)],
        )
        refused = [row[0] for row in cursor.fetchall()]
    if refused:
        return {
            "ok": False,
            "error": f"this node's database role may not append to {', '.join(refused)} (INSERT not granted): "
            "it cannot record anything; run deploy/postgres_roles.sql as the superuser",
        }
    return _lock_waits()


# The longest lock wait of a session on this database: a session holding a lock (a table
# locked by hand, a transaction left open, the ledger's writer key) stops every request that
# needs it, while each of those only waits; pg_blocking_pids names who holds it.
_LONGEST_WAIT = """
SELECT extract(epoch FROM clock_timestamp() - l.waitstart), l.locktype, l.relation::regclass::text,
       (SELECT string_agg(format('%%s (pid %%s)', coalesce(h.usename, 'a role'), b), ', ')
          FROM unnest(pg_blocking_pids(l.pid)) AS b LEFT JOIN pg_stat_activity h ON h.pid = b)
  FROM pg_locks l JOIN pg_stat_activity s ON s.pid = l.pid
 WHERE NOT l.granted AND l.waitstart IS NOT NULL AND s.datname = current_database()
 ORDER BY l.waitstart
 LIMIT 1
"""


def _lock_waits() -> dict:
    """A session waiting longer than ``HEALTH_WRITER_LOCK_WAIT_SECONDS`` for a lock on this
    database (the ledger's writer key, a table, a row): whoever holds it stops every request
    that needs it, so the node is not ready; the error names what is locked and by whom."""
    with connection.cursor() as cursor:
        cursor.execute(_LONGEST_WAIT, [])
        row = cursor.fetchone()
    if row is None or float(row[0]) <= settings.HEALTH_WRITER_LOCK_WAIT_SECONDS:
        return {"ok": True}
    waited, locktype, relation, holders = row
    what = (
        f"table {relation}"
        if relation
        else ("the ledger's writer lock" if locktype == "advisory" else f"a {locktype} lock")
    )
    return {
        "ok": False,
        "error": f"a request has waited {float(waited):.0f} s for {what}, held by {holders or 'another session'}: "
        "nothing that needs it is done until it is released",
    }


def broker() -> dict:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "detail": "no broker configured: tasks run in-process"}
    from kombu import Connection

    url = settings.CELERY_BROKER_URL
    timeout = settings.HEALTH_BROKER_TIMEOUT_SECONDS
    with Connection(url, connect_timeout=timeout) as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
        transport = conn.transport_cls
    return {"ok": True, "transport": transport}


def projection_lag() -> dict:
    threshold = settings.HEALTH_MAX_PROJECTION_LAG
    rows = projections.lag()
    behind = {row["projection"]: row["lag"] for row in rows if row["lag"] > threshold}
    return {
        "ok": not behind,
        "threshold": threshold,
        "max_lag": max((row["lag"] for row in rows), default=0),
        "behind": behind,
    }


def gaming_day_end(day: date) -> datetime:
    """When gaming day ``day`` ends (the next day's start, local), as an aware UTC datetime."""
    hour, minute = (int(part) for part in settings.GAMING_DAY_START.split(":"))
    local = datetime.combine(day + timedelta(days=1), time(hour, minute), tzinfo=ZoneInfo(settings.CASINO_TIMEZONE))
    return local.astimezone(UTC)


def oldest_unsealed_day(now: datetime | None = None) -> date | None:
    """The oldest gaming day, ended at ``now`` (UTC; default: now), that still owes a seal: the
    gaming day of the first event after the latest seal's range (positions follow time, so that
    is the oldest one); None when every ended day's events lie in a seal.

    An event recorded after the latest seal of day D but stamped D or earlier can only go into
    a later seal of D (D sealed before its close: D owes it) or, once D is closed, of the next
    day (a closed day takes only its sign-ins, ``ledger.store.AFTER_CLOSE_TYPES``, and its seal is
    not made again): that day owes the seal, not the one it is stamped with."""
    return _owing(now or datetime.now(UTC), latest_seal())


def _owing(now: datetime, last: Event | None) -> date | None:
    after = last.data["last_position"] if last is not None else 0
    first = (
        Event.objects.filter(position__gt=after)
        .exclude(type=SEAL_EVENT)
        .order_by("position")
        .values_list("gaming_day", flat=True)
        .first()
    )
    if first is None:
        return None
    if last is not None:
        sealed = date.fromisoformat(last.data["day"])
        if first <= sealed:
            first = sealed + timedelta(days=1) if closed_gaming_days({sealed}) else sealed
    return first if first < current_gaming_day(now) else None


def unsealed_day_age_seconds(now: datetime | None = None) -> float:
    """Seconds since the end of ``oldest_unsealed_day`` (UTC), 0.0 while no ended day owes a seal."""
    now = now or datetime.now(UTC)
    day = oldest_unsealed_day(now)
    return 0.0 if day is None else max(0.0, (now - gaming_day_end(day)).total_seconds())


def seal(now: datetime | None = None) -> dict:
    grace = settings.HEALTH_SEAL_GRACE_HOURS
    if grace <= 0:
        return {"ok": True, "detail": "check off (HEALTH_SEAL_GRACE_HOURS=0)"}
    now = now or datetime.now(UTC)
    last = latest_seal()
    found = {"ok": True, "last_sealed_day": last.data["day"] if last is not None else None, "grace_hours": grace}
    first = _owing(now, last)
    if first is None:
        return found
    due = gaming_day_end(first) + timedelta(hours=grace)
    found.update(oldest_unsealed_day=first.isoformat(), due=due.isoformat())
    found["ok"] = now <= due
    return found


def chain() -> dict:
    last = verification_records.latest()
    if last is None:
        return {"ok": True, "detail": "not verified yet"}
    found = {"ok": last.ok, "verified_at": last.verified_at.astimezone(UTC).isoformat()}
    if last.ok:
        return found
    return {**found, "error": BALANCES_DIFFER if verification_records.balances_differ(last) else CHAIN_BROKEN}


def readiness() -> dict:
    checks = {"database": _database_check(), "broker": _safe("broker", broker)}
    for name, check in (("writable", writable), ("projections", projection_lag), ("seal", seal), ("chain", chain)):
        # Both read the database: when it is down, say so rather than wait for it again.
        down = {"ok": False, "error": UNAVAILABLE["database"]}
        checks[name] = _safe(name, check) if checks["database"]["ok"] else down
    failing = [name for name, result in checks.items() if not result["ok"]]
    return {"ready": not failing, "failing": failing, "checks": checks}


def _database_check() -> dict:
    # Out of reach: one log line an outage (ledger.outage), not a traceback every probe.
    try:
        result = database()
    except Exception as exc:
        outage.noted_unavailable(exc)
        return {"ok": False, "error": UNAVAILABLE["database"]}
    outage.noted_available()
    return result


def _safe(name: str, check) -> dict:
    try:
        return check()
    except Exception:  # a readiness probe reports what is wrong, it does not crash
        log.warning("readiness check %s failed", name, exc_info=True)
        return {"ok": False, "error": UNAVAILABLE[name]}

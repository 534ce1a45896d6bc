"""The process's view of its database: answering, or out of reach since when.

A database that goes away meets every request, page, probe and task of the process until it
comes back; each of them reports it here (``noted_unavailable``), and the process says so in
its log once: WARNING ``database unavailable`` on logger ``casino.database`` when it goes, and
WARNING ``database available again after N s`` when a connection opens or a probe answers again
(``noted_available``), however many requests met it in between. Each process (a gunicorn worker,
a Celery worker, a command) keeps its own state, so an outage is one pair of lines a process.

``probe()`` asks the database afresh, on a connection of its own with a short timeout: ``/metrics``
reports it as ``casino_database_up`` at each scrape, and the background player polls it while it
waits (``demo.floor``).
"""

from __future__ import annotations

import logging
import math
import threading
import time

from django.db import DEFAULT_DB_ALIAS, Error, InterfaceError, OperationalError, connections

log = logging.getLogger("casino.database")

QUERY_CANCELED_SQLSTATE = "57014"  # statement_timeout (or a cancel): the server answered, slowly

_lock = threading.Lock()
_down_since: float | None = None  # time.monotonic() of the first failure, None while it answers


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of ``exc`` or of the driver's error it wraps, if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        state = getattr(current, "sqlstate", None)
        if state:
            return state
        current = current.__cause__ or current.__context__
    return None


def timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is the server cancelling a statement that ran past ``statement_timeout``."""
    return sqlstate(exc) == QUERY_CANCELED_SQLSTATE


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` is the database out of reach: refused or dropped connections, a server
    that sent no answer in time (``ledger.postgresql``), out of connection slots. Not a lock
    (SQLite's "database is locked"), not a statement the server cancelled, not a refused write."""
    if isinstance(exc, InterfaceError):
        return True
    return isinstance(exc, OperationalError) and "locked" not in str(exc) and not timed_out(exc)


def noted_unavailable(error: BaseException | None = None) -> None:
    """The database failed this process: logs ``database unavailable`` if it answered until now."""
    global _down_since
    with _lock:
        if _down_since is not None:
            return
        _down_since = time.monotonic()
    reason = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
    log.warning("database unavailable (%s); requests answer 503 until it is back", reason if error else "no answer")


def noted_available() -> None:
    """The database answered this process: logs ``database available again`` after an outage."""
    global _down_since
    with _lock:
        if _down_since is None:
            return
        lasted, _down_since = time.monotonic() - _down_since, None
    log.warning("database available again after %.0f s", lasted)


def unavailable() -> bool:
    """Whether the database is out of reach as this process last saw it."""
    return _down_since is not None


def forget() -> None:
    """Back to "answering" without a log line (tests: each starts with a database that answers)."""
    global _down_since
    with _lock:
        _down_since = None


def probe(*, timeout: float, using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether database ``using`` answers ``SELECT 1`` now; at most ~``timeout`` seconds
    (PostgreSQL: on a connection of its own, opened and closed here, ``timeout`` for the
    connection (at least 2 s: libpq's minimum) and for the answer). Notes the result."""
    wrapper = connections[using]
    fresh = wrapper.copy() if wrapper.vendor == "postgresql" else wrapper
    if fresh is not wrapper:
        options = fresh.settings_dict["OPTIONS"]
        options["connect_timeout"] = max(2, math.ceil(timeout))
        options["answer_timeout"] = timeout
    try:
        with fresh.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Error as exc:
        noted_unavailable(exc)
        return False
    finally:
        if fresh is not wrapper:
            fresh.close()
    noted_available()
    return True


def connection_opened(sender, connection, **kwargs) -> None:
    """``connection_created``: a connection to the default database opened, so it answers."""
    if connection.alias == DEFAULT_DB_ALIAS:
        noted_available()

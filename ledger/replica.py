"""Reads from a streaming replica, only where a block asks for them.

With ``DATABASE_REPLICA_URL`` set the settings add a database alias ``replica`` (a hot standby
of the primary). Nothing reads from it by default: a read goes there only inside
``reads_from_replica()`` (a context manager and a decorator), which the read-only pages and
exports use (the dashboard's and the auditor's pages on GET, the audit API's lists, the
reports, ``manage.py export_gaming_day`` and the scheduled export). Everything else (every
service, every ``ledger_command``, anything inside a transaction, every write) stays on the
primary, so a decision to write is never taken on a stale read.

The choice is made once, when the block is entered, and holds for the whole block (a page does
not mix two databases' moments):

- no replica configured: the primary;
- the block is entered inside a transaction of the application: the primary (and the router
  checks again at each query: a transaction opened inside the block reads the primary too);
- the replica is out of reach: the primary (logged, counted);
- ``min_position`` given: the replica only if its ledger head has reached that position (an
  export bounded by its seal's range is then exact on the replica, whatever its lag);
- the client wrote lately (``must_see``: the position its last command committed, from its
  cookie or ``X-Ledger-Read-After``): as with ``min_position``, so a pit boss who just opened a
  table sees it open on the next page, never the replica's older moment;
- otherwise the replica only if its lag is at most ``DATABASE_REPLICA_MAX_LAG_SECONDS``.

**Lag.** The primary's ledger head is read first, then, on the replica, its head and
``now() - pg_last_xact_replay_timestamp()``. Every command appends to the ledger in its own
transaction and positions are gap-free in commit order, so a replica whose head has reached
the primary's holds every event committed before the check: lag 0, however long ago the last
commit was (an idle primary replays nothing). Behind, the lag is the age of the last
transaction it replayed: no less than how long the oldest missing event has waited. A
measurement is reused for ``DATABASE_REPLICA_LAG_CHECK_SECONDS`` within a process.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from contextlib import ContextDecorator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from . import metrics

log = logging.getLogger(__name__)

REPLICA = "replica"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

# The alias the current block reads from (``reads_from_replica``), None outside such a block.
_chosen: ContextVar[str | None] = ContextVar("ledger_replica_reads", default=None)

# Read your own writes: the ledger position this request's client last wrote (its cookie or
# header, ``ledger.middleware.ReadYourWritesMiddleware``), which a replica must have reached to
# serve it; and the highest position this request's own commands committed.
_must_see: ContextVar[int] = ContextVar("ledger_replica_must_see", default=0)
_written: ContextVar[int] = ContextVar("ledger_replica_written", default=0)


def must_see(position: int):
    """Have this request's replica reads wait for ``position`` (a token for ``_must_see.reset``)."""
    return _must_see.set(max(0, position))


def wrote(position: int) -> None:
    """Note that this request committed up to ``position`` (the store, after each commit)."""
    if position > _written.get():
        _written.set(position)


def written() -> int:
    """The highest position this request committed (0: none)."""
    return _written.get()


def configured() -> bool:
    """Whether a replica is configured (``DATABASE_REPLICA_URL``)."""
    return REPLICA in connections.settings


def in_transaction(alias: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the primary's connection is inside a transaction the application opened (the
    test framework's own wrapping transaction does not count)."""
    conn = connections[alias]
    return conn.in_atomic_block and any(not getattr(block, "_from_testcase", False) for block in conn.atomic_blocks)


@dataclass(frozen=True)
class Lag:
    seconds: float  # math.inf when the replica has replayed nothing yet
    replica_head: int
    primary_head: int
    in_recovery: bool  # False: the "replica" is not a standby at all (a copy, or a primary)

    @property
    def positions_behind(self) -> int:
        return max(self.primary_head - self.replica_head, 0)


HEAD_SQL = "SELECT COALESCE(MAX(position), 0) FROM ledger_event"
REPLICA_SQL = (
    f"SELECT pg_is_in_recovery(), EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()), ({HEAD_SQL})"
)


def measure() -> Lag:
    """The replica's lag now (see the module docstring). Raises ``DatabaseError`` when either
    database cannot be read."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(HEAD_SQL)
        primary_head = int(cursor.fetchone()[0])
    replica = connections[REPLICA]
    with replica.cursor() as cursor:
        if replica.vendor == "postgresql":
            cursor.execute(REPLICA_SQL)
            in_recovery, delay, replica_head = cursor.fetchone()
        else:  # a test's stand-in replica
            cursor.execute(HEAD_SQL)
            in_recovery, delay, replica_head = False, None, cursor.fetchone()[0]
    return lag_of(primary_head=primary_head, replica_head=int(replica_head), delay=delay, in_recovery=bool(in_recovery))


def lag_of(*, primary_head: int, replica_head: int, delay: float | None, in_recovery: bool) -> Lag:
    """The lag from what was read: 0 once the replica's head reached the primary's (read
    first); else the age of the last transaction it replayed (``delay``), infinite when it
    replayed none."""
    if replica_head >= primary_head:
        seconds = 0.0
    elif delay is None:
        seconds = math.inf
    else:
        seconds = max(float(delay), 0.0)
    return Lag(seconds=seconds, replica_head=replica_head, primary_head=primary_head, in_recovery=in_recovery)


_cache_lock = threading.Lock()
_cache: dict[str, tuple[float, Lag]] = {}


def current_lag(*, fresh: bool = False) -> Lag:
    """``measure()``, reused for ``DATABASE_REPLICA_LAG_CHECK_SECONDS`` in this process."""
    now = time.monotonic()
    with _cache_lock:
        cached = _cache.get(REPLICA)
    if not fresh and cached is not None and now - cached[0] < settings.DATABASE_REPLICA_LAG_CHECK_SECONDS:
        return cached[1]
    lag = measure()
    with _cache_lock:
        _cache[REPLICA] = (time.monotonic(), lag)
    return lag


def forget_lag() -> None:
    """Drop the reused measurement (tests; a node told its replica changed)."""
    with _cache_lock:
        _cache.clear()


def choose(*, min_position: int | None = None) -> tuple[str, str]:
    """``(alias, reason)`` for a block of reads: ``replica`` / ``replica``, or the primary
    (``default``) with why: ``no_replica``, ``transaction``, ``unavailable``, ``lag`` or
    ``behind_position``."""
    if not configured():
        return DEFAULT_DB_ALIAS, "no_replica"
    if in_transaction():
        return DEFAULT_DB_ALIAS, "transaction"
    if _must_see.get():  # this client wrote up to there: the replica serves it once it has it
        min_position = max(min_position or 0, _must_see.get())
    try:
        lag = current_lag()
        if min_position is not None and lag.replica_head < min_position:
            lag = current_lag(fresh=True)  # an older measurement may predate the position asked for
    except DatabaseError:
        log.warning("replica unreadable: reading from the primary", exc_info=True)
        return DEFAULT_DB_ALIAS, "unavailable"
    if min_position is not None:
        return (REPLICA, "replica") if lag.replica_head >= min_position else (DEFAULT_DB_ALIAS, "behind_position")
    if lag.seconds <= settings.DATABASE_REPLICA_MAX_LAG_SECONDS:
        return REPLICA, "replica"
    return DEFAULT_DB_ALIAS, "lag"


class reads_from_replica(ContextDecorator):  # noqa: N801 - used like a function: with reads_from_replica():
    """Send this block's reads to the replica when it is fit to serve them (``choose``);
    ``as`` gives the alias chosen. Writes, and reads inside a transaction, stay on the primary."""

    def __init__(self, *, min_position: int | None = None):
        self.min_position = min_position
        self._tokens: list = []

    def _recreate_cm(self):
        # One object a call: a decorated view may run in several threads at once.
        return type(self)(min_position=self.min_position)

    def __enter__(self) -> str:
        alias, reason = choose(min_position=self.min_position)
        if reason != "no_replica":
            metrics.replica_read_blocks.labels(alias, reason).inc()
        self._tokens.append(_chosen.set(alias))
        return alias

    def __exit__(self, *exc) -> bool:
        _chosen.reset(self._tokens.pop())
        return False


def replica_view(view):
    """A view decorator: ``reads_from_replica()`` around a GET (or HEAD) of ``view``; a POST
    and every other method run on the primary as before (they call services, which write)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method not in SAFE_METHODS:
            return view(request, *args, **kwargs)
        with reads_from_replica():
            return view(request, *args, **kwargs)

    return wrapped


def read_alias() -> str:
    """The alias a raw SQL read of this block goes to (``connections[read_alias()]``)."""
    alias = _chosen.get()
    return alias if alias == REPLICA and not in_transaction() else DEFAULT_DB_ALIAS


class ReplicaRouter:
    """``DATABASE_ROUTERS``: a read goes to the alias its ``reads_from_replica`` block chose,
    unless a transaction is open on the primary; every write goes to the primary; migrations
    run on the primary only (a standby replays them)."""

    def db_for_read(self, model, **hints):
        return read_alias()

    def db_for_write(self, model, **hints):
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database and its copy: the same rows

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db != REPLICA


class ReplicaReads:
    """A mixin for a class-based view whose parent handles GET (Django REST framework's list
    views): that GET's reads go to the replica (``reads_from_replica``). A view that writes
    its own ``get`` decorates it with ``@reads_from_replica()`` instead."""

    def get(self, request, *args, **kwargs):
        with reads_from_replica():
            return super().get(request, *args, **kwargs)

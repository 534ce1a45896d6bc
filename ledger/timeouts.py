"""The longer statement budget of the work that legitimately runs long.

Every PostgreSQL connection starts with ``statement_timeout`` = ``DATABASE_STATEMENT_TIMEOUT_SECONDS``
and waits at most that plus ``DATABASE_ANSWER_GRACE_SECONDS`` for any answer (casino/settings.py,
``ledger.postgresql``): right for a request, too short for a projection rebuilt in one
transaction, a gaming day's export, ``ledger verify`` over the whole chain or a migration.
Those run inside ``long_statements()``, which gives the process's connections
``DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS`` (0: no limit) until the block ends.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DatabaseError, connections
from django.db.backends.signals import connection_created

_active = threading.local()  # depth of long_statements blocks in this thread


def _budget(connection, statement_ms: int | None) -> None:
    """Set (``statement_ms``; 0: no limit) or reset (None) ``connection``'s statement budget."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        if statement_ms is None:
            cursor.execute("RESET statement_timeout")
        else:
            cursor.execute("SELECT set_config('statement_timeout', %s, false)", [str(statement_ms)])
    if statement_ms is None:
        answer = connection.settings_dict["OPTIONS"].get("answer_timeout")
    elif statement_ms:
        answer = statement_ms / 1000 + settings.DATABASE_ANSWER_GRACE_SECONDS
    else:
        answer = None  # no limit on the statement: none on waiting for it either
    connection.connection.answer_timeout = answer


def _long_ms() -> int:
    return settings.DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS * 1000


def _opened(sender, connection, **kwargs) -> None:
    # A connection opened (or opened again) inside the block gets the block's budget too.
    if getattr(_active, "depth", 0):
        _budget(connection, _long_ms())


connection_created.connect(_opened, dispatch_uid="ledger.timeouts.opened")


@contextmanager
def long_statements() -> Iterator[None]:
    """Inside the block, this thread's PostgreSQL connections (every alias, open or opened
    later) may run each statement ``DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS`` (0: no limit);
    after it, the usual budget again. Entered inside a transaction, the budget set there goes
    with the transaction if it rolls back (a shorter budget, never a longer one)."""
    _active.depth = getattr(_active, "depth", 0) + 1
    try:
        if _active.depth == 1:
            for connection in connections.all(initialized_only=True):
                if connection.connection is not None:
                    _budget(connection, _long_ms())
        yield
    finally:
        _active.depth -= 1
        if _active.depth == 0:
            for connection in connections.all(initialized_only=True):
                _reset(connection)


def _reset(connection) -> None:
    if connection.vendor != "postgresql" or connection.connection is None:
        return
    if connection.needs_rollback or connection.connection.closed:
        # An aborted transaction takes no statement: what it set goes with its rollback, and
        # a connection closed meanwhile opens with the usual budget.
        connection.connection.answer_timeout = connection.settings_dict["OPTIONS"].get("answer_timeout")
        return
    try:
        _budget(connection, None)
    except DatabaseError:
        if not connection.in_atomic_block:
            connection.close()  # opens again with the usual budget


def with_long_statements(function):
    """Decorator: ``function`` runs inside ``long_statements()``."""

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with long_statements():
            return function(*args, **kwargs)

    return wrapper

"""Django's PostgreSQL backend (psycopg 3), each wait for the server bounded in time.

PostgreSQL's ``statement_timeout`` (settings: ``DATABASE_STATEMENT_TIMEOUT_SECONDS``) ends a slow
statement, but only a server that runs can end it: a server that is frozen (stopped with SIGSTOP,
its host swapping or hung on its disk) still has its kernel accept connections and acknowledge
each packet, so neither libpq's ``connect_timeout`` after the handshake nor TCP keepalives ever
fire, and psycopg would wait for its answer for ever (psycopg 3 has no timeout of its own for a
query). Here every wait of a connection for the server (a query, a fetch, a commit, a rollback,
Django's health check) gives up after ``OPTIONS["answer_timeout"]`` seconds (None or 0: wait
for ever): the connection is closed and the caller gets ``OperationalError`` ("the database sent
no answer within N s"), which the API and the pages answer with a 503 (``core.errors``).

The health check that Django runs on a kept connection at the start of each request
(``CONN_HEALTH_CHECKS``) waits no longer than ``connect_timeout``: a server that does not answer
``SELECT 1`` that fast is treated as gone, and the new connection then fails within
``connect_timeout`` too. After a connection to a server failed, the process does not try that
server again for ``connect_timeout`` seconds (each attempt fails at once with
``OperationalError``): a request that reads the database several times, and the requests behind
it, do not each wait ``connect_timeout`` again on a frozen server.

``ENGINE = "ledger.postgresql"`` (casino/settings.py sets it for a ``postgres://`` URL).
"""

from __future__ import annotations

import threading
import time

import psycopg
from django.db.backends.postgresql import base
from psycopg import errors

HEALTH_CHECK_SECONDS = 5.0  # without a connect_timeout in OPTIONS

_failed_lock = threading.Lock()
_failed_at: dict[tuple, float] = {}  # (host, port) → time.monotonic() of its last failed connection


class AnsweringConnection(psycopg.Connection):
    """A psycopg connection that waits at most ``answer_timeout`` seconds (None: for ever) for
    each answer of the server, then closes itself and raises ``psycopg.OperationalError``."""

    answer_timeout: float | None = None

    def wait(self, gen, *args, timeout: float | None = None, **kwargs):
        if timeout is not None or not self.answer_timeout:
            return super().wait(gen, *args, timeout=timeout, **kwargs)
        try:
            return super().wait(gen, *args, timeout=self.answer_timeout, **kwargs)
        except errors._WaitTimeout:
            # The request is on the wire and the server never answered: the connection's state
            # is unknown (a COMMIT may or may not have happened), so it is never used again.
            self.pgconn.finish()
            raise errors.OperationalError(
                f"the database sent no answer within {self.answer_timeout:g} s: connection closed"
            ) from None


class _Psycopg:
    """The psycopg module as Django's backend uses it, whose ``connect`` makes an
    ``AnsweringConnection``."""

    def __getattr__(self, name):
        return getattr(psycopg, name)

    def connect(self, *args, **kwargs):
        return AnsweringConnection.connect(*args, **kwargs)


class DatabaseWrapper(base.DatabaseWrapper):
    Database = _Psycopg()

    def get_connection_params(self):
        params = super().get_connection_params()
        params.pop("answer_timeout", None)  # ours, not libpq's
        return params

    def _connect_seconds(self) -> float:
        return float(self.settings_dict["OPTIONS"].get("connect_timeout") or HEALTH_CHECK_SECONDS)

    def get_new_connection(self, conn_params):
        server = (conn_params.get("host"), conn_params.get("port"))
        with _failed_lock:
            failed = _failed_at.get(server)
        if failed is not None and time.monotonic() - failed < self._connect_seconds():
            raise errors.OperationalError("the database could not be reached a moment ago; not asked again yet")
        try:
            connection = super().get_new_connection(conn_params)
        except psycopg.OperationalError:
            with _failed_lock:
                _failed_at[server] = time.monotonic()
            raise
        with _failed_lock:
            _failed_at.pop(server, None)
        connection.answer_timeout = self.settings_dict["OPTIONS"].get("answer_timeout") or None
        return connection

    def is_usable(self):
        if self.connection is None:
            return False
        kept = self.connection.answer_timeout
        limit = self._connect_seconds()
        self.connection.answer_timeout = min(kept, limit) if kept else limit
        try:
            return super().is_usable()
        finally:
            self.connection.answer_timeout = kept

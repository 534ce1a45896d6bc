"""The session engine (``SESSION_ENGINE``): Django's database sessions, read by a prepared
statement on PostgreSQL (every API request reads its session). Same table, same
expiry and invalidation as ``django.contrib.sessions.backends.db``."""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone

from core.rawsql import columns, fetch_prepared, instance


@functools.cache  # built once: the session table's columns do not change while the process runs
def _session_sql() -> str:
    return f"SELECT {columns(Session, 's')} FROM django_session s WHERE s.session_key = %s AND s.expire_date > %s"


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        if connection.vendor != "postgresql" or self.model is not Session:
            return super()._get_session_from_db()
        if "\x00" in self.session_key:  # a cookie can carry one escaped; no key holds one
            self._session_key = None
            return None
        rows = fetch_prepared(_session_sql(), [self.session_key, timezone.now()])
        if not rows:
            self._session_key = None
            return None
        return instance(Session, rows[0])

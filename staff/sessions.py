"""The session engine (``SESSION_ENGINE``): Django's database sessions, read by a prepared
statement on PostgreSQL (every API request reads its session). Same table, same
expiry and invalidation as ``django.contrib.sessions.backends.db``, with one difference: the
table never holds the cookie's value.

``django_session.session_key`` holds ``stored_key(key)``, a keyed digest of the cookie's key
(HMAC-SHA256 under a key derived from ``SECRET_KEY``, its first 40 hex digits: 160 bits, the
column's ``max_length``). Whoever reads the table (a DBA, a backup, a replica) learns no key he
could put in a cookie, and without ``SECRET_KEY`` he cannot turn a key he guesses into a row
either. Every place the key meets the table goes through ``stored_key``: the read, ``exists``
(new keys), the row a save writes, and ``delete`` (logout, ``cycle_key`` at login).

A row's data are signed for its own key (``key_salt``): whoever holds the database cannot copy
a colleague's session data onto his own row and go on, with his own cookie, as that colleague
(a second signature he gave himself). Data moved to another row read as an empty session.

Rows written before the digest (keyed by the plain cookie value) match no cookie any more: their
users log in again, and ``clearsessions`` removes the rows when they expire. Rotating
``SECRET_KEY`` likewise ends every session (as it already did through the auth hash).
"""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone
from django.utils.crypto import salted_hmac

from core.rawsql import columns, fetch_prepared, instance

_DIGEST_SALT = "staff.sessions.stored_key"
_STORED_KEY_LENGTH = 40  # django_session.session_key is a varchar(40)


def stored_key(session_key: str) -> str:
    """The ``django_session.session_key`` of the session whose cookie holds ``session_key``:
    40 lowercase hex digits."""
    # surrogatepass: whatever string a cookie decodes to has a digest, and matches no row
    value = session_key.encode("utf-8", "surrogatepass")
    return salted_hmac(_DIGEST_SALT, value, algorithm="sha256").hexdigest()[:_STORED_KEY_LENGTH]


@functools.cache  # built once: the session table's columns do not change while the process runs
def _session_sql() -> str:
    return f"SELECT {columns(Session, 's')} FROM django_session s WHERE s.session_key = %s AND s.expire_date > %s"


class SessionStore(db.SessionStore):
    @property
    def key_salt(self):
        # Django signs a session's data under one salt for every session; the key in it ties the
        # data to the row of its own cookie (the key itself is never stored: ``stored_key``).
        return f"staff.sessions.SessionStore:{self.session_key or ''}"

    def _get_session_from_db(self):
        if connection.vendor != "postgresql" or self.model is not Session:
            row = self.model.objects.filter(
                session_key=stored_key(self.session_key), expire_date__gt=timezone.now()
            ).first()
        else:
            rows = fetch_prepared(_session_sql(), [stored_key(self.session_key), timezone.now()])
            row = instance(Session, rows[0]) if rows else None
        if row is None:
            self._session_key = None
        return row

    async def _aget_session_from_db(self):
        row = await self.model.objects.filter(
            session_key=stored_key(self.session_key), expire_date__gt=timezone.now()
        ).afirst()
        if row is None:
            self._session_key = None
        return row

    def exists(self, session_key):
        return super().exists(stored_key(session_key))

    async def aexists(self, session_key):
        return await super().aexists(stored_key(session_key))

    def create_model_instance(self, data):
        obj = super().create_model_instance(data)
        obj.session_key = stored_key(obj.session_key)
        return obj

    async def acreate_model_instance(self, data):
        obj = await super().acreate_model_instance(data)
        obj.session_key = stored_key(obj.session_key)
        return obj

    def delete(self, session_key=None):
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        self.model.objects.filter(session_key=stored_key(session_key)).delete()

    async def adelete(self, session_key=None):
        if session_key is None:
            if self.session_key is None:
                return
            session_key = self.session_key
        await self.model.objects.filter(session_key=stored_key(session_key)).adelete()

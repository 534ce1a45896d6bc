"""The login backend: Django's ``ModelBackend``, whose per-request ``get_user`` also loads the
user's role names and whether he must change his password, in one prepared statement on
PostgreSQL (three ORM queries per API request were a sixth of a bet placement's time).

It refuses a password hash its account's identity events do not know (``staff.identity``):
one written with raw SQL by someone holding the database credentials, who knows its password
and would otherwise log in as that person long before anyone runs ``ledger verify``; and
(``STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT``) an account no identity event created, a row he
inserted."""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import check_password
from django.core.exceptions import ValidationError
from django.db import connection

from core.rawsql import columns, fetch_prepared, instance

from .identity import login_refusal
from .models import PasswordChangeDue
from .roles import remember_roles
from .services import staff_password_rehashed
from .standing import HEAD_SQL

log = logging.getLogger(__name__)

REFUSALS = {
    "password": "holds a stored password hash that is not the one the ledger recorded",
    "unrecorded": "is an account no identity event in the ledger created",
}


@functools.cache  # built once: the user model's columns do not change while the process runs
def _user_with_roles_sql() -> str:
    model = get_user_model()
    groups = model.groups.through._meta
    due = PasswordChangeDue._meta
    return (
        f"SELECT {columns(model, 'u')}, ARRAY(SELECT g.name FROM auth_group g "
        f'JOIN "{groups.db_table}" m ON m.group_id = g.id WHERE m.user_id = u.id), '
        f'EXISTS(SELECT 1 FROM "{due.db_table}" d WHERE d."{due.pk.column}" = u.id), '
        f"({HEAD_SQL}) "
        f'FROM "{model._meta.db_table}" u WHERE u."{model._meta.pk.column}" = %s'
    )


class StaffBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        """Django's, and when checking the password re-hashed it (a stronger hasher or more
        iterations since it was set), the new hash is recorded (``staff_password_rehashed``):
        else ``ledger verify`` would take it for a hash written behind the services' back.
        None, and a warning, when the stored hash is not the one his identity events recorded."""
        model = get_user_model()
        if username is None:
            username = kwargs.get(model.USERNAME_FIELD)
        if username is None or password is None:
            return None
        try:
            user = model._default_manager.get_by_natural_key(username)
        except model.DoesNotExist:
            model().set_password(password)  # the same time as for an existing user (Django's #20760)
            return None
        stored = user.password
        refusal = login_refusal(
            user.get_username(), stored, require_recorded=settings.STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT
        )
        if refusal is not None:
            # Checked without re-hashing (no setter): a planted hash stays the planted one.
            log.warning(
                "login refused: %s %s (changed outside the services; manage.py ledger verify names it)",
                user.get_username(),
                REFUSALS[refusal],
                extra={"username": user.get_username(), "password_matched": check_password(password, stored)},
            )
            return None
        if not user.check_password(password):
            return None
        remember_roles(user, user.groups.values_list("name", flat=True))  # flags as recorded too
        if user.password != stored:
            staff_password_rehashed(user=user, replaced=stored)
        return user if self.user_can_authenticate(user) else None

    def get_user(self, user_id):
        """The active user with primary key ``user_id`` (from the session), his roles loaded
        (``staff.roles.roles_of`` reads them from him) and whether his password must change
        (``staff.accounts.password_change_due``); None when there is none."""
        model = get_user_model()
        try:
            key = model._meta.pk.to_python(user_id)
        except ValidationError:  # not a key (a forged session holds no such thing): nobody
            return None
        if connection.vendor != "postgresql":
            user = super().get_user(key)
            if user is not None:
                remember_roles(user, user.groups.values_list("name", flat=True))
            return user if user is not None and self.user_can_authenticate(user) else None
        rows = fetch_prepared(_user_with_roles_sql(), [key])
        if not rows:
            return None
        user = instance(model, rows[0][:-3])
        remember_roles(user, rows[0][-3], head=rows[0][-1] or "")
        user._casino_password_due = bool(rows[0][-2])
        return user if self.user_can_authenticate(user) else None

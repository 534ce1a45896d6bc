"""The accounts as their identity events say they should be, against the live ``auth_user`` rows.

Replays ``staff/roles`` and the device tokens' events into, per username, the active, staff
and superuser flags, the groups, and the digests of the password hash, the names and the
e-mail; ``ledger.identity`` runs it (``manage.py ledger verify``, ``/metrics``). A value the
events never stated (a ledger older than the digests) is not compared.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.contrib.auth import get_user_model
from django.db import connection

from ledger.identity import Mismatch, Unchecked, digest_matches
from ledger.models import Event

from .services import DEVICES_STREAM, PROFILE_FIELDS, ROLES_STREAM

KIND = "staff account"
FLAGS = ("is_active", "is_staff", "is_superuser")
EVENT_TYPES = (
    "StaffUserChanged",
    "StaffRolesChanged",
    "StaffLeft",
    "StaffPasswordReset",
    "StaffPasswordChanged",
    "StaffPasswordSet",
    "StaffPasswordRehashed",
    "StaffProfileChanged",
    "DeviceTokenIssued",
)


def _apply(accounts: dict[str, dict], type_: str, data: dict) -> None:
    if type_ == "DeviceTokenIssued":
        # A device's account is made by device_token_issue: active, no flag, no role, no password.
        username = data.get("user") or f"device:{data['device']}"
        accounts[username] = {"is_active": True, "is_staff": False, "is_superuser": False, "groups": []}
        if "password_digest" in data:
            accounts[username]["password"] = data["password_digest"]
        return
    username = data.get("user")
    if not isinstance(username, str):
        return
    account = accounts.setdefault(username, {"created": False})
    if type_ == "StaffUserChanged":
        after = data.get("after") or {}
        account.update({flag: after[flag] for flag in FLAGS if flag in after})
        if data.get("before") is None:
            account["created"] = True
            if "roles" in data:
                account["groups"] = sorted(data["roles"])
    elif type_ == "StaffRolesChanged":
        account["groups"] = sorted(data.get("after") or [])
    elif type_ == "StaffLeft":
        account["is_active"] = False
    if type_ == "StaffPasswordRehashed":
        # Only a re-hash of the hash the ledger knew: a planted hash stays a mismatch.
        if account.get("password") == data.get("replaced_digest"):
            account["password"] = data["password_digest"]
    elif "password_digest" in data:
        account["password"] = data["password_digest"]
    for name, recorded in (data.get("profile_digests") or {}).items():
        account[name] = recorded


def replayed_accounts() -> dict[str, dict]:
    """``{username: {field: value}}`` from the identity events, in ledger order."""
    accounts: dict[str, dict] = {}
    events = (
        Event.objects.filter(stream__in=(ROLES_STREAM, DEVICES_STREAM), type__in=EVENT_TYPES)
        .order_by("position")
        .values_list("type", "data")
    )
    for type_, data in events.iterator(chunk_size=2000):
        _apply(accounts, type_, data)
    return accounts


def _may_read_passwords(model) -> bool:
    # The auditor's role reads auth_user without its password column (deploy/postgres_roles.sql):
    # ask first, since a refused SELECT would abort the transaction.
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT has_column_privilege(%s, 'password', 'SELECT')", [model._meta.db_table])
        return cursor.fetchone()[0]


def account_mismatches() -> Iterator[Mismatch | Unchecked]:
    """Every account whose row differs from its replayed events, field by field (never a value);
    ``Unchecked`` for the passwords when this database role may not read them."""
    accounts = replayed_accounts()
    User = get_user_model()
    passwords = _may_read_passwords(User)
    if not passwords:
        yield Unchecked(KIND, "password", "this database role may not read password hashes")
    groups = {}
    for user_id, name in User.groups.through.objects.values_list("user_id", "group__name"):
        groups.setdefault(user_id, []).append(name)
    columns = ["id", "username", *FLAGS, *PROFILE_FIELDS, *(["password"] if passwords else [])]
    live = User.objects.order_by("username").only(*columns)
    seen = set()
    for user in live.iterator(chunk_size=2000):
        username = user.get_username()
        seen.add(username)
        account = accounts.get(username)
        if account is None or account.get("created") is False:
            yield Mismatch(KIND, username, "(no event)")
            continue
        for flag in FLAGS:
            if flag in account and getattr(user, flag) != account[flag]:
                yield Mismatch(KIND, username, flag)
        if "groups" in account and sorted(groups.get(user.pk, [])) != account["groups"]:
            yield Mismatch(KIND, username, "groups")
        recorded = account.get("password") if passwords else None
        if recorded is not None and not digest_matches(recorded, "password", username, user.password):
            yield Mismatch(KIND, username, "password")
        for name in PROFILE_FIELDS:
            if name in account and not digest_matches(account[name], name, username, str(getattr(user, name) or "")):
                yield Mismatch(KIND, username, name)
    for username in sorted(set(accounts) - seen):
        if accounts[username].get("created") is not False:
            yield Mismatch(KIND, username, "(no row)")

"""Changes to a person's account made by someone else, and his own new password.

Nobody acts in another's name: an admin who could set a cashier's password could log in as
that cashier. So a password reset, a change of roles and a reactivation each

- need a second admin's signature (``approver``: given only by ``approvals``, which passes the
  admin who confirmed from his own session; never the maker, never the account's owner),
- are a ledger event on ``staff/roles`` naming the maker (the event's actor) and the approver,
- leave the account's owner with a password to change at his next login
  (``PasswordChangeDue``): the pages send him to the password page and the API answers 403
  until he has chosen one himself (``staff_password_change``, event ``StaffPasswordChanged``).

A reset's temporary password is drawn here, never typed by the maker, and returned only in
the result the confirming admin receives (``approvals`` keeps it out of the approval, the
ledger and the idempotency record): the maker never knows it.

The Django admin changes none of these (``staff/admin.py`` shows them read-only).
"""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError

from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.store import NewEvent

from .models import PasswordChangeDue
from .roles import (
    ALL_ROLES,
    Role,
    RoleRequired,
    check_compatible,
    require_distinct,
    require_second_signature,
)
from .services import (
    ROLES_STREAM,
    _append_one,
    check_role_change,
    password_digest,
    record_roles_change,
    user_snapshot,
)

# The result's key that holds a reset's temporary password: shown once, stored nowhere.
TEMPORARY_PASSWORD = "temporary_password"
PASSWORD_CHANGE_MESSAGE = (
    "your account was changed by someone else: choose a new password first "
    "(the page /accounts/password/, or POST /api/staff/password)"
)


def password_change_due(user) -> bool:
    """Whether ``user`` (a ``User``) must choose a new password before anything else. Read once
    per request (``staff.backends`` loads it with the user on PostgreSQL)."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        return False
    due = getattr(user, "_casino_password_due", None)
    if due is None:
        due = PasswordChangeDue.objects.filter(user_id=user.pk).exists()
        user._casino_password_due = due
    return due


def require_password_current(user) -> None:
    """Raise ``RoleRequired`` (403) naming the way out when ``user`` must change his password."""
    if password_change_due(user):
        raise RoleRequired(PASSWORD_CHANGE_MESSAGE)


def _account(username: str, *, lock: bool = True):
    users = get_user_model().objects
    user = (users.select_for_update() if lock else users).filter(username=username).first()
    if user is None:
        raise NotFound(f"no such user: {username}", field="username")
    if username.startswith("device:") or hasattr(user, "device_token"):
        raise InvalidInput(f"{username} is a device: it has a token, no password or roles", field="username")
    return user


def active_admins() -> list[str]:
    """The accounts the sealed identity events leave active and holding the admin role (a
    superuser holds it), by user name. The events decide, not the rows: an admin's row set
    inactive with SQL still counts (one operator alone may not then change a password at the
    console), and a row given ``is_superuser`` with SQL adds nobody."""
    from .identity import replayed_accounts

    return sorted(
        name
        for name, account in replayed_accounts().items()
        if account.get("is_active", True)
        and (account.get("is_superuser") or Role.ADMIN.value in (account.get("groups") or ()))
    )


def console_refusal(command: str) -> str:
    """Why the console (one operator, nobody to confirm) may not run ``command`` now, or "".

    ``createsuperuser`` makes the first admin only: once one exists, a new admin is an account
    whose role a second admin confirms (running it twice gave one operator the two admins a
    reset needs). ``changepassword`` works while the site has fewer than two active admins (its
    set-up, or a recovery when admins are gone); with two, a password is reset by one admin and
    confirmed by another (``manage.py account_change password-reset``, the API, the admin)."""
    admins = active_admins()
    if command == "createsuperuser" and admins:
        return (
            f"an admin exists ({', '.join(admins)}): a new admin is an account an admin creates and a "
            "second admin confirms (manage.py account_change roles USER admin --actor ADMIN)"
        )
    if command == "changepassword" and len(admins) >= 2:
        return (
            "this site has two admins: a password is reset by one and confirmed by the other "
            "(manage.py account_change password-reset USER --actor ADMIN), never by one person at the console"
        )
    return ""


def mark_password_change_due(user, *, reason: str, set_by: str) -> None:
    """Require ``user`` to choose a new password at his next login (kept if already required)."""
    PasswordChangeDue.objects.update_or_create(user=user, defaults={"reason": reason[:200], "set_by": set_by})
    user._casino_password_due = True


def _check_pair(step: str, *, username: str, actor: str, approver: object) -> None:
    """The maker is an admin changing another's account; the approver another admin, not the
    account's owner either (403 otherwise)."""
    check_role_change(actor=actor, username=username)
    require_second_signature(step, approver, actor, Role.ADMIN)
    require_distinct(f"approving: {step}", approver, [("account's owner", username)])


def staff_password_reset(*, username: str, actor: str, approver: object, idempotency_key: str | None = None) -> dict:
    """Reset ``username``'s password to a temporary one drawn here; he must change it at his
    next login. ``actor`` an admin (not his own account), ``approver`` another admin who
    confirmed from his own session (``approvals``), not the account's owner.

    Event ``StaffPasswordReset`` on ``staff/roles``: ``{"user", "approver", "before":
    {"must_change_password"}, "after": {"must_change_password": true}, "password_digest"}`` (never
    the password: ``staff.services.password_digest``).
    Returns ``{"username", "must_change_password": true, "position", "temporary_password"}``.
    Raises ``RoleRequired`` (403), ``NotFound`` (404), ``InvalidInput`` (400: a device),
    ``StateConflict`` (409: an inactive account: reactivate it first)."""
    step = "resetting a password"
    _check_pair(step, username=username, actor=actor, approver=approver)
    request = {"op": "staff_password_reset", "user": username}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result  # the temporary password was given once, to the first answer only
        user = _account(username)
        if not user.is_active:
            raise StateConflict(f"{username} is inactive: reactivate the account first", field="username")
        was_due = PasswordChangeDue.objects.filter(user=user).exists()
        temporary = secrets.token_urlsafe(15)
        user.set_password(temporary)
        user.save(update_fields=["password"])
        mark_password_change_due(user, reason="password reset", set_by=actor)
        event = NewEvent(
            type="StaffPasswordReset",
            data={
                "user": username,
                "approver": approver,
                "before": {"must_change_password": was_due},
                "after": {"must_change_password": True},
                "password_digest": password_digest(user),
            },
        )
        _append_one(cmd, ROLES_STREAM, event)
        result = cmd.finish({"username": username, "must_change_password": True, "position": cmd.appended[0].position})
    return {**result, TEMPORARY_PASSWORD: temporary}


def staff_roles_set(
    *, username: str, roles: list[str], actor: str, approver: object, idempotency_key: str | None = None
) -> dict:
    """Make ``username`` hold exactly ``roles``, signed by ``approver`` (another admin, through
    ``approvals``); he must change his password at his next login.

    Event ``StaffRolesChanged`` with the sorted role lists before and after and the approver.
    Returns ``{"username", "before", "after", "position", "must_change_password": true}``.
    Raises ``RoleRequired`` (403: not an admin, one's own roles, no or a wrong second signature);
    ``InvalidInput`` (400) for an unknown role; ``IncompatibleRoles`` (400, field ``roles``) for
    roles one account may not hold together; ``NotFound`` (404)."""
    if not isinstance(roles, (list, tuple)) or not all(isinstance(r, str) for r in roles):
        raise InvalidInput("a list of roles", field="roles")
    unknown = [r for r in roles if r not in ALL_ROLES]
    if unknown:
        raise InvalidInput(f"unknown role {unknown[0]!r}", field="roles")
    check_compatible(roles)
    _check_pair("changing roles", username=username, actor=actor, approver=approver)
    request = {"op": "staff_roles_set", "user": username, "roles": sorted(roles)}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        user = _account(username)
        result = record_roles_change(user=user, after=set(roles), actor=actor, cmd=cmd, approver=approver)
        mark_password_change_due(user, reason="roles changed", set_by=actor)
        return cmd.finish({**result, "must_change_password": True})


def staff_reactivate(*, username: str, actor: str, approver: object, idempotency_key: str | None = None) -> dict:
    """Make a leaver's account active again, signed by ``approver`` (another admin, through
    ``approvals``); its owner must change his password at his next login.

    Event ``StaffUserChanged``: ``{"user", "approver", "before", "after"}`` (the account's
    fields, ``staff.services.USER_FIELDS``). Returns ``{"username", "before", "after",
    "position", "must_change_password": true}``. Raises ``RoleRequired`` (403), ``NotFound``
    (404), ``StateConflict`` (409: the account is active)."""
    _check_pair("reactivating an account", username=username, actor=actor, approver=approver)
    request = {"op": "staff_reactivate", "user": username}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        user = _account(username)
        if user.is_active:
            raise StateConflict(f"{username} is already active", field="username")
        before = user_snapshot(user)
        user.is_active = True
        user.save(update_fields=["is_active"])
        mark_password_change_due(user, reason="account reactivated", set_by=actor)
        after = user_snapshot(user)
        event = NewEvent(
            type="StaffUserChanged", data={"user": username, "approver": approver, "before": before, "after": after}
        )
        _append_one(cmd, ROLES_STREAM, event)
        return cmd.finish(
            {
                "username": username,
                "before": before,
                "after": after,
                "position": cmd.appended[0].position,
                "must_change_password": True,
            }
        )


def staff_password_change(*, user, old_password: object, new_password: object) -> dict:
    """The account's owner (``user``, authenticated) chooses his own new password.

    ``old_password`` must be his current one (a reset's temporary password); ``new_password``
    passes ``AUTH_PASSWORD_VALIDATORS`` and differs from it. Clears ``PasswordChangeDue``.
    Event ``StaffPasswordChanged`` on ``staff/roles`` (actor: himself) ``{"user", "before":
    {"must_change_password"}, "after": {"must_change_password": false}, "password_digest"}``, never a
    password.
    Returns ``{"username", "must_change_password": false, "position"}``. Raises
    ``InvalidInput`` (400, field ``old_password`` or ``new_password``)."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "pk", None):
        raise RoleRequired("changing a password needs a login")
    if not isinstance(old_password, str) or not user.check_password(old_password):
        raise InvalidInput("this is not your current password", field="old_password")
    if not isinstance(new_password, str) or not new_password:
        raise InvalidInput("a new password is required", field="new_password")
    if new_password == old_password:
        raise InvalidInput("the new password must differ from the current one", field="new_password")
    try:
        validate_password(new_password, user)
    except ValidationError as exc:
        raise InvalidInput(" ".join(exc.messages), field="new_password") from None
    username = user.get_username()
    with ledger_command(actor=username, request={"op": "staff_password_change", "user": username}) as cmd:
        account = get_user_model().objects.select_for_update().get(pk=user.pk)
        was_due = PasswordChangeDue.objects.filter(user=account).exists()
        account.set_password(new_password)
        account.save(update_fields=["password"])
        PasswordChangeDue.objects.filter(user=account).delete()
        event = NewEvent(
            type="StaffPasswordChanged",
            data={
                "user": username,
                "before": {"must_change_password": was_due},
                "after": {"must_change_password": False},
                "password_digest": password_digest(account),
            },
        )
        _append_one(cmd, ROLES_STREAM, event)
        user.password = account.password  # the caller keeps his session (update_session_auth_hash)
        user._casino_password_due = False
        return cmd.finish({"username": username, "must_change_password": False, "position": cmd.appended[0].position})


def bootstrap_roles_allowed(username: str) -> bool:
    """Whether the console may set ``username``'s roles alone (``manage.py staff_roles``): only
    while no other active account holds the admin role (a superuser or the admin group), so
    there is nobody to sign second (a new site's first account). Otherwise the change is
    requested and another admin confirms it (``manage.py account_change``)."""
    users = get_user_model().objects.filter(is_active=True).exclude(username=username)
    return not (users.filter(is_superuser=True).exists() or users.filter(groups__name=Role.ADMIN.value).exists())

"""Staff commands: dealer assignments, device tokens, role changes, and the auth trail.

Each is a parameter change: one event in the ledger with ``who`` (the event's
actor), ``what`` (the event type and subject) and ``before``/``after``. None posts money.

Streams: ``staff/assignments``, ``staff/devices``, ``staff/roles``, ``staff/auth``.
"""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ledger import store
from ledger.commands import ledger_command, projections_after_commit
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.identity import digest
from ledger.models import Event
from ledger.store import NewEvent

from .models import DealerAssignment, DeviceToken
from .roles import (
    ALL_ROLES,
    Role,
    RoleRequired,
    check_compatible,
    require_distinct,
    require_role,
    require_second_signature,
    roles_of,
)
from .scopes import table_exists

ASSIGNMENTS_STREAM = "staff/assignments"
DEVICES_STREAM = "staff/devices"
ROLES_STREAM = "staff/roles"
AUTH_STREAM = "staff/auth"

# Who may change what (segregation of duties: admin manages people, the pit its dealers).
ASSIGNERS = (Role.PIT_BOSS, Role.ADMIN)
# A device acts at a table with the dealer's endpoints (buy-ins, bets, results): only the pit,
# which runs the tables, issues one; the admin manages people, never money. Taking a
# device's access away is open to both.
DEVICE_ISSUERS = (Role.PIT_BOSS,)
DEVICE_REVOKERS = (Role.PIT_BOSS, Role.ADMIN)
ROLE_MANAGERS = (Role.ADMIN,)


def _append_one(cmd, stream: str, event: NewEvent) -> None:
    cmd.append(stream=stream, expected_version=store.stream_version(stream), events=[event])


def _user(username: str):
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise NotFound(f"no such user: {username}", field="username")
    return user


def _open_table_code(code: str) -> str:
    if not table_exists(code):
        raise NotFound(f"no such table: {code}", field="table")
    return code


def dealer_assign(*, dealer: str, table: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Assign ``dealer`` (a username holding the dealer role) to ``table`` from now.

    Ends his open assignment elsewhere in the same event: ``DealerAssigned`` ``{"dealer",
    "table", "before", "after", "assignment" (the row's id), "started_at", "ended_at" (of the
    one ended, if any)}``. Returns ``{"dealer", "table", "before", "after", "position"}``
    (before: the table he worked, or None).
    Raises ``RoleRequired`` (403) unless ``actor`` is a pit boss or admin, or when ``dealer`` is
    not a dealer; ``NotFound`` (404) for an unknown user or table; ``StateConflict`` (409) when
    he is already at that table."""
    require_role(actor, *ASSIGNERS, step="assigning a dealer")
    request = {"op": "dealer_assign", "dealer": dealer, "table": table}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        user = _user(dealer)
        require_role(user, Role.DEALER, step=f"assigning {dealer} to a table")
        _open_table_code(table)
        current = DealerAssignment.objects.select_for_update().filter(dealer=user, ended_at__isnull=True).first()
        before = current.table_code if current else None
        if before == table:
            raise StateConflict(f"{dealer} is already assigned to {table}", field="table")
        now = timezone.now()
        if current:
            current.ended_at, current.ended_by = now, actor
            current.save(update_fields=["ended_at", "ended_by"])
        assignment = DealerAssignment.objects.create(dealer=user, table_code=table, assigned_by=actor)
        # The row's id and times too: ``staff.identity`` replays these events into the rows
        # there should be, and a row planted or changed with raw SQL shows.
        data = {"dealer": dealer, "table": table, "before": before, "after": table, "assignment": assignment.pk}
        data["started_at"] = assignment.started_at.isoformat()
        if current:
            data["ended_at"] = now.isoformat()
        event = NewEvent(type="DealerAssigned", data=data)
        _append_one(cmd, ASSIGNMENTS_STREAM, event)
        return cmd.finish(
            {"dealer": dealer, "table": table, "before": before, "after": table, "position": cmd.appended[0].position}
        )


def dealer_release(*, dealer: str, actor: str, idempotency_key: str | None = None) -> dict:
    """End ``dealer``'s open assignment: ``DealerReleased`` ``{"dealer", "table", "before",
    "ended_at"}``. Returns ``{"dealer", "before", "after": None, "position"}``.

    Raises ``RoleRequired`` (403) unless ``actor`` is a pit boss or admin, ``NotFound`` (404)
    for an unknown user, ``StateConflict`` (409) when he has no open assignment."""
    require_role(actor, *ASSIGNERS, step="releasing a dealer")
    request = {"op": "dealer_release", "dealer": dealer}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        user = _user(dealer)
        current = DealerAssignment.objects.select_for_update().filter(dealer=user, ended_at__isnull=True).first()
        if current is None:
            raise StateConflict(f"{dealer} is not assigned to any table", field="dealer")
        current.ended_at, current.ended_by = timezone.now(), actor
        current.save(update_fields=["ended_at", "ended_by"])
        data = {"dealer": dealer, "table": current.table_code, "before": current.table_code}
        data["ended_at"] = current.ended_at.isoformat()
        event = NewEvent(type="DealerReleased", data=data)
        _append_one(cmd, ASSIGNMENTS_STREAM, event)
        return cmd.finish(
            {"dealer": dealer, "before": current.table_code, "after": None, "position": cmd.appended[0].position}
        )


# A dealer's authority at a table (what he may read and sign) comes from the assignment
# events, never from the ``staff_dealerassignment`` rows: a row moved with raw SQL for one
# signature and moved back leaves nothing for ``ledger verify`` to find, an event cannot be.
_ASSIGNMENT_EVENTS = ("DealerAssigned", "DealerReleased", "StaffLeft")


def assigned_table(username: str) -> str | None:
    """The table code the ledger says ``username`` deals at now (his last ``DealerAssigned``,
    unless a ``DealerReleased`` or ``StaffLeft`` came after it), or None. One query."""
    latest_first = (
        Event.objects.filter(type__in=_ASSIGNMENT_EVENTS, stream__in=(ASSIGNMENTS_STREAM, ROLES_STREAM))
        .filter(Q(data__dealer=username) | Q(type="StaffLeft", data__user=username))
        .order_by("-position")
        .values_list(*SEAL_FIELDS, "type", "data")
    )
    # The latest the application sealed: one written around it (ledger.event_seals) grants nothing.
    last = next(sealed_rows(latest_first.iterator(chunk_size=20), chunk=1), None)
    if last is None or last[0] != "DealerAssigned":
        return None
    return last[1].get("table")


def assigned_dealers(table: str) -> list[str]:
    """The dealers the ledger says deal at ``table`` now, the latest assigned first."""
    named = (
        Event.objects.filter(type="DealerAssigned", stream=ASSIGNMENTS_STREAM, data__table=table)
        .order_by("-position")
        .values_list("data__dealer", flat=True)
    )
    return [dealer for dealer in dict.fromkeys(named) if assigned_table(dealer) == table]


def dealer_table(user) -> str | None:
    """The table code a dealer is assigned to right now (by the ledger), or None."""
    if not getattr(user, "pk", None):
        return None
    return assigned_table(user.get_username())


def token_digest(token: str) -> str:
    """SHA-256 hex of a device token (tokens are stored only as this digest)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def recorded_token_digest(name: str, stored_digest: str) -> str:
    """The keyed digest (``ledger.identity.digest``) of device ``name``'s stored token digest
    that its ``DeviceTokenIssued`` records: a SHA-256 written into the row with raw SQL (a token
    its writer knows) is not the one the event names, and the event tells nothing of the token."""
    return digest("device-token", name, stored_digest)


def device_token_issue(*, name: str, kind: str, table: str, actor: str) -> dict:
    """Issue a token for a device bound to ``table``. Returns ``{"name", "table", "kind", "token"}``.

    The token is in this result only (it is stored hashed). The device acts as user
    ``device:<name>``. Raises ``RoleRequired`` (403) unless ``actor`` is a pit boss (never the admin),
    ``InvalidInput`` (400) for a bad name or kind, ``NotFound`` (404) for an unknown table,
    ``StateConflict`` (409) when the name is taken."""
    require_role(actor, *DEVICE_ISSUERS, step="issuing a device token")
    if kind not in DeviceToken.Kind.values:
        raise InvalidInput(f"kind must be one of {', '.join(DeviceToken.Kind.values)}", field="kind")
    if not isinstance(name, str) or not name.isascii() or not name.replace("-", "").isalnum() or len(name) > 60:
        raise InvalidInput("a device name is up to 60 letters, digits and dashes", field="name")
    token = secrets.token_urlsafe(32)
    request = {"op": "device_token_issue", "name": name}
    with ledger_command(actor=actor, request=request) as cmd:
        _open_table_code(table)
        username = f"device:{name}"
        User = get_user_model()
        if DeviceToken.objects.filter(name=name).exists() or User.objects.filter(username=username).exists():
            raise StateConflict(f"a device named {name} exists", field="name")
        user = User.objects.create_user(username=username, password=None)
        stored = token_digest(token)
        DeviceToken.objects.create(
            name=name,
            kind=kind,
            table_code=table,
            user=user,
            digest=stored,
            prefix=token[:8],
            created_by=actor,
        )
        event = NewEvent(
            type="DeviceTokenIssued",
            data={
                "device": name,
                "kind": kind,
                "table": table,
                "before": None,
                "after": {"table": table},
                # The device's account (``device:<name>``): no password, no role.
                "user": username,
                "password_digest": password_digest(user),
                # What the device authentication checks the row's token against
                # (``staff.identity.device_refusal``).
                "token_digest": recorded_token_digest(name, stored),
            },
        )
        _append_one(cmd, DEVICES_STREAM, event)
        return cmd.finish({"name": name, "table": table, "kind": kind, "token": token})


def device_token_revoke(*, name: str, actor: str) -> dict:
    """Revoke a device's token (it authenticates no more). Returns ``{"name", "revoked_at"}``.

    Raises ``RoleRequired`` (403), ``NotFound`` (404), ``StateConflict`` (409) when already revoked."""
    require_role(actor, *DEVICE_REVOKERS, step="revoking a device token")
    with ledger_command(actor=actor, request={"op": "device_token_revoke", "name": name}) as cmd:
        device = DeviceToken.objects.select_for_update().filter(name=name).first()
        if device is None:
            raise NotFound(f"no such device: {name}", field="name")
        if device.revoked_at is not None:
            raise StateConflict(f"the token of {name} is already revoked", field="name")
        device.revoked_at = timezone.now()
        device.save(update_fields=["revoked_at"])
        event = NewEvent(
            type="DeviceTokenRevoked",
            data={"device": name, "table": device.table_code, "before": {"table": device.table_code}, "after": None},
        )
        _append_one(cmd, DEVICES_STREAM, event)
        return cmd.finish({"name": name, "revoked_at": device.revoked_at.isoformat()})


def check_role_change(*, actor, username: str) -> None:
    """Whether ``actor`` (a username or ``User``) may change ``username``'s account (roles,
    password, active flag): an admin, and never his own (a superuser neither). Raises
    ``RoleRequired`` (403)."""
    require_role(actor, *ROLE_MANAGERS, step="changing roles")
    name = actor if isinstance(actor, str) else actor.get_username()
    if name == username:
        raise RoleRequired("changing one's own roles needs another admin")


def record_roles_change(
    *, user, after: set[str], actor: str, cmd=None, before: set[str] | None = None, approver: str | None = None
) -> dict:
    """Set ``user``'s role groups to ``after`` and append ``StaffRolesChanged`` (used by
    ``staff.accounts.staff_roles_set``, which passes the second admin as ``approver``, and by
    the console's set-up path ``manage.py staff_roles``). Raises ``IncompatibleRoles`` (400)
    before changing anything when ``after`` holds two roles one account may not hold together:
    every path refuses them."""
    check_compatible(after)
    if before is None:
        before = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        user.groups.remove(*Group.objects.filter(name__in=before - after))
        # get_or_create: a role's group comes from a data migration, which a flushed test
        # database (or a restored one) may lack; the role must not be dropped silently.
        user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in sorted(after - before)))
    if hasattr(user, "_casino_roles"):
        del user._casino_roles
    data = {"user": user.get_username(), "before": sorted(before), "after": sorted(after)}
    if approver is not None:
        data["approver"] = approver
    event = NewEvent(type="StaffRolesChanged", data=data)
    if cmd is not None:
        _append_one(cmd, ROLES_STREAM, event)
        position = cmd.appended[-1].position
    else:
        position = _append_outside_command(ROLES_STREAM, event, actor=actor)
    return {"username": user.get_username(), "before": sorted(before), "after": sorted(after), "position": position}


USER_FIELDS = ("username", "is_active", "is_staff", "is_superuser")
PROFILE_FIELDS = ("first_name", "last_name", "email")


def user_snapshot(user) -> dict:
    """The account fields whose changes are recorded (never the password)."""
    return {name: getattr(user, name) for name in USER_FIELDS}


def password_digest(user) -> str:
    """The keyed digest of ``user``'s stored password hash (``ledger.identity.digest``): an
    identity event records it so that ``ledger verify`` sees a hash written behind the
    services' back; it tells nothing about the password."""
    return hash_digest(user.get_username(), user.password)


def hash_digest(username: str, password_hash: str | None) -> str:
    """The keyed digest of ``username``'s stored password hash ``password_hash``."""
    return digest("password", username, password_hash or "")


def profile_digests(user) -> dict[str, str]:
    """``{field: keyed digest}`` of ``user``'s first and last name and e-mail (personal data:
    the ledger, which keeps everything for ever, holds only these)."""
    return {name: digest(name, user.get_username(), str(getattr(user, name) or "")) for name in PROFILE_FIELDS}


def record_user_change(*, before: dict | None, user, actor: str) -> int | None:
    """Append ``StaffUserChanged`` (``before`` None: the account was created) with the account's
    fields before and after, when they differ. A creation records the digests of the first
    password and of the name and e-mail too. Returns the event's position, or None."""
    after = user_snapshot(user)
    if before == after:
        return None
    data = {"user": user.get_username(), "before": before, "after": after}
    if before is None:
        data.update(password_digest=password_digest(user), profile_digests=profile_digests(user), roles=[])
    return _append_outside_command(ROLES_STREAM, NewEvent(type="StaffUserChanged", data=data), actor=actor)


def staff_account_create(
    *,
    username: str,
    actor: str,
    password: str | None = None,
    roles: tuple[str, ...] | list[str] = (),
    is_staff: bool = False,
    is_superuser: bool = False,
) -> dict:
    """The console's and the demo's way to create an account (``manage.py createsuperuser``
    records one made by Django's own code with ``staff_account_recorded``). ``password`` None:
    no usable password. Events ``StaffUserChanged`` (created) and, with ``roles``,
    ``StaffRolesChanged``. Returns ``{"username", "roles"}``. Raises ``StateConflict`` (409)
    when the name is taken, ``IncompatibleRoles`` (400)."""
    check_compatible(set(roles))
    User = get_user_model()
    with transaction.atomic():
        store.lock_writers()
        if User.objects.filter(username=username).exists():
            raise StateConflict(f"an account named {username} exists", field="username")
        user = User(username=username, is_staff=is_staff, is_superuser=is_superuser)
        user.set_password(password)  # None: an unusable password
        user.save()
        staff_account_recorded(user=user, actor=actor)
        if roles:
            record_roles_change(user=user, after=set(roles), actor=actor)
    return {"username": username, "roles": sorted(roles)}


def staff_account_recorded(*, user, actor: str) -> int:
    """Record an account just created (by Django's ``createsuperuser``, or ``staff_account_create``):
    ``StaffUserChanged`` with ``before`` None. Returns the event's position."""
    return record_user_change(before=None, user=user, actor=actor)


def staff_roles_add(*, username: str, roles: tuple[str, ...] | list[str], actor: str) -> dict | None:
    """Give ``username`` ``roles`` on top of those he holds (the demo's set-up, run again and
    again): ``StaffRolesChanged`` when one was missing, nothing otherwise. Returns the change or
    None."""
    with transaction.atomic():
        user = _user(username)
        held = set(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        if set(roles) <= held:
            return None
        return record_roles_change(user=user, after=held | set(roles), actor=actor)


def staff_password_set(*, username: str, password: str, actor: str) -> int:
    """The console sets ``username``'s password (``manage.py changepassword``: the operator has
    the server, Django's own command did the same without a trace). Event ``StaffPasswordSet``
    ``{"user", "password_digest"}``. Returns the event's position. Raises ``NotFound`` (404)."""
    with transaction.atomic():
        user = get_user_model().objects.select_for_update().filter(username=username).first()
        if user is None:
            raise NotFound(f"no such user: {username}", field="username")
        user.set_password(password)
        user.save(update_fields=["password"])
        event = NewEvent(type="StaffPasswordSet", data={"user": username, "password_digest": password_digest(user)})
        return _append_outside_command(ROLES_STREAM, event, actor=actor)


def staff_password_rehashed(*, user, replaced: str) -> int:
    """Django re-hashed ``user``'s password at his login (a stronger hasher or more iterations):
    same password, new hash. Event ``StaffPasswordRehashed`` ``{"user", "replaced_digest",
    "password_digest"}``: the identity check takes it only when the replaced hash is the one
    the ledger knew, so a hash planted with raw SQL is not laundered by logging in with it."""
    data = {
        "user": user.get_username(),
        "replaced_digest": hash_digest(user.get_username(), replaced),
        "password_digest": password_digest(user),
    }
    return _append_outside_command(ROLES_STREAM, NewEvent(type="StaffPasswordRehashed", data=data), actor=data["user"])


def staff_profile_change(*, username: str, actor: str, **fields: str) -> dict:
    """Change an account's first name, last name or e-mail (``PROFILE_FIELDS``): the admin's
    user page does it through here. Event ``StaffProfileChanged`` ``{"user", "changed": [field
    names], "profile_digests"}`` (never the values: personal data stays off the ledger), when
    something changed. Returns ``{"username", "changed", "position"}``. Raises
    ``RoleRequired`` (403) unless ``actor`` is an admin, ``InvalidInput`` (400) for another
    field, ``NotFound`` (404)."""
    require_role(actor, *ROLE_MANAGERS, step="changing a person's name or e-mail")
    unknown = sorted(set(fields) - set(PROFILE_FIELDS))
    if unknown:
        raise InvalidInput(f"{unknown[0]} is not a name or e-mail field", field=unknown[0])
    with transaction.atomic():
        user = get_user_model().objects.select_for_update().filter(username=username).first()
        if user is None:
            raise NotFound(f"no such user: {username}", field="username")
        changed = [name for name in PROFILE_FIELDS if name in fields and getattr(user, name) != fields[name]]
        if not changed:
            return {"username": username, "changed": [], "position": None}
        for name in changed:
            setattr(user, name, fields[name])
        user.save(update_fields=changed)
        data = {"user": username, "changed": changed, "profile_digests": profile_digests(user)}
        position = _append_outside_command(ROLES_STREAM, NewEvent(type="StaffProfileChanged", data=data), actor=actor)
    return {"username": username, "changed": changed, "position": position}


def _append_outside_command(stream: str, event: NewEvent, *, actor: str) -> int:
    # Auth signals fire inside Django's login machinery, sometimes already inside a request's
    # transaction: a nested (not durable) atomic block, with the writer lock, keeps the chain
    # in commit order all the same.
    with transaction.atomic():
        store.lock_writers()
        saved = store.append(stream=stream, expected_version=store.stream_version(stream), events=[event], actor=actor)
        projections_after_commit()  # else a login leaves the projections one event behind
    return saved[0].position


def _clean(text: object, limit: int = 150) -> str:
    # A failed login names whatever the client typed: keep it bounded and storable (no NUL,
    # no lone surrogate), never the password.
    value = str(text or "")[:limit]
    return value.replace("\x00", "").encode("utf-8", "replace").decode("utf-8")


def auth_event_record(*, type: str, username: object, channel: str, ip: str | None) -> int:
    """Append ``StaffLoggedIn`` / ``StaffLoggedOut`` / ``StaffLoginFailed`` to ``staff/auth``.

    ``data``: ``{"user", "channel", "ip"}`` — never a password. Returns the event's position."""
    user = _clean(username)
    data = {"user": user, "channel": channel, "ip": _clean(ip, 45) or None}
    if type == "StaffLoggedIn":
        data["roles"] = sorted(roles_of(user))
    return _append_outside_command(AUTH_STREAM, NewEvent(type=type, data=data), actor=user or "anonymous")


LEAVERS_STREAM = ROLES_STREAM


def staff_leave(
    *, username: str, actor: str, approver: object, reason: str = "", idempotency_key: str | None = None
) -> dict:
    """A leaver: deactivate ``username``'s account now and record when (25 CFR 543.16), signed
    by ``approver`` (another admin, not the leaver, who confirmed from his own session through
    ``approvals``): one administrator alone could otherwise lock every colleague out, the other
    administrators first, and nobody would be left to sign their return.

    The account keeps its role groups (the access review shows what he held) but authenticates
    no more and holds no role (``roles_of`` of an inactive user is empty); an open dealer
    assignment ends with it. Event ``StaffLeft`` on ``staff/roles``: ``{"user", "left_at"
    (UTC ISO 8601), "roles", "reason", "approver", "before": {"is_active": true}, "after":
    {"is_active": false}}``. Returns ``{"username", "left_at", "roles", "position"}``.

    Raises ``RoleRequired`` (403) unless ``actor`` is an admin, or for his own account, or
    without another admin's signature; ``NotFound`` (404); ``StateConflict`` (409) when the
    account is already inactive."""
    check_role_change(actor=actor, username=username)
    require_second_signature("deactivating a leaver's account", approver, actor, Role.ADMIN)
    require_distinct("approving: deactivating a leaver's account", approver, [("leaver", username)])
    if not isinstance(reason, str) or len(reason) > 200:
        raise InvalidInput("a reason is up to 200 characters", field="reason")
    request = {"op": "staff_leave", "user": username}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        user = get_user_model().objects.select_for_update().filter(username=username).first()
        if user is None:
            raise NotFound(f"no such user: {username}", field="username")
        if not user.is_active:
            raise StateConflict(f"{username} is already inactive", field="username")
        now = timezone.now()
        roles = sorted(user.groups.filter(name__in=ALL_ROLES).values_list("name", flat=True))
        user.is_active = False
        user.save(update_fields=["is_active"])
        DealerAssignment.objects.filter(dealer=user, ended_at__isnull=True).update(ended_at=now, ended_by=actor)
        event = NewEvent(
            type="StaffLeft",
            data={
                "user": username,
                "left_at": now.isoformat(),
                "roles": roles,
                "reason": reason,
                "approver": approver,
                "before": {"is_active": True},
                "after": {"is_active": False},
            },
        )
        _append_one(cmd, LEAVERS_STREAM, event)
        return cmd.finish(
            {"username": username, "left_at": now.isoformat(), "roles": roles, "position": cmd.appended[0].position}
        )

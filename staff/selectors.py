"""Reads for the auditor and the admin: the access review (25 CFR 543.16)."""

from __future__ import annotations

import csv
import io

from django.contrib.auth import get_user_model
from django.utils import timezone

from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.models import Event
from ledger.spreadsheet_cells import safe_cell

from .roles import ALL_ROLES, incompatible_pairs
from .services import ROLES_STREAM
from .standing import identity_head, standing

ACCESS_REVIEW_COLUMNS = [
    "username",
    "active",
    "role",
    "since",
    "since_source",
    "last_login",
    "date_joined",
    "left_at",
    "incompatible",
    "ledger",
]


def users_with(*roles: str) -> list[str]:
    """The active users holding one of ``roles`` (staff.roles.Role values), by user name, sorted."""
    return list(
        get_user_model()
        .objects.filter(groups__name__in=roles, is_active=True)
        .order_by("username")
        .values_list("username", flat=True)
        .distinct()
    )


def _role_grants() -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """(user, role) → when the role was last given (UTC ISO), from ``StaffRolesChanged``;
    user → when he left, from ``StaffLeft``. In ledger order, so the latest wins."""
    since: dict[tuple[str, str], str] = {}
    left: dict[str, str] = {}
    events = (
        Event.objects.filter(stream=ROLES_STREAM, type__in=("StaffRolesChanged", "StaffLeft"))
        .order_by("position")
        .values_list(*SEAL_FIELDS, "type", "data", "occurred_at")
    )
    for type_, data, occurred_at in sealed_rows(events.iterator(chunk_size=2000)):  # the application's only
        if type_ == "StaffLeft":
            left[data["user"]] = data["left_at"]
            continue
        for role in set(data.get("after") or ()) - set(data.get("before") or ()):
            since[(data["user"], role)] = occurred_at.isoformat()
    return since, left


def access_review() -> dict:
    """Who holds which role, since when, and when he last logged in; leavers with when they left.

    Returns ``{"title", "generated_at" (UTC ISO), "columns", "rows"}``, one row per account and
    role, by username then role: ``{"username", "active", "role", "since" (UTC ISO),
    "since_source" ("role change event", or "account created" when the role predates the
    ledger's trail), "last_login" (UTC ISO or null), "date_joined", "left_at" (null unless a
    leaver), "incompatible" (the roles held together with this one that segregation of duties
    forbids, ";"-joined, "" when none), "ledger"}``. An account with no role: one row with
    ``role`` null. Device accounts (``device:…``) are left out: they hold no role.

    What an account holds is what its sealed identity events granted (``staff.standing``: the
    login backend's own rule), not what its row says: a group or flag set in the auth tables
    with raw SQL is shown on a row of its own with ``since`` null, ``since_source`` and
    ``ledger`` "differs from the ledger…", and an ``active`` row the events deactivated reads
    ``active`` false with ``ledger`` naming it; ``ledger`` is "" where row and events agree."""
    since, left = _role_grants()
    head = identity_head()
    users = (
        get_user_model().objects.exclude(username__startswith="device:").prefetch_related("groups").order_by("username")
    )
    rows = []
    for user in users:
        name = user.get_username()
        groups = [g.name for g in user.groups.all()]
        held = standing(user, groups, head=head)
        on_row = _roles(groups, superuser=user.is_superuser)
        roles = _roles(held.groups, superuser=held.superuser)
        pairs = incompatible_pairs(roles)
        base = {
            "username": name,
            "active": held.active,
            "last_login": user.last_login.isoformat() if user.last_login else None,
            "date_joined": user.date_joined.isoformat(),
            "left_at": left.get(name) if not held.active else None,
        }
        flags = "differs from the ledger: active" if user.is_active and not held.active else ""
        for role in roles or ([None] if not set(on_row) - set(roles) else []):
            granted = since.get((name, role)) if role else None
            clashes = sorted({a if b == role else b for a, b in pairs if role in (a, b)})
            rows.append(
                {
                    **base,
                    "role": role,
                    "since": granted or (base["date_joined"] if role else None),
                    "since_source": ("role change event" if granted else "account created") if role else None,
                    "incompatible": ";".join(clashes),
                    "ledger": flags,
                }
            )
        for role in sorted(set(on_row) - set(roles)):
            rows.append(
                {
                    **base,
                    "role": role,
                    "since": None,
                    "since_source": "differs from the ledger",
                    "incompatible": "",
                    "ledger": "differs from the ledger: the row holds this role, its sealed events never granted it"
                    + (f"; {flags[len('differs from the ledger: ') :]}" if flags else ""),
                }
            )
    return {
        "title": "Access review",
        "generated_at": timezone.now().isoformat(),
        "columns": ACCESS_REVIEW_COLUMNS,
        "rows": rows,
    }


def _roles(groups, *, superuser: bool) -> list[str]:
    roles = sorted(g for g in groups if g in ALL_ROLES)
    if superuser and "admin" not in roles:
        roles.append("admin")
    return roles


def _cell(value) -> str:
    # A spreadsheet runs a cell that starts with = + - @, tab or CR as a formula: quote it as text.
    return str(safe_cell("" if value is None else str(value)))


def access_review_csv(report: dict) -> str:
    """The access review as CSV: title, generation time, a blank line, the columns, the rows."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["title", report["title"]])
    writer.writerow(["generated_at", report["generated_at"]])
    writer.writerow([])
    writer.writerow(report["columns"])
    for row in report["rows"]:
        writer.writerow([_cell(row[column]) for column in report["columns"]])
    return out.getvalue()

"""Which approvals a person may read.

A dealer (a person whose only staff role is dealer) reads and signs the approvals of the table
he is assigned to now (its opener, closer, fills and credits, coups), never another table's,
even one naming him: he counts and signs only the tray in front of him. The opener of a table
names its dealer, who is assigned to it by the opening (``approvals.acts``): he reads and signs
it while he deals at no open table. Of the requests about
no table he reads those he is part of (asked by him, naming him as a signer, or signed by him:
a tips count). A runner, a drop team's or a count team's member (holding no other role) reads
those he is part of or that wait for his role: he carries, removes or counts, and checks nobody
else's work (a cage reversal is not his to read). Everyone else with a staff role reads them all
(a pit boss, a cage supervisor, the auditor sign or check other people's).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import QuerySet

from cashier.services.slips import recorded_slip
from core.ids import uuid_of
from games.models import Round, Table
from ledger.errors import StateConflict
from staff.roles import STAFF_ROLES, Role, roles_of
from staff.services import dealer_table

from .models import Approval


def subject_table(approval: Approval) -> str | None:
    """The table code an approval is about: its payload's table, its coup's or its slip's; None."""
    payload = approval.payload if isinstance(approval.payload, dict) else {}
    table = payload.get("table", payload.get("code"))
    if isinstance(table, str):
        return table
    if isinstance(payload.get("round_id"), str):
        try:
            key = uuid_of(payload["round_id"])
        except ValueError:
            return None
        return Round.objects.filter(pk=key).values_list("table__code", flat=True).first()
    if isinstance(payload.get("kind"), str) and isinstance(payload.get("serial"), str | int):
        try:
            slip = recorded_slip(payload["kind"], payload["serial"])
        except StateConflict:
            return None  # a row changed outside the application puts no table's dealer in scope
        return slip.table.code if slip is not None else None
    return None


def _takes_part(approval: Approval, username: str) -> bool:
    if approval.maker == username:
        return True
    signatures = approval.signatures if isinstance(approval.signatures, list) else []
    return any(isinstance(s, dict) and username in (s.get("user"), s.get("by")) for s in signatures)


def dealer_only(user) -> bool:
    """Whether ``user`` (a ``User`` or a username) holds the dealer role and no other staff role."""
    return roles_of(user) & STAFF_ROLES == {Role.DEALER}


def _user(user_or_username):
    if isinstance(user_or_username, str):
        return get_user_model().objects.filter(username=user_or_username).first()
    return user_or_username


def in_dealers_scope(approval: Approval, user, table: object = ...) -> bool:
    """Whether dealer ``user`` may read and sign ``approval``: one about a table only at the
    table he is assigned to now (``table``: that code, when the caller has read it already);
    one about no table only if he takes part in it."""
    about = subject_table(approval)
    if about is None:
        return _takes_part(approval, _username(user))
    if table is ...:
        table = dealer_table(_user(user))
    if table is not None and about == table:
        return True
    if approval.kind == "table_open_counted" and approval.payload.get("dealer") == _username(user):
        return table is None or not Table.objects.filter(code=table, state=Table.State.OPEN).exists()
    return False


def _username(user) -> str:
    return user if isinstance(user, str) else user.get_username()


def outside_scope(approval: Approval, user) -> bool:
    """Whether ``user`` is a dealer and ``approval`` lies outside his scope (module docstring)."""
    return dealer_only(user) and not in_dealers_scope(approval, user)


# Roles that do their own part of a procedure and sign nobody else's work.
OWN_PART_ROLES = frozenset({Role.RUNNER, Role.DROP_TEAM, Role.COUNT_TEAM})


def _waits_for(approval: Approval, username: str, roles: frozenset[str]) -> bool:
    signatures = approval.signatures if isinstance(approval.signatures, list) else []
    return any(
        isinstance(s, dict)
        and (s.get("user") == username or (s.get("user") is None and roles & set(s.get("roles", ()))))
        for s in signatures
    )


def readable_by(user, approvals: QuerySet) -> QuerySet:
    """``approvals`` narrowed to those ``user`` may read (module docstring)."""
    roles = roles_of(user) & STAFF_ROLES
    if roles and roles <= OWN_PART_ROLES:
        name = _username(user)
        keep = [
            approval.pk
            for approval in approvals.only("id", "maker", "signatures")
            if _takes_part(approval, name) or _waits_for(approval, name, roles)
        ]
        return approvals.filter(pk__in=keep)
    if not dealer_only(user):
        return approvals
    table = dealer_table(user)
    keep = [
        approval.pk
        for approval in approvals.only("id", "kind", "payload", "maker", "signatures")
        if in_dealers_scope(approval, user, table)
    ]
    return approvals.filter(pk__in=keep)

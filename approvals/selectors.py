"""Which approvals a person may read.

A dealer (a person whose only staff role is dealer) reads the approvals of the table he is
assigned to now, and those he is part of: asked by him, naming him as a signer, or signed by
him. Everyone else with a staff role reads them all (a pit boss, a cage supervisor, the
auditor sign or check other people's). A request with nothing of a table (a drop count of
the count room) is not a dealer's.
"""

from __future__ import annotations

from django.db.models import QuerySet

from cashier.models import Slip
from core.ids import uuid_of
from games.models import Round
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
        slip = Slip.objects.filter(kind=payload["kind"], serial=str(payload["serial"]))
        return slip.values_list("table__code", flat=True).first()
    return None


def _takes_part(approval: Approval, username: str) -> bool:
    if approval.maker == username:
        return True
    signatures = approval.signatures if isinstance(approval.signatures, list) else []
    return any(isinstance(s, dict) and username in (s.get("user"), s.get("by")) for s in signatures)


def readable_by(user, approvals: QuerySet) -> QuerySet:
    """``approvals`` narrowed to those ``user`` may read (module docstring)."""
    if roles_of(user) & STAFF_ROLES != {Role.DEALER}:
        return approvals
    username, table = user.get_username(), dealer_table(user)
    keep = [
        approval.pk
        for approval in approvals.only("id", "payload", "maker", "signatures")
        if _takes_part(approval, username) or (table is not None and subject_table(approval) == table)
    ]
    return approvals.filter(pk__in=keep)

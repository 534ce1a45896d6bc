"""Replay the approvals from their sealed events: what each one asked, who asked, who signed.

``recorded(events)`` folds one approval's events (``approval/<id>``, sealed: the application's
own) into what its row must hold; ``row_differences`` names the fields of a row that differ.
``approvals.services`` asks both before any signature, refusal or act: a row changed with raw
SQL by someone holding the database credentials (another maker, a signer's name, the act's
arguments, a decided approval set back to pending) signs nothing. ``check_approvals`` (``ledger
replay-check``) compares every row's state, version, maker, kind, payload and signers.
"""

from __future__ import annotations

from django.utils.dateparse import parse_datetime

from ledger.event_seals import sealed_events
from ledger.models import Event
from ledger.replay import Difference, compare, register

from .models import Approval

STATES = {
    "ApprovalRequested": Approval.State.PENDING,
    "ApprovalConfirmed": Approval.State.CONFIRMED,
    "ApprovalRejected": Approval.State.REJECTED,
    "ApprovalWithdrawn": Approval.State.WITHDRAWN,
    "ApprovalExpired": Approval.State.EXPIRED,
}


def recorded(events) -> dict | None:
    """One approval's sealed events (in order) folded into ``{"kind", "payload", "maker",
    "expires_at" (ISO 8601), "waiting": {slot: {"roles", "user"}}, "signed": {slot: signer},
    "state", "version"}``; None when no sealed ``ApprovalRequested`` opens it."""
    approval = None
    for event in events:
        if event.type == "ApprovalRequested":
            data = event.data
            waiting = {each["slot"]: {"roles": each["roles"], "user": each["user"]} for each in data["waiting_for"]}
            approval = {
                "kind": data["kind"],
                "payload": data["payload"],
                "maker": data["maker"],
                "expires_at": data.get("expires_at"),
                "waiting": waiting,
                "signed": {},
            }
        if approval is None:
            continue
        approval["version"] = event.version
        approval["state"] = STATES.get(event.type, approval.get("state"))
        if event.type in ("ApprovalSigned", "ApprovalConfirmed"):
            approval["signed"][event.data["slot"]] = event.data["by"]
    return approval


def events_of(approval_id: object) -> list[Event]:
    """The sealed events of approval ``approval_id`` (its stream ``approval/<id>``), in order."""
    return sealed_events(Event.objects.filter(stream=f"approval/{approval_id}").order_by("version"))


def differences(approval: Approval) -> list[str]:
    """The fields of ``approval``'s row that differ from its sealed events (``[]``: none), for
    every place that shows or acts on it: an altered row is marked, never offered to sign."""
    return row_differences(approval, recorded(events_of(approval.id)))


def row_differences(row: Approval, made: dict | None) -> list[str]:
    """The fields of ``row`` that differ from ``made`` (``recorded``): ``maker``, ``kind``,
    ``payload``, ``expires_at``, ``signatures``, ``state``, ``version``; ``["(no event)"]`` when no
    sealed event made it."""
    if made is None:
        return ["(no event)"]
    differing = [name for name in ("maker", "kind", "payload") if getattr(row, name) != made[name]]
    expires_at = parse_datetime(made["expires_at"]) if isinstance(made["expires_at"], str) else None
    if expires_at is not None and row.expires_at != expires_at:
        differing.append("expires_at")
    if not _signatures_hold(row.signatures, made):
        differing.append("signatures")
    differing += [name for name in ("state", "version") if getattr(row, name) != made[name]]
    return differing


def _signatures_hold(signatures: object, made: dict) -> bool:
    # The request recorded the slots it waited for; any other slot was the maker's own, signed
    # when he asked (``approval_request``).
    if not isinstance(signatures, list) or not all(isinstance(each, dict) for each in signatures):
        return False
    slots = {each.get("slot"): each for each in signatures}
    if len(slots) != len(signatures) or not set(made["waiting"]) <= set(slots):
        return False
    for name, each in slots.items():
        wanted = made["waiting"].get(name)
        if wanted is None:
            if each.get("user") != made["maker"] or each.get("by") != made["maker"]:
                return False
        elif (each.get("roles"), each.get("user"), each.get("by")) != (
            wanted["roles"],
            wanted["user"],
            made["signed"].get(name),
        ):
            return False
    return True


@register
def check_approvals() -> list[Difference]:
    streams: dict[str, list[Event]] = {}
    # The application's events only: a forged ApprovalConfirmed does not vouch for a planted row.
    for event in sealed_events(Event.objects.filter(stream__startswith="approval/").order_by("position")):
        streams.setdefault(event.data["approval"], []).append(event)
    replayed = {}
    for key, events in streams.items():
        made = recorded(events)
        if made is not None:
            signed_by = sorted(by for by in made["signed"].values() if by)
            replayed[key] = {
                "state": made["state"],
                "version": made["version"],
                "maker": made["maker"],
                "kind": made["kind"],
                "payload": made["payload"],
                "signed_by": signed_by,
            }
    live = {
        str(a.id): {
            "state": a.state,
            "version": a.version,
            "maker": a.maker,
            "kind": a.kind,
            "payload": a.payload,
            "signed_by": sorted(s["by"] for s in a.signatures if s["by"] and s["by"] != a.maker),
        }
        for a in Approval.objects.all()
    }
    return list(compare("approval", live, replayed))

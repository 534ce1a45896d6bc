"""Replay the approvals from their events (``ledger replay-check``): state, signers, version."""

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


@register
def check_approvals() -> list[Difference]:
    replayed: dict[str, dict] = {}
    # The application's events only: a forged ApprovalConfirmed does not vouch for a planted row.
    for event in sealed_events(Event.objects.filter(stream__startswith="approval/").order_by("position")):
        approval = replayed.setdefault(event.data["approval"], {"signed_by": []})
        approval["version"] = event.version
        approval["state"] = STATES.get(event.type, approval.get("state"))
        if event.type in ("ApprovalSigned", "ApprovalConfirmed"):
            approval["signed_by"] = sorted([*approval["signed_by"], event.data["by"]])
    live = {
        str(a.id): {
            "state": a.state,
            "version": a.version,
            "signed_by": sorted(s["by"] for s in a.signatures if s["by"] and s["by"] != a.maker),
        }
        for a in Approval.objects.all()
    }
    return list(compare("approval", live, replayed))

"""Replay the credit lines and markers from their events (``ledger replay-check``)."""

from ledger.models import Event
from ledger.replay import Difference, compare, register

from .credit_models import CreditLine, Marker


@register
def check_credit() -> list[Difference]:
    """Credit lines (limit, version from ``credit/<patron>``) and markers (state, amount, paid,
    version from ``marker/<serial>``)."""
    lines: dict[str, dict] = {}
    markers: dict[str, dict] = {}
    events = Event.objects.filter(stream__regex=r"^(credit|marker)/").order_by("position")
    for event in events.only("stream", "version", "type", "data"):
        data = event.data
        if event.type == "CreditLineApproved":
            lines[data["patron"]] = {"limit_cents": data["limit_cents"], "version": event.version}
        elif event.type == "MarkerIssued":
            markers[data["serial"]] = {
                "state": Marker.State.AT_TABLE if data["table"] else Marker.State.AT_CAGE,
                "amount_cents": data["amount_cents"],
                "paid_cents": 0,
                "version": event.version,
            }
        elif event.type in ("MarkerTransferred", "MarkerPaid", "MarkerPaidAtTable", "MarkerVoided"):
            marker = markers.setdefault(data["serial"], {})
            marker["version"] = event.version
            if event.type in ("MarkerTransferred", "MarkerPaid"):
                marker["state"] = Marker.State.AT_CAGE
            if event.type == "MarkerVoided":
                marker["state"] = Marker.State.VOIDED
            elif event.type != "MarkerTransferred":  # a payment, at the cage or at a table
                marker["paid_cents"] = data["paid_cents"]
                if data["outstanding_cents"] == 0:
                    marker["state"] = Marker.State.PAID
    live_lines = {
        line.patron.code: {"limit_cents": line.limit_cents, "version": line.version}
        for line in CreditLine.objects.select_related("patron")
    }
    live_markers = {
        m.serial: {"state": m.state, "amount_cents": m.amount_cents, "paid_cents": m.paid_cents, "version": m.version}
        for m in Marker.objects.all()
    }
    return [*compare("credit line", live_lines, lines), *compare("marker", live_markers, markers)]

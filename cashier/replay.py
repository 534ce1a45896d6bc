"""Replay the cage and the fill and credit slips from their events (``ledger replay-check``)."""

from ledger.models import Event
from ledger.replay import Difference, compare, register

from .models import Cage, Slip


@register
def check_cage() -> list[Difference]:
    replayed: dict[str, dict] = {}
    for event in (
        Event.objects.filter(stream__startswith="cage/").order_by("position").only("stream", "version", "type")
    ):
        cage = replayed.setdefault(event.stream.split("/", 1)[1], {"state": Cage.State.CLOSED})
        cage["version"] = event.version
        if event.type == "CageOpened":
            cage["state"] = Cage.State.OPEN
        elif event.type == "CageClosed":
            cage["state"] = Cage.State.CLOSED
    live = {
        c.code: {"state": c.state, "version": c.version} for c in Cage.objects.all() if c.version or c.code in replayed
    }
    return list(compare("cage", live, replayed))


SLIP_STATES = {
    "Requested": Slip.State.REQUESTED,
    "Issued": Slip.State.ISSUED,
    "Delivered": Slip.State.DELIVERED,
    "Voided": Slip.State.VOIDED,
    "Reversed": Slip.State.REVERSED,
}


@register
def check_slips() -> list[Difference]:
    """Fill and credit slips: state, amount and version from ``slip/<kind>/<serial>``."""
    replayed: dict[str, dict] = {}
    for event in (
        Event.objects.filter(stream__startswith="slip/").order_by("position").only("stream", "version", "type", "data")
    ):
        slip = replayed.setdefault(event.stream, {})
        slip["version"] = event.version
        slip["state"] = SLIP_STATES[event.type.removeprefix("Fill").removeprefix("Credit")]
        if "amount_cents" in event.data:
            slip["amount_cents"] = event.data["amount_cents"]
    live = {
        s.stream: {"state": s.state, "version": s.version, "amount_cents": s.amount_cents}
        for s in Slip.objects.select_related("table")
    }
    return list(compare("slip", live, replayed))

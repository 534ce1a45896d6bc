"""Replay the cage and the colour-chip stacks from their events (``ledger replay-check``)."""

from ledger.models import Event
from ledger.replay import Difference, compare, register

from .models import Cage, ColourStack, Slip
from .services.self_limit import check_self_limits


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


@register
def check_colour_stacks() -> list[Difference]:
    """Active colours per table: (colour → patron, unit value) from the buys and change inverses."""
    replayed: dict[str, dict] = {}
    types = ["ColourChipsBought", "ColourChipsChangedBack"]
    for event in (
        Event.objects.filter(type__in=types).order_by("position").only("type", "data").iterator(chunk_size=5000)
    ):
        data = event.data
        key = f"{data['table']}/{data['colour']}"
        if event.type == "ColourChipsBought":
            replayed[key] = {"patron": data["patron"], "unit_value_cents": data["unit_value_cents"]}
        else:
            replayed.pop(key, None)
    live = {
        f"{s.table.code}/{s.colour}": {"patron": s.patron.code, "unit_value_cents": s.unit_value_cents}
        for s in ColourStack.objects.filter(state=ColourStack.State.ACTIVE).select_related("table", "patron")
    }
    return list(compare("colour_stack", live, replayed))


register(check_self_limits)


SLIP_STATES = {
    "Requested": Slip.State.REQUESTED,
    "Issued": Slip.State.ISSUED,
    "Delivered": Slip.State.DELIVERED,
    "Voided": Slip.State.VOIDED,
    "Reversed": Slip.State.REVERSED,
}


@register
def check_slips() -> list[Difference]:
    """Fill and credit slips (issue #7): state, amount and version from ``slip/<kind>/<serial>``."""
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

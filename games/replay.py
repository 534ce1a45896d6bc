"""Replay tables, rounds and bets from their events (``ledger replay-check``)."""

from ledger.models import Event
from ledger.replay import Difference, compare, register

from .bet_record import bet_row, fold_round_event, unplaced
from .models import Bet, ColourStack, Round, Shoe, Table
from .services.shoes import SHUFFLE_FAULT, shuffle_faults


def _events(prefix: str):
    return (
        Event.objects.filter(stream__startswith=prefix)
        .order_by("position")
        .only("stream", "version", "type", "data")
        .iterator(chunk_size=5000)
    )


@register
def check_tables() -> list[Difference]:
    replayed: dict[str, dict] = {}
    for event in _events("table/"):
        code = event.stream.split("/", 1)[1]
        table = replayed.setdefault(code, {"state": Table.State.CLOSED, "rounds_played": 0})
        table["version"] = event.version
        if event.type == "TableOpened":
            table.update(state=Table.State.OPEN, game=event.data["game"], rules=event.data["rules"])
        elif event.type == "TableClosed":
            table["state"] = Table.State.CLOSED
        elif event.type == "TableRulesChanged":
            table["rules"] = event.data["after"]
    for event in Event.objects.filter(type="RoundOpened").only("data").iterator(chunk_size=5000):
        if event.data["table"] in replayed:
            replayed[event.data["table"]]["rounds_played"] += 1
    live = {
        t.code: {
            "state": t.state,
            "rounds_played": t.rounds_played,
            "version": t.version,
            "game": t.game,
            "rules": t.rules,
        }
        for t in Table.objects.all()
    }
    return list(compare("table", live, replayed))


@register
def check_rounds_and_bets() -> list[Difference]:
    rounds: dict[str, dict] = {}
    bets: dict[str, dict] = {}
    for event in _events("round/"):
        coup = rounds.setdefault(event.stream.split("/", 1)[1], {})
        coup["version"] = event.version
        fold_round_event(event.type, event.data, coup, bets)
    for data in Event.objects.filter(type="BetReleasedOnClose").order_by("position").values_list("data", flat=True):
        fold_round_event("BetReleasedOnClose", data, {}, bets)
    # A bet moved or settled by the events, but whose BetPlaced is not among them (left out as
    # unsealed, or never written): a difference, named, rather than a bet replayed in part.
    lost = unplaced(bets)
    for key in lost:
        del bets[key]
    live_rounds = {
        str(r.id): {
            "version": r.version,
            "state": r.state,
            "table": r.table.code,
            "number": r.number,
            "result": r.result,
        }
        for r in Round.objects.select_related("table")
    }
    live_bets = {str(b.id): bet_row(b) for b in Bet.objects.select_related("patron")}
    differences = list(compare("round", live_rounds, rounds))
    differences += compare("bet", {k: v for k, v in live_bets.items() if k not in lost}, bets)
    for key in lost:
        live = "exists" if key in live_bets else "missing"
        differences.append(Difference("bet", key, "BetPlaced", live, "no BetPlaced event (moved or settled only)"))
    return differences


SHOE_STATES = {
    "ShoeShuffled": Shoe.State.IN_PLAY,
    "ShoeExhausted": Shoe.State.EXHAUSTED,
    "ShoeClosed": Shoe.State.CLOSED,
}


@register
def check_shoes() -> list[Difference]:
    replayed: dict[str, dict] = {}
    for event in _events("shoe/"):
        shoe = replayed.setdefault(event.stream.split("/", 1)[1], {})
        shoe["version"] = event.version
        if event.type in SHOE_STATES:
            shoe["state"] = SHOE_STATES[event.type]
        if event.type == "ShoeShuffled":
            shoe.update(mode=event.data["mode"], decks=event.data["decks"])
    # a card burnt off the deck (Caribbean stud) is drawn from the shoe too, at its index
    for event in Event.objects.filter(type__in=["CardDealt", "CardBurnt"]).only("data").iterator(chunk_size=5000):
        shoe = replayed.get(event.data["shoe"])
        if shoe is not None and event.data.get("index") is not None:
            shoe["last_index"] = max(shoe.get("last_index", -1), event.data["index"])
    live = {}
    sealed: list[Difference] = []
    for shoe in Shoe.objects.all():
        live[str(shoe.id)] = {"version": shoe.version, "state": shoe.state, "mode": shoe.mode, "decks": shoe.decks}
        if "last_index" in replayed.get(str(shoe.id), {}):
            live[str(shoe.id)]["last_index"] = len(shoe.drawn) - 1
        # A shoe not yet revealed holds the next cards in its row: they must still be the order
        # its sealed ShoeShuffled committed to (a closed one's reveal is ``shoe verify``'s).
        if shoe.mode == Shoe.Mode.SHUFFLED and shoe.state in (Shoe.State.IN_PLAY, Shoe.State.EXHAUSTED):
            sealed += [
                Difference("shoe", str(shoe.id), "order", fault, SHUFFLE_FAULT) for fault in shuffle_faults(shoe)
            ]
    return list(compare("shoe", live, replayed)) + sealed


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

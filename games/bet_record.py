"""What a coup's bets must hold, folded from the coup's sealed events, and the check that every
settlement makes against its ``Bet`` rows before paying from them.

A ``Bet`` row is a projection the application's database role can UPDATE: a stake raised
with raw SQL after its ``BetPlaced`` recorded less would be paid on the raised figure, and a
row set back afterwards would leave ``ledger replay-check`` clean. So the settling commands
(roulette's result, a void, every card game's last step: ``card_table.close_coup``) first
fold the coup's stream (``round/<id>``: sealed events only, ``ledger.event_seals``) with the
events they are about to append, and refuse (``StateConflict``, 409, nothing appended) when a
row of the coup differs: its round, patron, position, stake, chips, state or return.
``games.replay.check_rounds_and_bets`` folds the whole ledger with the same ``fold_round_event``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ledger.errors import StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.models import Event

from .models import Bet, Round

ROUND_STATES = {
    "RoundOpened": Round.State.BETTING,
    "BettingClosed": Round.State.CLOSED_FOR_BETS,
    "ResultRecorded": Round.State.DEALING,
    "DealingStarted": Round.State.DEALING,
    "RoundSettled": Round.State.SETTLED,
    "RoundVoided": Round.State.VOIDED,
}
BET_STATES = {
    "won": Bet.State.WON,
    "lost": Bet.State.LOST,
    "half_lost": Bet.State.HALF_LOST,
    "pushed": Bet.State.PUSHED,
    "imprisoned": Bet.State.IMPRISONED,
}
# The fields of a bet its events decide (the row's own names).
BET_FIELDS = ("round", "patron", "position", "stake_cents", "chips", "state", "return_cents")


def _bet(bets: dict[str, dict], key: str) -> dict:
    # A move of a bet whose BetPlaced is not there (left out as unsealed, or never written)
    # starts an entry without "round": ``unplaced`` names it, nothing raises.
    return bets.setdefault(key, {})


def fold_round_event(event_type: str, data: dict, coup: dict, bets: dict[str, dict]) -> None:
    """Apply one event of a coup's stream to ``coup`` (its row's fields) and ``bets`` (by id)."""
    if event_type in ROUND_STATES:
        coup["state"] = ROUND_STATES[event_type]
    if event_type == "RoundOpened":
        coup.update(table=data["table"], number=data["number"])
    elif event_type == "ResultRecorded":
        coup["result"] = {"number": data["number"]}
    elif event_type == "BetPlaced":
        bets[data["bet"]] = {
            "round": data["round"],
            "patron": data["patron"],
            "position": data["position"],
            "stake_cents": data["stake_cents"],
            "chips": data["chips"],
            "state": Bet.State.PLACED,
            "return_cents": None,
        }
    elif event_type == "BetSettled" and "game" not in data.get("position", {}):  # roulette: one line a bet
        _bet(bets, data["bet"]).update(state=BET_STATES[data["outcome"]], return_cents=data["return_cents"])
    elif event_type in ("BetWithdrawn", "BetReturned"):
        _bet(bets, data["bet"]).update(state=Bet.State.RETURNED, return_cents=data["stake_cents"])
    elif event_type == "BetMoved":
        _bet(bets, data["bet"])["position"] = data["position"]
    elif event_type == "BetImprisoned":
        _bet(bets, data["bet"]).update(state=Bet.State.IMPRISONED, return_cents=0)
    elif event_type in ("BetReleased", "BetReleasedOnClose"):
        _bet(bets, data["bet"]).update(state=Bet.State.RELEASED, return_cents=data["return_cents"])
    elif event_type == "BetLostInPrison":
        _bet(bets, data["bet"]).update(state=Bet.State.LOST, return_cents=0)
    elif event_type == "BetResolved":  # card games: the sum of the bet's lines
        _bet(bets, data["bet"]).update(state=data["state"], return_cents=data["return_cents"])
    elif event_type == "RoundSettled" and "dealer" in data:
        coup["result"] = {"dealer": data["dealer"]}


def unplaced(bets: dict[str, dict]) -> list[str]:
    """The bets ``bets`` names whose ``BetPlaced`` was not folded (moved or settled only)."""
    return sorted(key for key, bet in bets.items() if "round" not in bet)


def bet_row(bet: Bet) -> dict:
    """The fields of a ``Bet`` row its events decide (``BET_FIELDS``), as the fold gives them."""
    return {
        "round": str(bet.round_id),
        "patron": bet.patron.code,
        "position": bet.position,
        "stake_cents": bet.stake_cents,
        "chips": bet.chips,
        "state": bet.state,
        "return_cents": bet.return_cents,
    }


def recorded_bets(coup: Round, pending: Iterable = ()) -> dict[str, dict]:
    """The coup's bets as its sealed events, then ``pending`` (``NewEvent``s about to be
    appended), make them: ``{bet id: {field: value}}``."""
    rows = Event.objects.filter(stream=coup.stream).order_by("version").values_list(*SEAL_FIELDS, "type", "data")
    folded: dict = {}
    bets: dict[str, dict] = {}
    for event_type, data in sealed_rows(rows, chunk=2_000, postings=True):  # a bet's events post
        fold_round_event(event_type, data, folded, bets)
    for event in pending:
        if event is not None:
            fold_round_event(event.type, event.data, folded, bets)
    return bets


def bet_differences(coup: Round, pending: Iterable = ()) -> dict[str, list[str]]:
    """``{bet id: [fields]}``: the coup's ``Bet`` rows that differ from its sealed events (then
    ``pending``); a row no ``BetPlaced`` made differs in ``(no event)``, an event's bet without a
    row in ``(no row)``."""
    recorded = recorded_bets(coup, pending)
    differing: dict[str, list[str]] = {}
    # Plain rows, not model instances: a roulette coup can hold 30,000 bets.
    fields = ("round_id", "patron__code", "position", "stake_cents", "chips", "state", "return_cents")
    rows = {
        str(key): dict(zip(BET_FIELDS, (str(values[0]), *values[1:]), strict=True))
        for key, *values in Bet.objects.filter(round=coup).values_list("pk", *fields)
    }
    for key, row in rows.items():
        made = recorded.get(key)
        if made is None or "round" not in made:
            differing[key] = ["(no event)"]
            continue
        fields = [name for name in BET_FIELDS if row[name] != made[name]]
        if fields:
            differing[key] = fields
    for key, made in recorded.items():
        if key not in rows and made.get("round") == str(coup.pk):
            differing[key] = ["(no row)"]
    return differing


def bets_as_recorded(coup: Round, pending: Iterable = ()) -> None:
    """``StateConflict`` (409, field ``bet``) naming the first of the coup's bets whose row
    differs from its sealed events (then ``pending``): nothing is settled from an edited row."""
    differing = bet_differences(coup, pending)
    if not differing:
        return
    key = sorted(differing)[0]
    more = f" (and {len(differing) - 1} more)" if len(differing) > 1 else ""
    raise StateConflict(
        f"bet {key} of coup {coup.number} at {coup.table.code} differs from its ledger events "
        f"({', '.join(differing[key])}){more}: it was changed outside the application, nothing is "
        "settled from it (see ledger replay-check)",
        field="bet",
    )

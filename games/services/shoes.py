"""Shoe commands: start a shoe at a table (shuffle, commit, cut, burn), close it (reveal).

A shuffled shoe's order is drawn with ``secrets`` (``random.SystemRandom``) and committed
by SHA-256 with a random salt in ``ShoeShuffled``; the order and the salt stay private in
the shoe's row until ``ShoeClosed`` reveals them, so anyone can then check the commitment
and every ``CardDealt`` against it (``manage.py shoe verify``). RULES.md §Black jack.
"""

import random
import secrets

from django_fsm import TransitionNotAllowed

from basis.errors import RuleError
from core.ids import uuid_of
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.models import Event
from ledger.store import NewEvent

from ..catalog import spec
from ..models import Shoe, Table
from ..rules.shoe import CardCounter, ShoeOrder, commitment, validate_cut, verify_commitment
from ..selectors import table_for_update

CUT_FRACTION = (0.70, 0.80)  # where the player with the blue card cuts, as a share of the shoe


def shoe_for_update(shoe_id) -> Shoe:
    """The shoe row, locked until commit; ``NotFound`` (404) unless ``shoe_id`` is an ASCII UUID
    (``core.ids``: the UUID field would read look-alike digits) naming a shoe."""
    try:
        key = uuid_of(shoe_id)
    except ValueError:
        raise NotFound(f"no shoe {shoe_id}", field="shoe") from None
    shoe = Shoe.objects.select_for_update().select_related("table").filter(pk=key).first()
    if shoe is None:
        raise NotFound(f"no shoe {shoe_id}", field="shoe")
    return shoe


def active_shoe(table: Table) -> Shoe | None:
    return table.shoes.filter(state__in=[Shoe.State.IN_PLAY, Shoe.State.EXHAUSTED]).first()


def shoe_start(*, table: str, actor: str, mode: str = Shoe.Mode.SHUFFLED, idempotency_key: str | None = None) -> dict:
    """Put a new shoe in play at a black jack table. Returns ``{"shoe", "mode", "decks", "commitment",
    "cut_position", "burned"}``. ``StateConflict`` when a shoe is already in play or the table is closed."""
    if mode not in Shoe.Mode.values:
        raise InvalidInput("mode is 'shuffled' or 'reader'", field="mode")
    with ledger_command(
        actor=actor, request={"op": "shoe_start", "table": table, "mode": mode}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        the_table = table_for_update(table)
        game = spec(the_table.game)
        if not game.dealt_from_a_shoe or the_table.state != Table.State.OPEN:
            raise StateConflict(f"table {table} is not an open table dealt from a shoe", field="table")
        current = active_shoe(the_table)
        if current is not None and current.state == Shoe.State.IN_PLAY:
            raise StateConflict(f"shoe {current.id} is still in play at {table}", field="table")
        if current is not None:  # an exhausted shoe is closed (and revealed) before the next one
            if the_table.rounds.filter(state__in=["betting", "closed_for_bets", "dealing"]).exists():
                raise StateConflict("the last coup of the exhausted shoe is still in play", field="table")
            close_shoe(cmd, current)
        decks = the_table.rules["decks"]
        shoe = Shoe(table=the_table, mode=mode, decks=decks)
        rng = random.SystemRandom()
        data = {"shoe": str(shoe.id), "table": table, "mode": mode, "decks": decks}
        if mode == Shoe.Mode.SHUFFLED:
            order = ShoeOrder.shuffle(decks, rng)
            shoe.salt = secrets.token_hex(16)
            shoe.order = list(order.cards)
            shoe.commitment = commitment(order, shoe.salt)
            low, high = (int(len(order) * f) for f in CUT_FRACTION)
            shoe.cut_position = validate_cut(decks, rng.randint(low, high))
            shoe.drawn = shoe.order[: game.burn_cards]  # GameSpec.burn_cards
            data.update(commitment=shoe.commitment, cut_position=shoe.cut_position)
        shoe.shuffle()
        shoe.start()
        shoe.save()
        events = [
            NewEvent("ShoeShuffled", data),
            NewEvent("CardsBurned", {"shoe": str(shoe.id), "count": len(shoe.drawn)}),
        ]
        saved = cmd.append(stream=shoe.stream, expected_version=0, events=events)
        shoe.version = saved[-1].version
        shoe.save()
        return cmd.finish({**data, "burned": len(shoe.drawn)})


def reveal(shoe: Shoe) -> dict:
    """``{"shoe", "cards_drawn"}`` and, for a shuffled shoe, its ``order``, ``salt`` and ``commitment``."""
    revealed = {"shoe": str(shoe.id), "cards_drawn": len(shoe.drawn)}
    if shoe.mode == Shoe.Mode.SHUFFLED:
        revealed.update(order=shoe.order, salt=shoe.salt, commitment=shoe.commitment)
    return revealed


def close_shoe(cmd, shoe: Shoe, **data) -> dict:
    """Close ``shoe`` and reveal it in ``ShoeClosed`` (``reveal`` with its table and ``data``); saves it."""
    shoe.close()
    revealed = {**reveal(shoe), "table": shoe.table.code, **data}
    (event,) = cmd.append(stream=shoe.stream, expected_version=shoe.version, events=[NewEvent("ShoeClosed", revealed)])
    shoe.version = event.version
    shoe.save()
    return revealed


def shoe_close(*, shoe_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Close a shoe between coups and reveal its order and salt in ``ShoeClosed``."""
    with ledger_command(
        actor=actor, request={"op": "shoe_close", "shoe": str(shoe_id)}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        shoe = shoe_for_update(shoe_id)
        if shoe.table.rounds.filter(state__in=["betting", "closed_for_bets", "dealing"]).exists():
            raise StateConflict("a coup is in play with this shoe", field="shoe")
        try:
            return cmd.finish(close_shoe(cmd, shoe))
        except TransitionNotAllowed:
            raise StateConflict(f"shoe {shoe_id} is {shoe.state}", field="shoe") from None


def draw_reported(shoe: Shoe, card: str) -> None:
    """A card-reading shoe reports ``card``: refuse one the shoe cannot still contain."""
    counter = CardCounter(shoe.decks)
    try:
        for drawn in shoe.drawn:
            counter.draw(drawn)
        counter.draw(card)
    except RuleError as exc:
        raise InvalidInput(exc.message, field="card") from exc
    shoe.drawn = [*shoe.drawn, card]


def verify_shoe(shoe_id: str) -> list[str]:
    """Check a closed shoe: the revealed order matches the commitment, and every ``CardDealt``
    from it is the card at its index in that order. Returns the faults (empty = sound)."""
    events = Event.objects.filter(stream=f"shoe/{shoe_id}").order_by("version")
    shuffled = next((e.data for e in events if e.type == "ShoeShuffled"), None)
    closed = next((e.data for e in events if e.type == "ShoeClosed"), None)
    if shuffled is None or closed is None:
        return [f"shoe {shoe_id}: not a closed shoe"]
    if shuffled["mode"] != Shoe.Mode.SHUFFLED:
        return []
    faults = []
    order = ShoeOrder(tuple(closed["order"]))
    if not verify_commitment(order, closed["salt"], shuffled["commitment"]):
        faults.append(f"shoe {shoe_id}: the revealed order does not match the commitment")
    for event in Event.objects.filter(type="CardDealt", data__shoe=str(shoe_id)).order_by("position"):
        index, card = event.data["index"], event.data["card"]
        if index >= len(order.cards) or order.cards[index] != card:
            faults.append(f"shoe {shoe_id}: event {event.position} dealt {card} as card {index}, not in the order")
    return faults


def save_after_coup(cmd, shoe: Shoe) -> None:
    """Save the shoe after a coup took cards from it; once the cut card is out it is
    ``exhausted`` (``ShoeExhausted``): the coup in play finished, no new coup starts from it."""
    if shoe.state == Shoe.State.IN_PLAY and shoe.mode == Shoe.Mode.SHUFFLED and len(shoe.drawn) >= shoe.cut_position:
        shoe.exhaust()
        (event,) = cmd.append(
            stream=shoe.stream,
            expected_version=shoe.version,
            events=[NewEvent("ShoeExhausted", {"shoe": str(shoe.id), "cards_drawn": len(shoe.drawn)})],
        )
        shoe.version = event.version
    shoe.save()

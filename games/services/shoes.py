"""Shoe commands: start a shoe at a table (shuffle, commit, cut, burn), close it (reveal).

A shuffled shoe's order is drawn with ``secrets`` (``random.SystemRandom``) and committed
by SHA-256 with a random salt in ``ShoeShuffled``; the order and the salt stay private in
the shoe's row until ``ShoeClosed`` reveals them, so anyone can then check the commitment
and every ``CardDealt`` against it (``manage.py shoe verify``). RULES.md §Black jack.

The row is the application role's to write, so it could be rearranged in play (the same cards,
the next ones chosen): before any card is drawn from a shuffled shoe, the row is checked
against its sealed ``ShoeShuffled`` and the cards the ledger recorded drawn
(``check_sealed_shuffle``; ``ledger replay-check`` runs the same check on every shoe in play).
"""

import random
import secrets

from django_fsm import TransitionNotAllowed

from basis.errors import RuleError
from core.ids import uuid_of
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
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


# --- the shoe against its sealed shuffle ---------------------------------------------------------

SHUFFLE_FAULT = "the shoe differs from its sealed shuffle"
# What takes a card off a shoe's order at its index (a card burnt from a hand has a place there
# instead, and takes nothing from the shoe).
DRAW_EVENTS = ("CardDealt", "CardBurnt")

# A shoe's sealed ShoeShuffled (its position and commitment), read once a process: a sealed
# event never changes, and a shoe's id is never reused. The last card drawn is never cached: a
# cached draw from a command that later rolled back would pass a shoe that lost it.
_sealed_shuffles: dict[str, tuple[int, str, int]] = {}
_SEALED_SHUFFLES_KEPT = 4096


def _sealed_shuffle(shoe: Shoe) -> tuple[int, str, int] | None:
    """``(position, commitment, burned)`` of the shoe's sealed ``ShoeShuffled`` (the cards its
    sealed ``CardsBurned`` took, 0 when none), or None when the application recorded none."""
    key = str(shoe.id)
    if key in _sealed_shuffles:
        return _sealed_shuffles[key]
    head = Event.objects.filter(stream=shoe.stream, version__in=[1, 2]).order_by("version")
    found = {
        kind: (position, data)
        for kind, position, data in sealed_rows(head.values_list(*SEAL_FIELDS, "type", "position", "data"))
    }
    if "ShoeShuffled" not in found:
        return None
    position, data = found["ShoeShuffled"]
    burned = found["CardsBurned"][1]["count"] if "CardsBurned" in found else 0
    if not isinstance(data.get("commitment"), str):
        return None
    sealed = (position, data["commitment"], burned)
    if len(_sealed_shuffles) >= _SEALED_SHUFFLES_KEPT:  # a one-deck shoe a stud coup: keep it bounded
        _sealed_shuffles.clear()
    _sealed_shuffles[key] = sealed
    return sealed


def _last_draw(shoe: Shoe, since: int) -> int | None:
    """The index of the last card the application recorded drawn from ``shoe`` after ``since``
    (a sealed ``CardDealt`` or ``CardBurnt`` naming it), or None when none was."""
    # One type a query, newest first along the (type, position) index: the previous coup's last
    # card is near the tail, so a few rows are read (both types in one query read them all).
    last = None
    for kind in DRAW_EVENTS:
        before = None
        while True:
            found = Event.objects.filter(type=kind, position__gt=since, data__shoe=str(shoe.id))
            if before is not None:
                found = found.filter(position__lt=before)
            # The newest row alone first: it is the one wanted unless forged (each row read is
            # rehashed before its seal is trusted).
            rows = list(found.order_by("-position").values_list(*SEAL_FIELDS, "data")[: 1 if before is None else 20])
            if not rows:
                break
            index = next((d["index"] for (d,) in sealed_rows(rows) if isinstance(d.get("index"), int)), None)
            if index is not None:
                last = index if last is None else max(last, index)
                break
            before = rows[-1][0]  # the position: the page's oldest row
    return last


def shuffle_faults(shoe: Shoe) -> list[str]:
    """How a shuffled shoe's row strays from what the ledger sealed (empty = sound): its order
    and salt must still give the commitment of its sealed ``ShoeShuffled``, the cards out of it
    must be the top of that order, and as many as the sealed burns and draws took."""
    sealed = _sealed_shuffle(shoe)
    if sealed is None:
        return ["no sealed ShoeShuffled"]
    position, sealed_commitment, burned = sealed
    faults = []
    try:
        order = ShoeOrder(tuple(shoe.order))
    except (RuleError, TypeError):
        return ["its order is not a full shoe"]
    if shoe.commitment != sealed_commitment:
        faults.append("its commitment is not the sealed one")
    if not verify_commitment(order, shoe.salt, sealed_commitment):
        faults.append("its order and salt do not give the sealed commitment")
    drawn = list(shoe.drawn) if isinstance(shoe.drawn, list) else []
    if drawn != list(order.cards[: len(drawn)]):
        faults.append("the cards out of it are not the top of its order")
    last = _last_draw(shoe, position)
    expected = burned if last is None else max(burned, last + 1)
    if len(drawn) != expected:
        faults.append(f"{len(drawn)} cards are out of it, the ledger took {expected}")
    return faults


def check_sealed_shuffle(shoe: Shoe) -> None:
    """Before a card is drawn from a shuffled shoe's order: ``StateConflict`` (409, ``shoe``)
    unless the row still matches its sealed shuffle (``shuffle_faults``). The row and its
    order are private, but the application's database role can rewrite them; the commitment is
    in a sealed event it cannot forge. Checked once for a loaded row: the draws that follow in
    the same command are the application's own, not yet in the ledger."""
    if shoe.mode != Shoe.Mode.SHUFFLED or getattr(shoe, "_sealed_checked", False):
        return
    if shuffle_faults(shoe):
        raise StateConflict(SHUFFLE_FAULT, field="shoe")
    shoe._sealed_checked = True


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

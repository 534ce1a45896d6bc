"""Game protection on the ledger's raw readers: a card dealt face down (a hole card, a stud
hand's down cards) is withheld until its coup's result reveals it.

The ledger keeps every card; what is withheld is what a reader is shown while the coup is in
play (``games.rules.event_words.hides_card``): the card's value, and the event's ``hash`` and
the next event's ``prev_hash`` too — a hash is of the data as recorded, and with the rest of
the envelope shown, 52 guesses find the card that makes it. A coup is over once its stream
``round/<id>`` holds ``RoundSettled`` or ``RoundVoided``: the ledger's own answer, so these
readers need nothing of ``games``. The events API, the dashboard and the auditor's event page
apply the same rule from the ``Round`` rows.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.rules.event_words import CARD_HIDDEN, FACE_DOWN, hides_card, without_card_value

from .models import Event

# The events that reveal a coup's face-down cards: its result settled, or the coup voided.
COUP_OVER = ("RoundSettled", "RoundVoided")
HASH_WITHHELD = "withheld while a face-down card of its coup is in play"


def coups_over(round_ids: Iterable[object]) -> frozenset[str]:
    """The ids among ``round_ids`` whose coup is over (settled or voided): one query."""
    streams = {f"round/{round_id}" for round_id in round_ids if isinstance(round_id, str)}
    if not streams:
        return frozenset()
    ended = Event.objects.filter(stream__in=streams, type__in=COUP_OVER).values_list("stream", flat=True)
    return frozenset(stream.removeprefix("round/") for stream in ended)


def is_withheld(event: Event) -> bool:
    """Whether ``event`` is a face-down card of a coup still in play."""
    if not hides_card(event.data):
        return False
    round_id = event.data.get("round")
    return not (isinstance(round_id, str) and round_id in coups_over([round_id]))


def withheld_positions(events: Iterable[Event]) -> set[int]:
    """The positions among ``events`` that are withheld cards: one query for them all."""
    cards = [e for e in events if hides_card(e.data)]
    over = coups_over(e.data.get("round") for e in cards)
    return {e.position for e in cards if e.data.get("round") not in over}


def shown_data(event: Event) -> dict:
    """``event.data`` as a reader may see it now: a withheld card reads ``"card": null`` (and
    ``total``/``soft`` null when present) with ``"card_hidden"`` saying why."""
    if is_withheld(event):
        return {**without_card_value(event.data), "card_hidden": CARD_HIDDEN}
    return event.data


def shown_hash(event: Event) -> str:
    """``event.hash``, or ``HASH_WITHHELD`` when the event is a withheld card."""
    return HASH_WITHHELD if is_withheld(event) else event.hash


def shown_prev_hash(event: Event) -> str:
    """``event.prev_hash``, or ``HASH_WITHHELD`` when the event before it is a withheld card."""
    previous = Event.objects.filter(position=event.position - 1).first()
    return HASH_WITHHELD if previous is not None and is_withheld(previous) else event.prev_hash


def first_withheld(first: int, last: int) -> int | None:
    """The position of the first face-down card of positions ``first``..``last`` whose coup is
    still in play, or None. Two queries: the face-down cards of the range, the coups ended
    since ``first`` (a coup ends after its cards)."""
    down = (
        Event.objects.filter(position__gte=first, position__lte=last, data__has_key="card")
        .filter(data__face__in=sorted(FACE_DOWN))
        .values_list("position", "data__round")
        .order_by("position")
    )
    cards = list(down)
    if not cards:
        return None
    ended = Event.objects.filter(position__gte=first, type__in=COUP_OVER).values_list("data__round", flat=True)
    over = {str(round_id) for round_id in ended}
    return next((position for position, round_id in cards if str(round_id) not in over), None)

"""Game protection on the ledger's readers: a card dealt face down (a hole card, a stud hand's
down cards) is withheld until its coup's result reveals it, and so is every hash that would
give it away.

The ledger keeps every card; what is withheld is what a reader is shown while the coup is in
play (``games.rules.event_words.hides_card``): the card's value, and the hashes. A hash is of
the data as recorded, and with the rest of the envelope shown, 52 guesses find the card that
makes it; each later event's hash is of the one before it, so every hash from that card
onwards gives it away just as well. ``hashes_withheld_from`` is the one rule every reader
that shows a hash applies (the events and audit trail APIs, the auditor's pages, the pit
boss's coup audit, the admin, the open day's export). A coup is over once its stream
``round/<id>`` holds ``RoundSettled`` or ``RoundVoided``: the ledger's own answer, so these
readers need nothing of ``games`` (the events API, the dashboard and the auditor's event page
read the same for a card's value from the ``Round`` rows).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import CharField, Exists, OuterRef, Value
from django.db.models.fields.json import KT
from django.db.models.functions import Concat

from basis.face_down import CARD_HIDDEN, FACE_DOWN, hides_card, without_card_value

from .gaming_day import SEAL_EVENT
from .models import Event

# The events that reveal a coup's face-down cards: its result settled, or the coup voided.
COUP_OVER = ("RoundSettled", "RoundVoided")
# What a page shows for a withheld hash (an API reads null with ``"hash_withheld": true``).
HASH_WITHHELD = "withheld until the coup is over"


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


def shown_data(event: Event) -> dict:
    """``event.data`` as a reader may see it now: a withheld card reads ``"card": null`` (and
    ``total``/``soft`` null when present) with ``"card_hidden"`` saying why."""
    if is_withheld(event):
        return {**without_card_value(event.data), "card_hidden": CARD_HIDDEN}
    return event.data


def hashes_withheld_from() -> int | None:
    """The ledger position from which every event's ``hash`` and ``prev_hash`` is withheld:
    the first face-down card whose coup is still in play (None: every hash shows). Two queries.
    A sealed range holds no such card (``seal_gaming_day`` refuses to sign one, and a coup over
    stays over), so only the positions after the latest seal's range are searched: the days
    not sealed yet, not the whole history."""

    sealed = (
        Event.objects.filter(type=SEAL_EVENT)
        .order_by("-position")
        .values_list("data__last_position", flat=True)
        .first()
    )
    ended = Event.objects.filter(stream=OuterRef("coup_stream"), type__in=COUP_OVER)
    return (
        Event.objects.filter(position__gt=sealed or 0, data__has_key="card", data__face__in=sorted(FACE_DOWN))
        .annotate(coup_stream=Concat(Value("round/"), KT("data__round"), output_field=CharField()))
        .filter(~Exists(ended))
        .order_by("position")
        .values_list("position", flat=True)
        .first()
    )


def hash_shown(position: int, withheld_from: int | None) -> bool:
    """Whether the event at ``position`` may show its hashes, given ``hashes_withheld_from()``."""
    return withheld_from is None or position < withheld_from

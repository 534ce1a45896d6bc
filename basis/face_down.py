"""Which card events hide a card's value while its coup is played: a card dealt face down
(``down``) or as a hole card (``hole``). Every reader, the ledger's own included (its exports
and the hashes it withholds, ``ledger.withheld``), asks here. Standard library only.
"""

from __future__ import annotations

FACE_DOWN = frozenset({"down", "hole"})


def is_face_down(event_type: str, data: dict) -> bool:
    """A ``CardDealt`` whose card is face down or a hole card: hidden while its coup is in play."""
    return event_type == "CardDealt" and isinstance(data, dict) and data.get("face") in FACE_DOWN


# What a raw reader (the events API, the auditor's event page) is told of a hidden card.
CARD_HIDDEN = "face down until the coup is over"
# The fields of a dealt card that give its value away: the card, and a total it makes.
CARD_VALUE_KEYS = ("card", "total", "soft")


def hides_card(data: object) -> bool:
    """A card event's data whose ``card`` is dealt face down or as a hole card (``face``),
    whatever the event's type: its value is hidden while its coup is in play."""
    return isinstance(data, dict) and "card" in data and data.get("face") in FACE_DOWN


def without_card_value(data: dict, marker: object = None) -> dict:
    """A copy of ``data`` with ``card`` (and a ``total`` or ``soft`` it makes, when present)
    set to ``marker``; the event's stored data is left as it is."""
    return {**data, **{key: marker for key in CARD_VALUE_KEYS if key == "card" or key in data}}

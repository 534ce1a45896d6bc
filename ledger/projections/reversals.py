"""Coups reversed: ``RoundReversed`` takes back every posting of its coup, as if it was never
played, so the read models that count a coup's bets (ratings, table statistics) take them
back out too."""

from ..models import Event
from .registry import EVENT_FIELDS, Batch

# The events that decide a bet (its stake counted in the handle and the rating).
DECIDING = ("BetSettled", "BetReleased", "BetLostInPrison", "BetReleasedOnClose")
REVERSED = "RoundReversed"


def undone(batch: Batch) -> list[dict]:
    """The deciding events (dicts of ``EVENT_FIELDS``) of the coups the batch's ``RoundReversed``
    events reverse: each coup's own stream, before its reversal. A handful, read when a batch
    holds a reversal."""
    reversals = [
        (e["data"]["round"], e["position"])
        for e in batch.events_of(REVERSED)
        if isinstance(e["data"], dict) and isinstance(e["data"].get("round"), str)
    ]
    found: list[dict] = []
    for coup, position in reversals:
        found += Event.objects.filter(stream=f"round/{coup}", type__in=DECIDING, position__lt=position).values(
            *EVENT_FIELDS
        )
    return found

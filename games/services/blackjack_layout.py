"""What each bet of a card game still has on the layout, read from the round's events.

A bet's stake, plus the stakes its bettor added on that box (black jack: double, split,
follow, insurance; Caribbean stud: the raise), less every line already settled (paid at once:
blackjack, even money, an immediate payout). Used to void a coup in the middle of the deal
without losing a cent.
"""

from collections import defaultdict

from ledger.models import Event

from ..models import Round

ADDING = ("PlayerDecided", "FollowDecided", "InsuranceDecided", "BoxDecided")


def on_layout_cents(coup: Round) -> dict[str, int]:
    """``{bet id: cents still on the layout}`` for every bet of the coup."""
    bet_of = {(b.position.get("box"), b.patron.code): str(b.id) for b in coup.bets.select_related("patron")}
    outstanding: dict[str, int] = defaultdict(int)
    events = Event.objects.filter(stream=coup.stream, type__in=["BetPlaced", "BetSettled", *ADDING]).order_by("version")
    for event_type, data in events.values_list("type", "data"):
        if event_type == "BetPlaced":
            outstanding[data["bet"]] += data["stake_cents"]
        elif event_type == "BetSettled":
            outstanding[data["bet"]] -= data["stake_cents"]
        elif data.get("patron"):
            added = data.get("stake_added_cents") or data.get("amount_cents") or data.get("raise_cents") or 0
            outstanding[bet_of[(data["box"], data["patron"])]] += added
    return dict(outstanding)

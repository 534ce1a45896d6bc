"""The event that closes a card-game bet: ``BetResolved``.

At black jack, Caribbean and classic stud, baccarat and trente-et-quarante one bet can be
settled in several lines (hands, ante and raise, pots); ``BetResolved`` records the bet's
final state and the totals, so the replay-check can rebuild the ``Bet`` row from events alone.
"""

from ledger.store import NewEvent

from ..models import Bet, Round


def bet_resolved(bet: Bet, coup: Round, staked_cents: int) -> NewEvent:
    """``BetResolved`` for ``bet`` whose state and ``return_cents`` are already final (cents)."""
    return NewEvent(
        "BetResolved",
        {
            "bet": str(bet.id),
            "round": str(coup.id),
            "patron": bet.patron.code,
            "state": bet.state,
            "staked_cents": staked_cents,
            "return_cents": bet.return_cents,
        },
    )

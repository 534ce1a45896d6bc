"""Patron rating per gaming day: time, bets, total staked, actual and theoretical win.

theoretical win = Σ stake × house edge, the edge being the exact fraction the game engine
wrote into each ``BetSettled`` event (``house_edge``, e.g. "1/37"; RULES.md per game).
It is kept exact as a fraction of cents; ``theoretical_win_cents`` rounds it down for display.
"""

from fractions import Fraction

from ..models import PatronDayRating
from . import Batch, register


class PatronRatings:
    name = "ratings"

    def apply(self, batch: Batch) -> None:
        rows: dict[tuple[str, object], PatronDayRating] = {}
        for event in batch.events_of("BetSettled"):
            data = event["data"] if isinstance(event["data"], dict) else {}
            key = (data.get("patron"), event["gaming_day"])
            if not isinstance(key[0], str):
                continue
            if key not in rows:
                rows[key] = PatronDayRating.objects.select_for_update().filter(
                    patron=key[0], gaming_day=key[1]
                ).first() or PatronDayRating(patron=key[0], gaming_day=key[1])
            rating = rows[key]
            stake = data.get("stake_cents", 0)
            rating.bets += 1
            rating.staked_cents += stake
            rating.actual_win_cents += stake - data.get("return_cents", 0)
            rating.theoretical_win = str(
                Fraction(rating.theoretical_win) + stake * Fraction(data.get("house_edge", "0"))
            )
            rating.first_bet_at = min(filter(None, [rating.first_bet_at, event["occurred_at"]]))
            rating.last_bet_at = max(filter(None, [rating.last_bet_at, event["occurred_at"]]))
        for rating in rows.values():
            rating.save()

    def reset(self) -> None:
        PatronDayRating.objects.all().delete()


register(PatronRatings())

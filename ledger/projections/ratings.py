"""Patron rating per gaming day: time, bets, total staked, actual and theoretical win.

theoretical win = Σ stake × house edge, the edge being the exact fraction the game engine
wrote into each ``BetSettled`` event (``house_edge``, e.g. "1/37"; RULES.md per game).
It is kept exact as a fraction of cents; ``theoretical_win_cents`` rounds it down for display.
"""

from fractions import Fraction

from ..models import PatronDayRating
from . import Batch, register
from .table_stats import DECIDING


class PatronRatings:
    name = "ratings"

    def apply(self, batch: Batch) -> None:
        settled = [
            (event, event["data"])
            for event in batch.events_of(*DECIDING)
            if isinstance(event["data"], dict) and isinstance(event["data"].get("patron"), str)
        ]
        keys = {(data["patron"], event["gaming_day"]) for event, data in settled}
        # One query for the batch's existing rows, not one per patron.
        rows = {
            (r.patron, r.gaming_day): r
            for r in PatronDayRating.objects.select_for_update().filter(
                patron__in={p for p, _ in keys}, gaming_day__in={d for _, d in keys}
            )
            if (r.patron, r.gaming_day) in keys
        }
        rows.update({key: PatronDayRating(patron=key[0], gaming_day=key[1]) for key in keys - rows.keys()})
        theoretical = {key: Fraction(rating.theoretical_win) for key, rating in rows.items()}
        edges: dict[str, Fraction] = {}  # a handful of distinct edges: parse each once
        for event, data in settled:
            key = (data["patron"], event["gaming_day"])
            rating = rows[key]
            stake = data.get("stake_cents", 0)
            edge = data.get("house_edge", "0")
            if edge not in edges:
                edges[edge] = Fraction(edge)
            rating.bets += 1
            rating.staked_cents += stake
            rating.actual_win_cents += stake - data.get("return_cents", 0)
            theoretical[key] += stake * edges[edge]
            when = event["occurred_at"]
            rating.first_bet_at = when if rating.first_bet_at is None else min(rating.first_bet_at, when)
            rating.last_bet_at = when if rating.last_bet_at is None else max(rating.last_bet_at, when)
        for key, rating in rows.items():
            rating.theoretical_win = str(theoretical[key])
        # One upsert for the batch (Django's bulk_update builds a CASE per row: far slower).
        PatronDayRating.objects.bulk_create(
            rows.values(),
            update_conflicts=True,
            unique_fields=["patron", "gaming_day"],
            update_fields=[
                "bets",
                "staked_cents",
                "actual_win_cents",
                "theoretical_win",
                "first_bet_at",
                "last_bet_at",
            ],
            batch_size=1000,
        )

    def reset(self) -> None:
        PatronDayRating.objects.all().delete()


register(PatronRatings())

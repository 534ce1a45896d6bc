"""Patron rating per gaming day: time, bets, total staked, actual and theoretical win.

theoretical win = Σ stake × house edge, the edge being the exact fraction the game engine
wrote into each ``BetSettled`` event (``house_edge``, e.g. "1/37"; RULES.md per game).
It is kept exact as a fraction of cents; ``theoretical_win_cents`` rounds it down for display.

A patron rated by hand (``PatronRatedManually``, where no card read him) counts the same way:
his ``decisions`` are bets at his average bet under the table's ``house_edge`` (both recorded
in the event), and his time at the table, ``time_in`` to ``time_in + minutes``, is time played.
An event without ``decisions`` (written before they were recorded) adds its time only. Its
actual win is unknown (no bet was settled): it adds nothing to it.

A coup reversed (``RoundReversed``: every posting of it taken back, as if it was never played)
takes its bets out of the rating again: bets, stakes, actual and theoretical win. Its time stays
(the patron sat and played it), and so comps reckoned on theoretical win never count it.
"""

from datetime import datetime, timedelta
from fractions import Fraction

from django.db import connection

from ..models import PatronDayRating
from .registry import Batch, register, truncate
from .reversals import DECIDING, REVERSED, undone

MANUAL = "PatronRatedManually"
_UPDATED = ["bets", "staked_cents", "actual_win_cents", "theoretical_win", "first_bet_at", "last_bet_at"]


class PatronRatings:
    name = "ratings"

    def apply(self, batch: Batch) -> None:
        fold = _Fold(stored=True)
        fold.feed(batch)
        # One upsert for the batch (Django's bulk_update builds a CASE per row: far slower).
        PatronDayRating.objects.bulk_create(
            fold.finished(),
            update_conflicts=True,
            unique_fields=["patron", "gaming_day"],
            update_fields=_UPDATED,
            batch_size=1000,
        )

    def rebuilder(self) -> "_Fold":
        return _SummedFold() if connection.vendor == "postgresql" else _Fold(stored=False)

    def reset(self) -> None:
        truncate(PatronDayRating)


class _Fold:
    """The ratings of the patron-days a run of batches touches, folded in memory.

    ``stored``: start each patron-day from its row in the database (a catch-up), or from zero
    (a rebuild, into an emptied table: its rows are inserted once, in ``finish``).
    """

    def __init__(self, *, stored: bool) -> None:
        self.stored = stored
        self.rows: dict[tuple[str, object], PatronDayRating] = {}
        # Σ stake per house edge and patron-day: the theoretical win is Σ_edge edge × Σ stake,
        # exactly Σ stake × edge (fractions), with one Fraction product per edge, not per bet.
        self.stakes: dict[tuple[str, object], dict[object, int]] = {}

    def read(self, batch: Batch) -> None:
        batch.events_of(*DECIDING)
        batch.events_of(MANUAL)
        batch.events_of(REVERSED)

    def feed(self, batch: Batch) -> None:
        settled = batch.events_of(*DECIDING)
        manual = batch.events_of(MANUAL)
        taken_back = undone(batch)
        if self.stored:
            self._load([*settled, *manual, *taken_back])
        self._fold_manual(manual)
        self._fold_settled(settled, sign=1)
        self._fold_settled(taken_back, sign=-1)

    def _fold_settled(self, events: list[dict], *, sign: int) -> None:
        """Bets decided (``sign`` 1) or taken back by their coup's reversal (-1)."""
        for event in events:
            data = event["data"]
            if not isinstance(data, dict):
                continue
            patron = data.get("patron")
            if not isinstance(patron, str):
                continue
            stake = data.get("stake_cents", 0)
            when = event["occurred_at"] if sign > 0 else None  # a reversal leaves the time played
            self._add(
                patron,
                event["gaming_day"],
                bets=sign,
                staked=sign * stake,
                won=sign * (stake - data.get("return_cents", 0)),
                edge=data.get("house_edge", "0"),
                first=when,
                last=when,
            )

    def _add(self, patron: str, day, *, bets: int, staked: int, won: int, edge: str, first, last) -> None:
        """Fold ``bets`` bets staking ``staked`` cents at ``edge`` (won: the house's actual win,
        cents), played from ``first`` to ``last``, into the patron's row for ``day``."""
        key = (patron, day)
        rating = self.rows.get(key)
        if rating is None:
            rating = self.rows[key] = PatronDayRating(patron=patron, gaming_day=day)
            self.stakes[key] = {}
        rating.bets += bets
        rating.staked_cents += staked
        rating.actual_win_cents += won
        by_edge = self.stakes[key]
        by_edge[edge] = by_edge.get(edge, 0) + staked
        if first is not None and (rating.first_bet_at is None or first < rating.first_bet_at):
            rating.first_bet_at = first
        if last is not None and (rating.last_bet_at is None or last > rating.last_bet_at):
            rating.last_bet_at = last

    def _fold_manual(self, events: list[dict]) -> None:
        """Ratings by hand, as bets at the average bet (module docstring); odd data is skipped."""
        for event in events:
            data = event["data"]
            if not isinstance(data, dict) or not isinstance(data.get("patron"), str):
                continue
            try:
                start = datetime.fromisoformat(data["time_in"])
                end = start + timedelta(minutes=int(data["minutes"]))
            except (KeyError, TypeError, ValueError):
                continue
            decisions, average = data.get("decisions"), data.get("average_bet_cents")
            counted = type(decisions) is int and decisions > 0 and type(average) is int and average > 0
            self._add(
                data["patron"],
                event["gaming_day"],
                bets=decisions if counted else 0,
                staked=decisions * average if counted else 0,
                won=0,  # no bet was settled: his actual result is unknown
                edge=data.get("house_edge", "0"),
                first=start,
                last=end,
            )

    def _load(self, settled: list[dict]) -> None:
        """The stored rows of the patron-days these events rate: one query, not one a patron."""
        keys = {
            (event["data"]["patron"], event["gaming_day"])
            for event in settled
            if isinstance(event["data"], dict) and isinstance(event["data"].get("patron"), str)
        } - self.rows.keys()
        if not keys:
            return
        for r in PatronDayRating.objects.select_for_update().filter(
            patron__in={p for p, _ in keys}, gaming_day__in={d for _, d in keys}
        ):
            if (r.patron, r.gaming_day) in keys:
                self.rows[r.patron, r.gaming_day] = r
                self.stakes[r.patron, r.gaming_day] = {}

    def finished(self) -> list[PatronDayRating]:
        """The rows, their theoretical win brought up to date."""
        edges: dict[object, Fraction] = {}  # a handful of distinct edges: parse each once
        for key, rating in self.rows.items():
            theoretical = Fraction(rating.theoretical_win)
            for edge, staked in self.stakes[key].items():
                if edge not in edges:
                    edges[edge] = Fraction(edge)
                theoretical += staked * edges[edge]
            rating.theoretical_win = str(theoretical)
            self.stakes[key] = {}
        return list(self.rows.values())

    def finish(self) -> None:
        PatronDayRating.objects.bulk_create(self.finished(), batch_size=1000)


# A batch's deciding events summed per patron-day and house edge by PostgreSQL: the same sums
# as ``_Fold.feed``'s, event by event (its rules: data an object, the patron a string, a stake
# or return missing is 0, an edge missing is "0"), without decoding each event in Python.
_SUMS = """
SELECT data->>'patron', gaming_day, COALESCE(data->>'house_edge', '0'), count(*),
       sum(COALESCE((data->>'stake_cents')::bigint, 0))::bigint,
       sum(COALESCE((data->>'stake_cents')::bigint, 0) - COALESCE((data->>'return_cents')::bigint, 0))::bigint,
       min(occurred_at), max(occurred_at)
FROM ledger_event
WHERE position > %s AND position <= %s AND type = ANY(%s) AND position <> ALL(%s::bigint[])
  AND jsonb_typeof(data) = 'object' AND jsonb_typeof(data->'patron') = 'string'
GROUP BY 1, 2, 3
"""


def _sums(batch: Batch) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(_SUMS, [batch.after, batch.upto, list(DECIDING), batch.left_out])
        return cursor.fetchall()


class _SummedFold(_Fold):
    """A rebuild's fold on PostgreSQL: the batch's sums per patron-day and edge (``_SUMS``, read
    ahead on the second connection) added up; a rebuild of the ratings spent most of its time
    decoding events and folding them one by one."""

    def __init__(self) -> None:
        super().__init__(stored=False)

    def read(self, batch: Batch) -> None:
        batch.memo("ratings.sums", _sums)
        batch.events_of(MANUAL)
        batch.events_of(REVERSED)

    def feed(self, batch: Batch) -> None:
        self._fold_manual(batch.events_of(MANUAL))
        for patron, day, edge, bets, staked, won, first, last in batch.memo("ratings.sums", _sums):
            self._add(patron, day, bets=bets, staked=staked, won=won, edge=edge, first=first, last=last)
        self._fold_settled(undone(batch), sign=-1)


register(PatronRatings())

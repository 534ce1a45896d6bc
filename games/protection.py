"""Game protection: a table's or a patron's day measured against the exact variance of its bets.

Over a gaming day the house's win on a table's bets, W = Σ (stake − return), has the
theoretical mean T = Σ stake × edge (the edge each engine wrote into the bet's ``BetSettled``,
as the table statistics and the ratings sum it) and, the bets taken as independent, the variance
V = Σ stake² × σ², σ² the variance per unit staked of the bet under the table's rule set
(``games.rules.bet_variance``, named by each game's spec as ``line_variance``). The day's
fluctuation in standard deviations is z = (W − T) / √V.

A table or a patron is beyond the house's confidence when |z| > ``CASINO_FLUCTUATION_Z``
(default 3.0, two-sided), decided exactly: (W − T)² > z² × V on fractions. The normal law
needs many bets: below ``CASINO_FLUCTUATION_MIN_BETS`` decided bets (default 100) nothing is
judged (one straight-up win alone is about six standard deviations of one bet).

Read from the day's deciding events (a settlement line, a prison bet's release or loss) at the
time of asking, under the rule set each table has now (roulette's lines carry their own zero
rule). Bets of one coup are correlated (a patron on rouge and noir at once, a crowd on banker):
their variance is summed as if independent, which the docs say. A bet whose variance is not
known is counted apart (``unknown_bets``), never guessed. Classic stud's house takes its rake
whatever the cards: variance 0, nothing to judge.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import date
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from django.conf import settings

from games.catalog import UnknownGame, spec
from games.models import Table
from games.rules.bet_variance import nearest_root
from ledger.models import Event
from ledger.projections.table_stats import DECIDING

DEFAULT_Z = Fraction(3)
DEFAULT_MIN_BETS = 100


def z_limit() -> Fraction:
    """``CASINO_FLUCTUATION_Z`` (standard deviations, two-sided) as an exact fraction; a value
    that is no positive number falls back to 3."""
    try:
        value = Fraction(Decimal(str(getattr(settings, "CASINO_FLUCTUATION_Z", DEFAULT_Z))))
    except (InvalidOperation, ValueError, TypeError):
        return DEFAULT_Z
    return value if value > 0 else DEFAULT_Z


def min_bets() -> int:
    """``CASINO_FLUCTUATION_MIN_BETS``: below this many decided bets a day is not judged."""
    value = getattr(settings, "CASINO_FLUCTUATION_MIN_BETS", DEFAULT_MIN_BETS)
    return value if isinstance(value, int) and value >= 0 else DEFAULT_MIN_BETS


class _Sums:
    __slots__ = ("bets", "handle", "win", "theory", "variance", "unknown", "tables", "last_at")

    def __init__(self) -> None:
        self.bets = self.handle = self.win = self.unknown = 0
        self.theory = Fraction(0)
        self.variance = Fraction(0)
        self.tables: set[str] = set()
        self.last_at = None

    def add(self, table: str, stake: int, returned: int, edge: Fraction, variance: Fraction | None, at=None) -> None:
        self.bets += 1
        self.last_at = at if self.last_at is None or (at is not None and at > self.last_at) else self.last_at
        self.handle += stake
        self.win += stake - returned
        self.theory += stake * edge
        self.tables.add(table)
        if variance is None:
            self.unknown += 1
        else:
            self.variance += stake * stake * variance


def _fraction(text: object) -> Fraction:
    try:
        return Fraction(str(text))
    except (ValueError, ZeroDivisionError):
        return Fraction(0)


def judge(sums: _Sums, *, limit: Fraction, least: int) -> dict:
    """The figures of one table-day or patron-day and whether they are beyond ``limit``:
    ``sd_cents`` the standard deviation of the win in whole cents (``nearest_root``); ``z`` the
    gap to theory in standard deviations (a float: a ratio, no money); the alarm is decided on
    the exact fractions."""
    gap = sums.win - sums.theory
    z = gap / Fraction(math.sqrt(sums.variance)) if sums.variance > 0 else None
    judged = sums.variance > 0 and sums.bets >= least
    return {
        "bets": sums.bets,
        "handle_cents": sums.handle,
        "win_cents": sums.win,
        "theoretical_win": sums.theory,
        "variance": sums.variance,
        "sd_cents": nearest_root(sums.variance),
        "z": float(z) if z is not None else None,
        "judged": judged,
        "alarm": judged and gap * gap > limit * limit * sums.variance,
        "unknown_bets": sums.unknown,
        "tables": sorted(sums.tables),
        "last_at": sums.last_at,
    }


def day_fluctuations(day: date, *, table: str | None = None) -> dict:
    """``{"gaming_day", "z_limit", "min_bets", "tables": [row], "patrons": [row]}`` for gaming
    ``day``: each row ``judge``'s figures (``last_at``: its last bet decided) plus ``"table"`` or
    ``"patron"`` (its code); the win,
    theory and handle in cents (the theory and variance exact fractions). ``table``: that table's
    bets only."""
    games = {code: (game, rules) for code, game, rules in Table.objects.values_list("code", "game", "rules")}
    by_table: dict[str, _Sums] = defaultdict(_Sums)
    by_patron: dict[str, _Sums] = defaultdict(_Sums)
    variances: dict[str, object] = {}
    edges: dict[object, Fraction] = {}
    events = Event.objects.filter(gaming_day=day, type__in=DECIDING)
    if table:
        events = events.filter(data__table=table)
    for data, at in events.order_by("position").values_list("data", "occurred_at").iterator(chunk_size=2000):
        if not isinstance(data, dict) or not isinstance(data.get("table"), str):
            continue
        code, stake, returned = data["table"], data.get("stake_cents"), data.get("return_cents", 0)
        if type(stake) is not int or type(returned) is not int:
            continue
        if code not in variances:
            game, rules = games.get(code, (None, None))
            try:
                variances[code] = (spec(game).line_variance, rules) if game else None
            except UnknownGame:
                variances[code] = None
        found = variances[code]
        variance = found[0](found[1], data) if found and found[0] else None
        edge = data.get("house_edge", "0")
        if edge not in edges:
            edges[edge] = _fraction(edge)
        by_table[code].add(code, stake, returned, edges[edge], variance, at)
        patron = data.get("patron")
        if isinstance(patron, str) and patron:
            by_patron[patron].add(code, stake, returned, edges[edge], variance, at)
    limit, least = z_limit(), min_bets()
    return {
        "gaming_day": day,
        "z_limit": limit,
        "min_bets": least,
        "tables": [{"table": code, **judge(s, limit=limit, least=least)} for code, s in sorted(by_table.items())],
        "patrons": [{"patron": code, **judge(s, limit=limit, least=least)} for code, s in sorted(by_patron.items())],
    }


def alarms(day: date) -> list[dict]:
    """The rows of ``day_fluctuations`` beyond the confidence, tables first."""
    figures = day_fluctuations(day)
    return [row for row in figures["tables"] + figures["patrons"] if row["alarm"]]

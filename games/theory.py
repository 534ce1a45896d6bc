"""The house edge of each table's rule set in force, for the statistics, the table
page and the floor's theory: :func:`table_house_edge`.

The figures come from each game's own function (``GameSpec.house_edge``: the pure
``games.rules.house_edges``), asked through :func:`house_edge` (cached per rule set).
"""

from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

from basis.errors import RuleError

from .catalog import UnknownGame, spec
from .models import Table
from .rules.house_edges import freeze, thaw

__all__ = [
    "bets_without_edge",
    "effective_edge_pct",
    "house_edge",
    "settled_line_edge",
    "table_house_edge",
    "table_house_edges",
]


def house_edge(game: str, rules: dict[str, Any] | None) -> tuple[Decimal, str]:
    """``(edge, basis)`` for a table of ``game`` (a game's code, ``games.catalog``) under
    ``rules`` (the table's rule set as stored): the game's ``house_edge``, computed once per
    rule set. Raises :class:`RuleError` for an unknown game, one without an edge, or bad rules."""
    return _house_edge(game, freeze(rules or {}))


@lru_cache(maxsize=256)
def _house_edge(game: str, frozen: Any) -> tuple[Decimal, str]:
    try:
        edge = spec(game).house_edge
    except UnknownGame:
        edge = None
    if edge is None:
        raise RuleError("game", f"no house edge for game {game!r}")
    return edge(thaw(frozen))


def settled_line_edge(game: str, rules: dict[str, Any] | None, line: str | None = None) -> str:
    """The edge a game's service writes into each ``BetSettled`` (what the ratings and table
    theory sum as stake × edge), as exact text where it is exact: the game's ``line_edge``
    (``line``: which line of a bet, Caribbean stud's ``ante`` or ``raise``), else its
    ``house_edge`` figure."""
    own = spec(game).line_edge
    return own(rules, line) if own is not None else str(house_edge(game, rules)[0])


def bets_without_edge(game: str, rules: dict[str, Any] | None) -> list[tuple[str, Fraction | Decimal]]:
    """``[(bet, edge)]``: the bets of a table of ``game`` under ``rules`` whose exact house edge
    is ≤ 0 (the player has the advantage, or nobody): the game's ``bets_without_edge``, else
    its one ``house_edge`` figure under the game's code. Raises :class:`RuleError` for bad
    rules or a game without an edge."""
    own = spec(game).bets_without_edge
    if own is not None:
        return own(rules or {})
    edge = house_edge(game, rules)[0]
    return [(game, edge)] if edge <= 0 else []


EFFECTIVE_EDGE = (
    "theoretical win ÷ handle: Σ stake × the exact edge of each bet decided (black jack: on the initial stakes, "
    "insurance and even money at their own edge; Caribbean stud: on the antes), over everything staked on them"
)


def effective_edge_pct(theoretical_win: Fraction | int, handle_cents: int) -> str | None:
    """The effective edge (``EFFECTIVE_EDGE``) in % with two decimals, rounded half away from
    zero (``"0.35"``); ``None`` without a handle. ``theoretical_win`` exact cents, as the table
    statistics keep it. The one figure the floor, the table statistics and the daily report show."""
    if not handle_cents:
        return None
    ratio = Fraction(theoretical_win) * 10_000 / handle_cents
    hundredths = int(abs(ratio) + Fraction(1, 2))
    sign = "-" if ratio < 0 and hundredths else ""
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}"


def table_house_edges(codes) -> dict[str, tuple[Decimal, str]]:
    """``{code: (edge, basis)}`` for the tables named (one query); a table whose rules give no
    edge (an unknown game) is left out. ``edge`` is a fraction of the stake (0.027027 = 2.7027 %)."""
    edges = {}
    for code, game, rules in Table.objects.filter(code__in=list(codes)).values_list("code", "game", "rules"):
        try:
            edges[code] = house_edge(game, rules)
        except (RuleError, ValueError):
            continue
    return edges


def table_house_edge(code: str) -> tuple[Decimal, str] | None:
    """``(edge, basis)`` of table ``code`` under the rules in force, or None (no such table)."""
    return table_house_edges([code]).get(code)

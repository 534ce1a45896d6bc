"""The house edge of each table's rule set in force, for the statistics, the table
page and the floor's theory: :func:`table_house_edge`.

The figures come from the pure :func:`games.rules.house_edges.house_edge` (cached per rule set).
"""

from decimal import Decimal
from fractions import Fraction

from basis.errors import RuleError

from .models import Table
from .rules.house_edges import house_edge

__all__ = ["effective_edge_pct", "house_edge", "table_house_edge", "table_house_edges"]

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

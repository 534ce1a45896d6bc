"""The house edge of each table's rule set in force, for the statistics, the table
page and the floor's theory: :func:`table_house_edge`.

The figures come from the pure :func:`games.rules.house_edges.house_edge` (cached per rule set).
"""

from decimal import Decimal

from .models import Table
from .rules.errors import RuleError
from .rules.house_edges import house_edge

__all__ = ["house_edge", "table_house_edge", "table_house_edges"]


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

"""The chart of accounts (DESIGN.md §Chart of accounts): stable account-name builders.

Balances are in cents; debit positive. ``house:bankroll`` (the casino's capital, the
contra account when the cage or a table tray is first stocked) and ``cage:over_short``
(count variances) complete the chart so every stocking is double-entry too.
"""

EXTERNAL_CASH = "external:cash"
CAGE_CASH = "cage:cash"
CAGE_CHIPS = "cage:chips"
CAGE_OVER_SHORT = "cage:over_short"
HOUSE_BANKROLL = "house:bankroll"
TRONC = "tronc"
ANONYMOUS_PATRON = "anon"


def patron_chips(patron: str) -> str:
    """Value chips in a patron's hands (``patron:anon:chips`` for unrated play)."""
    return f"patron:{patron}:chips"


def patron_colour(patron: str, table: str) -> str:
    """A patron's colour chips at table ``table``, at their declared value."""
    return f"patron:{patron}:colour:{table}"


def table_tray(table: str) -> str:
    return f"table:{table}:tray"


def table_drop(table: str) -> str:
    return f"table:{table}:drop"


def table_layout(table: str) -> str:
    return f"table:{table}:layout"


def table_prison(table: str) -> str:
    return f"table:{table}:prison"


def table_colour_issued(table: str) -> str:
    return f"table:{table}:colour_issued"

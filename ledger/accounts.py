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
# A fill's chips between the cage and the table: out of the cage when it is issued, onto the
# tray when the table accepts it (docs/chart_of_accounts.md, "Windows and chips in transit").
CHIPS_IN_TRANSIT = "chips:in_transit"
# Contra of the cashiers' windows: minus what the open windows hold. The cage's main bank is
# ``cage:cash`` + ``cage:windows:cash`` (the same for chips).
CAGE_WINDOWS_CASH = "cage:windows:cash"
CAGE_WINDOWS_CHIPS = "cage:windows:chips"
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


# Casino credit and front money (docs/credit_and_front_money.md).
CAGE_MARKERS = "cage:markers"  # markers (signed credit instruments) held at the cage
CAGE_DEPOSITS = "cage:deposits"  # contra of the front money the cage keeps for patrons


def patron_credit(patron: str) -> str:
    """A patron's casino credit: minus the markers he owes (−X when a marker of X is issued)."""
    return f"patron:{patron}:credit"


COMPS_OWED = "comps:owed"  # what the house owes the outlets (restaurant, hotel) for the comps they serve


def patron_comps(patron: str) -> str:
    """Comps given to a patron, at the house's cost: a marketing expense (+X a comp of X)."""
    return f"patron:{patron}:comps"


def patron_deposit(patron: str) -> str:
    """Front money a patron has deposited at the cage (safekeeping), which he may withdraw."""
    return f"patron:{patron}:deposit"


def window_cash(window: str) -> str:
    """The cash drawer of cashier window ``window`` (its number): a subsidiary account of
    ``cage:cash``, the cage's control account (docs/chart_of_accounts.md)."""
    return f"cage:window:{window}:cash"


def window_chips(window: str) -> str:
    """The value-chip drawer of cashier window ``window``: a subsidiary account of ``cage:chips``."""
    return f"cage:window:{window}:chips"


# Foreign-currency exchange at the cage (cashier.services.foreign_exchange). The banknotes'
# accounts name their currency and hold only postings in it, so no sum of the house's accounts
# ever meets them. The exchange position: what the cage bought, −F in each foreign currency, against the house
# money it gave for it, +H in the house currency: its balance per currency is the cage's position.
FX_POSITION = "cage:fx_position"


def window_foreign(window: str, currency: str) -> str:
    """The foreign banknotes (``currency``, ISO 4217) in cashier window ``window``'s drawer."""
    return f"cage:window:{window}:foreign:{currency}"


def cage_foreign(currency: str) -> str:
    """The foreign banknotes (``currency``) in the cage's main bank: a closed window's count."""
    return f"cage:foreign:{currency}"


def foreign_over_short(currency: str) -> str:
    """Count variances of the foreign banknotes in ``currency``: the over/short of that currency."""
    return f"cage:over_short:{currency}"


# --- accounts as people name them (the auditor's postings, the reports) ---

# The accounts of one name, in words.
_FIXED_LABELS = {
    EXTERNAL_CASH: "Cash outside the casino",
    CAGE_CASH: "Cage cash",
    CAGE_CHIPS: "Cage chips",
    CAGE_OVER_SHORT: "Cage over/short",
    HOUSE_BANKROLL: "House bankroll",
    TRONC: "Tronc (tips)",
    CHIPS_IN_TRANSIT: "Chips in transit",
    CAGE_WINDOWS_CASH: "Cashier windows' cash (contra)",
    CAGE_WINDOWS_CHIPS: "Cashier windows' chips (contra)",
    CAGE_MARKERS: "Markers held at the cage",
    CAGE_DEPOSITS: "Front money held at the cage (contra)",
    COMPS_OWED: "Comps owed to the outlets",
    FX_POSITION: "Cage foreign-exchange position",
}
# A table's accounts by their last part (``table:R1:tray`` → ``Table R1 tray``).
_TABLE_PARTS = {
    "tray": "tray",
    "drop": "drop box",
    "layout": "layout (bets in play)",
    "prison": "prison (bets in prison)",
    "colour_issued": "colour chips issued",
}
# A patron's accounts by their last part (``patron:P00001:chips`` → ``Chips of P00001``).
_PATRON_PARTS = {
    "chips": "Chips",
    "credit": "Credit",
    "comps": "Comps given to",
    "deposit": "Front money",
}


def _patron_words(patron: str) -> str:
    return "unrated players" if patron == ANONYMOUS_PATRON else patron


def account_label(account: str) -> str:
    """An account as people read it, the one place that names them: ``chips:in_transit`` →
    ``Chips in transit``, ``table:R1:tray`` → ``Table R1 tray``, ``patron:P00001:chips`` →
    ``Chips of P00001``, ``cage:window:1:cash`` → ``Window 1 cash``. An account of no known
    family (``known_account_label`` None) reads as its name with its separators as spaces
    (never raises)."""
    name = str(account)
    known = known_account_label(name)
    return known or " ".join(part.replace("_", " ") for part in name.split(":")).capitalize()


def known_account_label(name: str) -> str | None:
    """The label of an account of a family of the chart (``account_label``), None for another."""
    if name in _FIXED_LABELS:
        return _FIXED_LABELS[name]
    parts = name.split(":")
    if len(parts) == 3 and parts[0] == "table" and parts[2] in _TABLE_PARTS:
        return f"Table {parts[1]} {_TABLE_PARTS[parts[2]]}"
    if len(parts) == 3 and parts[0] == "patron" and parts[2] in _PATRON_PARTS:
        word = _PATRON_PARTS[parts[2]]
        return f"{word} {_patron_words(parts[1])}" if word.endswith(" to") else f"{word} of {_patron_words(parts[1])}"
    if len(parts) == 4 and parts[0] == "patron" and parts[2] == "colour":
        return f"Colour chips of {_patron_words(parts[1])} at table {parts[3]}"
    if len(parts) == 4 and parts[:2] == ["cage", "window"] and parts[3] in ("cash", "chips"):
        return f"Window {parts[2]} {parts[3]}"
    if len(parts) == 5 and parts[:2] == ["cage", "window"] and parts[3] == "foreign":
        return f"Window {parts[2]} {parts[4]} banknotes"
    if len(parts) == 3 and parts[:2] == ["cage", "foreign"]:
        return f"Cage {parts[2]} banknotes"
    if len(parts) == 3 and parts[:2] == ["cage", "over_short"]:
        return f"Cage over/short in {parts[2]}"
    return None

"""DESIGN.md's posting rules, one function each (debit +, credit −; each sums to zero).

Every money movement of the product is built here, so the rules live in one place and are
tested once. Amounts are integer cents; accounts come from ``ledger.accounts``.
"""

from . import accounts as acc
from .store import Leg


def chip_purchase(patron_account: str, amount: int) -> list[Leg]:
    """Chip purchase at the cage: external:cash −X, cage:cash +X; cage:chips −X, patron +X."""
    return [
        Leg(acc.EXTERNAL_CASH, -amount),
        Leg(acc.CAGE_CASH, amount),
        Leg(acc.CAGE_CHIPS, -amount),
        Leg(patron_account, amount),
    ]


def redemption(patron_account: str, amount: int) -> list[Leg]:
    """Redemption at the cage: patron −X, cage:chips +X; cage:cash −X, external:cash +X."""
    return [
        Leg(patron_account, -amount),
        Leg(acc.CAGE_CHIPS, amount),
        Leg(acc.CAGE_CASH, -amount),
        Leg(acc.EXTERNAL_CASH, amount),
    ]


def table_buy_in(table: str, patron_account: str, amount: int) -> list[Leg]:
    """Cash buy-in at a table: external:cash −X, table:drop +X; table:tray −X, patron +X."""
    return [
        Leg(acc.EXTERNAL_CASH, -amount),
        Leg(acc.table_drop(table), amount),
        Leg(acc.table_tray(table), -amount),
        Leg(patron_account, amount),
    ]


def stock(account: str, contra: str, amount: int) -> list[Leg]:
    """Bring ``account`` up (or down, when negative) by ``amount`` against ``contra``."""
    return [Leg(account, amount), Leg(contra, -amount)] if amount else []


def bet_placed(source_account: str, table: str, stake: int) -> list[Leg]:
    """Bet placed: patron (value or colour chips) −s, layout +s."""
    return [Leg(source_account, -stake), Leg(acc.table_layout(table), stake)]


def bet_settled(
    *, table: str, patron_account: str, house_account: str, stake: int, returned: int, winnings: int
) -> list[Leg]:
    """Settle a stake that leaves the layout.

    ``returned`` = what goes back to the patron out of the stake (stake when won or pushed,
    ⌊s/2⌋ for la partage, 0 when lost); the house keeps ``stake − returned``; ``winnings``
    are paid by the house side on top. ``house_account`` is the tray for value chips and
    ``colour_issued`` for colour chips (the tray already holds every colour chip sold).
    """
    legs = [Leg(acc.table_layout(table), -stake)]
    if returned:
        legs.append(Leg(patron_account, returned))
    if stake - returned:
        legs.append(Leg(house_account, stake - returned))
    if winnings:
        legs += [Leg(house_account, -winnings), Leg(patron_account, winnings)]
    return legs


def colour_chips_bought(table: str, patron_chips: str, patron_colour: str, amount: int) -> list[Leg]:
    """Colour chips bought: patron:chips −X, tray +X; colour_issued −X, patron:colour +X."""
    return [
        Leg(patron_chips, -amount),
        Leg(acc.table_tray(table), amount),
        Leg(acc.table_colour_issued(table), -amount),
        Leg(patron_colour, amount),
    ]


def change_inverse(table: str, patron_chips: str, patron_colour: str, amount: int) -> list[Leg]:
    """Change inverse: patron:colour −Y, colour_issued +Y; tray −Y, patron:chips +Y."""
    if not amount:
        return []
    return [
        Leg(patron_colour, -amount),
        Leg(acc.table_colour_issued(table), amount),
        Leg(acc.table_tray(table), -amount),
        Leg(patron_chips, amount),
    ]


def marker_issued(patron: str, amount: int, *, table: str | None = None) -> list[Leg]:
    """A marker (casino credit) for value chips, issued at the cage or at table ``table``.

    At the cage: patron:credit −X, cage:markers +X; cage:chips −X, patron:chips +X.
    At a table (the marker goes in the drop box, as a buy-in's cash would): patron:credit −X,
    table:drop +X; table:tray −X, patron:chips +X."""
    holder = acc.table_drop(table) if table else acc.CAGE_MARKERS
    chips = acc.table_tray(table) if table else acc.CAGE_CHIPS
    return [
        Leg(acc.patron_credit(patron), -amount),
        Leg(holder, amount),
        Leg(chips, -amount),
        Leg(acc.patron_chips(patron), amount),
    ]


def marker_transferred(table: str, amount: int) -> list[Leg]:
    """A table's marker taken from its drop to the cage: table:drop −X, cage:markers +X."""
    return [Leg(acc.table_drop(table), -amount), Leg(acc.CAGE_MARKERS, amount)]


def marker_paid(patron: str, amount: int, *, method: str) -> list[Leg]:
    """A marker paid (redeemed) at the cage: cage:markers −X, patron:credit +X, and the payment:
    cash (external:cash −X, cage:cash +X), chips (patron:chips −X, cage:chips +X) or front
    money (patron:deposit −X, cage:deposits +X)."""
    source, into = {
        "cash": (acc.EXTERNAL_CASH, acc.CAGE_CASH),
        "chips": (acc.patron_chips(patron), acc.CAGE_CHIPS),
        "front_money": (acc.patron_deposit(patron), acc.CAGE_DEPOSITS),
    }[method]
    return [
        Leg(acc.CAGE_MARKERS, -amount),
        Leg(acc.patron_credit(patron), amount),
        Leg(source, -amount),
        Leg(into, amount),
    ]


def marker_paid_at_table(patron: str, amount: int, *, table: str, method: str) -> list[Leg]:
    """A marker paid (redeemed) at table ``table`` while still in its drop, taken by the pit
    boss: the receivable leaves the drop (table:drop −X, patron:credit +X) and the payment goes
    into the table's book: chips (patron:chips −X, table:tray +X) or cash (external:cash −X,
    table:drop +X, into the drop box as a buy-in's cash). The table's tray and drop together
    do not move: no win, no loss."""
    source, into = {
        "cash": (acc.EXTERNAL_CASH, acc.table_drop(table)),
        "chips": (acc.patron_chips(patron), acc.table_tray(table)),
    }[method]
    return [
        Leg(acc.table_drop(table), -amount),
        Leg(acc.patron_credit(patron), amount),
        Leg(source, -amount),
        Leg(into, amount),
    ]


def front_money_drawn_at_table(patron: str, amount: int, *, table: str) -> list[Leg]:
    """Front money drawn at table ``table``: the deposit is reduced (patron:deposit −X,
    cage:deposits +X: the cage owes him X less) and the table hands him value chips from its
    tray (table:tray −X, patron:chips +X), as a credit slip takes chips off the tray."""
    return [
        Leg(acc.patron_deposit(patron), -amount),
        Leg(acc.CAGE_DEPOSITS, amount),
        Leg(acc.table_tray(table), -amount),
        Leg(acc.patron_chips(patron), amount),
    ]


def front_money_deposit(patron: str, amount: int) -> list[Leg]:
    """Front money deposited in cash: external:cash −X, cage:cash +X; cage:deposits −X,
    patron:deposit +X (the patron's claim, the cage's obligation)."""
    return [
        Leg(acc.EXTERNAL_CASH, -amount),
        Leg(acc.CAGE_CASH, amount),
        Leg(acc.CAGE_DEPOSITS, -amount),
        Leg(acc.patron_deposit(patron), amount),
    ]


def front_money_withdrawal(patron: str, amount: int) -> list[Leg]:
    """Front money withdrawn in cash: the deposit's legs reversed."""
    return [Leg(leg.account, -leg.amount_cents) for leg in front_money_deposit(patron, amount)]


def window_share(window: str, *, cash: int = 0, chips: int = 0) -> list[Leg]:
    """The window's side of a cage movement made at window ``window``: its drawer moves by
    ``cash`` and ``chips`` (cents, + into the drawer), the windows' contra the other way.

    ``cage:cash`` and ``cage:chips`` stay the cage's control accounts (its whole book, read by
    every report and export); these legs say which window's drawer the movement went through,
    so the main bank (``cage:cash`` + ``cage:windows:cash``) moves only when money moves
    between it and the outside, or between it and a window (opening, closing)."""
    legs: list[Leg] = []
    if cash:
        legs += [Leg(acc.window_cash(window), cash), Leg(acc.CAGE_WINDOWS_CASH, -cash)]
    if chips:
        legs += [Leg(acc.window_chips(window), chips), Leg(acc.CAGE_WINDOWS_CHIPS, -chips)]
    return legs


def foreign_exchange(
    *, window: str, currency: str, foreign: int, house: int, patron_account: str, paid_in: str
) -> list[Leg]:
    """A patron's foreign banknotes bought at window ``window``: ``foreign`` hundredths of
    ``currency`` for ``house`` cents of the house currency, paid in value chips or cash.

    In ``currency``: the window's foreign drawer +F, cage:fx_position −F (the position bought).
    In the house currency, a chip sale whose cash is the notes' house value, held by the
    position: external:cash −H, cage:fx_position +H; cage:chips −H, patron +H (the window's
    chips −H). Paid in cash, the patron cashes those chips at once (patron −H, cage:chips +H;
    cage:cash −H, external:cash +H; the window's cash −H): his chips account moves +H and −H, so
    the AML reads, which follow a patron's own accounts, count the exchange as his cash in.
    Each currency sums to zero."""
    legs = [
        Leg(acc.window_foreign(window, currency), foreign, currency),
        Leg(acc.FX_POSITION, -foreign, currency),
        Leg(acc.EXTERNAL_CASH, -house),
        Leg(acc.FX_POSITION, house),
        Leg(acc.CAGE_CHIPS, -house),
        Leg(patron_account, house),
    ]
    if paid_in == "cash":
        return legs + redemption(patron_account, house) + window_share(window, cash=-house)
    return legs + window_share(window, chips=-house)

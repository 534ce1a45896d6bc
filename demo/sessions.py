"""What the demo's sessions at a card table share: the table opened (or found open) with the cage
ready, the regulars bought in, and at the end every chip redeemed, the table closed and its
figures read from the ledger since the session began."""

from dataclasses import dataclass, field

from cashier.services.cage import chips_redeem
from games.models import Table
from games.selectors import settlements_net_cents, table_win_cents
from games.services.tables import table_buy_in
from ledger import accounts
from ledger.selectors import head_position, movement_cents
from patrons.selectors import patron_chips_cents

from .day import CASHIER, DEALER, demo_table_close, demo_table_open
from .roulette import _ensure_cage, void_leftover_coup


@dataclass
class TableSessionReport:
    """A session at one table: the coups played and, from the ledger since the session began,
    the table's win and drop (cents) and the settlements' net
    (``games.selectors.settlements_net_cents``). A game's report adds its own counts."""

    coups: int = 0
    table_win_cents: int = 0
    settlements: dict = field(default_factory=dict)
    drop_cents: int = 0


def session_start(table: str, game: str, opener_cents: int, rules: dict | None = None) -> int:
    """Ready the cage, void a coup a stopped session left open at ``table`` and open the table
    (``demo_table_open``, ``rules`` or the defaults) unless it is open. Returns the ledger's
    head position before all this, from which the session's figures are read."""
    first_position = head_position()
    _ensure_cage()
    void_leftover_coup(table)
    found = Table.objects.filter(code=table).first()
    if found is None or found.state != Table.State.OPEN:
        demo_table_open(table, game, opener_cents, rules)
    return first_position


def buy_in_short(table: str, codes: list[str], below_cents: int, amount_cents: int) -> None:
    """Each patron of ``codes`` holding less than ``below_cents`` of chips buys in
    ``amount_cents`` at ``table``."""
    for code in codes:
        if patron_chips_cents(code) < below_cents:
            table_buy_in(code=table, patron=code, amount_cents=amount_cents, actor=DEALER)


def session_end(report: TableSessionReport, table: str, codes: list[str], first_position: int) -> None:
    """Redeem every chip the patrons ``codes`` hold, close ``table`` (``demo_table_close``) and
    fill ``report``'s figures from the ledger after ``first_position``."""
    for code in codes:
        held = patron_chips_cents(code)
        if held:
            chips_redeem(patron=code, amount_cents=held, actor=CASHIER)
    demo_table_close(table)
    report.table_win_cents = table_win_cents(table, after=first_position)
    report.settlements = settlements_net_cents(table, after=first_position)
    report.drop_cents = movement_cents([accounts.table_drop(table)], after=first_position)

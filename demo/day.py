"""The demo's gaming day: staff, counted openers and closers, the close of the day.

The demo sessions open and close their tables through ``demo_table_open`` and
``demo_table_close``: the opener and the closer are counted by chip denomination (here: the
book, decomposed into chips) and confirmed by the demo dealer and pit boss; a table's closer
is its next opener. ``demo_gaming_day_close`` then removes and counts every drop box of the
day (two counters; one box deliberately 5 € short), closes the cage shift, closes the gaming
day and returns the reports it prints.
"""

import logging

from django.contrib.auth import get_user_model

from approvals.services import approval_confirm, approval_request
from cashier.models import Cage
from cashier.services.cage_shifts import (
    cage_shift_close,
    cage_shift_open,
    handover_waiting,
    main_bank,
    open_windows,
    window_book,
)
from cashier.services.slips import slip_accept, slip_issue, slip_request
from core.denominations import cash_denominations, chip_denominations, decompose
from games.models import Bet, Table
from games.rules.prison import PrisonOnClose
from games.services.refusals import bet_refusal_record
from games.services.tables import table_close, table_open
from ledger import accounts, store
from ledger.errors import BetRefused, DomainError
from ledger.models import Event
from staff.roles import Role
from staff.services import staff_account_create, staff_roles_add

DEALER, PIT_BOSS, CASHIER = "demo-dealer", "demo-pitboss", "demo-cashier"
logger = logging.getLogger(__name__)

SUPERVISOR, RUNNER, COUNTERS = "demo-supervisor", "demo-runner", ("demo-count1", "demo-count2")
DEMO_STAFF = {
    DEALER: Role.DEALER,
    PIT_BOSS: Role.PIT_BOSS,
    CASHIER: Role.CASHIER,
    SUPERVISOR: Role.CAGE_SUPERVISOR,
    RUNNER: Role.RUNNER,
    COUNTERS[0]: Role.COUNT_TEAM,
    COUNTERS[1]: Role.COUNT_TEAM,
}
# Who sets the demo's accounts up: the operator at the console (as ``manage.py staff_roles``).
DEMO_ACTOR = "manage.py demo"
# The deliberate count-room mistake of the demo: one 5 € note missing from the first box.
DELIBERATE_SHORT_CENTS = 500


def ensure_demo_staff() -> None:
    """The demo's users (no password: they act through the services only) and their roles."""
    ensure_staff(DEMO_STAFF)


def ensure_staff(staff: dict[str, str]) -> None:
    """Each ``{username: role}`` of ``staff`` exists (no password) and holds his role, created
    and given it through the staff services: each account's identity events are in the ledger,
    so ``ledger verify`` finds the demo's accounts as the ledger says they are."""
    users = get_user_model().objects
    for username, role in staff.items():
        if not users.filter(username=username).exists():
            staff_account_create(username=username, roles=[role], actor=DEMO_ACTOR)
        else:
            staff_roles_add(username=username, roles=[role], actor=DEMO_ACTOR)


def record_refusal(exc: DomainError, *, actor: str) -> bool:
    """A bet the demo (or the floor simulator) placed straight through a service and got refused
    by the house's rules (a limit, the self-limit, the chips he holds, betting closed: any
    ``BetRefused``) is recorded as the API records one (``games.services.refusals``): the floor
    counts every refused bet, whatever the path. Returns True when ``exc`` was such a refusal
    and is recorded (the demo counts exactly those, so its count is the exception log's); any
    other error is logged and False."""
    if not isinstance(exc, BetRefused):
        logger.warning("a demo bet failed without being a refused bet: %s", exc.message)
        return False
    return bet_refusal_record(exc, actor=actor) is not None


def demo_table_open(code: str, game: str, first_opener_cents: int, rules: dict | None = None) -> dict:
    """Open a demo table with its opener counted by chip: the last closer's count (the tray
    was locked since), or ``first_opener_cents`` the first time. ``rules`` set up a new table;
    a table opened before reopens with the rules it closed with (limits a pit boss changed
    stand), as a pit boss's reopening does."""
    ensure_demo_staff()
    table = Table.objects.filter(code=code).first()
    last = Event.objects.filter(stream=f"table/{code}", type="TableClosed").order_by("-position").first()
    if last is not None and "denominations" in last.data:
        opener = last.data["denominations"]
    elif table is not None and table.version:
        opener = decompose(store.balance(accounts.table_tray(code)), chip_denominations())
    else:
        opener = decompose(first_opener_cents, chip_denominations())
    reopened = table is not None and table.version > 0
    return table_open(
        code=code,
        game=game,
        opener=opener,
        dealer=DEALER,
        pit_boss=PIT_BOSS,
        actor=PIT_BOSS,
        rules=None if reopened else (rules or {}),
    )


# Before closing, the roulette tray gets a fill and the baccarat tray gives a credit back to
# the cage, so the daily report shows both columns at work (each slip: pit boss requests,
# cashier issues to the runner; the dealer accepts the fill, the cashier counts the credit in).
DEMO_SLIPS = {"R1": ("fill", 100_000), "P1": ("credit", 50_000)}


def demo_slip(code: str) -> dict | None:
    """The demo's fill or credit slip for table ``code`` (``DEMO_SLIPS``), carried through to delivery."""
    if code not in DEMO_SLIPS:
        return None
    kind, amount = DEMO_SLIPS[code]
    slip = slip_request(kind=kind, table=code, denominations=decompose(amount, chip_denominations()), actor=PIT_BOSS)
    slip_issue(kind=kind, serial=slip["serial"], runner=RUNNER, actor=CASHIER)
    if kind == "fill":
        return slip_accept(kind=kind, serial=slip["serial"], actor=DEALER, count=slip["denominations"])
    return slip_accept(kind=kind, serial=slip["serial"], actor=CASHIER, count=slip["denominations"])


def demo_table_close(code: str) -> dict:
    """Close a demo table with its closer counted by chip: the tray as the book will hold it
    once the bets still in prison are resolved by ``prison_on_close`` (value chips only go to
    the tray), so the count is right. A fill or credit slip first (``DEMO_SLIPS``)."""
    ensure_demo_staff()
    demo_slip(code)
    table = Table.objects.get(code=code)
    rule = PrisonOnClose(table.rules.get("prison_on_close", "half_returned"))
    tray = store.balance(accounts.table_tray(code))
    # A plain read (``prisoners`` locks the rows, which PostgreSQL refuses outside a
    # transaction); ``table_close`` below takes the writer lock and resolves them itself.
    for bet in Bet.objects.in_prison().filter(round__table=table):
        if bet.chips == Bet.Chips.VALUE:
            tray += bet.stake_cents - (bet.stake_cents if rule == PrisonOnClose.RETURNED else bet.stake_cents // 2)
    closer = decompose(tray, chip_denominations())
    return table_close(code=code, closer=closer, dealer=DEALER, pit_boss=PIT_BOSS, actor=PIT_BOSS)


def demo_cage_shift_open(*, share: int = 1) -> dict | None:
    """Open the demo cashier's window, unless his is open, with 1/``share`` of the cage's main
    bank as its imprest (counted by denomination; whole hundreds of euros when shared): the live
    floor takes half, so that the ``cashier`` login opens a window of her own beside his. The
    demo day (``share`` 1) first has the demo's cage supervisor close any other window."""
    ensure_demo_staff()
    if CASHIER in open_windows() or not Cage.objects.filter(code="main", state=Cage.State.OPEN).exists():
        return None  # his window is open, or the cage has no float yet (its opening opens his window)
    if share == 1:  # the demo's own day: the whole cage, other windows counted back and handed to him
        demo_windows_close(handover_to=CASHIER)
    bank = main_bank()
    cash, chips = (
        (bank["cash_cents"], bank["chips_cents"])
        if share == 1
        else (
            bank["cash_cents"] // share // 10_000 * 10_000,
            bank["chips_cents"] // share // 10_000 * 10_000,
        )
    )
    handed = handover_waiting(CASHIER)
    reason = None
    if handed is not None and max(cash, 0) + max(chips, 0) != (
        handed.data["counted_cash_cents"] + handed.data["counted_chips_cents"]
    ):
        reason = "the whole main bank taken as the imprest, not only the window handed over"
    return cage_shift_open(
        cash=decompose(max(cash, 0), cash_denominations()),
        chips=decompose(max(chips, 0), chip_denominations()),
        variance_reason=reason,
        actor=CASHIER,
    )


def demo_windows_close(*, handover_to: str | None = None) -> None:
    """Close every window still open, each counted as its drawer says (the demo cashier his
    own, the demo's cage supervisor any other): the gaming day closes with no window open.
    Handed over to ``handover_to``, each close is asked through ``approvals`` and signed by him
    (the demo plays him), as the incoming cashier signs from his own session."""
    for cashier, opened in open_windows().items():
        book = window_book(opened.data["window"]) if opened.data.get("window") else None
        if book is None:  # a shift of the single-shift cage of old: counted as the cage's book
            book = {"cash_cents": store.balance(accounts.CAGE_CASH), "chips_cents": store.balance(accounts.CAGE_CHIPS)}
        count = {
            "cash": decompose(max(book["cash_cents"], 0), cash_denominations()),
            "chips": decompose(max(book["chips_cents"], 0), chip_denominations()),
        }
        closer = CASHIER if cashier == CASHIER else SUPERVISOR
        if handover_to is None or cashier == handover_to:
            cage_shift_close(**count, actor=closer, cashier=cashier)
            continue
        asked = approval_request(
            kind="cage_shift_close", payload=count | {"cashier": cashier, "handover_to": handover_to}, actor=closer
        )
        approval_confirm(approval=asked["approval"]["id"], actor=handover_to)

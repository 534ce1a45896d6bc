"""The demo's gaming day: staff, counted openers and closers, the close of the day.

The demo sessions open and close their tables through ``demo_table_open`` and
``demo_table_close``: the opener and the closer are counted by chip denomination (here: the
book, decomposed into chips) and confirmed by the demo dealer and pit boss; a table's closer
is its next opener. ``demo_gaming_day_close`` then removes and counts every drop box of the
day (two counters; one box deliberately 5 € short), closes the cage shift, closes the gaming
day and returns the reports it prints.
"""

import logging
from datetime import date

from django.contrib.auth import get_user_model

from approvals.services import approval_confirm, approval_request
from audit.exceptions import KINDS, exception_log
from basis.money import currency, format_amount, format_cents
from cashier import reports
from cashier.models import Cage
from cashier.services.cage_shifts import (
    cage_shift_close,
    cage_shift_open,
    handover_waiting,
    main_bank,
    open_windows,
    window_book,
)
from cashier.services.count_room import drop_count, expected_drop_cents, live_count
from cashier.services.gaming_day import gaming_day_close, gaming_day_closed
from cashier.services.slips import slip_accept, slip_issue, slip_request
from core.denominations import cash_denominations, chip_denominations, decompose
from games.models import Bet, Table
from games.rules.prison import PrisonOnClose
from games.services.refusals import bet_refusal_record
from games.services.tables import table_close, table_open
from ledger import accounts, store
from ledger.errors import BetRefused, DomainError
from ledger.gaming_day import current_gaming_day
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
    was locked since), or ``first_opener_cents`` the first time."""
    ensure_demo_staff()
    table = Table.objects.filter(code=code).first()
    last = Event.objects.filter(stream=f"table/{code}", type="TableClosed").order_by("-position").first()
    if last is not None and "denominations" in last.data:
        opener = last.data["denominations"]
    elif table is not None and table.version:
        opener = decompose(store.balance(accounts.table_tray(code)), chip_denominations())
    else:
        opener = decompose(first_opener_cents, chip_denominations())
    return table_open(
        code=code, game=game, opener=opener, dealer=DEALER, pit_boss=PIT_BOSS, actor=PIT_BOSS, rules=rules or {}
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


def demo_gaming_day_close(*, out=print) -> dict:
    """Close the demo's gaming day: every table of the day closed (by the sessions), every drop
    box removed and counted (the first box 5 € short, on purpose), the cage shift closed and
    the day closed. Returns ``{"gaming_day", "tables", "closed", "reports": {...}}``."""
    from .backoffice import (
        demo_credit,
        demo_drop_removal,
        demo_master_game_signatures,
        demo_recount,
        demo_tips,
        ensure_back_office_staff,
    )

    ensure_demo_staff()
    ensure_back_office_staff()
    day = current_gaming_day()
    demo_tips(day)
    demo_credit(day)
    tables = reports.tables_active(day, day)
    short_done = False
    for table in tables:
        if table.state == Table.State.OPEN:
            demo_table_close(table.code)
        if live_count(table.code, day) is not None:
            continue  # counted by an earlier run today
        demo_drop_removal(table.code, day)
        expected = expected_drop_cents(table.code, day)
        counted = expected
        if not short_done and expected >= DELIBERATE_SHORT_CENTS:
            counted, short_done = expected - DELIBERATE_SHORT_CENTS, True
        drop_count(
            table=table.code,
            gaming_day=day,
            cash=decompose(counted, cash_denominations()),
            counters=list(COUNTERS),
            actor=COUNTERS[1],
        )
        demo_recount(table.code, day)
    demo_master_game_signatures(day)
    demo_cage_shift_open()  # a cage that had no window open today still closes with a count
    demo_windows_close()
    closed = False
    if gaming_day_closed(day) is None:
        gaming_day_close(gaming_day=day, actor=PIT_BOSS)
        closed = True
    else:
        out(f"Gaming day {day} was already closed by an earlier run; its reports follow.")
    return demo_day_reports(day, closed=closed)


def demo_day_reports(day: date, *, closed: bool) -> dict:
    """``{"gaming_day", "tables", "closed", "reports": {...}}`` of gaming day ``day``: the table
    games report, the variances, the cage's accountability and the tronc (``cashier.reports``),
    the tips book, the tronc's shares, credit and front money, the master game report."""
    from .backoffice import back_office_reports

    return {
        "gaming_day": day.isoformat(),
        "tables": [t.code for t in reports.tables_active(day, day)],
        "closed": closed,
        "reports": {
            "table_games": reports.table_games_daily_report(day),
            "variances": reports.variance_report(day),
            "cage": reports.cage_accountability_report(day),
            "tronc": reports.tronc_report(day),
            **back_office_reports(day),
        },
    }


def _eur(cents: int | None) -> str:
    """The number alone (the line names the currency: ``_money``)."""
    return "-" if cents is None else format_amount(cents)


def _money(cents: int) -> str:
    return format_cents(cents)  # with CASINO_CURRENCY


def format_daily_report(closed: dict) -> str:
    """The demo's printout: the day's rows of the table games report, the variances, the cage."""
    table_games = closed["reports"]["table_games"]
    lines = [
        "",
        f"{table_games['title']} — gaming day {closed['gaming_day']}"
        f" (generated {table_games['generated_at']}, version {table_games['software_version']})",
    ]
    day_rows = [r for r in table_games["rows"] if r["period"] == "day"]
    if not day_rows:
        lines.append("  No activity")
    else:
        lines.append(
            f"  {'table':<24}{'opener':>14}{'fills':>10}{'credits':>10}{'drop counted':>14}{'closer':>14}"
            f"{'colour out':>12}{'final win':>12}{'hold %':>8}{'est. win':>12}{'variance':>10}"
        )
        lines.append(
            "  (count-room basis: final win = counted drop + credits - fills + closer - opener - colour out (the"
            " colour chips still out), hold = final win / counted drop; est. win: the ledger's estimated win,"
            " as the floor shows it)"
        )
        for r in day_rows:
            label = r["key"] if r["level"] == "table" else f"{r['level']}: {r['key']}"
            lines.append(
                f"  {label:<24}{_eur(r['opener_cents']):>14}{_eur(r['fills_cents']):>10}{_eur(r['credits_cents']):>10}"
                f"{_eur(r['drop_cents']):>14}{_eur(r['closer_cents']):>14}"
                f"{_eur(r['colour_out_cents']):>12}{_eur(r['win_cents']):>12}"
                f"{r['hold_pct'] or '-':>8}{_eur(r['ledger_win_cents']):>12}{_eur(r['variance_cents']):>10}"
            )
        lines.append(f"  {'':<24}{'handle':>14}{'theo. win':>12}{'edge %':>8}")
        lines.append(
            "  (theo. win = Σ stake × the exact edge of each bet decided (black jack: initial stakes; insurance and"
            " even money at their own edge); edge = theo. win / handle)"
        )
        for r in day_rows:
            label = r["key"] if r["level"] == "table" else f"{r['level']}: {r['key']}"
            edge = r["theoretical_edge_pct"] or "-"
            lines.append(f"  {label:<24}{_eur(r['handle_cents']):>14}{_eur(r['theoretical_win_cents']):>12}{edge:>8}")
    variances = closed["reports"]["variances"]
    lines.append(f"Variances (investigation threshold {_money(variances['threshold_cents'])}):")
    lines += [
        f"  {v['kind']:<14}{v['subject']:<8}{_eur(v['variance_cents']):>10} {currency()}"
        f"{'  INVESTIGATE' if v['investigate'] else ''}"
        for v in variances["rows"]
    ] or ["  No activity"]
    cage = closed["reports"]["cage"]
    shift = [r for r in cage["rows"] if r["line"] == "shift_close"]
    if shift:
        last = shift[-1]
        lines.append(
            f"Cage close: book {_money(last['expected_cash_cents'] + last['expected_chips_cents'])},"
            f" counted {_money(last['counted_cash_cents'] + last['counted_chips_cents'])},"
            f" variance {_money(last['variance_cents'])}"
        )
    tronc = [r["tronc_cents"] for r in closed["reports"]["tronc"]["rows"] if r["period"] == "day"]
    lines.append(f"Tronc (tips) today: {_money(tronc[0] if tronc else 0)}")
    book = closed["reports"].get("tips_book")
    if book:
        totals = book["totals"]["day"]
        lines.append(
            f"Tips book: {totals['counts']} box(es) counted, {_money(totals['counted_cents'])};"
            f" shared out {_money(totals['shared_cents'])}"
        )
    credit = closed["reports"].get("credit")
    if credit:
        lines.append(
            f"Markers outstanding {_money(credit['totals']['markers_outstanding_cents'])};"
            f" front money held {_money(credit['totals']['front_money_cents'])}"
        )
    master = closed["reports"].get("master_game")
    if master and master["rows"]:
        verified = sum(1 for r in master["rows"] if r["recount"])
        signers = ", ".join(s["signer"] for s in master["signatures"] if s["current"]) or "nobody"
        lines.append(f"Master game report: {verified} of {len(master['rows'])} counts verified; signed by {signers}")
    lines.append(_exception_line(date.fromisoformat(str(closed["gaming_day"]))))
    lines.append(f"Gaming day {closed['gaming_day']} {'closed' if closed['closed'] else 'was already closed'}.")
    return "\n".join(lines)


def _exception_line(day: date) -> str:
    """The day's exception log in one line: its entries, counted by kind."""
    rows = exception_log(day)["rows"]
    counts = {label: sum(1 for r in rows if r["kind"] == kind) for kind, (label, _) in KINDS.items()}
    found = ", ".join(f"{label} {n}" for label, n in counts.items() if n)
    return f"Exception log: {len(rows)} entries" + (f" ({found})" if found else "")

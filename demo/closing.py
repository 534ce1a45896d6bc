"""The demo's gaming day closed: the back office played (tips, credit, drop boxes removed,
counted and recounted, the master game report signed), the windows and the day closed, and its
reports printed as the daily report. Apart from ``demo.day``, which the back office reads."""

from __future__ import annotations

from datetime import date

from audit.exceptions import KINDS, exception_log
from basis.money import currency, format_amount, format_cents
from cashier import reports
from cashier.services.count_room import drop_count, expected_drop_cents, live_count
from cashier.services.gaming_day import gaming_day_close, gaming_day_closed
from core.denominations import cash_denominations, decompose
from games.models import Table
from ledger.gaming_day import current_gaming_day

from .backoffice import (
    back_office_reports,
    demo_credit,
    demo_drop_removal,
    demo_master_game_signatures,
    demo_recount,
    demo_tips,
    ensure_back_office_staff,
)
from .day import (
    COUNTERS,
    DELIBERATE_SHORT_CENTS,
    PIT_BOSS,
    demo_cage_shift_open,
    demo_table_close,
    demo_windows_close,
    ensure_demo_staff,
)


def demo_gaming_day_close(*, out=print) -> dict:
    """Close the demo's gaming day: every table of the day closed (by the sessions), every drop
    box removed and counted (the first box 5 € short, on purpose), the cage shift closed and
    the day closed. Returns ``{"gaming_day", "tables", "closed", "reports": {...}}``."""
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

"""Report builders for cage and table accounting: API, CSV and the dashboard.

Every builder returns one shape::

    {"title", "period": {"from", "to"}, "generated_at" (UTC, ISO 8601), "software_version",
     "status": "ok" | "No activity", "columns": [...], "rows": [{column: value}, ...], ...}

Money is integer cents; hold % is a decimal string ("12.34") or None without a drop.
``cashier.spreadsheet`` renders any of them as CSV or XLSX. The builders only read
the ledger (events and postings), so a report of a past day is the same whenever it is run.

- ``table_games_daily_report(day)``: per table, per game and in total, for the day,
  month-to-date and year-to-date: opener, fills, credits, drop, closer,
  win = drop + credits − fills + (closer − opener) + Δ colour chips issued (DESIGN.md; the
  last term is nil once every colour chip is changed back), hold % = win / drop, the
  ledger win (the table's gaming movements, as ``games.selectors.table_win_cents``) and the
  variance = win − ledger win; the handle (Σ stake of the bets decided), the theoretical win
  (Σ stake × the exact edge each engine wrote on the bet: ``games.theory.EFFECTIVE_EDGE``,
  whole cents rounded half up from the exact sum) and the effective edge = theoretical win ÷
  handle (``theoretical_edge_pct``, the floor's figure); ``later_entries``: the coups, fills,
  credits and cash buy-ins of the period entered later from an outage's paper forms
  (``ledger.later_entries``), so a reader sees which figures came from paper. Beside it,
  ``back_office``: the tips, casino credit and front money of the same periods and their
  balances at the end of the day (``back_office_figures``), and ``corrections``: per table, the
  day's coups voided and reversed, fill and credit slips voided and reversed, and drop counts
  reversed (``corrections_by_table``; each is a new event, the figures above already net them).
- ``cage_accountability_report(day)``: the cage's book (cage:cash, cage:chips) against its
  shift counts, and the day's movements through the cage; ``opening`` (the book at the end of
  the day before) + the movements = ``book`` (at the end of the day).
- ``variance_report(day, threshold_cents=None)``: every variance of the day (drop counts,
  openers, closers, cage shifts), flagged for investigation at ``abs(variance) >= threshold``
  (setting ``CASINO_VARIANCE_THRESHOLD_CENTS``).
- ``tronc_report(day)``: tips to the staff pool for the day, month-to-date, year-to-date.
"""

import math
from collections import defaultdict
from datetime import UTC, date, datetime
from fractions import Fraction

from django.conf import settings
from django.db.models import BigIntegerField, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast

from games.models import Table
from games.theory import effective_edge_pct
from ledger import accounts
from ledger.later_entries import FLAG
from ledger.models import Event, Posting
from ledger.projections.table_stats import DECIDING, NOT_GAMING

from .services.cage_shifts import foreign_currencies
from .services.count_room import box_removal, drop_cash_events, expected_drop_cents, markers_in_drop_cents
from .services.gaming_day import table_codes_active

NO_ACTIVITY = "No activity"
DEFAULT_VARIANCE_THRESHOLD_CENTS = 10_000
PERIODS = ("day", "month_to_date", "year_to_date")
FIGURES = [
    "opener_cents",
    "fills_cents",
    "credits_cents",
    "drop_cents",
    "closer_cents",
    "colour_out_cents",
    "win_cents",
    "hold_pct",
    "ledger_win_cents",
    "variance_cents",
    "handle_cents",
    "theoretical_win_cents",
    "theoretical_edge_pct",
]
_RATIOS = ("hold_pct", "theoretical_edge_pct")


def software_version() -> str:
    return str(settings.SPECTACULAR_SETTINGS.get("VERSION", "unknown"))


def variance_threshold_cents() -> int:
    return int(getattr(settings, "CASINO_VARIANCE_THRESHOLD_CENTS", DEFAULT_VARIANCE_THRESHOLD_CENTS))


def period_bounds(day: date) -> dict[str, tuple[date, date]]:
    return {
        "day": (day, day),
        "month_to_date": (day.replace(day=1), day),
        "year_to_date": (date(day.year, 1, 1), day),
    }


def _envelope(title: str, start: date, end: date, columns: list[str], rows: list[dict], **extra) -> dict:
    return {
        "title": title,
        "period": {"from": start.isoformat(), "to": end.isoformat()},
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "software_version": software_version(),
        "status": "ok" if rows else NO_ACTIVITY,
        "columns": columns,
        "rows": rows,
        **extra,
    }


def hold_pct(win: int, drop: int) -> str | None:
    """win / drop as a percentage with two decimals, rounded half away from zero (no float)."""
    if not drop:
        return None
    hundredths = (abs(win) * 10_000 * 2 + drop) // (2 * drop)
    sign = "-" if win < 0 and hundredths else ""
    return f"{sign}{hundredths // 100}.{hundredths % 100:02d}"


def _sum_amounts(event_type: str, table: str, start: date, end: date) -> int:
    events = Event.objects.filter(type=event_type, data__table=table, gaming_day__range=(start, end))
    return sum(events.values_list("data__amount_cents", flat=True))


def fills_in_transit_cents(day: date) -> int:
    """The fills issued on gaming day ``day`` that no table had accepted (nor the cage voided) by
    its end: their chips left the cage (the cage's fills of the day count them) but are not in a
    tray yet (the tables' fills count a fill when it is accepted). The two reconcile by it."""
    issued = list(Event.objects.filter(type="FillIssued", gaming_day=day, data__in_transit=True))
    ended = set(
        Event.objects.filter(
            type__in=["FillDelivered", "FillVoided"], gaming_day__lte=day, stream__in=[e.stream for e in issued]
        ).values_list("stream", flat=True)
    )
    return sum(e.data["amount_cents"] for e in issued if e.stream not in ended)


def _live_counts(table: str | None, start: date, end: date) -> list[Event]:
    """``DropCounted`` events for boxes of gaming days in [start, end] that no reversal cancelled."""
    counts = Event.objects.filter(type__in=["DropCounted", "DropCountReversed"])
    if table is not None:
        counts = counts.filter(data__table=table)
    events = [e for e in counts.order_by("position") if start.isoformat() <= e.data["gaming_day"] <= end.isoformat()]
    cancelled = {e.data["reverses"] for e in events if e.type == "DropCountReversed"}
    return [e for e in events if e.type == "DropCounted" and e.position not in cancelled]


def _book_tray(table: str, end: date, *, before: bool) -> int:
    postings = Posting.objects.filter(account=accounts.table_tray(table))
    postings = postings.filter(event__gaming_day__lt=end) if before else postings.filter(event__gaming_day__lte=end)
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0


def colour_change_cents(table: str, start: date, end: date) -> int:
    """Σ postings (cents) on the table's ``colour_issued`` over gaming days [start, end]: minus
    the colour chips still out that the period issued (``posting_rules.colour_chips_bought``
    credits it, ``change_inverse`` and colour stakes lost debit it back).

    A colour chip bought puts its value (cash in the drop, value chips in the tray) on the
    table's side while the chip itself is owed to the patron until it comes back; adding this
    term to the count-room win counts that liability, so an open table with colour chips out
    reads the ledger's win. Nil once every colour chip is back (a closed table)."""
    postings = Posting.objects.filter(
        account=accounts.table_colour_issued(table), event__gaming_day__range=(start, end)
    )
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0


def ledger_win_cents(table: str, start: date, end: date) -> int:
    """The table's gaming movements (tray + drop + colour_issued) of gaming days [start, end]."""
    names = [accounts.table_tray(table), accounts.table_drop(table), accounts.table_colour_issued(table)]
    postings = Posting.objects.filter(account__in=names, event__gaming_day__range=(start, end)).exclude(
        event__type__in=NOT_GAMING
    )
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0


def table_figures(table: str, start: date, end: date) -> dict:
    """The count-room figures of one table over gaming days [start, end] (cents).

    opener: the first ``TableOpened`` of the period (else the book tray before it); closer: the
    last ``TableClosed`` when the table is closed at the end, else the book tray (``open``: True);
    drop: the counted drop of each day, or the recorded buy-ins of a day not yet counted
    (``drop_counted``: False); colour_out: the colour chips the period issued still out (minus
    ``colour_change_cents``: owed to the patrons, a liability; nil on a closed table, negative
    when the period took back more than it issued); win = drop + credits − fills + (closer −
    opener) − colour_out.
    """
    sessions = list(
        Event.objects.filter(
            stream=f"table/{table}", type__in=["TableOpened", "TableClosed"], gaming_day__range=(start, end)
        ).order_by("position")
    )
    opens = [e for e in sessions if e.type == "TableOpened"]
    opener = opens[0].data["opener_cents"] if opens else _book_tray(table, start, before=True)
    still_open = not sessions or sessions[-1].type == "TableOpened"
    closer = _book_tray(table, end, before=False) if still_open else sessions[-1].data["closer_cents"]
    fills = _sum_amounts("FillDelivered", table, start, end) - _sum_amounts("FillReversed", table, start, end)
    credits = _sum_amounts("CreditDelivered", table, start, end) - _sum_amounts("CreditReversed", table, start, end)
    # Front money drawn at the table took chips off its tray for the cage's deposit, as a credit
    # takes them to the cage: it counts with the credits (``table_stats.FILLS_AND_CREDITS``).
    credits += _sum_amounts("FrontMoneyDrawn", table, start, end)
    expected: dict[str, int] = defaultdict(int)
    buy_ins = drop_cash_events(Event.objects.filter(data__table=table, gaming_day__range=(start, end)))
    for day, amount in buy_ins.values_list("gaming_day", "data__amount_cents"):
        expected[day.isoformat()] += amount
    counted = {e.data["gaming_day"]: e.data["counted_cents"] for e in _live_counts(table, start, end)}
    # A counted box holds the buy-ins recorded before its removal; any later ones of that day
    # (a table reopened after the count) are still in the table's drop, at their book value.
    uncounted = {
        day: expected_drop_cents(
            table, date.fromisoformat(day), after=box_removal(table, date.fromisoformat(day)).position
        )
        for day in counted
    }
    drop = sum(counted[day] + uncounted[day] if day in counted else amount for day, amount in expected.items())
    drop += sum(amount for day, amount in counted.items() if day not in expected)
    drop += markers_in_drop_cents(table, start, end)  # the drop is cash and markers
    # Colour chips still out are the table's liability (nil once all are changed back).
    colour_out = -colour_change_cents(table, start, end)
    win = drop + credits - fills + (closer - opener) - colour_out
    ledger_win = ledger_win_cents(table, start, end)
    return {
        "opener_cents": opener,
        "fills_cents": fills,
        "credits_cents": credits,
        "drop_cents": drop,
        "closer_cents": closer,
        "colour_out_cents": colour_out,
        "win_cents": win,
        "hold_pct": hold_pct(win, drop),
        "ledger_win_cents": ledger_win,
        "variance_cents": win - ledger_win,
        "drop_counted": all(day in counted and not uncounted[day] for day in expected),
        "open": still_open,
    }


def tables_active(start: date, end: date) -> list[Table]:
    """Tables that played on a gaming day in [start, end] (``table_codes_active``), by code."""
    return list(Table.objects.filter(code__in=table_codes_active(start, end)).order_by("code"))


def theory_by_table(start: date, end: date) -> dict[str, tuple[int, Fraction]]:
    """``{table: (handle_cents, theoretical win in exact cents)}`` of the bets decided on gaming
    days [start, end]: Σ stake and Σ stake × ``house_edge`` over the deciding events, the sums
    the table statistics keep (``ledger.projections.table_stats``), read from the ledger."""
    sums = (
        Event.objects.filter(type__in=DECIDING, gaming_day__range=(start, end))
        .values(table=KT("data__table"), edge=KT("data__house_edge"))
        .annotate(staked=Sum(Cast(KT("data__stake_cents"), BigIntegerField())))
    )
    theory: dict[str, tuple[int, Fraction]] = {}
    for row in sums:
        if row["table"] is None:
            continue
        staked = row["staked"] or 0
        try:
            edge = Fraction(row["edge"] or 0)
        except (ValueError, ZeroDivisionError):
            edge = Fraction(0)
        handle, theoretical = theory.get(row["table"], (0, Fraction(0)))
        theory[row["table"]] = (handle + staked, theoretical + staked * edge)
    return theory


# The event that completes each kind of line written on a table's paper form: a coup, a fill, a
# credit, a cash buy-in.
LATER_ENTRY_TYPES = ("RoundSettled", "FillDelivered", "CreditDelivered", "CashBuyIn")


def later_entries_by_table(start: date, end: date) -> dict[str, int]:
    """``{table: lines}``: the coups settled, the fills and credits delivered and the cash buy-ins
    on gaming days [start, end] that were entered later from an outage's paper form (their
    ``RoundSettled``, ``FillDelivered``, ``CreditDelivered`` or ``CashBuyIn`` carries the flag
    ``later_entry``)."""
    settled = Event.objects.filter(type__in=LATER_ENTRY_TYPES, gaming_day__range=(start, end), data__has_key=FLAG)
    counts: dict[str, int] = defaultdict(int)
    for table in settled.values_list("data__table", flat=True).iterator(chunk_size=2000):
        counts[table] += 1
    return dict(counts)


def _theory_figures(handle: int, theoretical: Fraction) -> dict:
    return {
        "handle_cents": handle,
        "theoretical_win_cents": math.floor(theoretical + Fraction(1, 2)),
        "theoretical_edge_pct": effective_edge_pct(theoretical, handle),
    }


def table_games_daily_report(day: date) -> dict:
    """The table games daily report of gaming day ``day`` (see the module docstring)."""
    bounds = period_bounds(day)
    rows: list[dict] = []
    tables = tables_active(*bounds["year_to_date"])
    for period in PERIODS:
        start, end = bounds[period]
        by_game: dict[str, dict] = {}
        total = {name: 0 for name in FIGURES if name not in _RATIOS}
        theory = theory_by_table(start, end)
        later = later_entries_by_table(start, end)
        later_by_game: dict[str, int] = defaultdict(int)
        for table in tables_active(start, end):
            handle, theoretical = theory.get(table.code, (0, Fraction(0)))
            figures = {**table_figures(table.code, start, end), **_theory_figures(handle, theoretical)}
            entered_later = later.get(table.code, 0)
            later_by_game[table.game] += entered_later
            rows.append(
                {
                    "level": "table",
                    "key": table.code,
                    "game": table.game,
                    "period": period,
                    **figures,
                    "later_entries": entered_later,
                }
            )
            # the exact theory is summed, so a game's and the total's are rounded once
            figures["theoretical_win_cents"] = theoretical
            game = by_game.setdefault(table.game, {name: 0 for name in total})
            for name in total:
                game[name] += figures[name]
                total[name] += figures[name]
        for game, sums in sorted(by_game.items()):
            rows.append(
                {
                    "level": "game",
                    "key": game,
                    "game": game,
                    "period": period,
                    **_with_hold(sums),
                    "later_entries": later_by_game[game],
                }
            )
        if by_game:
            rows.append(
                {
                    "level": "total",
                    "key": "all",
                    "game": "",
                    "period": period,
                    **_with_hold(total),
                    "later_entries": sum(later_by_game.values()),
                }
            )
    columns = ["level", "key", "game", "period", *FIGURES, "drop_counted", "open", "later_entries"]
    report = _envelope("Table games daily report", day, day, columns, rows, gaming_day=day.isoformat())
    report["period"] |= {"month_from": bounds["month_to_date"][0].isoformat()}
    report["period"] |= {"year_from": bounds["year_to_date"][0].isoformat()}
    report["tables"] = [t.code for t in tables]
    report["back_office"] = back_office_figures(day)
    report["corrections"] = corrections_by_table(day)
    return report


# What was undone on a day, by kind: each is a new event beside the one it voids or reverses
# (the ledger is never edited), and the auditor reads them per table beside the day's figures.
CORRECTION_EVENTS = {
    "coups_voided": ("RoundVoided",),
    "coups_reversed": ("RoundReversed",),
    "slips_voided": ("FillVoided", "CreditVoided"),
    "slips_reversed": ("FillReversed", "CreditReversed"),
    "drop_counts_reversed": ("DropCountReversed",),
}


def corrections_by_table(day: date) -> list[dict]:
    """``[{"table", "coups_voided", "coups_reversed", "slips_voided", "slips_reversed",
    "drop_counts_reversed"}]``: how many of each kind of void or reversal gaming day ``day``
    recorded at each table (counts, not cents), the tables with at least one, by code."""
    kind_of = {event_type: kind for kind, types in CORRECTION_EVENTS.items() for event_type in types}
    counts: dict[str, dict[str, int]] = {}
    events = Event.objects.filter(gaming_day=day, type__in=list(kind_of)).values_list("type", "data__table")
    for event_type, table in events:
        row = counts.setdefault(table, dict.fromkeys(CORRECTION_EVENTS, 0))
        row[kind_of[event_type]] += 1
    return [{"table": table, **row} for table, row in sorted(counts.items())]


BACK_OFFICE_FIGURES = [
    "tips_counted_cents",
    "tronc_shared_cents",
    "markers_issued",
    "markers_issued_cents",
    "markers_paid_cents",
    "front_money_deposited_cents",
    "front_money_withdrawn_cents",
]
BACK_OFFICE_BALANCES = ["tronc_pool_cents", "markers_outstanding_cents", "front_money_held_cents"]


def _patron_accounts_total(suffix: str, start: date | None, end: date, types: list[str] | None = None) -> int:
    """Σ postings (cents) of every ``patron:<P>:<suffix>`` account on gaming days ``start``..``end``
    (from the beginning when ``start`` is None), of events of ``types`` when given."""
    postings = Posting.objects.filter(account__startswith="patron:", account__endswith=f":{suffix}")
    postings = postings.filter(event__gaming_day__lte=end)
    if start is not None:
        postings = postings.filter(event__gaming_day__gte=start)
    if types is not None:
        postings = postings.filter(event__type__in=types)
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0


def back_office_figures(day: date) -> dict:
    """Tips (tronc), casino credit (markers) and front money of gaming day ``day``, from
    the ledger's postings (docs/chart_of_accounts.md, "Posting rules of the back office"), cents:

    ``{"columns": ["period", "from", *BACK_OFFICE_FIGURES], "rows": [one per period: day, month
    and year to date], "end_of_day": {"tronc_pool_cents", "markers_outstanding_cents",
    "front_money_held_cents"}}``. Per period: tips counted into the tronc (``TipsCounted``) and
    shared out (``TroncShared``); markers issued (how many, and cents) and paid (``MarkerPaid``,
    in cash, chips or front money, and ``MarkerPaidAtTable``); front money deposited and
    withdrawn (at the cage, or drawn in chips at a table: ``FrontMoneyDrawn``). End of day: the tronc's
    pool, the markers still owed (−Σ ``patron:<P>:credit``) and the front money held (Σ
    ``patron:<P>:deposit``) as they stood at the day's end, so a past day's report does not change.
    """
    rows = []
    for period, (start, end) in period_bounds(day).items():
        rows.append(
            {
                "period": period,
                "from": start.isoformat(),
                "tips_counted_cents": _account_total(accounts.TRONC, start, end, types=["TipsCounted"]),
                "tronc_shared_cents": -_account_total(accounts.TRONC, start, end, types=["TroncShared"]),
                "markers_issued": Event.objects.filter(type="MarkerIssued", gaming_day__range=(start, end)).count(),
                "markers_issued_cents": -_patron_accounts_total("credit", start, end, ["MarkerIssued"]),
                "markers_paid_cents": _patron_accounts_total("credit", start, end, ["MarkerPaid", "MarkerPaidAtTable"]),
                "front_money_deposited_cents": _patron_accounts_total("deposit", start, end, ["FrontMoneyDeposited"]),
                "front_money_withdrawn_cents": -_patron_accounts_total(
                    "deposit", start, end, ["FrontMoneyWithdrawn", "FrontMoneyDrawn"]
                ),
            }
        )
    tronc = Posting.objects.filter(account=accounts.TRONC, event__gaming_day__lte=day)
    end_of_day = {
        "tronc_pool_cents": tronc.aggregate(s=Sum("amount_cents"))["s"] or 0,
        "markers_outstanding_cents": -_patron_accounts_total("credit", None, day),
        "front_money_held_cents": _patron_accounts_total("deposit", None, day),
    }
    return {"columns": ["period", "from", *BACK_OFFICE_FIGURES], "rows": rows, "end_of_day": end_of_day}


def _with_hold(sums: dict) -> dict:
    ordered = {name: sums.get(name) for name in FIGURES}
    ordered["hold_pct"] = hold_pct(sums["win_cents"], sums["drop_cents"])
    ordered |= _theory_figures(sums["handle_cents"], Fraction(sums["theoretical_win_cents"]))
    return ordered


def variance_report(day: date, threshold_cents: int | None = None) -> dict:
    """Every variance of gaming day ``day``: drop counts (counted − recorded buy-ins), openers
    (count − previous closer), closers (count − book), cage shifts (count − book, cash and chips
    each on its own: ``cage_shift_cash``, ``cage_shift_chips``) and handovers (count − previous
    count). ``investigate`` when ``abs(variance) >= threshold_cents``."""
    threshold = variance_threshold_cents() if threshold_cents is None else threshold_cents
    rows: list[dict] = []

    def add(kind: str, subject: str, event: Event, variance: int | None) -> None:
        if variance:
            rows.append(
                {
                    "kind": kind,
                    "subject": subject,
                    "event": event.position,
                    "occurred_at": event.occurred_at.isoformat(),
                    "actor": event.actor,
                    "variance_cents": variance,
                    "investigate": abs(variance) >= threshold,
                }
            )

    for event in _live_counts(None, day, day):
        add("drop", event.data["table"], event, event.data["variance_cents"])
    day_events = Event.objects.filter(gaming_day=day).order_by("position")
    for event in day_events.filter(type__in=["TableOpened", "TableClosed"], stream__startswith="table/"):
        kind = "opener" if event.type == "TableOpened" else "closer"
        add(kind, event.data["table"], event, event.data.get("variance_cents"))
    for event in day_events.filter(type__in=["CageShiftOpened", "CageShiftClosed"]):
        data = event.data
        if "expected_cash_cents" in data:
            # Each side on its own: cash short by what the chips are over is two variances, not none.
            subject = data["cage"] if data.get("window") is None else f"{data['cage']} window {data['window']}"
            add("cage_shift_cash", subject, event, data["counted_cash_cents"] - data["expected_cash_cents"])
            add("cage_shift_chips", subject, event, data["counted_chips_cents"] - data["expected_chips_cents"])
        else:
            add("cage_shift", data["cage"], event, data["variance_cents"])
        add("cage_handover", event.data["cage"], event, event.data.get("handover_variance_cents"))
    columns = ["kind", "subject", "event", "occurred_at", "actor", "variance_cents", "investigate"]
    return _envelope("Variance list", day, day, columns, rows, gaming_day=day.isoformat(), threshold_cents=threshold)


def _account_total(account: str, start: date, end: date, *, types: list[str] | None = None) -> int:
    postings = Posting.objects.filter(account=account, event__gaming_day__range=(start, end))
    if types is not None:
        postings = postings.filter(event__type__in=types)
    return postings.aggregate(s=Sum("amount_cents"))["s"] or 0


def tronc_report(day: date) -> dict:
    """Tips to the staff pool (``tronc``) for the day, month-to-date and year-to-date (cents):
    ``tronc_cents`` the tips counted in (``TipsCounted``), ``shared_cents`` what the share-outs
    paid the staff (``TroncShared``)."""
    rows = []
    for period, (start, end) in period_bounds(day).items():
        tips = Posting.objects.filter(account=accounts.TRONC, event__gaming_day__range=(start, end))
        if tips.exists():
            rows.append(
                {
                    "period": period,
                    "from": start.isoformat(),
                    "tronc_cents": _account_total(accounts.TRONC, start, end, types=["TipsCounted"]),
                    "shared_cents": -_account_total(accounts.TRONC, start, end, types=["TroncShared"]),
                }
            )
    return _envelope(
        "Tronc (tips) total",
        day,
        day,
        ["period", "from", "tronc_cents", "shared_cents"],
        rows,
        gaming_day=day.isoformat(),
    )


CAGE_MOVEMENTS = [
    # The cage's float from the house bankroll (its first stocking, a recount's difference):
    # without it a shift opened before the stocking does not reconcile with its close.
    ("bankroll_cash", accounts.CAGE_CASH, ["CageOpened"]),
    ("bankroll_chips", accounts.CAGE_CHIPS, ["CageOpened"]),
    ("chip_sales", accounts.CAGE_CASH, ["ChipsPurchased"]),
    ("redemptions", accounts.CAGE_CASH, ["ChipsRedeemed"]),
    ("drop_counted", accounts.CAGE_CASH, ["DropCounted", "DropCountReversed"]),
    ("chips_sold", accounts.CAGE_CHIPS, ["ChipsPurchased"]),
    ("chips_redeemed", accounts.CAGE_CHIPS, ["ChipsRedeemed"]),
    # A fill leaves the cage when it is issued (chips in transit); one issued before that rule,
    # when it is delivered; a voided one comes back.
    ("fills", accounts.CAGE_CHIPS, ["FillIssued", "FillVoided", "FillDelivered", "FillReversed"]),
    ("credits", accounts.CAGE_CHIPS, ["CreditDelivered", "CreditReversed"]),
    # Casino credit and front money: cash into the cage on deposits and marker
    # payments (out on withdrawals), chips out on the cage's markers (back when paid in chips,
    # or when a marker issued in error is voided).
    ("front_money", accounts.CAGE_CASH, ["FrontMoneyDeposited", "FrontMoneyWithdrawn"]),
    ("marker_payments", accounts.CAGE_CASH, ["MarkerPaid"]),
    ("marker_chips", accounts.CAGE_CHIPS, ["MarkerIssued", "MarkerPaid", "MarkerVoided"]),
    # A cashier window's count against its drawer at its closing (to over/short), and the
    # corrections of a window's lines (supervisor-approved reversals).
    ("window_cash_variances", accounts.CAGE_CASH, ["CageShiftClosed"]),
    ("window_chip_variances", accounts.CAGE_CHIPS, ["CageShiftClosed"]),
    ("reversals_cash", accounts.CAGE_CASH, ["ChipsPurchaseReversed", "ChipsRedemptionReversed"]),
    ("reversals_chips", accounts.CAGE_CHIPS, ["ChipsPurchaseReversed", "ChipsRedemptionReversed"]),
    # Foreign banknotes bought at the windows: their house value paid in cash or in chips.
    ("foreign_exchange_cash", accounts.CAGE_CASH, ["ForeignCurrencyExchanged", "ForeignExchangeReversed"]),
    ("foreign_exchange_chips", accounts.CAGE_CHIPS, ["ForeignCurrencyExchanged", "ForeignExchangeReversed"]),
]


def cage_accountability_report(day: date, code: str = "main") -> dict:
    """The cage's accountability on gaming day ``day``: for each shift closed that day, the
    book (``cage:cash`` + ``cage:chips`` from the ledger) against the count, and the day's
    movements through the cage by kind (cents, positive into the cage). ``opening`` and
    ``book``: ``{"cage_cash_cents", "cage_chips_cents"}`` at the end of the day before and of
    the day; the day's movements lead from one to the other."""
    rows: list[dict] = []
    shifts = Event.objects.filter(stream=f"cageshift/{code}", gaming_day=day).order_by("position")
    for event in shifts:
        data = event.data
        rows.append(
            {
                "line": "shift_open" if event.type == "CageShiftOpened" else "shift_close",
                "actor": event.actor,
                "expected_cash_cents": data["expected_cash_cents"],
                "counted_cash_cents": data["counted_cash_cents"],
                "expected_chips_cents": data["expected_chips_cents"],
                "counted_chips_cents": data["counted_chips_cents"],
                "variance_cents": data["variance_cents"],
                "handover_to": data.get("handover_to") or "",
            }
        )
    movements = {name: _account_total(account, day, day, types=types) for name, account, types in CAGE_MOVEMENTS}
    if any(movements.values()):
        rows.append({"line": "movements", **{f"{name}_cents": amount for name, amount in movements.items()}})
    columns = [
        "line",
        "actor",
        "expected_cash_cents",
        "counted_cash_cents",
        "expected_chips_cents",
        "counted_chips_cents",
        "variance_cents",
        "handover_to",
        *(f"{name}_cents" for name, _, _ in CAGE_MOVEMENTS),
    ]
    return _envelope(
        "Cage accountability report",
        day,
        day,
        columns,
        rows,
        gaming_day=day.isoformat(),
        opening=_cage_book(event__gaming_day__lt=day),
        book=_cage_book(event__gaming_day__lte=day),
        foreign=foreign_of_the_day(day),
    )


def _in_currency(account: str, currency: str, **when) -> int:
    """``account``'s postings in ``currency`` that ``when`` selects, summed (hundredths)."""
    found = Posting.objects.filter(account=account, currency=currency, **when)
    return found.aggregate(s=Sum("amount_cents"))["s"] or 0


def foreign_of_the_day(day: date) -> list[dict]:
    """The cage's foreign banknotes on gaming day ``day``, per currency it buys (those with any
    movement): ``{"currency", "exchanges", "bought_cents", "paid_cents", "variance_cents",
    "held_cents"}``: the exchanges made, the notes bought (hundredths of the currency), the house
    cents paid for them, the windows' closes counted over (+) or short (−) in the currency, and
    the notes in the cage at the end of the day (main bank and windows still open). An exchange
    reversed that day counts in none of them (its banknotes went back to the patron)."""
    exchanged = Event.objects.filter(gaming_day=day, type="ForeignCurrencyExchanged")
    undone = set(
        Event.objects.filter(gaming_day=day, type="ForeignExchangeReversed").values_list("data__reverses", flat=True)
    )
    rows = []
    for code in foreign_currencies():
        of_code = [
            e.data for e in exchanged.filter(data__currency=code).only("data", "position") if e.position not in undone
        ]
        until = {"event__gaming_day__lte": day}
        short = accounts.foreign_over_short(code)
        held = -_in_currency(accounts.FX_POSITION, code, **until) - _in_currency(short, code, **until)
        variance = -_in_currency(short, code, event__gaming_day=day)
        if of_code or held or variance:
            rows.append(
                {
                    "currency": code,
                    "exchanges": len(of_code),
                    "bought_cents": sum(d["foreign_cents"] for d in of_code),
                    "paid_cents": sum(d["amount_cents"] for d in of_code),
                    "variance_cents": variance,
                    "held_cents": held,
                }
            )
    return rows


def _cage_book(**until) -> dict:
    """``{"cage_cash_cents", "cage_chips_cents"}``: the cage's book over the postings ``until`` selects."""

    def total(account: str) -> int:
        return Posting.objects.filter(account=account, **until).aggregate(s=Sum("amount_cents"))["s"] or 0

    return {"cage_cash_cents": total(accounts.CAGE_CASH), "cage_chips_cents": total(accounts.CAGE_CHIPS)}


def unused_serials_report(year: int) -> dict:
    """Fill and credit serial numbers of ``year`` that were never used (gaps in a series) or
    voided: one row per serial, by kind."""
    from .models import Slip

    rows = []
    for kind in Slip.Kind.values:
        slips = dict(Slip.objects.filter(kind=kind, year=year).values_list("number", "state"))
        for number in range(1, max(slips, default=0) + 1):
            state = slips.get(number)
            if state is None or state == Slip.State.VOIDED:
                rows.append({"kind": kind, "serial": f"{year}-{number:06d}", "status": state or "missing"})
    start, end = date(year, 1, 1), date(year, 12, 31)
    return _envelope("Unused fill and credit serials", start, end, ["kind", "serial", "status"], rows)

"""The floor's reads, batched: every figure of every table card in a fixed number of queries.

A card reads about twenty things (statistics, count room, coup in play, seated patrons, shoe,
prison bets, payouts...). Read table by table, a floor of N tables cost 20 × N queries (some
350 ms for 6 tables on PostgreSQL); here each kind of figure is one query for all tables
(``GROUP BY`` the table, or one ``IN`` list), so the floor's query count does not grow with its
tables (``tests/integration/test_floor_totals.py`` counts them; ``tests/benchmarks/bench_floor.py``
times them).

:func:`count_room_figures` is :func:`cashier.reports.table_figures` for one gaming day, for
many tables at once: the same rules (opener, closer, fills, credits, counted or recorded drop,
ledger win), so the floor, the table page and the daily report agree to the cent (the figures
tests compare them for every table of a demo day). Amounts in cents, times UTC.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.db import connections
from django.db.models import BigIntegerField, Count, F, Q, Sum, Window
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, RowNumber

from cashier.reports import hold_pct
from cashier.services.count_room import MARKERS_IN_DROP, drop_cash_events, drop_stream, marker_drop_events
from games.models import Bet, ColourStack, Round, Shoe, Table
from ledger import accounts, replica
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, Posting, TableDayStats
from ledger.projections.table_stats import DECIDING, NOT_GAMING
from staff.identity import dealers_at_tables


def _data_int(key: str) -> Cast:
    """An integer field of the event data, for SQL sums and comparisons."""
    return Cast(KeyTextTransform(key, "data"), BigIntegerField())


def _table_key() -> KeyTextTransform:
    return KeyTextTransform("table", "data")


def _sums_by_table(events, key: str = "amount_cents") -> dict[str, int]:
    """``{table: Σ data[key]}`` of ``events`` (cents), one ``GROUP BY``."""
    rows = events.annotate(t=_table_key()).values("t").annotate(s=Sum(_data_int(key))).order_by()
    return {row["t"]: row["s"] or 0 for row in rows}


def count_room_figures(codes: list[str], day: date, *, ledger_win: bool = True) -> dict[str, dict]:
    """``{code: {"opener_cents", "fills_cents", "credits_cents", "drop_cents", "closer_cents",
    "win_cents", "hold_pct", "ledger_win_cents", "variance_cents", "drop_counted", "open",
    "live_count"}}`` for gaming day ``day``: ``cashier.reports.table_figures(code, day, day)``
    of every table in ``codes``, in at most ten queries whatever their number; ``live_count`` is the
    table's ``DropCounted`` event of the day that no reversal cancelled (``None`` before the
    count), as ``cashier.services.count_room.live_count`` reads it."""
    if not codes:
        return {}
    in_codes = {"data__table__in": codes}
    # Openers and closers: the table streams' sessions of the day, oldest first.
    sessions: dict[str, list[Event]] = defaultdict(list)
    streams = [f"table/{code}" for code in codes]
    for event in Event.objects.filter(
        stream__in=streams, type__in=["TableOpened", "TableClosed"], gaming_day=day
    ).order_by("position"):
        sessions[event.stream.removeprefix("table/")].append(event)
    book = _book_trays(codes, day, sessions)
    # Fills and credits, net of their reversals.
    moved = (
        Event.objects.filter(
            # Front money drawn at a table counts with its credits (``cashier.reports.table_figures``).
            type__in=["FillDelivered", "FillReversed", "CreditDelivered", "CreditReversed", "FrontMoneyDrawn"],
            gaming_day=day,
            **in_codes,
        )
        .annotate(t=_table_key())
        .values("t", "type")
        .annotate(s=Sum(_data_int("amount_cents")))
        .order_by()
    )
    fills: dict[str, int] = defaultdict(int)
    credits: dict[str, int] = defaultdict(int)
    for row in moved:
        sign = -1 if row["type"].endswith("Reversed") else 1
        (fills if row["type"].startswith("Fill") else credits)[row["t"]] += sign * (row["s"] or 0)
    buy_ins = drop_cash_events(Event.objects.filter(gaming_day=day, **in_codes))
    expected = _sums_by_table(buy_ins)
    # The drop is cash and markers: the markers its box holds (``count_room.MARKERS_IN_DROP``).
    markers: dict[str, int] = defaultdict(int)
    marker_rows = (
        marker_drop_events(Event.objects.filter(gaming_day=day, **in_codes))
        .annotate(t=_table_key())
        .values("t", "type")
        .annotate(s=Sum(_data_int("amount_cents")))
        .order_by()
    )
    for row in marker_rows:
        markers[row["t"]] += MARKERS_IN_DROP[row["type"]] * (row["s"] or 0)
    # The drop boxes of the day: removal, counts and their reversals.
    drops: dict[str, list[Event]] = defaultdict(list)
    by_stream = {drop_stream(code, day): code for code in codes}
    for event in Event.objects.filter(stream__in=list(by_stream)).order_by("position"):
        drops[by_stream[event.stream]].append(event)
    counted: dict[str, Event] = {}
    removed_at: dict[str, int] = {}
    for code, events in drops.items():
        cancelled = {e.data.get("reverses") for e in events if e.type == "DropCountReversed"}
        live = [e for e in events if e.type == "DropCounted" and e.position not in cancelled]
        if live:
            counted[code] = live[-1]
        removal = next((e for e in events if e.type == "DropBoxRemoved"), None)
        removed_at[code] = removal.position if removal else 0
    # A counted box holds the buy-ins recorded before its removal; later ones of that day (a
    # table reopened after the count) are still in the table's drop, at their book value.
    uncounted: dict[str, int] = {}
    if counted:
        after = Q()
        for code in counted:
            after |= Q(data__table=code, position__gt=removed_at[code])
        uncounted = _sums_by_table(buy_ins.filter(after))
    won = _ledger_win(codes, day) if ledger_win else {}
    colour = _colour_change(codes, day)

    figures = {}
    for code in codes:
        own = sessions.get(code, [])
        before, upto = book.get(code, (0, 0))
        opens = [e for e in own if e.type == "TableOpened"]
        opener = opens[0].data["opener_cents"] if opens else before
        still_open = not own or own[-1].type == "TableOpened"
        closer = upto if still_open else own[-1].data["closer_cents"]
        count = counted.get(code)
        if count is not None:
            drop = count.data["counted_cents"] + (uncounted.get(code, 0) if code in expected else 0)
        else:
            drop = expected.get(code, 0)
        drop += markers[code]
        # Colour chips still out are the table's liability (nil once all are changed back).
        colour_out = -colour.get(code, 0)
        win = drop + credits[code] - fills[code] + (closer - opener) - colour_out
        figures[code] = row = {
            "opener_cents": opener,
            "fills_cents": fills[code],
            "credits_cents": credits[code],
            "drop_cents": drop,
            "closer_cents": closer,
            "colour_out_cents": colour_out,
            "win_cents": win,
            "hold_pct": hold_pct(win, drop),
            # vacuously true for a table without a buy-in, as the report has it
            "drop_counted": code not in expected or (count is not None and not uncounted.get(code, 0)),
            "open": still_open,
            "live_count": count,
        }
        if ledger_win:
            row["ledger_win_cents"] = won.get(code, 0)
            row["variance_cents"] = win - won.get(code, 0)
    return figures


def _book_trays(codes: list[str], day: date, sessions: dict[str, list[Event]]) -> dict[str, tuple[int, int]]:
    """``{code: (tray before the day, tray up to the day's end)}`` (cents), for the opener of a
    table with no ``TableOpened`` that day and the closer of a table still open.

    On the current gaming day no posting falls on a later day, so "up to the day's end" is the
    tray's balance now: the balance projection's row plus the postings after its checkpoint
    (exact, and a short range of the postings' event index, where a sum of every tray posting
    joined to its event grows with the ledger). A past day, or the opener of a table left open
    across the rollover, reads the postings by gaming day."""
    trays = {accounts.table_tray(code): code for code in codes}
    book = dict.fromkeys(codes, (0, 0))
    if day >= current_gaming_day():
        upto: dict[str, int] = defaultdict(int)
        # The projection's rows and its checkpoint in one statement (one snapshot: the
        # projector saves both in one transaction), then the postings after the checkpoint.
        with connections[replica.read_alias()].cursor() as cursor:
            cursor.execute(
                "SELECT c.position, b.account, b.balance_cents FROM ledger_projectioncheckpoint c "
                f"LEFT JOIN ledger_accountbalance b ON b.account IN ({', '.join(['%s'] * len(trays))}) "
                "WHERE c.name = 'balances'",
                list(trays),
            )
            rows = cursor.fetchall()
        checkpoint = rows[0][0] if rows else 0
        for _, account, balance in rows:
            if account is not None:
                upto[trays[account]] += balance
        later = Posting.objects.filter(account__in=list(trays), event_id__gt=checkpoint)
        for row in later.values("account").annotate(s=Sum("amount_cents")).order_by():
            upto[trays[row["account"]]] += row["s"] or 0
        today = [accounts.table_tray(c) for c in codes if not any(e.type == "TableOpened" for e in sessions.get(c, []))]
        moved: dict[str, int] = {}
        if today:
            rows = Posting.objects.filter(account__in=today, event__gaming_day=day).values("account")
            moved = {trays[r["account"]]: r["s"] or 0 for r in rows.annotate(s=Sum("amount_cents")).order_by()}
        return {code: (upto[code] - moved.get(code, 0), upto[code]) for code in codes}
    rows = (
        Posting.objects.filter(account__in=list(trays))
        .values("account")
        .annotate(
            before=Sum("amount_cents", filter=Q(event__gaming_day__lt=day)),
            upto=Sum("amount_cents", filter=Q(event__gaming_day__lte=day)),
        )
        .order_by()
    )
    book.update({trays[r["account"]]: (r["before"] or 0, r["upto"] or 0) for r in rows})
    return book


def _colour_change(codes: list[str], day: date) -> dict[str, int]:
    """``{code: Σ postings on its colour_issued of day ``day``}`` (cents, ≤ 0 while colour
    chips are out), as ``cashier.reports.colour_change_cents``."""
    names = {accounts.table_colour_issued(code): code for code in codes}
    rows = (
        Posting.objects.filter(account__in=list(names), event__gaming_day=day)
        .values("account")
        .annotate(s=Sum("amount_cents"))
        .order_by()
    )
    return {names[row["account"]]: row["s"] or 0 for row in rows}


def _ledger_win(codes: list[str], day: date) -> dict[str, int]:
    """``{code: the day's gaming movements on its tray, drop and colour_issued}`` (cents), as
    ``cashier.reports.ledger_win_cents``."""
    names = {}
    for code in codes:
        for name in (accounts.table_tray(code), accounts.table_drop(code), accounts.table_colour_issued(code)):
            names[name] = code
    rows = (
        Posting.objects.filter(account__in=list(names), event__gaming_day=day)
        .exclude(event__type__in=NOT_GAMING)
        .values("account")
        .annotate(s=Sum("amount_cents"))
        .order_by()
    )
    won: dict[str, int] = defaultdict(int)
    for row in rows:
        won[names[row["account"]]] += row["s"] or 0
    return won


def _first_by_table(rows, key: str = "table_id") -> dict:
    """The first row of each table in ``rows`` (already ordered within a table)."""
    first: dict = {}
    for row in rows:
        first.setdefault(row[key], row)
    return first


def table_reads(tables: list[Table], *, day: date, now: datetime) -> dict[str, dict]:
    """What the floor's cards show, for every table in ``tables``, in a fixed number of queries:
    ``{code: {"stats": TableDayStats | None, "count_room": count_room_figures row, "in_play":
    {"id", "number", "state"} | None, "seated": [patron codes], "dealer": str | None,
    "colour_stacks": int, "prison_bets": int, "shoe": {"id", "state", "drawn", "cut_position"}
    | None, "coups_this_hour": int, "large_payouts": [{"patron", "won_cents", "position", "at", "round"}],
    }}``.

    ``seated``: the patrons of the table's last two coups opened this gaming day and of its
    active colour stacks (an open table only: a closed table's last coups are history);
    ``dealer``: the open assignment, else the actor who opened the table's latest coup;
    ``coups_this_hour``: coups settled in the last 60 minutes of this gaming day (just after
    the rollover, "this hour" ≤ "today"); ``large_payouts``: decisions whose winnings reach
    ``dashboard.alerts.LARGE_PAYOUT_CENTS`` (both from ``_day_tail``)."""

    codes = [t.code for t in tables]
    ids = [t.pk for t in tables]
    code_of = {t.pk: t.code for t in tables}
    reads: dict[str, dict] = {
        code: {
            "stats": None,
            "in_play": None,
            "seated": [],
            "dealer": None,
            "colour_stacks": 0,
            "prison_bets": 0,
            "shoe": None,
            "coups_this_hour": 0,
            "large_payouts": [],
        }
        for code in codes
    }
    if not tables:
        return reads
    for stats in TableDayStats.objects.filter(table__in=codes, gaming_day=day):
        reads[stats.table]["stats"] = stats
    for code, figures in count_room_figures(codes, day, ledger_win=False).items():
        reads[code]["count_room"] = figures

    in_play = Round.objects.filter(table_id__in=ids, state__in=Round.IN_PLAY).order_by("table_id", "-number")
    for table_id, row in _first_by_table(in_play.values("table_id", "id", "number", "state")).items():
        reads[code_of[table_id]]["in_play"] = {"id": str(row["id"]), "number": row["number"], "state": row["state"]}

    # The last two coups of every table (a window per table), and who opened them.
    recent = list(
        Round.objects.filter(table_id__in=ids)
        .annotate(rank=Window(RowNumber(), partition_by=[F("table_id")], order_by=F("number").desc()))
        .filter(rank__lte=2)
        .values("id", "table_id", "rank")
    )
    opened = {
        row["stream"]: row
        for row in Event.objects.filter(stream__in=[f"round/{r['id']}" for r in recent], version=1).values(
            "stream", "actor", "gaming_day"
        )
    }
    seated_rounds: dict = {}
    last_opener: dict[str, str] = {}
    for row in recent:
        event = opened.get(f"round/{row['id']}")
        code = code_of[row["table_id"]]
        if row["rank"] == 1 and event is not None:
            last_opener[code] = event["actor"]
        # Across the gaming-day rollover, yesterday's coups are not who is seated today.
        if event is not None and event["gaming_day"] == day:
            seated_rounds[row["id"]] = code
    seated: dict[str, set[str]] = defaultdict(set)
    for round_id, patron in Bet.objects.filter(round_id__in=list(seated_rounds)).values_list(
        "round_id", "patron__code"
    ):
        seated[seated_rounds[round_id]].add(patron)
    stacks = ColourStack.objects.filter(table_id__in=ids, state=ColourStack.State.ACTIVE)
    for table_id, patron in stacks.values_list("table_id", "patron__code"):
        code = code_of[table_id]
        reads[code]["colour_stacks"] += 1
        seated[code].add(patron)
    assigned = dealers_at_tables()  # as the sealed events say: a row planted with SQL deals nowhere
    # The dealer who signed the opener counts until an assignment or a coup says otherwise.
    signed_opener: dict[str, str] = {}
    openings = Event.objects.filter(stream__in=[f"table/{c}" for c in codes], type="TableOpened").order_by("position")
    for stream, dealer in openings.values_list("stream", "data__dealer"):
        if isinstance(dealer, str) and dealer:
            signed_opener[stream.removeprefix("table/")] = dealer
        else:
            signed_opener.pop(stream.removeprefix("table/"), None)
    for table in tables:
        if table.state == Table.State.OPEN:
            reads[table.code]["seated"] = sorted(seated[table.code])
            reads[table.code]["dealer"] = (
                assigned.get(table.code) or signed_opener.get(table.code) or last_opener.get(table.code)
            )

    prison = Bet.objects.in_prison().filter(round__table_id__in=ids).values("round__table_id").annotate(n=Count("id"))
    for row in prison.order_by():
        reads[code_of[row["round__table_id"]]]["prison_bets"] = row["n"]
    shoes = Shoe.objects.filter(table_id__in=ids, state__in=[Shoe.State.IN_PLAY, Shoe.State.EXHAUSTED])
    for table_id, shoe in _first_by_table(shoes.values("table_id", "id", "state", "drawn", "cut_position")).items():
        reads[code_of[table_id]]["shoe"] = {
            "id": str(shoe["id"]),
            "state": shoe["state"],
            "drawn": len(shoe["drawn"] or []),
            "cut_position": shoe["cut_position"],
        }

    tail = _day_tail(day, now)
    hour_ago = now - timedelta(hours=1)
    for code, at in tail.settled:
        if code in reads and at >= hour_ago:
            reads[code]["coups_this_hour"] += 1
    for code, payout in tail.payouts:
        if code in reads:
            reads[code]["large_payouts"].append(payout)
    return reads


def ante_staked(codes: list[str], day: date) -> dict[str, int]:
    """``{code: Σ ante stakes of the day's decided lines}`` (cents): Caribbean stud's edge is
    per ante (``games.rules.house_edges``), so its theory from the rule set is edge × antes,
    not edge × handle (the raises are in the handle). Read only when the engines recorded no
    edge on the day's bets."""
    antes = Event.objects.filter(type__in=DECIDING, gaming_day=day, data__table__in=codes, data__line="ante")
    return _sums_by_table(antes, "stake_cents")


@dataclass
class _Tail:
    """What the floor keeps of a gaming day's events as it tails them: ``position``, ``hash``:
    the last event read (the ledger's head then); ``settled``: ``[(table, occurred_at)]`` of
    the coups settled in the last hour or so; ``payouts``: ``[(table, {"patron", "won_cents",
    "position", "at" (aware datetime), "round" (its id, or None)})]``, every decision of the
    day whose winnings reach the alert's threshold."""

    day: date
    position: int = 0
    hash: str = ""
    settled: list = field(default_factory=list)
    payouts: list = field(default_factory=list)


_tail: _Tail | None = None
_tail_lock = threading.Lock()


def _day_tail(day: date, now: datetime) -> _Tail:
    """The day's settled coups and large payouts, read incrementally: each refresh reads only
    the events appended since the last one (``position >`` the last read, through the primary
    key), not the whole day again, so a refresh costs the same at the end of a busy day as at
    its start.

    Sound because the ledger is append-only and its writers are serialised (the writer lock,
    ``ledger.store``): an event that commits later has a higher position, so none is skipped.
    The last event read is checked by its hash first: a ledger restored or rolled back to an
    older state (a test database) has another event there, or none, and the day is read
    again from its start. One per process, behind a lock (threads of one server share it)."""
    from .alerts import LARGE_PAYOUT_CENTS

    global _tail
    with _tail_lock:
        tail = _tail
        if tail is None or tail.day != day:
            tail = _Tail(day)
        elif tail.position:
            still = Event.objects.filter(position=tail.position).values_list("hash", flat=True).first()
            if still != tail.hash:
                tail = _Tail(day)
        head = Event.objects.order_by("-position").values_list("position", "hash").first()
        if head is None:
            _tail = _Tail(day)
            return _tail
        if head[0] > tail.position:
            rows = (
                Event.objects.filter(
                    position__gt=tail.position,
                    position__lte=head[0],
                    gaming_day=day,
                    type__in=(*DECIDING, "RoundSettled"),
                )
                .annotate(won=_data_int("return_cents") - _data_int("stake_cents"), t=_table_key())
                .filter(Q(type="RoundSettled") | Q(won__gte=LARGE_PAYOUT_CENTS))
                .order_by("position")
                .values_list("position", "type", "t", "won", "data__patron", "occurred_at", "data__round")
            )
            for position, kind, table, won, patron, at, round_id in rows:
                if kind == "RoundSettled":
                    tail.settled.append((table, at))
                else:
                    payout = {"patron": patron, "won_cents": won, "position": position, "at": at, "round": round_id}
                    tail.payouts.append((table, payout))
            tail.position, tail.hash = head
        hour_ago = now - timedelta(hours=1)
        tail.settled = [(table, at) for table, at in tail.settled if at >= hour_ago]
        _tail = tail
        return tail

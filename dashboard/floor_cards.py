"""The pit boss's floor: one card a table (its figures, the coup in play, the count room), the
pit's totals and the floor's filters. The cards are read for all tables at once
(``dashboard.floor_reads``: a fixed number of queries whatever the number of tables); the table
statistics come from their projection, whose lag the floor shows beside them. Amounts are
integer cents, times UTC, win from the house's side.
"""

from __future__ import annotations

from datetime import date, datetime
from fractions import Fraction
from zoneinfo import ZoneInfo

from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from cashier.reports import hold_pct
from games.catalog import GAMES, spec
from games.models import Table
from games.names import game_name
from games.theory import effective_edge_pct
from ledger.errors import InvalidInput
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.scheduled_export import failed_exports
from patrons.models import Patron

from . import alerts as checks
from . import floor_reads
from .figures import figures as one_set
from .one_table import count_room, edge, events_of_day, limits, payout, pct, projection_lag, theory, whole_cents


def table_cards(
    tables: list[Table], *, day: date, now: datetime, lag: dict, day_events: dict | None = None
) -> list[dict]:
    """The floor's card of each table in ``tables`` (same order), with its alerts
    (``dashboard.alerts``), read in a fixed number of queries whatever the number of tables
    (``dashboard.floor_reads``).

    A card: ``{"code", "game", "game_label", "state", "dealer", "limits": {"min_cents",
    "max_cents", "kinds"}, "seated"`` (patrons of the last two coups and of active colour
    stacks), ``"coups_this_hour"`` (settled in the last 60 minutes of this gaming day),
    ``"coups_today", "drop_cents"`` (ledger drop), ``"win_cents"`` (estimated win: the ledger's
    gaming movements), ``"handle_cents", "hold_pct"`` (estimated win / ledger drop, rounded as
    the daily report rounds), ``"count_room"`` (``count_room``: counted drop, final or
    provisional win and hold, the daily report's figures), ``"theoretical_win_cents"`` (whole
    cents, half up; ``None`` without a theory), ``"theoretical_hold_pct"`` (theoretical win /
    drop), ``"win_on_handle_pct", "theoretical_edge_pct"`` (both on handle), ``"theory_source",
    "theory_edge", "coup_in_play", "shoe", "lag"`` (positions the table statistics are
    behind), ``"refused_today"`` (bets refused over a limit), ``"alerts"}``. Percentages are
    strings with two decimals, ``None`` without a denominator or a theory. ``day_events``: what
    the floor reads once for every table (``events_of_day``; read here when omitted).

    Two drops, not to be confused: ``drop_cents`` is the ledger's (the cash bought in at the
    table, from the table statistics), which hold % divides; ``counted_drop_cents`` is the count
    room's count of the day's drop box (``None`` until counted). A closed table has no dealer
    and nobody seated (``None``, ``[]``)."""
    day_events = day_events or events_of_day(day)
    variances = day_events["variances"]
    reads = floor_reads.table_reads(tables, day=day, now=now)
    # A game whose edge is per ante (Caribbean stud): without the engines' edges on the bets,
    # its theory needs the day's antes (read only then).
    unrecorded = [
        t.code
        for t in tables
        if spec(t.game).theory_on == "antes"
        and (stats := reads[t.code]["stats"]) is not None
        and stats.handle_cents
        and not Fraction(stats.theoretical_win)
    ]
    antes = floor_reads.ante_staked(unrecorded, day) if unrecorded else {}
    stats_lag = next((r["lag"] for r in lag["projections"] if r["projection"] == "table_stats"), 0)
    cards = []
    for table in tables:
        code = table.code
        read = reads[code]
        stats = read["stats"]
        win = stats.win_cents if stats else 0
        drop = stats.drop_cents if stats else 0
        handle = stats.handle_cents if stats else 0
        theoretical, theory_source = theory(table.game, table.rules, stats, antes.get(code, 0))
        refused = day_events["refused"].get(code, [])
        room = read["count_room"]
        shoe = read["shoe"]
        found = [
            *fluctuation_alerts(code, day_events),
            *checks.payout_alerts(code, [payout(p) for p in read["large_payouts"]]),
            *checks.outstanding_alerts(code, colour_chips=read["colour_stacks"], prison_bets=read["prison_bets"]),
            checks.refused_alert(code, refused),
            *checks.variance_alerts([row for row in variances if row["subject"] == code]),
        ]
        if shoe is not None:
            found.append(
                checks.cut_card_alert(code, drawn=shoe["drawn"], cut_position=shoe["cut_position"], state=shoe["state"])
            )
        count = room["live_count"]
        cards.append(
            {
                "code": code,
                "game": table.game,
                "game_label": game_name(table.game),
                "state": table.state,
                "dealer": read["dealer"],
                "limits": limits(table),
                "seated": read["seated"],
                "coups_this_hour": read["coups_this_hour"],
                "coups_today": stats.coups if stats else 0,
                "drop_cents": drop,
                "counted_drop_cents": count.data["counted_cents"] if count is not None else None,
                "win_cents": win,
                "handle_cents": handle,
                "hold_pct": hold_pct(win, drop),
                "count_room": count_room(room),
                "theoretical_win_cents": whole_cents(theoretical) if theoretical is not None else None,
                "theoretical_hold_pct": pct(theoretical, drop) if theoretical is not None else None,
                "win_on_handle_pct": pct(win, handle),
                "theoretical_edge_pct": effective_edge_pct(theoretical, handle) if theoretical is not None else None,
                "theory_source": theory_source,
                "theory_edge": edge(table.game, table.rules),
                "coup_in_play": read["in_play"],
                "shoe": (
                    {"id": shoe["id"], "state": shoe["state"], "drawn": shoe["drawn"], "cut": shoe["cut_position"]}
                    if shoe
                    else None
                ),
                "lag": stats_lag,
                "refused_today": len(refused),
                "alerts": [a for a in found if a is not None],
            }
        )
        card = cards[-1]
        card["figures"] = one_set(
            drop_cents=card["count_room"]["drop_cents"],
            win_cents=card["count_room"]["win_cents"],
            handle_cents=handle,
            theoretical_win_cents=card["theoretical_win_cents"],
            final=card["count_room"]["final"],
        )
    _number_by_day([c["coup_in_play"] for c in cards if c["coup_in_play"]], {t.code: t.id for t in tables}, cards, day)
    seated = {code for c in cards for code in c["seated"]}
    names = dict(Patron.objects.filter(code__in=seated).exclude(name="").values_list("code", "name")) if seated else {}
    for card in cards:
        # A patron by his name, his code second (the code alone when he has no name on file).
        card["seated_names"] = {code: f"{names[code]} ({code})" for code in card["seated"] if code in names}
    return cards


def first_numbers_of_day(table_ids: list, day: date) -> dict:
    """``{table id: the number of its first coup of gaming day day}`` (tables with a coup that
    day): a table's coup counter runs on across days; the pit counts from each day's first.
    The day is the one the ledger stamped on the coup's opening, not the clock's: a coup's
    hour can fall in another day's hours (a day closed late, the demo's day played today)."""
    codes = dict(Table.objects.filter(id__in=table_ids).values_list("code", "id"))
    if not codes:
        return {}
    firsts: dict = {}
    opened = Event.objects.filter(type="RoundOpened", gaming_day=day, data__table__in=list(codes)).values_list(
        "data", flat=True
    )
    for data in opened:
        table_id, number = codes.get(data.get("table")), data.get("number")
        if table_id is not None and isinstance(number, int):
            firsts[table_id] = min(number, firsts.get(table_id, number))
    return firsts


def day_number(number: int, first: int | None) -> int:
    """A coup's number within its table's gaming day (``first``: the day's first coup's number)."""
    return number - first + 1 if first is not None and number >= first else number


def _number_by_day(in_play: list[dict], ids: dict, cards: list[dict], day: date) -> None:
    if not in_play:
        return
    firsts = first_numbers_of_day(list(ids.values()), day)
    for card in cards:
        coup = card["coup_in_play"]
        if coup:
            coup["number"] = day_number(coup["number"], firsts.get(ids[card["code"]]))


def fluctuation_alerts(code: str, day_events: dict) -> list:
    """The table's day and each of its patrons' beyond the house's confidence (a patron's day
    over every table he played, on the card of each), linked to its open investigation or to
    the page that opens one."""
    figures = day_events.get("fluctuations")
    if not figures:
        return []
    cases = {(c["subject"], c[c["subject"]]): c["id"] for c in day_events.get("investigations", [])}
    found = []
    rows = [r for r in figures["tables"] if r["table"] == code]
    rows += [r for r in figures["patrons"] if code in r["tables"]]
    for row in rows:
        subject = "table" if "table" in row else "patron"
        case = cases.get((subject, row[subject]))
        link = reverse("dashboard:investigation", args=[case]) if case else reverse("dashboard:protection")
        found.append(checks.fluctuation_alert(code, row, limit=figures["z_limit"], link=link, open_case=bool(case)))
    return found


def table_card(table: Table, *, day: date, now: datetime, lag: dict, day_events: dict | None = None) -> dict:
    """One table's card (``table_cards``)."""
    return table_cards([table], day=day, now=now, lag=lag, day_events=day_events)[0]


def _totals(cards: list[dict]) -> dict:
    """Σ of the cards' money figures (cents), each on the basis of its column: ``{"tables",
    "drop_cents"`` (ledger), ``"win_cents"`` (estimated), ``"counted_drop_cents",
    "final_win_cents"`` (count room: the daily report's drop and win), ``"handle_cents",
    "theoretical_win_cents"`` (Σ of the cards' whole cents; ``None`` when no card has a
    theory), ``"theory_partial"`` (some cards have none), ``"final_tables"`` (cards whose
    count-room win is final), ``"hold_pct", "final_hold_pct",
    "win_on_handle_pct", "theoretical_edge_pct"}``: each percentage the ratio of the sums, as
    for one table (never an average of percentages)."""
    sums = {
        "tables": len(cards),
        "drop_cents": sum(c["drop_cents"] for c in cards),
        "win_cents": sum(c["win_cents"] for c in cards),
        "counted_drop_cents": sum(c["count_room"]["drop_cents"] for c in cards),
        "final_win_cents": sum(c["count_room"]["win_cents"] for c in cards),
        "handle_cents": sum(c["handle_cents"] for c in cards),
        "final_tables": sum(1 for c in cards if c["count_room"]["final"]),
    }
    theory = [c["theoretical_win_cents"] for c in cards if c["theoretical_win_cents"] is not None]
    sums["theoretical_win_cents"] = sum(theory) if theory else None
    sums["theory_partial"] = bool(theory) and len(theory) < len(cards)
    sums["hold_pct"] = hold_pct(sums["win_cents"], sums["drop_cents"])
    sums["final_hold_pct"] = hold_pct(sums["final_win_cents"], sums["counted_drop_cents"])
    sums["win_on_handle_pct"] = pct(sums["win_cents"], sums["handle_cents"])
    sums["theoretical_edge_pct"] = effective_edge_pct(sum(theory), sums["handle_cents"]) if theory else None
    sums["figures"] = one_set(
        drop_cents=sums["counted_drop_cents"],
        win_cents=sums["final_win_cents"],
        handle_cents=sums["handle_cents"],
        theoretical_win_cents=sums["theoretical_win_cents"],
        final=bool(cards) and sums["final_tables"] == len(cards),
    )
    return sums


def pit_totals(cards: list[dict]) -> dict:
    """The pit's totals over ``cards``: ``{"games": [{"game", "game_label", **_totals}]`` (by
    game name), ``"all": _totals}``: drop, win and hold on both bases, handle and theoretical
    win, per game and in total."""
    by_game: dict[str, list[dict]] = {}
    for card in cards:
        by_game.setdefault(card["game"], []).append(card)
    games = [
        {"game": game, "game_label": game_name(game), **_totals(of_game)}
        for game, of_game in sorted(by_game.items(), key=lambda item: game_name(item[0]))
    ]
    return {"games": games, "all": _totals(cards)}


STATES = (Table.State.OPEN, Table.State.CLOSED)


def floor_filters(game: str | None = None, state: str | None = None) -> dict:
    """The floor's filters checked: ``game`` a game's code (``games.catalog``), ``state`` ``open`` or
    ``closed``, empty for all. Returns ``{"game", "state"}`` (``None``: all); raises
    ``InvalidInput`` naming the field for anything else (the page answers 400)."""
    game, state = (game or "").strip() or None, (state or "").strip() or None
    if game is not None and game not in GAMES:
        raise InvalidInput(f"no game {game[:40]!r}: one of {', '.join(GAMES)}", field="game")
    if state is not None and state not in STATES:
        raise InvalidInput(f"no table state {state[:40]!r}: open or closed", field="state")
    return {"game": game, "state": state}


def floor(
    *, day: date | None = None, now: datetime | None = None, game: str | None = None, state: str | None = None
) -> dict:
    """The floor: ``{"gaming_day", "now", "lag", "tables": [card], "totals": pit_totals,
    "filters": {"game", "state"}, "games": [{"game", "label"}], "table_count"`` (every
    table on the floor), ``"alerts": [Alert]}``.
    ``tables``: the tables of ``game`` in ``state`` (``floor_filters``; all when ``None``),
    open first, then by code; ``totals`` over those tables; ``games``: the games on the floor,
    for the filter; ``alerts`` over the whole floor (a filter never hides a warning), warnings
    before information. ``InvalidInput`` for a bad filter."""
    filters = floor_filters(game, state)
    day = day or current_gaming_day()
    now = now or timezone.now()
    lag = projection_lag()
    tables = sorted(Table.objects.all(), key=lambda t: (t.state != Table.State.OPEN, t.code))
    day_events = events_of_day(day)
    variances = day_events["variances"]
    cards = table_cards(tables, day=day, now=now, lag=lag, day_events=day_events)
    codes = {t.code for t in tables}
    # Variances of the cage (shift counts, handovers) have no table card: the floor lists them.
    every = list(dict.fromkeys(a for card in cards for a in card["alerts"]))  # a patron on two cards, once
    every += checks.variance_alerts([row for row in variances if row["subject"] not in codes])
    every += checks.export_alerts(_failed_exports())
    every.sort(key=lambda a: (a.level != "warning", a.table))
    shown = [
        card for card in cards if filters["game"] in (None, card["game"]) and filters["state"] in (None, card["state"])
    ]
    return {
        "gaming_day": day,
        "now": now,
        "lag": lag,
        "tables": shown,
        "totals": pit_totals(shown),
        "filters": filters,
        "games": [{"game": g, "label": game_name(g)} for g in sorted({t.game for t in tables}, key=game_name)],
        "table_count": len(tables),
        "alerts": every,
    }


def _failed_exports() -> list[dict]:
    """``ledger.scheduled_export.failed_exports`` with the attempt's time in the casino's zone."""
    zone = ZoneInfo(settings.CASINO_TIMEZONE)
    return [
        row | {"attempted": row["attempted_at"].astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")}
        for row in failed_exports()
    ]

"""Reads for the pit boss dashboard: plain dicts for the templates, never a write.

Sources, and why each: the table statistics and patron ratings come from their projections
(``ledger.projections``; the floor shows the projection lag beside them); the coup in play,
the last coups and the shoes come from the game models (current state); audit trails, cash
movements, payouts and the win chart come from the ledger itself (authoritative, never stale).
The floor's cards are read for all tables at once (``dashboard.floor_reads``: a fixed number
of queries whatever the number of tables). Amounts are integer cents, times UTC, win from the
house's side.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, time
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from cashier.models import Cage
from cashier.reports import hold_pct, table_figures, tables_active, variance_report
from cashier.services.cage_shifts import last_shift_event, open_windows, window_of
from cashier.services.count_room import live_count
from cashier.slip_models import Slip
from core.ids import uuid_of
from games.models import BetRefusal, Round, Shoe, Table
from games.names import game_name
from games.rules.errors import RuleError
from games.rules.event_words import AML_LABELS, aml_line, is_face_down
from games.rules.house_edges import house_edge
from games.rules.money import currency, format_amount
from games.rules.stud_table import ClassicStudTableRules
from ledger import accounts, projections, store, withheld
from ledger.errors import InvalidInput, NotFound
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, PatronDayRating, Posting, TableDayStats
from ledger.projections.table_stats import NOT_GAMING, WIN_ACCOUNTS
from ledger.scheduled_export import failed_exports
from patrons.models import Patron
from patrons.services.aml import cash_day_totals

from . import alerts as checks
from . import floor_reads
from .coups import describe
from .figures import figures as one_set
from .figures import hold as hold_of
from .play import HIDDEN, play_line, readable


def _readable(event_type: str, data: dict) -> str:
    """One readable line for an event (``dashboard.play.readable``, the audit summaries' words),
    a face-down card without its value."""
    return readable(event_type, data)


LAST_COUPS = 10
LAST_NUMBERS = 20
LAST_REFUSALS = 50


def _pct(numerator: int | Fraction, denominator: int) -> str | None:
    """``numerator / denominator`` as a percentage with 2 decimals; ``None`` without a denominator."""
    if not denominator:
        return None
    return f"{float(Fraction(numerator) * 100 / denominator):.2f}"


def projection_lag() -> dict:
    """``{"projections": [{"projection", "checkpoint", "head", "lag"}], "max_lag"}`` (positions)."""
    rows = projections.lag()
    return {"projections": rows, "max_lag": max((r["lag"] for r in rows), default=0)}


def _limits(table: Table) -> dict:
    """The table's betting limits in cents from its rule set: ``{"min_cents", "max_cents"}``
    (the main bet's; either may be ``None``) and ``"kinds"``: ``[{"kind", "min_cents",
    "max_cents", "note"}]``, one line per kind of bet that has limits of its own (English
    roulette's even chances, the value-chip minimum standing; black jack's box; the Caribbean
    ante and its raise; classic stud's bets in a round, capped round by round)."""
    rules = table.rules or {}

    def get(key: str) -> int | None:
        value = rules.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    kinds: list[dict] = []
    if table.game == Table.Game.ENGLISH_ROULETTE:
        numbers = {"kind": "numbers, dozens and columns", "min_cents": get("min_bet_cents")}
        kinds.append({**numbers, "max_cents": get("max_bet_cents")})
        standing = get("standing_min_cents")
        kinds.append(
            {
                "kind": "even chances",
                "min_cents": get("even_chance_min_cents"),
                "max_cents": get("even_chance_max_cents"),
                "note": f"standing with value chips from {checks.eur(standing)}" if standing else "",
            }
        )
    elif table.game == Table.Game.BLACKJACK:
        kinds.append({"kind": "box", "min_cents": get("min_bet_cents"), "max_cents": get("max_box_cents")})
    elif table.game == Table.Game.CARIBBEAN_STUD:
        multiple = rules.get("raise_multiple") or 2
        kinds.append(
            {
                "kind": "ante",
                "min_cents": get("ante_min_cents"),
                "max_cents": get("ante_max_cents"),
                "note": f"raise {multiple} × the ante",
            }
        )
    elif table.game == Table.Game.CLASSIC_STUD:
        kinds.append(_classic_stud_limits(rules))
    else:
        kinds.append({"kind": "every bet", "min_cents": get("min_bet_cents"), "max_cents": get("max_bet_cents")})
    for kind in kinds:
        kind.setdefault("note", "")
    return {
        "min_cents": kinds[0]["min_cents"],
        "max_cents": kinds[0]["max_cents"],
        "kinds": kinds,
        "options": _betting_options(table.game, rules),
    }


def _classic_stud_limits(rules: dict) -> dict:
    """Classic stud's limits as the engine applies them (``StudRules``, RULES.md §Classic
    five-card stud, defaults for options the table left out): from the base stake to the most a
    player puts in during the last round, each round's cap in the note. A rule set the engine
    refuses shows no limits (the table cannot deal either)."""
    try:
        game = ClassicStudTableRules.from_dict(rules).game
    except RuleError:
        return {"kind": "bets in a round", "min_cents": None, "max_cents": None, "note": "rule set not readable"}
    caps = [game.cap_cents(n) for n in range(1, len(game.caps) + 1)]
    by_round = ", ".join(f"round {n} up to {checks.eur(cap)}" for n, cap in enumerate(caps, start=1))
    ante = f"; ante {checks.eur(game.base_stake_cents)}" if game.ante else ""
    return {
        "kind": "bets in a round",
        "min_cents": game.base_stake_cents,
        "max_cents": max(caps),
        "note": by_round + ante,
    }


def _betting_options(game: str, rules: dict) -> list[str]:
    """The table options that decide which stakes are taken, in words: its chip increments
    (``games.rules.chips``: sheet 002) and English roulette's even-chance variant (sheet 000)."""
    options = []
    chips = rules.get("chip_cents")
    if isinstance(chips, list) and chips and all(isinstance(c, int) and not isinstance(c, bool) for c in chips):
        shown = ", ".join(format_amount(c) for c in chips)
        off = (
            "another amount is lowered to what they make"
            if rules.get("off_chips") == "adjust"
            else "another is refused"
        )
        options.append(f"in chips of {shown} {currency()}; {off}")
    if game == Table.Game.ENGLISH_ROULETTE and rules.get("even_chances") == "with_other_bets":
        options.append("even chances only beside another bet of the same patron (second variant)")
    return options


def _theory(game: str, rules: dict, stats: TableDayStats | None, ante_staked_cents: int) -> tuple[Fraction | None, str]:
    """``(theoretical win in exact cents or None, where the edge comes from)``: the engines'
    edges on the day's bets (Σ stake × edge, which the table statistics keep beside the handle
    and the win); else the edge of the table's rule set on the base that edge is relative to
    (``games.rules.house_edges``): the handle, but the antes at Caribbean stud, whose edge is
    per ante; for classic stud, the rake (players play each other)."""
    handle = stats.handle_cents if stats else 0
    recorded = Fraction(stats.theoretical_win) if stats else Fraction(0)
    if recorded > 0 and game == Table.Game.CLASSIC_STUD:
        return recorded, "the rake taken, hand by hand (players play each other)"
    if recorded > 0:
        return recorded, "the engines' house edge on each bet"
    if game == Table.Game.CLASSIC_STUD:
        rake = _rake_pct(rules)
        return rake / 100 * handle, f"the house's rake, {_pct_figure(rake)} % of each pot (players play each other)"
    edge = _rule_set_edge(game, rules)
    if edge is None:
        return None, ""
    if game == Table.Game.CARIBBEAN_STUD:
        return Fraction(edge[0]) * ante_staked_cents, f"{edge[1]}; on the antes staked"
    return Fraction(edge[0]) * handle, edge[1]


def _rake_pct(rules: dict | None) -> Fraction:
    """A classic stud table's rake in % of each pot (``rake_pct``: a number or a fraction's
    text, as ``StudRules.to_dict`` writes it); 0 when unset or unreadable."""
    rules = rules or {}
    try:
        return Fraction(str(rules.get("rake_percent") or rules.get("rake_pct") or 0))
    except (ValueError, ZeroDivisionError):
        return Fraction(0)


def _pct_figure(pct: Fraction) -> str:
    """A percentage as a person writes it: ``5``, ``2.5`` (not ``5/2``)."""
    return format((Decimal(pct.numerator) / Decimal(pct.denominator)).normalize(), "f")


def _whole_cents(value: Fraction) -> int:
    """Exact cents to whole cents, a half cent rounded up (as the API rounds theoretical win)."""
    return math.floor(value + Fraction(1, 2))


def _pct_text(edge: Fraction) -> str:
    return f"{float(edge * 100):.2f} %"


def _edge(game: str, rules: dict) -> dict:
    """The game's house edge before any bet: ``{"short", "source"}`` and, for the edges of
    ``games.rules.house_edges``, ``tag``: ``exact`` or ``simulated``; the rake at
    classic stud."""
    rules = rules or {}
    if game == Table.Game.ENGLISH_ROULETTE:
        even = {"la_partage": "1.35 %", "en_prison": "1.35 %", "lost": "2.70 %"}
        rule = rules.get("zero_rule", "la_partage")
        return {
            "short": f"2.70 %, even chances {even.get(rule, '2.70 %')}",
            "source": f"single zero, 1/37; even chances under {rule.replace('_', ' ')}",
        }
    if game == Table.Game.BACCARAT:
        from games.rules.baccarat import BaccaratRules
        from games.rules.baccarat import house_edge as bet_edge

        try:
            parsed = BaccaratRules.from_dict(rules)
        except RuleError:  # an odd rule set still shows the page
            return {"short": "—", "source": ""}
        short = ", ".join(f"{bet} {_pct_text(bet_edge(bet, parsed))}" for bet in ("banker", "player", "tie"))
        return {"short": short, "source": f"exact, from the composition of the shoe ({parsed.decks} decks)"}
    if game == Table.Game.CLASSIC_STUD:
        cap = rules.get("rake_cap_cents")
        short = f"rake {_pct_figure(_rake_pct(rules))} % of each pot"
        if isinstance(cap, int) and not isinstance(cap, bool):
            short += f", at most {format_amount(cap)} {currency()} a hand"
        return {"short": short, "source": "the players play each other: the house's theory is the rake it takes"}
    edge = _rule_set_edge(game, rules)
    if edge is None:
        return {"short": "—", "source": ""}
    # Exact for every game since Caribbean stud is enumerated; "simulated" if a basis says so.
    tag = "simulated" if edge[1].startswith("simulation") else "exact"
    short = _pct_text(Fraction(edge[0]))
    if game == Table.Game.CARIBBEAN_STUD:  # per ante, not per unit staked: the raise is not in it
        short += " of the ante"
    return {"short": short, "source": edge[1], "tag": tag}


def _rule_set_edge(game: str, rules: dict) -> tuple[Decimal, str] | None:
    """The edge of the table's own rule set (``games.rules.house_edges``, cached per rule set),
    or None for rules it cannot read (the page still shows)."""
    try:
        return house_edge(game, rules or {})
    except (RuleError, ValueError):
        return None


REFUSAL_FIELDS = ("table_code", "round_id", "patron_code", "stake_cents", "kind", "message", "actor", "created_at")


def _refusal(row: dict) -> dict:
    """A ``BetRefusal`` row as the dashboard shows it: ``{"table", "round", "patron", "stake_cents",
    "kind", "message", "actor", "created_at"}`` (cents, UTC; ``round`` a string or ``None``,
    ``patron`` ``None`` when not known)."""
    return {
        "table": row["table_code"],
        "round": str(row["round_id"]) if row["round_id"] else None,
        "patron": row["patron_code"] or None,
        "stake_cents": row["stake_cents"],
        "kind": row["kind"],
        "message": row["message"],
        "actor": row["actor"],
        "created_at": row["created_at"],
    }


def _day_events(day: date) -> dict:
    """What the floor reads once for every table: the day's variance list
    (``cashier.reports.variance_report`` rows) and its refused bets (``games.BetRefusal``, kept
    outside the ledger: ``{table code: [refusal, oldest first]}``, see ``_refusal``)."""
    refused: dict[str, list[dict]] = {}
    rows = BetRefusal.objects.filter(gaming_day=day).order_by("created_at", "id").values(*REFUSAL_FIELDS)
    for row in rows:
        refused.setdefault(row["table_code"], []).append(_refusal(row))
    return {"variances": [_with_local_time(row) for row in variance_report(day)["rows"]], "refused": refused}


def _payout(payout: dict) -> dict:
    """A large payout as its alert says it: when, in the casino's zone (``"14:03 CET"``), and a
    link to its coup's audit trail (none for a decision outside a coup)."""
    at = payout.get("at")
    local = at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%H:%M %Z") if at else ""
    try:
        link = reverse("dashboard:coup-audit", args=[payout.get("round")])
    except NoReverseMatch:  # no round, or not an id: no page to link
        link = ""
    return payout | {"local_time": local, "link": link}


def _with_local_time(row: dict) -> dict:
    """A variance row with ``local_time``: its count's moment (``occurred_at``, ISO 8601 UTC) in
    the casino's zone, ``"14:03 CET"``, as the floor's alert says it."""
    moment = datetime.fromisoformat(row["occurred_at"]).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    return row | {"local_time": moment.strftime("%H:%M %Z")}


def _count_room(figures: dict) -> dict:
    """The card's count-room column from ``floor_reads.count_room_figures`` (the daily report's
    rules, so the three agree to the cent): ``{"drop_cents", "win_cents", "hold_pct",
    "drop_counted", "final"}``. ``final``: the drop is counted and the table closed (the day's
    final win); otherwise the win is provisional (the recorded buy-ins stand in for the drop,
    the book tray for the closer)."""
    # ``drop_counted`` is vacuously true for a table without a buy-in: counted means a count.
    counted = figures["drop_counted"] and figures["live_count"] is not None
    return {
        "drop_cents": figures["drop_cents"],
        "win_cents": figures["win_cents"],
        "hold_pct": figures["hold_pct"],
        "drop_counted": counted,
        "final": counted and not figures["open"],
    }


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
    the daily report rounds), ``"count_room"`` (``_count_room``: counted drop, final or
    provisional win and hold, the daily report's figures), ``"theoretical_win_cents"`` (whole
    cents, half up; ``None`` without a theory), ``"theoretical_hold_pct"`` (theoretical win /
    drop), ``"win_on_handle_pct", "theoretical_edge_pct"`` (both on handle), ``"theory_source",
    "theory_edge", "coup_in_play", "shoe", "lag"`` (positions the table statistics are
    behind), ``"refused_today"`` (bets refused over a limit), ``"alerts"}``. Percentages are
    strings with two decimals, ``None`` without a denominator or a theory. ``day_events``: what
    the floor reads once for every table (``_day_events``; read here when omitted).

    Two drops, not to be confused: ``drop_cents`` is the ledger's (the cash bought in at the
    table, from the table statistics), which hold % divides; ``counted_drop_cents`` is the count
    room's count of the day's drop box (``None`` until counted). A closed table has no dealer
    and nobody seated (``None``, ``[]``)."""
    day_events = day_events or _day_events(day)
    variances = day_events["variances"]
    reads = floor_reads.table_reads(tables, day=day, now=now)
    # Caribbean stud's edge is per ante: without the engines' edges on the bets, its theory
    # needs the day's antes (read only then).
    unrecorded = [
        t.code
        for t in tables
        if t.game == Table.Game.CARIBBEAN_STUD
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
        theoretical, theory_source = _theory(table.game, table.rules, stats, antes.get(code, 0))
        refused = day_events["refused"].get(code, [])
        room = read["count_room"]
        shoe = read["shoe"]
        found = [
            checks.hold_alert(code, win_cents=win, handle_cents=handle, theoretical_win=theoretical),
            *checks.payout_alerts(code, [_payout(p) for p in read["large_payouts"]]),
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
                "limits": _limits(table),
                "seated": read["seated"],
                "coups_this_hour": read["coups_this_hour"],
                "coups_today": stats.coups if stats else 0,
                "drop_cents": drop,
                "counted_drop_cents": count.data["counted_cents"] if count is not None else None,
                "win_cents": win,
                "handle_cents": handle,
                "hold_pct": hold_pct(win, drop),
                "count_room": _count_room(room),
                "theoretical_win_cents": _whole_cents(theoretical) if theoretical is not None else None,
                "theoretical_hold_pct": _pct(theoretical, drop) if theoretical is not None else None,
                "win_on_handle_pct": _pct(win, handle),
                "theoretical_edge_pct": _pct(theoretical, handle) if theoretical is not None else None,
                "theory_source": theory_source,
                "theory_edge": _edge(table.game, table.rules),
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
    sums["win_on_handle_pct"] = _pct(sums["win_cents"], sums["handle_cents"])
    sums["theoretical_edge_pct"] = _pct(sum(theory), sums["handle_cents"]) if theory else None
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
    """The floor's filters checked: ``game`` a ``Table.Game`` value, ``state`` ``open`` or
    ``closed``, empty for all. Returns ``{"game", "state"}`` (``None``: all); raises
    ``InvalidInput`` naming the field for anything else (the page answers 400)."""
    game, state = (game or "").strip() or None, (state or "").strip() or None
    if game is not None and game not in Table.Game.values:
        raise InvalidInput(f"no game {game[:40]!r}: one of {', '.join(Table.Game.values)}", field="game")
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
    day_events = _day_events(day)
    variances = day_events["variances"]
    cards = table_cards(tables, day=day, now=now, lag=lag, day_events=day_events)
    codes = {t.code for t in tables}
    # Variances of the cage (shift counts, handovers) have no table card: the floor lists them.
    every = [a for card in cards for a in card["alerts"]]
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


def _table(code: str) -> Table:
    table = Table.objects.filter(code=code).first()
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    return table


def coup_money(code: str, coups: list[Round]) -> dict[str, tuple[int, int | None]]:
    """``{coup id: (staked cents, house win cents or None)}`` of table ``code``'s ``coups``,
    from the ledger in one query: staked = what the coup's events put on the layout (antes and
    raises, doubles, splits, insurance: not only the first stake of each bet); house win = what
    they moved on the table's win accounts (tray, drop, colour chips issued), as the win chart
    and the table statistics count it; ``None`` while nothing is decided."""
    ids = [str(c.id) for c in coups]
    layout = accounts.table_layout(code)
    wins = [f"table:{code}:{suffix}" for suffix in sorted(WIN_ACCOUNTS)]
    rows = (
        Posting.objects.filter(
            Q(event__stream__in=[f"round/{i}" for i in ids]) | Q(event__correlation_id__in=ids),
            account__in=[layout, *wins],
            currency=settings.CASINO_CURRENCY,
        )
        .exclude(event__type__in=NOT_GAMING)
        .values_list("event__stream", "event__correlation_id", "account", "amount_cents")
    )
    staked = dict.fromkeys(ids, 0)
    won: dict[str, int | None] = dict.fromkeys(ids)
    for stream, correlation, account, amount in rows:
        key = stream.removeprefix("round/") if stream.startswith("round/") else correlation
        if key not in staked:
            continue
        if account == layout:
            staked[key] += max(amount, 0)
        else:
            won[key] = (won[key] or 0) + amount
    return {i: (staked[i], won[i]) for i in ids}


def _coup(coup: Round, money: tuple[int, int | None] | None = None) -> dict:
    """A coup's bets and result, with ``staked_cents`` and ``house_win_cents`` of ``coup_money``
    (read here when not given); ``house_win_cents`` is 0 for a settled coup that moved nothing,
    ``None`` only while nothing is decided (in play, or voided)."""
    staked, won = money or coup_money(coup.table.code, [coup])[str(coup.id)]
    if won is None and coup.state == Round.State.SETTLED:
        won = 0  # decided with nothing moved (a tie with every bet pushed): a win of nil, not "—"
    bets = [
        {
            "patron": bet.patron.code,
            "patron_name": bet.patron.name,
            "position": bet.position,
            "stake_cents": bet.stake_cents,
            "chips": bet.chips,
            "announce": bet.announce,
            "state": bet.state,
            "return_cents": bet.return_cents,
        }
        for bet in coup.bets.all()
    ]
    return {
        "id": str(coup.id),
        "number": coup.number,
        "state": coup.state,
        "result": coup.result,
        "bets": bets,
        "staked_cents": staked,
        "house_win_cents": won,
    }


DESCRIBING = ("CardDealt", "CoupResult", "DealerRevealed", "BoxDecided", "BetSettled", "PlayerDecided", "CardBurnt")


def _described(code: str, game: str, coups: list[Round]) -> list[dict]:
    """``_coup`` of each coup with ``"shown"``: its hands, totals and winner (``dashboard.coups``),
    read from the coups' events in one query."""
    events: dict[str, list[tuple[str, dict]]] = {str(c.id): [] for c in coups}
    rows = (
        Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], type__in=DESCRIBING)
        .order_by("position")
        .values_list("stream", "type", "data")
    )
    for stream, kind, data in rows:
        events[stream.removeprefix("round/")].append((kind, data))
    money = coup_money(code, coups)
    reversed_ = reversals(coups)
    return [
        {
            **_coup(c, money[str(c.id)]),
            "shown": describe(game, c.result, events[str(c.id)]),
            "reversal": reversed_.get(str(c.id)),
        }
        for c in coups
    ]


def reversals(coups: list[Round]) -> dict[str, dict]:
    """The corrections of these coups, by round id: ``{"by"`` (who asked), ``"approved_by",
    "at"`` (UTC), ``"reason"}``. A reversed coup keeps its state ``settled`` (the ledger is
    never edited: ``RoundReversed`` follows its settlement), so a page reads it from here."""
    rows = Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], type="RoundReversed").values(
        "stream", "actor", "occurred_at", "data"
    )
    return {
        row["stream"].removeprefix("round/"): {
            "by": row["actor"],
            "approved_by": (row["data"] or {}).get("approved_by"),
            "at": row["occurred_at"],
            "reason": (row["data"] or {}).get("reason"),
        }
        for row in rows
    }


def round_events(round_id: str, *, round_over: bool | None = None) -> list[dict]:
    """A coup's events from the ledger, oldest first: ``[{"position", "stream", "version",
    "type", "data", "summary", "actor", "occurred_at", "prev_hash", "hash"}]`` (every event of
    the round's stream and every event correlated with it; ``summary`` one readable line).
    Game protection: while the coup is in play (``round_over`` False; ``None``: read from the
    round's state) a face-down card's summary leaves its value out, and so does its ``data``."""
    if round_over is None:
        state = Round.objects.filter(pk=uuid_of(round_id)).values_list("state", flat=True).first()
        round_over = state in (Round.State.SETTLED, Round.State.VOIDED)
    rows = (
        Event.objects.filter(Q(stream=f"round/{round_id}") | Q(correlation_id=round_id))
        .order_by("position")
        .values("position", "stream", "version", "type", "data", "actor", "occurred_at", "prev_hash", "hash")
    )
    events = []
    hashes_from = withheld.hashes_withheld_from()
    for row in rows:
        data = row["data"] if isinstance(row["data"], dict) else {}
        line = play_line(row["type"], data, _readable, round_over=round_over) or readable(
            row["type"], data, round_over=round_over
        )
        if not round_over and is_face_down(row["type"], data):
            row["data"] = {k: v for k, v in data.items() if k != "card"}
        # A hash is of the card as recorded, and every later one chains to it: shown with the
        # rest of the envelope, 52 guesses find the card (``ledger.withheld``).
        if not withheld.hash_shown(row["position"], hashes_from):
            row["hash"] = row["prev_hash"] = withheld.HASH_WITHHELD
        events.append({**row, "summary": line})
    return events


def with_patron_names(events: list[dict]) -> list[dict]:
    """``events`` with each patron code in a ``summary`` written as ``Name (code)``: a pit boss
    knows his patrons by name, the code second (a patron with no name on file keeps his code)."""
    codes = {e["data"].get("patron") for e in events if isinstance(e.get("data"), dict)} - {None}
    names = dict(Patron.objects.filter(code__in=codes).exclude(name="").values_list("code", "name")) if codes else {}
    for event in events:
        code = event["data"].get("patron") if isinstance(event.get("data"), dict) else None
        if code in names and isinstance(event.get("summary"), str):
            line = event["summary"]
            # "seat 1 (P00001)" → "seat 1 (Jeanne Martin, P00001)"; "P00001 bets" → "Jeanne Martin (P00001) bets"
            if f"({code})" in line:
                event["summary"] = line.replace(f"({code})", f"({names[code]}, {code})", 1)
            else:
                event["summary"] = re.sub(rf"\b{re.escape(code)}\b", f"{names[code]} ({code})", line, count=1)
    return events


def _play(round_id: str) -> list[dict]:
    """The coup in play as the table view tells it: ``[{"position", "at" (UTC), "line"}]``
    (``dashboard.play``); the page shows the time, the ledger position only on the audit trail."""
    return [
        {"position": e["position"], "at": e["occurred_at"], "line": e["summary"]}
        for e in with_patron_names(round_events(round_id, round_over=False))
        if e["type"] not in HIDDEN
    ]


def win_series(code: str, *, day: date, max_points: int = 240) -> list[tuple[datetime, int]]:
    """The table's cumulative win over the gaming day, one point per coup (or other event) that moved it:
    ``[(occurred_at UTC, win so far in cents)]``. Read from the postings on the table's tray,
    drop and colour_issued, leaving out the non-gaming movements, as the table statistics do
    (``ledger.projections.table_stats``), so the last point equals the day's win. Past
    ``max_points`` it keeps every k-th point and always the last."""
    names = [f"table:{code}:{suffix}" for suffix in sorted(WIN_ACCOUNTS)]
    rows = (
        Posting.objects.filter(account__in=names, currency=settings.CASINO_CURRENCY, event__gaming_day=day)
        .exclude(event__type__in=NOT_GAMING)
        .values("event_id", "event__occurred_at", "event__correlation_id")
        .annotate(moved=Sum("amount_cents"))
        .order_by("event_id")
    )
    series, running, last_coup = [], 0, None
    for row in rows:
        if not row["moved"]:
            continue
        running += row["moved"]
        coup = row["event__correlation_id"]
        if coup and coup == last_coup:  # one point per coup: its settlement lines are many events
            series[-1] = (row["event__occurred_at"], running)
        else:
            series.append((row["event__occurred_at"], running))
        last_coup = coup
    if len(series) > max_points:  # a busy day: every k-th point and the last, enough for a chart
        step = -(-len(series) // max_points)
        series = series[step - 1 :: step] + ([series[-1]] if len(series) % step else [])
    return series


def day_start(code: str, *, day: date) -> datetime:
    """When table ``code``'s win of gaming day ``day`` was nil (UTC): its first opening that day,
    else the gaming day's start (``GAMING_DAY_START`` in ``CASINO_TIMEZONE``)."""
    opened = (
        Event.objects.filter(stream=f"table/{code}", type="TableOpened", gaming_day=day)
        .order_by("position")
        .values_list("occurred_at", flat=True)
        .first()
    )
    if opened is not None:
        return opened
    hour, minute = (int(part) for part in settings.GAMING_DAY_START.split(":"))
    local = datetime.combine(day, time(hour, minute), tzinfo=ZoneInfo(settings.CASINO_TIMEZONE))
    return local.astimezone(UTC)


def refusals_of_day(code: str, *, day: date, limit: int = LAST_REFUSALS) -> list[dict]:
    """The bets refused at table ``code`` over a limit during gaming day ``day``, newest first
    (at most ``limit``): ``_refusal`` dicts with ``"coup"``, the coup's number (``None`` when the
    refusal names no coup)."""
    rows = BetRefusal.objects.filter(gaming_day=day, table_code=code).order_by("-created_at", "-id")
    refusals = [_refusal(row) for row in rows.values(*REFUSAL_FIELDS)[:limit]]
    ids = {r["round"] for r in refusals if r["round"]}
    numbers = {str(key): n for key, n in Round.objects.filter(id__in=ids).values_list("id", "number")}
    first = first_numbers_of_day(list(Table.objects.filter(code=code).values_list("id", flat=True)), day)
    first_today = next(iter(first.values()), None)
    return [
        {**r, "coup": day_number(numbers[r["round"]], first_today) if r["round"] in numbers else None} for r in refusals
    ]


def _shoe_name(table: Table, shoe_id: str) -> dict:
    """``{"number": n, "opened_at": UTC datetime}`` of a shoe: the n-th shoe the table started on
    that gaming day (by its stream's first event), for a page that names it without its id;
    ``{}`` for a shoe with no event."""
    first = {
        stream: (position, day, at)
        for stream, position, day, at in Event.objects.filter(
            stream__in=[f"shoe/{key}" for key in Shoe.objects.filter(table=table).values_list("id", flat=True)],
            version=1,
        ).values_list("stream", "position", "gaming_day", "occurred_at")
    }
    own = first.get(f"shoe/{shoe_id}")
    if own is None:
        return {}
    number = sum(1 for position, day, _ in first.values() if day == own[1] and position <= own[0])
    return {"number": number, "opened_at": own[2]}


def _of_day(coups: list[Round], day: date) -> list[Round]:
    """The coups of ``coups`` opened on gaming day ``day`` (same order), by the gaming day of
    their stream's first event: a table open across the rollover keeps yesterday's coups out
    of today's lists."""
    opened = dict(
        Event.objects.filter(stream__in=[f"round/{c.id}" for c in coups], version=1).values_list("stream", "gaming_day")
    )
    return [c for c in coups if opened.get(f"round/{c.id}") == day]


def table_detail(code: str, *, day: date | None = None, now: datetime | None = None) -> dict:
    """One table: its card, the coup in play (bets and its events: cards, decisions), the last
    coups of gaming day ``day`` with outcomes, roulette's last numbers of that day, baccarat's
    bead plate and big road (``number`` and ``opened_at`` naming the shoe), the win series of
    the day with ``series_start`` (``day_start``) and the day's refused bets
    (``refusals_of_day``). ``NotFound`` (404) for an unknown table."""
    from games.services.baccarat import shoe_history  # a read: the service module's selector

    table = _table(code)
    day = day or current_gaming_day()
    now = now or timezone.now()
    card = table_card(table, day=day, now=now, lag=projection_lag())
    rounds = Round.objects.filter(table=table).prefetch_related("bets__patron")
    in_play = rounds.filter(state__in=Round.IN_PLAY).order_by("-number").first()
    last = _of_day(list(rounds.exclude(state__in=Round.IN_PLAY).order_by("-number")[:LAST_COUPS]), day)
    numbers = []
    if table.game == Table.Game.ENGLISH_ROULETTE:
        results = Round.objects.filter(table=table, state=Round.State.SETTLED).order_by("-number")
        spins = _of_day(list(results.only("id", "result")[:LAST_NUMBERS]), day)
        numbers = [r.result["number"] for r in spins if isinstance(r.result, dict)]
    history = None
    if table.game == Table.Game.BACCARAT:
        # The shoe of the table's latest coup (the one in play, or the last one closed).
        shoe_id = (
            Event.objects.filter(type="CoupResult", data__table=code)
            .order_by("-position")
            .values_list("data__shoe", flat=True)
            .first()
        )
        if shoe_id is None and card["shoe"]:
            shoe_id = card["shoe"]["id"]
        if shoe_id is not None:
            history = shoe_history(str(shoe_id)) | _shoe_name(table, str(shoe_id))
            history["big_road_rows"] = max((len(column) for column in history["big_road"]), default=0)
    first = first_numbers_of_day([table.id], day).get(table.id)
    last_coups = _described(table.code, table.game, last)
    for coup in last_coups:
        coup["number"] = day_number(coup["number"], first)
    in_play_coup = {**_coup(in_play), "play": _play(str(in_play.id))} if in_play else None
    if in_play_coup:
        in_play_coup["number"] = day_number(in_play_coup["number"], first)
    return {
        "table": card,
        "gaming_day": day,
        "in_play": in_play_coup,
        "last_coups": last_coups,
        "last_numbers": numbers,
        "baccarat": history,
        "win_series": win_series(code, day=day),
        "series_start": day_start(code, day=day),
        "refusals": refusals_of_day(code, day=day),
    }


def coup_audit(round_id: str) -> dict:
    """A coup's audit trail: ``{"round": {...}, "table", "events": [...]}`` with positions,
    versions, hashes and each event's link to the previous hash. ``NotFound`` (404)."""
    try:
        key = uuid_of(round_id)
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    coup = Round.objects.select_related("table").prefetch_related("bets__patron").filter(pk=key).first()
    if coup is None:
        raise NotFound(f"no round {round_id}", field="round")
    over = coup.state in (Round.State.SETTLED, Round.State.VOIDED)
    described = _coup(coup) | {"reversal": reversals([coup]).get(str(coup.id))}
    opened = Event.objects.filter(stream=f"round/{coup.id}", version=1).values_list("gaming_day", flat=True).first()
    if opened is not None:
        described["number"] = day_number(coup.number, first_numbers_of_day([coup.table_id], opened).get(coup.table_id))
        described["gaming_day"] = opened
    events = with_patron_names(round_events(str(coup.id), round_over=over))
    _coup_of_day(events, coup.number, described["number"], coup.table.code)
    return {"round": described, "table": coup.table.code, "events": events}


def _coup_of_day(events: list[dict], number: int, of_day: int, table: str) -> None:
    """The events' lines say the coup's number of the day ("coup 3 of R1"), as the page does,
    not the table's running counter."""
    if number == of_day:
        return
    for event in events:
        if isinstance(event.get("summary"), str):
            event["summary"] = event["summary"].replace(f"coup {number} of {table}", f"coup {of_day} of {table}")


def _aml_flags(code: str) -> list[dict]:
    """The patron's AML decisions, newest first (at most 50): the events of stream ``aml/<code>``
    and any ``Aml…`` event naming him (identity checked, transaction logged or refused,
    aggregate flagged; ``patrons.services.aml``): ``[{"position", "type", "summary", "gaming_day",
    "occurred_at" (UTC), "actor"}]``. ``position`` is for a link to the event, never for reading."""
    rows = (
        Event.objects.filter(Q(stream=f"aml/{code}") | Q(type__startswith="Aml", data__patron=code))
        .order_by("-position")
        .values("position", "type", "data", "gaming_day", "occurred_at", "actor")[:50]
    )
    return [{**r, "summary": _aml_line(r["type"], r["data"] if isinstance(r["data"], dict) else {})} for r in rows]


def _aml_line(event_type: str, data: dict) -> str:
    """One readable line for an AML decision (``games.rules.event_words.aml_line``: what, which
    way, how much against which threshold), any other shape as ``_readable`` says it."""
    return aml_line(event_type, data) or _readable(event_type, data)


def event_line(event_type: str, data: dict, *, round_over: bool = False) -> str:
    """One line in words for any event, as the dashboard says it: an AML decision as on the
    patron page, another event as in the play feed or the audit trail; a face-down card
    without its value unless ``round_over``."""
    data = data if isinstance(data, dict) else {}
    if event_type in AML_LABELS:
        return _aml_line(event_type, data)
    return play_line(event_type, data, _readable, round_over=round_over) or readable(
        event_type, data, round_over=round_over
    )


def patron_detail(code: str, *, day: date | None = None) -> dict:
    """A patron's day: rating (bets, staked, average bet, time played in seconds, actual and
    theoretical win in cents), cash in and out (every cash transaction, as the AML rules total
    them: ``patrons.services.aml.cash_day_totals``), chips held, AML flags, and the last seven
    rated days. ``NotFound`` (404)."""
    patron = Patron.objects.filter(code=code).first() if isinstance(code, str) else None
    if patron is None:
        raise NotFound(f"no patron {code!r}", field="patron")
    day = day or current_gaming_day()
    rating = PatronDayRating.objects.filter(patron=code, gaming_day=day).first()
    cash = cash_day_totals(code, day)  # every cash transaction of his, as the AML rules total them

    def rated(row: PatronDayRating) -> dict:
        seconds = int((row.last_bet_at - row.first_bet_at).total_seconds()) if row.first_bet_at else 0
        return {
            "gaming_day": row.gaming_day,
            "bets": row.bets,
            "staked_cents": row.staked_cents,
            "average_bet_cents": row.staked_cents // row.bets if row.bets else None,
            "seconds_played": seconds,
            "actual_win_cents": row.actual_win_cents,
            "theoretical_win_cents": int(Fraction(row.theoretical_win) // 1),
        }

    history = PatronDayRating.objects.filter(patron=code).order_by("-gaming_day")[:7]
    return {
        "patron": {
            "code": patron.code,
            "name": patron.name,
            "kind": patron.kind,
            "kind_label": patron.get_kind_display(),
        },
        "manual_ratings": [
            {**e["data"], "time_in": datetime.fromisoformat(e["data"]["time_in"]), "by": e["actor"]}
            for e in Event.objects.filter(type="PatronRatedManually", data__patron=code, gaming_day=day)
            .order_by("-position")
            .values("data", "actor")[:20]
        ],
        "gaming_day": day,
        "rating": rated(rating) if rating else None,
        "cash_in_cents": cash["in"],
        "cash_out_cents": cash["out"],
        "chips_cents": store.balance(accounts.patron_chips(code)),
        "aml_flags": _aml_flags(code),
        "history": [rated(r) for r in history],
    }


def cage_shift(code: str = "main") -> dict:
    """The cage's cashier windows as their ledger stream (``cageshift/<code>``) records them:
    ``{"state": "open" | "closed" | None, "by", "at", "handover_to", "windows"}``: ``None``
    before any; ``windows``: each open window, oldest first, ``{"window", "by", "at"}`` (UTC);
    "open" while any is; else who closed the last one, when, and the cashier it was handed over
    to (``None``: nobody, the end of the day)."""
    last = last_shift_event(code)
    if last is None:
        return {"state": None, "by": None, "at": None, "handover_to": None, "windows": []}
    # Several cashiers work windows of their own at once: the last event alone could say
    # "closed" while another window is open.
    windows = [
        {"window": window_of(event), "by": cashier, "at": event.occurred_at}
        for cashier, event in open_windows(code).items()
    ]
    closed = last.type == "CageShiftClosed"
    return {
        "state": "open" if windows else "closed" if closed else "open",
        "by": last.actor,
        "at": last.occurred_at,
        "handover_to": last.data.get("handover_to") if closed else None,
        "windows": windows,
    }


def _cage_row(code: str, figures: dict, *, counted: bool) -> dict:
    """A table's row of the cage summary: the daily report's figures with ``hold`` (the hold, or
    why it is not shown: ``dashboard.figures.hold``), ``counted`` (the count room counted its
    drop box: ``live_count``) and ``final`` (counted and closed). As on the floor
    (``_count_room``), a win is final once its box is counted: the report's ``drop_counted`` is
    true of a table without a buy-in before any count, so the floor said "no win is final yet"
    while this row said "final"."""
    return {
        "table": code,
        **figures,
        "hold": hold_of(figures["win_cents"], figures["drop_cents"]),
        "counted": counted,
        "final": counted and figures["drop_counted"] and not figures["open"],
    }


def cage_summary(*, day: date | None = None) -> dict:
    """The cage for the pit boss, read-only (cents): its cashier shift (``cage_shift``: open or
    closed, by whom, when), whether its books are open (``cage.state``: the float was counted
    in; it stays open across shifts), its balances (from the ledger), the fill and credit slips
    still pending (requested or issued, oldest first), the slips of the day by kind and state,
    each active table's count-room figures for the day (``cashier.reports.table_figures``: drop
    counted or, until the count, the recorded buy-ins; fills, credits, opener, closer, win) and
    the day's variance list (``variances``: its rows with ``kind_words`` and ``count``, the
    count in words with its local time, ``dashboard.alerts.variance_count``)."""
    day = day or current_gaming_day()
    cage = Cage.objects.filter(code="main").first()
    pending = Slip.objects.filter(state__in=[Slip.State.REQUESTED, Slip.State.ISSUED]).select_related("table")
    of_day = (
        Slip.objects.filter(gaming_day=day)
        .values("kind", "state")
        .annotate(n=Count("id"), amount_cents=Sum("amount_cents"))
        .order_by("kind", "state")
    )
    return {
        "gaming_day": day,
        "cage": {"state": cage.state if cage else "closed"},
        "shift": cage_shift(cage.code if cage else "main"),
        "cash_cents": store.balance(accounts.CAGE_CASH),
        "chips_cents": store.balance(accounts.CAGE_CHIPS),
        "pending": [
            {
                "kind": slip.kind,
                "serial": slip.serial,
                "table": slip.table.code,
                "state": slip.state,
                "amount_cents": slip.amount_cents,
                "requested_by": slip.requested_by,
                "issued_by": slip.issued_by,
                "runner": slip.runner,
            }
            for slip in pending.order_by("created_at", "id")
        ],
        "slips_of_day": list(of_day),
        "tables": [
            _cage_row(t.code, table_figures(t.code, day, day), counted=live_count(t.code, day) is not None)
            for t in tables_active(day, day)
        ],
        "variances": [
            row | {"kind_words": row["kind"].replace("_", " "), "count": checks.variance_count(row)}
            for row in map(_with_local_time, variance_report(day)["rows"])
        ],
    }

"""What the floor's cards and a table's page show of one table: its limits and betting options,
its edge and theoretical win (from the rule set and the day's statistics), its refusals, payouts
and count-room figures, each in a person's words. Amounts are integer cents, times UTC.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from zoneinfo import ZoneInfo

from django.conf import settings
from django.urls import NoReverseMatch, reverse

from basis.errors import RuleError
from basis.money import currency, format_amount
from cashier.reports import variance_report
from games.models import BetRefusal, Table
from games.rules.house_edges import house_edge
from games.rules.stud_table import ClassicStudTableRules
from ledger import projections
from ledger.models import TableDayStats

from . import alerts as checks
from .play import readable


def hidden_aware_line(event_type: str, data: dict) -> str:
    """One readable line for an event (``dashboard.play.readable``, the audit summaries' words),
    a face-down card without its value."""
    return readable(event_type, data)


LAST_COUPS = 10
LAST_NUMBERS = 20
LAST_REFUSALS = 50


def pct(numerator: int | Fraction, denominator: int) -> str | None:
    """``numerator / denominator`` as a percentage with 2 decimals; ``None`` without a denominator."""
    if not denominator:
        return None
    return f"{float(Fraction(numerator) * 100 / denominator):.2f}"


def projection_lag() -> dict:
    """``{"projections": [{"projection", "checkpoint", "head", "lag"}], "max_lag"}`` (positions)."""
    rows = projections.lag()
    return {"projections": rows, "max_lag": max((r["lag"] for r in rows), default=0)}


def limits(table: Table) -> dict:
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
    if game == Table.Game.ENGLISH_ROULETTE and rules.get("finales_a_cheval_7_10_8_11_9_12") is True:
        options.append("finales à cheval 7-10, 8-11, 9-12 too")
    return options


def theory(game: str, rules: dict, stats: TableDayStats | None, ante_staked_cents: int) -> tuple[Fraction | None, str]:
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


def whole_cents(value: Fraction) -> int:
    """Exact cents to whole cents, a half cent rounded up (as the API rounds theoretical win)."""
    return math.floor(value + Fraction(1, 2))


def _pct_text(edge: Fraction) -> str:
    return f"{float(edge * 100):.2f} %"


def edge(game: str, rules: dict) -> dict:
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


def refusal(row: dict) -> dict:
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


def events_of_day(day: date) -> dict:
    """What the floor reads once for every table: the day's variance list
    (``cashier.reports.variance_report`` rows) and its refused bets (``games.BetRefusal``, kept
    outside the ledger: ``{table code: [refusal, oldest first]}``, see ``refusal``)."""
    refused: dict[str, list[dict]] = {}
    rows = BetRefusal.objects.filter(gaming_day=day).order_by("created_at", "id").values(*REFUSAL_FIELDS)
    for row in rows:
        refused.setdefault(row["table_code"], []).append(refusal(row))
    return {"variances": [with_local_time(row) for row in variance_report(day)["rows"]], "refused": refused}


def payout(payout: dict) -> dict:
    """A large payout as its alert says it: when, in the casino's zone (``"14:03 CET"``), and a
    link to its coup's audit trail (none for a decision outside a coup)."""
    at = payout.get("at")
    local = at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%H:%M %Z") if at else ""
    try:
        link = reverse("dashboard:coup-audit", args=[payout.get("round")])
    except NoReverseMatch:  # no round, or not an id: no page to link
        link = ""
    return payout | {"local_time": local, "link": link}


def with_local_time(row: dict) -> dict:
    """A variance row with ``local_time``: its count's moment (``occurred_at``, ISO 8601 UTC) in
    the casino's zone, ``"14:03 CET"``, as the floor's alert says it."""
    moment = datetime.fromisoformat(row["occurred_at"]).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    return row | {"local_time": moment.strftime("%H:%M %Z")}


def count_room(figures: dict) -> dict:
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

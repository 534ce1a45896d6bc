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
from games.catalog import spec
from games.catalog.classic_stud import pct_figure, rake_pct
from games.models import BetRefusal, Table
from games.protection import day_fluctuations
from games.services.investigations import investigations
from games.theory import house_edge
from ledger import projections
from ledger.models import TableDayStats

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
    kinds = spec(table.game).kinds_of_limits(rules)
    return {
        "min_cents": kinds[0]["min_cents"],
        "max_cents": kinds[0]["max_cents"],
        "kinds": kinds,
        "options": _betting_options(table.game, rules),
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
    own = spec(game).table_options
    return options + (own(rules) if own else [])


def theory(game: str, rules: dict, stats: TableDayStats | None, ante_staked_cents: int) -> tuple[Fraction | None, str]:
    """``(theoretical win in exact cents or None, where the edge comes from)``: the engines'
    edges on the day's bets (Σ stake × edge, which the table statistics keep beside the handle
    and the win); else the edge of the table's rule set on the base that edge is relative to
    (``games.rules.house_edges``): the handle, but the antes at Caribbean stud, whose edge is
    per ante; for classic stud, the rake (players play each other)."""
    handle = stats.handle_cents if stats else 0
    recorded = Fraction(stats.theoretical_win) if stats else Fraction(0)
    on = spec(game).theory_on
    if recorded > 0 and on == "rake":
        return recorded, "the rake taken, hand by hand (players play each other)"
    if recorded > 0:
        return recorded, "the engines' house edge on each bet"
    if on == "rake":
        rake = rake_pct(rules)
        return rake / 100 * handle, f"the house's rake, {pct_figure(rake)} % of each pot (players play each other)"
    edge = _rule_set_edge(game, rules)
    if edge is None:
        return None, ""
    if on == "antes":
        return Fraction(edge[0]) * ante_staked_cents, f"{edge[1]}; on the antes staked"
    return Fraction(edge[0]) * handle, edge[1]


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
    game_spec = spec(game)
    if game_spec.edge_words is not None:
        return game_spec.edge_words(rules)
    edge = _rule_set_edge(game, rules)
    if edge is None:
        return {"short": "—", "source": ""}
    # Exact for every game since Caribbean stud is enumerated; "simulated" if a basis says so.
    tag = "simulated" if edge[1].startswith("simulation") else "exact"
    short = _pct_text(Fraction(edge[0])) + game_spec.edge_per
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
    (``cashier.reports.variance_report`` rows), its refused bets (``games.BetRefusal``, kept
    outside the ledger: ``{table code: [refusal, oldest first]}``, see ``refusal``), the tables'
    and patrons' fluctuations (``games.protection.day_fluctuations``) and the investigations of
    the day still open (``games.services.investigations``)."""
    refused: dict[str, list[dict]] = {}
    rows = BetRefusal.objects.filter(gaming_day=day).order_by("created_at", "id").values(*REFUSAL_FIELDS)
    for row in rows:
        refused.setdefault(row["table_code"], []).append(refusal(row))
    return {
        "variances": [with_local_time(row) for row in variance_report(day)["rows"]],
        "refused": refused,
        "fluctuations": day_fluctuations(day),
        "investigations": investigations(state="open", gaming_day=day),
    }


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

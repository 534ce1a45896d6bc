"""The pit boss's alerts, as pure functions over plain figures (no Django, no clock).

Each check takes what the selectors read (cents, counts, states) and returns ``Alert`` records;
``dashboard.floor_cards`` gathers the figures, the templates show the records. Thresholds are
module constants so a casino can tune them in one place.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from basis.errors import refusal_line
from basis.money import format_cents
from basis.refusals import REFUSAL_KINDS

# A table's win on its handle drifts from the theoretical edge by chance: at black jack the
# standard deviation of one hand is about 1.15 stakes, so over n equal bets the win on handle
# wanders by about 115/√n points. Below this handle (cents; some 400 bets of 25 EUR, ±6 points)
# the sample is too small for a 10-point gap to mean much.
HOLD_MIN_HANDLE_CENTS = 1_000_000
# How far (percentage points of handle) the actual win may sit from theory before we alert.
HOLD_TOLERANCE_POINTS = Fraction(10)
# One payout (winnings, stake excluded) at or above this is worth a look (cents).
LARGE_PAYOUT_CENTS = 100_000
# A shoe within this many cards of its cut card is "near the cut".
CUT_CARD_WARNING_CARDS = 20


@dataclass(frozen=True)
class Alert:
    """One line on the floor: ``level`` is ``"warning"`` or ``"info"``; ``kind`` a stable slug;
    ``link`` the URL of a page that tells more (the coup's audit trail), or empty."""

    table: str
    kind: str
    level: str
    message: str
    link: str = ""
    link_text: str = "audit trail"


def eur(cents: int) -> str:
    """Cents as ``1,234.56 EUR`` with CASINO_CURRENCY (negative with a leading minus)."""
    return format_cents(cents)


def hold_alert(table: str, *, win_cents: int, handle_cents: int, theoretical_win: Fraction | None) -> Alert | None:
    """Win on handle more than ``HOLD_TOLERANCE_POINTS`` from the theoretical edge (both in % of
    handle), once the handle reaches ``HOLD_MIN_HANDLE_CENTS``. The floor no longer uses this
    fixed tolerance: ``fluctuation_alert`` judges the day in standard deviations of its bets'
    exact variance (docs/game_protection.md). ``theoretical_win`` is the exact
    Σ stake × house edge (cents) the engines recorded; ``None`` (unknown) never alerts."""
    if theoretical_win is None or handle_cents < HOLD_MIN_HANDLE_CENTS:
        return None
    actual = Fraction(win_cents * 100, handle_cents)
    theory = theoretical_win * 100 / handle_cents
    if abs(actual - theory) < HOLD_TOLERANCE_POINTS:
        return None
    return Alert(
        table,
        "hold",
        "warning",
        f"win is {float(actual):.1f}% of handle against {float(theory):.1f}% in theory",
    )


def z_words(z: float | None) -> str:
    """``+3.41 SD`` (the house won more than theory), ``−3.41 SD`` (less), ``—`` unknown."""
    if z is None:
        return "—"
    return f"{'+' if z >= 0 else '−'}{abs(z):.2f} SD"


def fluctuation_alert(
    table: str, row: dict | None, *, limit: Fraction, link: str = "", open_case: bool = False
) -> Alert | None:
    """A table's or a patron's day beyond the house's confidence (``games.protection`` rows:
    ``{"table"`` or ``"patron", "alarm", "z", "win_cents", "theoretical_win", "bets"}``): the
    house's win against its theory in standard deviations of the bets' exact variance. ``link``:
    the investigation (``open_case``: one is open) or the page to open one."""
    if not row or not row.get("alarm"):
        return None
    who = f"patron {row['patron']}: " if "patron" in row else ""
    theory = row["theoretical_win"]
    return Alert(
        table,
        "fluctuation",
        "warning",
        f"{who}house win {eur(row['win_cents'])} against {eur(round(theory))} in theory over {row['bets']} bets: "
        f"{z_words(row['z'])}, beyond ±{float(limit):g} SD of the bets' exact variance",
        link,
        "investigation open" if open_case else "open an investigation",
    )


def payout_alerts(table: str, payouts: list[dict]) -> list[Alert]:
    """``payouts``: ``[{"patron", "won_cents", "local_time"?, "link"?}]`` of the gaming day
    (``local_time`` when it was paid in the casino's zone, ``"14:03 CET"``; ``link`` its coup's
    audit trail); one alert per payout whose winnings reach ``LARGE_PAYOUT_CENTS``."""
    return [
        Alert(
            table,
            "payout",
            "warning",
            f"{p['patron']} won {eur(p['won_cents'])} in one payout"
            + (f" at {p['local_time']}" if p.get("local_time") else ""),
            p.get("link") or "",
        )
        for p in payouts
        if p["won_cents"] >= LARGE_PAYOUT_CENTS
    ]


def cut_card_alert(table: str, *, drawn: int, cut_position: int, state: str) -> Alert | None:
    """A shoe in play with ``cut_position − drawn`` ≤ ``CUT_CARD_WARNING_CARDS`` (cards), or
    already exhausted (the cut card came out: the coup finishes, then a new shoe)."""
    if state == "exhausted":
        return Alert(table, "cut_card", "warning", "the cut card is out: a new shoe after this coup")
    if state != "in_play" or cut_position <= 0:
        return None
    left = cut_position - drawn
    if left > CUT_CARD_WARNING_CARDS:
        return None
    return Alert(table, "cut_card", "info", f"{max(left, 0)} cards to the cut card")


def outstanding_alerts(table: str, *, colour_chips: int, prison_bets: int) -> list[Alert]:
    """Colour chip stacks not changed back and bets in prison: the table cannot close until
    both are zero (DESIGN.md §State machines: close needs colour chips back, prison resolved)."""
    alerts = []
    if colour_chips:
        alerts.append(
            Alert(
                table, "colour_chips", "info", f"{colour_chips} colour stack(s) outstanding: change back before close"
            )
        )
    if prison_bets:
        alerts.append(Alert(table, "prison", "info", f"{prison_bets} bet(s) in prison: resolve before close"))
    return alerts


def refused_alert(table: str, refusals: list[dict]) -> Alert | None:
    """Bets refused at ``table`` over a limit during the gaming day: ``refusals`` are the day's
    ``games.BetRefusal`` rows of the table, oldest first (``[{"kind", "patron", "stake_cents",
    "message"}]``, cents). One alert: how many, by kind, and the last one's patron, stake and
    reason. A warning when one of them is over a patron's own self-limit (responsible gaming:
    someone is trying to bet past the limit he set himself), information otherwise (a table
    limit). ``None`` without a refusal."""
    if not refusals:
        return None
    counts = Counter(r["kind"] for r in refusals)
    order = list(REFUSAL_KINDS)
    by_kind = ", ".join(
        f"{n} {REFUSAL_KINDS.get(kind, kind)}"
        for kind, n in sorted(counts.items(), key=lambda item: order.index(item[0]) if item[0] in order else 99)
    )
    last = refusals[-1]
    total = len(refusals)
    return Alert(
        table,
        "refused",
        "warning" if "self_limit" in counts else "info",
        f"{total} bet{'s' if total != 1 else ''} refused today ({by_kind}); "
        f"last: {last.get('patron') or 'patron not known'}, {eur(last['stake_cents'])}, "
        f"{refusal_line(REFUSAL_KINDS.get(last['kind'], last['kind']), last['message'])}",
    )


# What a variance's count was, by the variance list's kind: "opener variance of ...: table
# opened at 14:03 CET by pit2", where the ledger's position would tell a pit boss nothing.
VARIANCE_COUNTS = {
    "drop": "drop box counted",
    "opener": "table opened",
    "closer": "table closed",
    "cage_shift": "cage shift counted",
    "cage_handover": "cage handed over",
}


def variance_alerts(rows: list[dict]) -> list[Alert]:
    """Count variances (``cashier.reports.variance_report`` rows: ``{"kind", "subject", "event",
    "actor", "variance_cents", "investigate"}``, plus ``local_time``: when the count was made, in
    the casino's zone, ``"14:03 CET"``): a warning when the variance reaches the casino's
    investigation threshold, information otherwise; ``subject`` is the table (or the cage).
    The message says what was counted, when and by whom, never the ledger's position."""
    return [
        Alert(
            row["subject"],
            "variance",
            "warning" if row.get("investigate") else "info",
            f"{row['kind'].replace('_', ' ')} variance of {eur(row['variance_cents'])}: {variance_count(row)}",
        )
        for row in rows
        if row.get("variance_cents")
    ]


def variance_count(row: dict) -> str:
    """The count a variance row comes from, in words: ``table opened at 14:03 CET by pit2``
    (its time and actor left out when the row has none)."""
    kind = str(row.get("kind", ""))
    what = VARIANCE_COUNTS.get(kind, f"{kind.replace('_', ' ')} counted")
    when = f" at {row['local_time']}" if row.get("local_time") else ""
    who = f" by {row['actor']}" if row.get("actor") else ""
    return f"{what}{when}{who}"


def export_alerts(rows: list[dict]) -> list[Alert]:
    """Closed gaming days whose scheduled seal and export failed at its latest attempt
    (``ledger.scheduled_export.failed_exports`` rows: ``{"gaming_day": date, "file", "error",
    "attempted"}``, ``attempted`` already in the casino's local time with its zone): a warning
    each, until a later run succeeds. The regulator's copy of that day is missing meanwhile."""
    return [
        Alert(
            "Regulatory export",
            "export",
            "warning",
            f"gaming day {row['gaming_day'].isoformat()} not exported to {row['file']}: "
            f"{row['error']} (last try {row['attempted']}; retried at each scheduled run)",
        )
        for row in rows
    ]

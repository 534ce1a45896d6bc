"""The pit boss's figures of a table (or of a group of tables): one drop, one win, one hold %,
one theoretical win and one edge, each with how it is computed (SHIFTS.md §Words).

- Drop: cash and markers in the drop box — the count room's count once the box is counted,
  until then the buy-ins recorded at the table.
- Win = drop + credits − fills + closer − opener − colour chips still out (the daily report's
  figure, ``cashier.reports``); until the table closes the tray by the book stands in for the
  closer.
- Hold % = win ÷ drop, the daily report's figure; on a drop under ``HOLD_MIN_DROP_CENTS`` it
  carries a caution (a few buy-ins swing it), never a different value or none.
- Theoretical win = Σ stake × the game's exact edge on the day's decided bets.
- Edge (effective) = theoretical win ÷ handle (everything staked on decided bets).
"""

from __future__ import annotations

from cashier.reports import hold_pct

from .alerts import eur

# Below this drop (cents) a hold % says little: a few buy-ins swing it by hundreds of points.
HOLD_MIN_DROP_CENTS = 100_000

HOW = {
    "drop": "Cash and markers in the drop box: the count room's count once the box is counted; "
    "until then the buy-ins recorded at the table",
    "win": "Drop + credits − fills + closer − opener − colour chips still out; until the table "
    "closes, the tray by the book stands in for the closer",
    "hold": f"Win ÷ drop, as the daily report; on a drop under {eur(HOLD_MIN_DROP_CENTS)} it says little",
    "handle": "Everything staked on the bets decided today",
    "theoretical_win": "Σ stake × the game's exact house edge on the stakes that edge is per (black jack: "
    "the initial bets, doubles and splits inside it; Caribbean stud: the antes), insurance and even money at "
    "their own edge, on the bets decided today",
    "edge": "Theoretical win ÷ handle: the house's edge on what was actually played",
}


def hold(win_cents: int, drop_cents: int) -> dict:
    """``{"pct": "12.34" | None, "reason": None | words}``: the hold (the daily report's, so one
    figure on every page) with a caution on a small drop, or why there is none (no drop)."""
    if drop_cents <= 0:
        return {"pct": None, "reason": "no drop yet"}
    caution = f"drop under {eur(HOLD_MIN_DROP_CENTS)}: says little" if drop_cents < HOLD_MIN_DROP_CENTS else None
    return {"pct": hold_pct(win_cents, drop_cents), "reason": caution}


def edge_pct(theoretical_win_cents: int | None, handle_cents: int) -> dict:
    """``{"pct": "2.70" | None, "reason"}``: theoretical win ÷ handle, or why it is not shown."""
    if theoretical_win_cents is None:
        return {"pct": None, "reason": "no edge known for this rule set"}
    if handle_cents <= 0:
        return {"pct": None, "reason": "no bet decided yet"}
    return {"pct": hold_pct(theoretical_win_cents, handle_cents), "reason": None}


def figures(
    *, drop_cents: int, win_cents: int, handle_cents: int, theoretical_win_cents: int | None, final: bool
) -> dict:
    """The one set of figures: ``{"drop_cents", "win_cents", "hold", "handle_cents",
    "theoretical_win_cents", "edge", "final"}`` (``final``: the drop counted and the table
    closed; otherwise the win is still moving)."""
    return {
        "drop_cents": drop_cents,
        "win_cents": win_cents,
        "hold": hold(win_cents, drop_cents),
        "handle_cents": handle_cents,
        "theoretical_win_cents": theoretical_win_cents,
        "edge": edge_pct(theoretical_win_cents, handle_cents),
        "final": final,
    }

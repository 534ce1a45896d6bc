"""How a coup in play reads on the table view: one short line per event of the round.

Pure functions over event data (no Django): cards dealt, decisions, the dealer's hand and the
result, for every game the engines record. Anything without a line of its own falls back to
the audit trail's summary (``ledger.projections.audit.summary``), passed in as ``fallback``.
``BetResolved`` repeats a ``BetSettled`` line for the bet's model row, so it shows nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from .alerts import eur

HIDDEN = frozenset({"BetResolved"})


def _card(d: dict) -> str:
    where = f"box {d['box']}" if d.get("box") is not None else ("dealer" if "box" in d else "")
    face = f", face {d['face']}" if d.get("face") else ""
    total = f" (total {d['total']}{' soft' if d.get('soft') else ''})" if isinstance(d.get("total"), int) else ""
    return f"card {d.get('card', '?')}" + (f" to {where}" if where else "") + face + total


def _decision(d: dict) -> str:
    added = d.get("stake_added_cents")
    extra = f", adds {eur(added)}" if isinstance(added, int) and added else ""
    return f"box {d.get('box')} ({d.get('bettor', d.get('patron', '?'))}): {d.get('action', '?')}{extra}"


def _box_decided(d: dict) -> str:
    raised = d.get("raise_cents")
    extra = f" {eur(raised)}" if isinstance(raised, int) and raised else ""
    return f"box {d.get('box')} ({d.get('patron', '?')}): {d.get('action', '?')}{extra}"


def _dealer_played(d: dict) -> str:
    cards = " ".join(d.get("cards") or [])
    verdict = "black jack" if d.get("blackjack") else ("busts" if d.get("busted") else f"stands on {d.get('total')}")
    return f"dealer {cards}: {verdict}".replace("  ", " ")


def _coup_result(d: dict) -> str:
    if "winner" in d:  # punto banco
        natural = ", natural" if d.get("natural") else ""
        return (
            f"player {' '.join(d.get('player_cards', []))} = {d.get('player_total')}, "
            f"banker {' '.join(d.get('banker_cards', []))} = {d.get('banker_total')}{natural}: {d['winner']} wins"
        )
    if "noir_points" in d:  # trente-et-quarante
        call = (d.get("announcement") or {}).get("text") if isinstance(d.get("announcement"), dict) else None
        said = f'; the dealer calls "{call}"' if call else ""
        return (
            f"noir {d['noir_points']}, rouge {d.get('rouge_points')}: {d.get('result')} wins, "
            f"{d.get('couleur_inverse', '?')} (first card {d.get('first_card_colour', '?')}){said}"
        )
    return ""


LINES: dict[str, Callable[[dict], str]] = {
    "DealingStarted": lambda d: "dealing",
    "CardDealt": _card,
    "CardsBurned": lambda d: f"{d.get('count', 0)} card(s) burned",
    "PlayerDecided": _decision,
    "InsuranceDecided": _decision,
    "EvenMoneyDecided": _decision,
    "HandClosed": lambda d: (
        f"box {d.get('box')} hand {d.get('hand_index', 0)}: {d.get('reason', '?')} at {d.get('total')}"
    ),
    "DealerPlayed": _dealer_played,
    "DealerShows": lambda d: f"dealer shows {d.get('card', '?')}",
    "BoxDecided": _box_decided,
    "DealerRevealed": lambda d: (
        f"dealer reveals {' '.join(d.get('cards') or [])}: {d.get('category', '?')}"
        + ("" if d.get("qualifies") else ", does not qualify")
    ),
    "CoupResult": _coup_result,
}


def play_line(event_type: str, data: dict, fallback: Callable[[str, dict], str]) -> str | None:
    """The line for one event of a coup, ``None`` for an event that shows nothing."""
    if event_type in HIDDEN:
        return None
    make = LINES.get(event_type)
    if make is not None:
        try:
            line = make(data)
        except (KeyError, TypeError, AttributeError):
            line = ""
        if line:
            return line
    return fallback(event_type, data)

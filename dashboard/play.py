"""How a coup in play reads on the table view: one short line per event of the round.

Pure functions over event data (no Django): cards dealt, decisions, the dealer's hand and the
result, for every game the engines record. Anything without a line of its own falls back to
the audit trail's summary (``ledger.projections.audit.summary``), passed in as ``fallback``.
``BetResolved`` repeats a ``BetSettled`` line for the bet's model row, so it shows nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .alerts import eur
from .coups import card_face, card_text, cards_text, roulette_colour

HIDDEN = frozenset({"BetResolved"})


def _card(d: dict) -> str:
    target = d.get("to") if isinstance(d.get("to"), dict) else d  # black jack names a target
    if target.get("kind") == "dealer":
        where = "dealer"
    else:
        where = f"box {target['box']}" if target.get("box") is not None else ("dealer" if "box" in target else "")
    face = f", face {d['face']}" if d.get("face") else ""
    total = f" (total {d['total']}{' soft' if d.get('soft') else ''})" if isinstance(d.get("total"), int) else ""
    return f"card {card_text(d.get('card', '?'))}" + (f" to {where}" if where else "") + face + total


def _card_burnt(d: dict) -> str:
    """A Caribbean card exposed by mistake (sheet 001): burnt, and the next card of the deck
    takes its place, as ``card burnt: 9♦ from box 1 (exposed by mistake), replaced``."""
    whose = "dealer" if d.get("box") is None else f"box {d['box']}"
    where = f"off the deck for {whose}" if d.get("from") == "deck" else f"from {whose}"
    reason = f" ({d['reason']})" if d.get("reason") else ""
    return f"card burnt: {card_text(d['card'])} {where}{reason}, replaced"


def _decision(d: dict) -> str:
    added = d.get("stake_added_cents")
    extra = f", adds {eur(added)}" if isinstance(added, int) and added else ""
    return f"box {d.get('box')} ({d.get('bettor', d.get('patron', '?'))}): {d.get('action', '?')}{extra}"


def _box_decided(d: dict) -> str:
    raised = d.get("raise_cents")
    extra = f" {eur(raised)}" if isinstance(raised, int) and raised else ""
    return f"box {d.get('box')} ({d.get('patron', '?')}): {d.get('action', '?')}{extra}"


def _dealer_played(d: dict) -> str:
    cards = cards_text(d.get("cards"))
    verdict = "black jack" if d.get("blackjack") else ("busts" if d.get("busted") else f"stands on {d.get('total')}")
    return f"dealer {cards}: {verdict}".replace("  ", " ")


def _row(cards, points) -> str:
    """A trente-et-quarante row: ``6♠ K♥ 10♦ 4♣ = 30``, or the points alone when its cards are not given."""
    shown = cards_text(cards)
    return f"{shown} = {points}" if shown else str(points)


def _coup_result(d: dict) -> str:
    if "winner" in d:  # punto banco
        natural = ", natural" if d.get("natural") else ""
        return (
            f"player {cards_text(d.get('player_cards'))} = {d.get('player_total')}, "
            f"banker {cards_text(d.get('banker_cards'))} = {d.get('banker_total')}{natural}: {d['winner']} wins"
        )
    if "noir_points" in d:  # trente-et-quarante
        call = (d.get("announcement") or {}).get("text") if isinstance(d.get("announcement"), dict) else None
        said = f'; the dealer calls "{call}"' if call else ""
        return (
            f"noir {_row(d.get('noir_row'), d['noir_points'])}, "
            f"rouge {_row(d.get('rouge_row'), d.get('rouge_points'))}: "
            + (
                f"{d.get('result')} wins, {d['couleur_inverse']} (first card {d.get('first_card_colour', '?')})"
                if d.get("couleur_inverse")
                else {"apres": "après, the bets go to prison", "refait": "refait, the coup is void"}.get(
                    d.get("result"), str(d.get("result"))
                )
            )
            + said
        )
    return ""


LINES: dict[str, Callable[[dict], str]] = {
    "DealingStarted": lambda d: "dealing",
    "CardDealt": _card,
    "CardsBurned": lambda d: f"{d.get('count', 0)} card(s) burned",
    "CardBurnt": _card_burnt,
    "PlayerDecided": _decision,
    "InsuranceDecided": _decision,
    "EvenMoneyDecided": _decision,
    "HandClosed": lambda d: (
        f"box {d.get('box')} hand {d.get('hand_index', 0)}: {d.get('reason', '?')} at {d.get('total')}"
    ),
    "DealerPlayed": _dealer_played,
    "DealerShows": lambda d: f"dealer shows {card_text(d.get('card', '?'))}",
    "BoxDecided": _box_decided,
    "DealerRevealed": lambda d: (
        f"dealer reveals {cards_text(d.get('cards'))}: {d.get('category', '?')}"
        + ("" if d.get("qualifies") else ", does not qualify")
    ),
    "CoupResult": _coup_result,
    "ResultRecorded": lambda d: (
        f"the ball lands on {d['number']} {roulette_colour(d['number'])}" if isinstance(d.get("number"), int) else ""
    ),
    "BetImprisoned": lambda d: (
        f"{d.get('patron', '?')}'s {eur(d['stake_cents'])} goes to prison (level {d.get('level', 1)})"
    ),
}

# Acronyms an event type spells as a word (``AmlTransactionLogged``): read in capitals.
ACRONYMS = {"aml": "AML"}


def event_words(event_type: str) -> str:
    """An event type in words: ``"BetSettled"`` → ``"bet settled"``, ``"AmlTransactionLogged"``
    → ``"AML transaction logged"``."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", str(event_type)).lower().split(" ")
    return " ".join(ACRONYMS.get(word, word) for word in words)


# Code values of event data in words, by data key: the AML channel of a cash transaction
# (``patrons.visits.CASH_EVENTS``), its direction, and the basis of the AML totals.
AML_CHANNELS = {
    "cage_purchase": "chips bought at the cage",
    "table_buy_in": "cash buy-in at a table",
    "cage_redemption": "chips redeemed at the cage",
}
CODE_WORDS: dict[str, dict[str, str]] = {
    "channel": AML_CHANNELS,
    "direction": {"in": "cash in", "out": "cash out"},
    "basis": {"gaming_day": "per gaming day", "visit": "per visit"},
}


def code_words(key: str, value: object) -> str | None:
    """A known code value of data ``key`` in words (``channel`` ``cage_purchase`` → ``chips
    bought at the cage``), ``None`` for a value without words."""
    return CODE_WORDS.get(key, {}).get(value) if isinstance(value, str) else None


# Keys that are ids or internal plumbing: the audit line leaves them out (the row names the
# event's stream and hash; the API gives the full data).
QUIET_KEYS = frozenset({"table", "round", "bet", "shoe", "call", "lines", "announce_group", "position", "to", "index"})


def _value(key: str, value: object) -> str | None:
    if value is None or value == "" or isinstance(value, dict):
        return None
    if (said := code_words(key, value)) is not None:
        return said
    if key.endswith("_cents") and isinstance(value, int) and not isinstance(value, bool):
        return eur(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        if value and all(card_face(v) for v in value):
            return cards_text(value)
        return ", ".join(str(v) for v in value if not isinstance(v, dict)) or None
    return card_text(value) if card_face(value) else str(value)


def readable(event_type: str, data: dict, summary: Callable[[str, dict], str] | None = None) -> str:
    """One line for any event: the audit trail's own summary where it has one for the type
    (``summary``, ``ledger.projections.audit.summary``), else the event's type in words and its
    data as ``name value`` pairs (amounts in EUR, cards as ``10♥``), ids left out."""
    if summary is not None:
        line = summary(event_type, data)
        if not line.startswith(f"{event_type} ") and line != event_type:
            return line
    words = event_words(event_type)
    parts = []
    for key, value in data.items():
        if key in QUIET_KEYS:
            continue
        shown = _value(key, value)
        if shown is not None:
            parts.append(f"{key.removesuffix('_cents').replace('_', ' ')} {shown}")
    return words + (": " + ", ".join(parts) if parts else "")


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

"""Bets in words, one place for every screen and line that names one: the table page, the coup
in play and the audit trail (``ledger.projections.audit.summary``). Pure (no Django), so the
ledger, below ``games`` in the layers, may use it too."""

from __future__ import annotations


def bet_spot(position: object) -> str:
    """A bet's place on the layout, in words: ``plein 17``, ``cheval 0-3``, ``rouge (even
    chance)``, ``banker``, ``box 2``, ``box 3 (behind)``, ``seat 2``. Odd data still reads: a
    position that is not an object as it is, an object of unknown keys as ``key=value`` pairs,
    an empty one as ``?``."""
    if not isinstance(position, dict):  # written by another writer, or a future schema
        return str(position)
    if "game" in position:  # a card game's position: its bet, box or seat
        if "bet" in position:
            return str(position["bet"])
        if "box" in position:
            return f"box {position['box']}" + ("" if position.get("seated", True) else " (behind)")
        if "seat" in position:
            return f"seat {position['seat']}"
    kind = position.get("type") or position.get("bet") or ""
    chance = position.get("chance")
    if kind == "chance_simple":  # the even chances are named by their chance
        return f"{chance} (even chance)" if chance else "even chance"
    spot = chance if chance is not None else position.get("which")
    if spot is None and position.get("numbers"):
        numbers = position["numbers"]
        spot = "-".join(map(str, numbers)) if isinstance(numbers, list) else numbers
    if spot is None and position.get("box") is not None:
        spot = f"box {position['box']}"
    text = f"{kind} {spot if spot is not None else ''}".strip()
    return text or " ".join(f"{key}={value}" for key, value in position.items()) or "?"


def chips_words(chips: object) -> str:
    """The chips a bet is made of: ``value chips``, ``colour chips``, ``1 chip``, ``3 chips``."""
    if type(chips) is int and chips == 1:
        return "1 chip"
    return f"{chips} chips"

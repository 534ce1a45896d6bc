"""Bets in words, one place for every screen and line that names one: the table page, the coup
in play and the audit trail (``games.rules.event_words.line``). Pure (no Django), so the
ledger, below ``games`` in the layers, may use it too."""

from __future__ import annotations

from basis.errors import RuleError

from .roulette import ANNOUNCED, BetType, make_bet

# Column and dozen bets are named by ``which``, counted from 0 (``roulette.make_bet``); a pit boss
# counts from the first: "first column", "second dozen".
_ORDINALS = ("first", "second", "third")
_ROWS = {
    BetType.COLONNE: ("column", False),
    BetType.DOUZAINE: ("dozen", False),
    BetType.COLONNE_A_CHEVAL: ("column", True),
    BetType.DOUZAINE_A_CHEVAL: ("dozen", True),
}


def _row_bet(kind: str, which: object) -> str | None:
    """A column, a dozen or an à cheval pair of them in a pit boss's words, with the numbers it
    covers as the rules compute them: ``first column (1, 4 … 34)``, ``second dozen (13-24)``,
    ``second and third dozens (13-36)``, ``first and second columns``. None when ``kind`` is not
    one of these or ``which`` is not one of its places."""
    if kind not in _ROWS:
        return None
    try:
        numbers = make_bet(kind, which=which).numbers
    except RuleError:  # a which the layout does not have: the caller shows it as it is
        return None
    noun, pair = _ROWS[BetType(kind)]
    if pair:
        names = f"{_ORDINALS[which]} and {_ORDINALS[which + 1]} {noun}s"
        # Two dozens side by side are one run; two columns are not, and 24 numbers do not list.
        return f"{names} ({numbers[0]}-{numbers[-1]})" if noun == "dozen" else names
    covers = f"{numbers[0]}-{numbers[-1]}" if noun == "dozen" else f"{numbers[0]}, {numbers[1]} … {numbers[-1]}"
    return f"{_ORDINALS[which]} {noun} ({covers})"


# The roulette bets as players say them (``roulette.BetType``); a card game's bet code reads
# with its underscores as spaces (``pair_plus`` → ``pair plus``).
BET_NAMES = {
    BetType.PLEIN: "plein",
    BetType.CHEVAL: "cheval",
    BetType.TRANSVERSALE: "transversale",
    BetType.CARRE: "carré",
    BetType.QUATRE_PREMIERS: "quatre premiers",
    BetType.SIXAIN: "sixain",
    BetType.COLONNE: "colonne",
    BetType.DOUZAINE: "douzaine",
    BetType.COLONNE_A_CHEVAL: "colonne à cheval",
    BetType.DOUZAINE_A_CHEVAL: "douzaine à cheval",
    BetType.CHANCE_SIMPLE: "even chance",
}


def bet_name(code: object) -> str:
    """A bet's code as players say it: ``quatre_premiers`` → ``quatre premiers``, ``carre`` →
    ``carré``, another code with its underscores as spaces."""
    return BET_NAMES.get(code, str(code).replace("_", " ")) if isinstance(code, str) else str(code)


def bet_spot(position: object) -> str:
    """A bet's place on the layout, in words: ``plein 17``, ``cheval 0-3``, ``rouge (even
    chance)``, ``first column (1, 4 … 34)``, ``second dozen (13-24)``, ``first and second dozens
    (1-24)``, ``banker``, ``box 2``, ``box 3 (behind)``, ``seat 2``. Odd data still reads: a
    position that is not an object as it is, an object of unknown keys as ``key=value`` pairs,
    an empty one as ``?``."""
    if not isinstance(position, dict):  # written by another writer, or a future schema
        return str(position)
    if "game" in position:  # a card game's position: its bet, box or seat
        if "bet" in position:
            return bet_name(position["bet"])
        if "box" in position:
            return f"box {position['box']}" + ("" if position.get("seated", True) else " (behind)")
        if "seat" in position:
            return f"seat {position['seat']}"
    kind = position.get("type") or position.get("bet") or ""
    chance = position.get("chance")
    if kind == "chance_simple":  # the even chances are named by their chance
        return f"{chance} (even chance)" if chance else "even chance"
    if isinstance(kind, str) and chance is None and (row := _row_bet(kind, position.get("which"))):
        return row
    spot = chance if chance is not None else position.get("which")
    if spot is None and position.get("numbers"):
        numbers = position["numbers"]
        spot = "-".join(map(str, numbers)) if isinstance(numbers, list) else numbers
    if spot is None and position.get("box") is not None:
        spot = f"box {position['box']}"
    text = f"{bet_name(kind) if kind else ''} {spot if spot is not None else ''}".strip()
    return text or " ".join(f"{key}={value}" for key, value in position.items()) or "?"


def chips_words(chips: object) -> str:
    """The chips a bet is made of: ``value chips``, ``colour chips``, ``1 chip``, ``3 chips``."""
    if type(chips) is int and chips == 1:
        return "1 chip"
    return f"{chips} chips"


# The announced bets as the croupier calls them (``roulette.ANNOUNCED``); the finales, figures
# and voisins of a number add theirs.
_ANNOUNCE_WORDS = {
    "voisins_du_zero": "voisins du zéro",
    "tiers_du_cylindre": "tiers du cylindre",
    "orphelins_a_cheval": "orphelins à cheval",
    "orphelins_en_plein": "orphelins en plein",
}


def announce_words(name: object, number: object = None) -> str:
    """An announced bet in words: ``finale_en_plein_0`` → ``finale en plein 0``,
    ``finale_a_cheval_0_3`` → ``finale à cheval 0-3``, ``figures_4`` → ``figure 4``, ``voisins``
    of 17 → ``voisins of 17`` (``number`` None: ``voisins of a number``); a name it does not know
    as it is."""
    if not isinstance(name, str):
        return str(name)
    if name in _ANNOUNCE_WORDS:
        return _ANNOUNCE_WORDS[name]
    if name == "voisins":
        return f"voisins of {number}" if type(number) is int else "voisins of a number"
    if name.startswith("finale_en_plein_"):
        return f"finale en plein {name.removeprefix('finale_en_plein_')}"
    if name.startswith("finale_a_cheval_"):
        return f"finale à cheval {name.removeprefix('finale_a_cheval_').replace('_', '-')}"
    if name.startswith("figures_"):
        return f"figure {name.removeprefix('figures_')}"
    return name


ANNOUNCE_WORDS = {name: announce_words(name) for name in ANNOUNCED}
"""Every announce name in words (``announce_words``; ``voisins`` without its number)."""

"""How a finished coup reads on the table page: the hands with their cards, totals and the winner,
for every game. Pure functions over the round's result and its events' data (no Django).

Each game's ``<game>_coup(result, events)`` (its spec's ``describe_coup``, ``games.catalog``);
``describe(make, result, events)`` runs one of them safely →
``{"hands": [{"who", "cards", "total", "won"}], "verdict"}`` where ``cards`` are card codes
(``"QH"``; the templates draw them as ``Q♥`` in colour), ``total`` a short text
(``"26, bust"``, ``"two pair"``), ``won`` True on the winning hand, and ``verdict`` one line
(``"Banker wins 6 to 2"``); roulette's coup is ``{"number", "colour"}`` instead of hands.
Events are ``(type, data)`` pairs of the round, oldest first.
"""

from __future__ import annotations

from collections.abc import Callable

from basis.errors import RuleError

from .blackjack import hand_value
from .event_words import card_text, roulette_colour


def _blackjack_total(cards: list[str]) -> str:
    try:
        total, soft = hand_value(cards)
    except RuleError:
        return ""
    if len(cards) == 2 and total == 21:
        return "black jack"
    if total > 21:
        return f"{total}, bust"
    return f"{'soft ' if soft else ''}{total}"


OUTCOME_WORDS = {
    "won": "wins",
    "blackjack": "black jack",
    "immediate": "wins (immediate payout)",
    "lost": "loses",
    "push": "push",
    "pushed": "push",
    "returned": "returned",
}
WINNING = frozenset({"won", "blackjack", "immediate"})


def blackjack_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    boxes: dict[tuple, list[str]] = {}
    dealer: list[str] = []
    outcomes: dict[tuple, str] = {}
    for kind, data in events:
        if kind == "CardDealt":
            target = data.get("to") if isinstance(data.get("to"), dict) else {}
            if target.get("kind") == "dealer":
                dealer.append(data.get("card"))
            elif target.get("box") is not None:
                boxes.setdefault((target["box"], target.get("hand_index") or 0), []).append(data.get("card"))
        elif kind == "PlayerDecided" and data.get("action") == "split" and data.get("new_hand_index") is not None:
            # A split moves the hand's second card to the new hand.
            hand = boxes.get((data.get("box"), data.get("hand_index") or 0), [])
            if len(hand) >= 2:
                boxes[(data.get("box"), data["new_hand_index"])] = [hand.pop()]
        elif kind == "BetSettled" and (data.get("position") or {}).get("seated", True):
            outcomes[(data.get("box"), data.get("hand_index") or 0)] = data.get("outcome", "")
    dealer = dealer or list(result.get("dealer") or [])
    dealer_total = _blackjack_total(dealer)
    hands = [{"who": "Dealer", "cards": dealer, "total": dealer_total, "won": False}]
    winners = []
    for (box, index), cards in sorted(boxes.items()):
        outcome = outcomes.get((box, index), "")
        label = f"Box {box}" + (f" hand {index + 1}" if index else "")
        won = outcome in WINNING
        winners += [label.lower()] if won else []
        hands.append(
            {
                "who": label,
                "cards": cards,
                "total": _blackjack_total(cards),
                "won": won,
                "outcome": OUTCOME_WORDS.get(outcome, outcome),
            }
        )
    dealer_says = "dealer busts" if "bust" in dealer_total else f"dealer {dealer_total or 'no hand'}"
    verdict = f"{dealer_says}; " + (
        f"{', '.join(winners)} win{'s' if len(winners) == 1 else ''}" if winners else "no box wins"
    )
    return {"hands": hands, "verdict": verdict[0].upper() + verdict[1:]}


def caribbean_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    boxes: dict[int, list[str]] = {}
    dealer: list[str] = []
    category, qualifies = "", None
    ranks: dict[int, str] = {}
    outcomes: dict[int, str] = {}
    folded: set[int] = set()
    burnt: list[str] = []
    for kind, data in events:
        if kind == "CardDealt":
            hand = dealer if data.get("box") is None else boxes.setdefault(data["box"], [])
            if "" in hand:  # the place of a card burnt from this hand (sheet 001)
                hand[hand.index("")] = data.get("card")
            else:
                hand.append(data.get("card"))
        elif kind == "CardBurnt":
            hand = dealer if data.get("box") is None else boxes.setdefault(data["box"], [])
            if data.get("card") in hand:
                hand[hand.index(data["card"])] = ""
            who = "the dealer" if data.get("box") is None else f"box {data.get('box')}"
            burnt.append(
                f"{card_text(data.get('card'))} ({'off the deck, for' if data.get('from') == 'deck' else 'from'} {who})"
            )
        elif kind == "DealerRevealed":
            category, qualifies = data.get("category", ""), data.get("qualifies")
            dealer = list(data.get("cards") or dealer)
        elif kind == "BoxDecided" and data.get("action") == "fold":
            folded.add(data.get("box"))
        elif kind == "BetSettled" and data.get("line", "ante") == "ante":
            ranks[data.get("box")] = data.get("hand", "")
            outcomes[data.get("box")] = data.get("outcome", "")
    dealer = dealer or list(result.get("dealer") or [])
    qualifies_text = "" if qualifies is None else (", qualifies" if qualifies else ", does not qualify")
    hands = [{"who": "Dealer", "cards": dealer, "total": f"{category}{qualifies_text}", "won": False}]
    winners = []
    for box, cards in sorted(boxes.items()):
        outcome = "folds" if box in folded else OUTCOME_WORDS.get(outcomes.get(box, ""), outcomes.get(box, ""))
        won = outcomes.get(box) == "won"
        winners += [f"box {box}"] if won else []
        hands.append({"who": f"Box {box}", "cards": cards, "total": ranks.get(box, ""), "won": won, "outcome": outcome})
    verdict = f"Dealer {category or 'hand'}{qualifies_text}; " + (
        ", ".join(winners) + " win" if winners else "no box wins"
    )
    if burnt:
        verdict += f"; burnt, exposed by mistake: {', '.join(burnt)}"
    return {"hands": hands, "verdict": verdict}


def classic_stud_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    pots = result.get("pots") or []
    winners = {w for pot in pots for w in (pot.get("winners") or [])}
    hands = [
        {
            "who": f"Seat {h.get('seat')} ({h.get('patron')})",
            "cards": list(h.get("cards") or []),
            "total": h.get("category", ""),
            "won": h.get("patron") in winners or h.get("seat") in winners,
        }
        for h in result.get("hands") or []
    ]
    named = ", ".join(str(w) for w in sorted(winners, key=str)) or "nobody"
    rake = result.get("rake_cents")
    verdict = f"Pot to {named}" + ("" if result.get("showdown", True) else " (no showdown: the others folded)")
    return {"hands": hands, "verdict": verdict, "rake_cents": rake if isinstance(rake, int) else None}


def baccarat_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    coup = next((d for k, d in events if k == "CoupResult"), None) or {}
    player = coup.get("player_cards") or result.get("player") or []
    banker = coup.get("banker_cards") or result.get("banker") or []
    winner = coup.get("winner") or result.get("winner") or ""
    p_total, b_total = coup.get("player_total"), coup.get("banker_total")
    natural = coup.get("natural")

    def total(value, cards) -> str:
        if value is None:
            return ""
        return f"{value}" + (", natural" if natural and len(cards) == 2 and value >= 8 else "")

    hands = [
        {"who": "Player", "cards": player, "total": total(p_total, player), "won": winner == "player"},
        {"who": "Banker", "cards": banker, "total": total(b_total, banker), "won": winner == "banker"},
    ]
    if winner == "tie":
        verdict = f"Tie at {p_total}" if p_total is not None else "Tie"
    elif winner:
        high, low = (b_total, p_total) if winner == "banker" else (p_total, b_total)
        verdict = f"{winner.capitalize()} wins" + (f" {high} to {low}" if high is not None else "")
        verdict += ", natural" if natural else ""
    else:
        verdict = ""
    return {"hands": hands, "verdict": verdict}


TQ_RESULTS = {
    "noir": "Noir wins",
    "rouge": "Rouge wins",
    "refait": "Refait: equal rows, the coup is void",
    "apres": "Après (31 each): the bets go to prison",
}


def trente_quarante_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    coup = next((d for k, d in events if k == "CoupResult"), None) or {}
    outcome = coup.get("result") or result.get("result") or ""
    noir_points = coup.get("noir_points", result.get("noir"))
    rouge_points = coup.get("rouge_points", result.get("rouge"))
    hands = [
        {
            "who": "Noir (first row)",
            "cards": coup.get("noir_row") or [],
            "total": _points(noir_points),
            "won": outcome == "noir",
        },
        {
            "who": "Rouge (second row)",
            "cards": coup.get("rouge_row") or [],
            "total": _points(rouge_points),
            "won": outcome == "rouge",
        },
    ]
    verdict = TQ_RESULTS.get(outcome, outcome)
    inverse = coup.get("couleur_inverse") or result.get("couleur_inverse")
    if inverse:
        verdict += f"; {inverse} wins"
        first = coup.get("first_card_colour")
        verdict += f" (first card {first})" if first else ""
    return {"hands": hands, "verdict": verdict}


def _points(value) -> str:
    return f"{value} points" if isinstance(value, int) else ""


def roulette_coup(result: dict, events: list[tuple[str, dict]]) -> dict:
    number = result.get("number")
    if not isinstance(number, int):
        return {"hands": [], "verdict": ""}
    colour = roulette_colour(number)
    return {"hands": [], "number": number, "colour": colour, "verdict": f"{number} {colour}"}


def describe(make: Callable[[dict, list], dict] | None, result: object, events: list[tuple[str, dict]]) -> dict:
    """The coup as the table page shows it (see the module's docstring); a coup without a
    result (voided, or still in play) has no hands and an empty verdict."""
    result = result if isinstance(result, dict) else {}
    events = [(kind, data) for kind, data in events if isinstance(data, dict)]
    if make is None or (not result and not events):
        return {"hands": [], "verdict": ""}
    try:
        return make(result, events)
    except (KeyError, TypeError, AttributeError, ValueError):
        return {"hands": [], "verdict": ""}

"""Display filters for the dashboard: money stays in integer cents until here."""

from django import template

from ..alerts import REFUSAL_KINDS
from ..alerts import eur as eur_text

register = template.Library()

# RULES.md §Roulette: the red numbers; 0 is green, the rest black.
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})


@register.filter
def eur(cents) -> str:
    """``123456`` → ``1,234.56 EUR``; ``None`` → an em dash."""
    return "—" if cents is None else eur_text(int(cents))


@register.filter
def refusal_kind(kind) -> str:
    """A refusal's limit in words: ``self_limit`` → ``self-limit``."""
    return REFUSAL_KINDS.get(kind, str(kind))


@register.filter
def sign_class(cents) -> str:
    """CSS class for a win figure: green when the house is up, red when down."""
    if not cents:
        return ""
    return "win-pos" if cents > 0 else "win-neg"


@register.filter
def roulette_colour(number) -> str:
    if number == 0:
        return "zero"
    return "red" if number in RED else "black"


@register.filter
def bet_spot(position) -> str:
    """A bet's place on the layout, in words: ``plein 17``, ``cheval 0-3``, ``banker``, ``box 2``."""
    if not isinstance(position, dict):
        return str(position)
    kind = position.get("type") or position.get("bet") or ""
    spot = position.get("chance") or position.get("which")
    if spot is None and position.get("numbers"):
        spot = "-".join(str(n) for n in position["numbers"])
    if spot is None and position.get("box") is not None:
        spot = f"box {position['box']}"
    return f"{kind} {spot if spot is not None else ''}".strip() or str(position)


@register.filter
def pad(columns, rows) -> list:
    """Columns of marks → rows for an HTML grid, short columns padded with ``""``."""
    rows = int(rows or 0)
    return [[column[r] if r < len(column) else "" for column in columns] for r in range(rows)]

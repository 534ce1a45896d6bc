"""Display filters for the dashboard: money stays in integer cents until here."""

import re

from django import template
from django.utils.html import conditional_escape, format_html, format_html_join
from django.utils.safestring import mark_safe

from basis.money import format_denomination
from basis.refusals import REFUSAL_KINDS
from games.rules.bet_words import bet_spot as words_for_bet_spot
from staff.roles import has_role

from .. import play
from ..alerts import eur as eur_text
from ..coups import card_face
from ..coups import roulette_colour as colour_in_words
from ..figures import HOW
from ..shift_selectors import approvals_for

register = template.Library()


@register.filter
def eur(cents) -> str:
    """``123456`` → ``1,234.56 EUR``; ``None`` → an em dash."""
    return "—" if cents is None else eur_text(int(cents))


@register.filter
def basis_points(value) -> str:
    """A rate in basis points as a percentage: 2500 -> "25.00 %"."""
    if type(value) is not int:
        return ""
    return f"{value // 100}.{value % 100:02d} %"


@register.filter
def time_played(seconds) -> str:
    """Seconds as a person reads a length of play: ``30`` → ``under a minute``, ``720`` →
    ``12 min``, ``3900`` → ``1 h 05 min`` (whole minutes, rounded down)."""
    minutes = int(seconds or 0) // 60
    if minutes == 0:
        return "under a minute"
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


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
    """The CSS colour class of a pocket: ``zero`` for 0, else ``red`` or ``black``."""
    return "zero" if number == 0 else colour_in_words(number)


@register.filter
def colour_word(number) -> str:
    """Roulette's colour of ``number`` in words: ``green`` for 0, ``red``, ``black``."""
    return colour_in_words(number)


@register.filter
def bet_spot(position) -> str:
    """A bet's place on the layout, in words (``games.rules.bet_words.bet_spot``)."""
    return words_for_bet_spot(position)


@register.filter
def pad(columns, rows) -> list:
    """Columns of marks → rows for an HTML grid, short columns padded with ``""``."""
    rows = int(rows or 0)
    return [[column[r] if r < len(column) else "" for column in columns] for r in range(rows)]


_ROAD_CLASSES = {"B": "banker", "J": "player", "-": "tie"}


@register.filter
def road_class(mark) -> str:
    """A road's mark (sheet 002: ``B`` banker, ``J`` joueur, ``-`` tie) → its CSS class word; ``""`` for a blank."""
    return _ROAD_CLASSES.get(mark, "")


@register.filter
def card(code) -> str:
    """A card code as the dealer sees it: ``"TH"`` → ``10♥`` in red (an ``abbr``-free span
    whose label reads "10 of hearts" to a screen reader)."""
    face = card_face(code)
    if face is None:
        return conditional_escape(str(code))
    rank, symbol, colour = face
    return format_html('<span class="pc pc-{}">{}{}</span>', colour, rank, symbol)


@register.filter
def cards(codes) -> str:
    """A hand: its cards side by side (``card``)."""
    return format_html_join(" ", "{}", ((card(c),) for c in codes or []))


CARD_IN_TEXT = re.compile(r"(10|[2-9JQKA])([♥♦♣♠])")


@register.filter
def suited(text) -> str:
    """A line of text with its cards (``10♥``) coloured: red hearts and diamonds, black others."""
    escaped = str(conditional_escape(text))
    return mark_safe(  # noqa: S308 - escaped above; only our own spans are added
        CARD_IN_TEXT.sub(
            lambda m: f'<span class="pc pc-{"red" if m.group(2) in "♥♦" else "black"}">{m.group(1)}{m.group(2)}</span>',
            escaped,
        )
    )


@register.filter
def event_words(event_type) -> str:
    """``"BetSettled"`` → ``"bet settled"`` (``dashboard.play.event_words``)."""
    return play.event_words(event_type)


@register.filter
def stream_kind(stream) -> str:
    """A stream's kind without its id: ``"round/7f0c…"`` → ``"round"``."""
    return str(stream).split("/", 1)[0]


@register.filter
def words(slug) -> str:
    """A state slug in words: ``"closed_for_bets"`` → ``"closed for bets"``."""
    return str(slug).replace("_", " ")


@register.filter
def typed(values, name) -> str:
    """What the person typed in field ``name`` of a form sent back (``""`` when nothing)."""
    return (values or {}).get(str(name), "") if hasattr(values, "get") else ""


@register.filter
def holds(user, role) -> bool:
    """Whether ``user`` holds ``role`` (``pit_boss``, ``dealer``...): which links his header shows."""
    return has_role(user, role) if getattr(user, "is_authenticated", False) else False


@register.filter
def denomination(cents) -> str:
    """A chip's value: ``50000`` → ``500 EUR``, ``250`` → ``2.50 EUR``."""
    return format_denomination(int(cents))


@register.simple_tag
def typed_piece(values, prefix, denomination_cents) -> str:
    """The pieces typed for ``denomination_cents`` in count ``prefix`` of a form sent back."""
    return typed(values, f"{prefix}-{denomination_cents}")


@register.filter
def amount_typed(cents) -> str:
    """Cents as a form shows them to be typed again: ``25000`` → ``250``, ``1250`` → ``12.50``."""
    cents = int(cents)
    return f"{cents // 100}" if cents % 100 == 0 else f"{cents // 100}.{cents % 100:02d}"


@register.simple_tag
def how_computed() -> dict:
    """``dashboard.figures.HOW``: each figure's formula in words, for its tooltip."""
    return HOW


@register.simple_tag
def waiting_for(user) -> int:
    """How many pending approvals ``user`` may sign now (the header's Approvals link says it)."""
    return len(approvals_for(user.get_username())["to_sign"]) if getattr(user, "is_authenticated", False) else 0

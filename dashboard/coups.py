"""How a finished coup reads on the table page: each game's own reading (its spec's
``describe_coup``, pure functions in ``games.rules.coups``), asked through the registry.

``describe(game, result, events)`` → ``{"hands": [{"who", "cards", "total", "won"}], "verdict"}``
(roulette: ``{"number", "colour"}`` instead of hands); a game without a reading, or a coup
without a result, has no hands and an empty verdict.
"""

from __future__ import annotations

from games.catalog import GAMES
from games.rules import coups
from games.rules.event_words import SUITS, card_face, card_text, cards_text, roulette_colour  # noqa: F401 (re-exported)


def describe(game: str, result: object, events: list[tuple[str, dict]]) -> dict:
    """The coup of a table of ``game`` (a game's code) as the table page shows it."""
    known = GAMES.get(game) if isinstance(game, str) else None
    return coups.describe(known.describe_coup if known is not None else None, result, events)

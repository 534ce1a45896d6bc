"""How a coup in play reads on the table view: one short line per event of the round.

The words are the audit trail's own (``games.rules.event_words``: one wording for the play
feed, the coup audit page and the audit API). ``BetResolved`` repeats a ``BetSettled`` line for
the bet's model row, so the feed shows nothing for it. A face-down card reads without its value
until the coup is over (``round_over``).
"""

from __future__ import annotations

from collections.abc import Callable

from games.rules.event_words import (  # noqa: F401 (the dashboard's names for them)
    AML_CHANNELS,
    CODE_WORDS,
    code_text,
    code_words,
    event_words,
    in_words,
    worded,
)

HIDDEN = frozenset({"BetResolved"})


def readable(event_type: str, data: dict, *, round_over: bool = False) -> str:
    """One line for any event, the audit trail's summary (``games.rules.event_words.line``):
    its wording (``games.rules.event_words.worded``), else the event's type in words and its
    data as ``name value`` pairs (amounts in the casino's currency, cards as ``10♥``), ids left out."""
    data = data if isinstance(data, dict) else {}
    return worded(event_type, data, round_over=round_over) or in_words(event_type, data)


def play_line(
    event_type: str, data: dict, fallback: Callable[[str, dict], str], *, round_over: bool = False
) -> str | None:
    """The line for one event of a coup, ``None`` for an event that shows nothing, ``fallback``
    for one without a wording of its own."""
    if event_type in HIDDEN:
        return None
    return worded(event_type, data, round_over=round_over) or fallback(event_type, data)

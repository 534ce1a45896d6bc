"""The one error type of the pure game engines.

Every refusal by ``games.rules`` is a :class:`RuleError` naming the input at fault, so the
API's single exception handler can turn it into a 4xx body ``{"field": ..., "error": ...}``.
(``roulette.InvalidBet`` is the roulette engine's subclass.)
"""

from .refusals import LIMIT_KINDS

__all__ = ["LimitRefused", "RuleError", "refusal_line"]


class RuleError(ValueError):
    """An input that the rules refuse.

    ``field`` names the input at fault (``"card"``, ``"box"``, ``"bettor"``, ``"hand_index"``,
    ``"action"``, ``"amount_cents"``, ``"state"``, ``"rules.<option>"``, ...); ``message`` is a
    human sentence for the API error body.
    """

    def __init__(self, field: str, message: str) -> None:
        # Both in args so the exception pickles (Celery) and compares by content.
        super().__init__(field, message)
        self.field = field
        self.message = message

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class LimitRefused(RuleError):
    """A stake the table's limits refuse (a :class:`RuleError` on ``field``, usually
    ``"stake_cents"``): ``kind`` is ``"table_minimum"``, ``"table_maximum"`` or
    ``"box_maximum"`` (black jack: the bets on one box together), ``"chip_increment"`` (a stake
    the table's chips cannot make, :mod:`games.rules.chips`) or ``"lone_even_chance"`` (an even
    chance without another bet where the table plays sheet 000's second variant). The services turn it into
    ``ledger.errors.BetRefused``, which the floor records; the engines stay pure.
    """

    KINDS = tuple(LIMIT_KINDS)

    def __init__(self, field: str, message: str, kind: str) -> None:
        if kind not in self.KINDS:
            raise ValueError(f"unknown limit kind {kind!r}")
        super().__init__(field, message)
        self.args = (field, message, kind)  # pickles (Celery) with its kind
        self.kind = kind


def refusal_line(kind_words: str, message: str) -> str:
    """A refused bet's reason for people: ``message`` alone when it names its limit already
    (``"over the table maximum: 5,000.00 EUR on this position, the maximum is 1,000.00 EUR"``),
    else ``"<kind_words>: <message>"`` (``"table maximum: a bet is from 10.00 EUR to 1,000.00 EUR"``).
    A prefix before a message that restates the limit read as if the stake were the limit."""
    return message if kind_words in message else f"{kind_words}: {message}"

"""The one error type of the pure game engines.

Every refusal by ``games.rules`` is a :class:`RuleError` naming the input at fault, so the
API's single exception handler can turn it into a 4xx body ``{"field": ..., "error": ...}``.
(``roulette.InvalidBet`` is the roulette engine's subclass.)
"""

__all__ = ["RuleError"]


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

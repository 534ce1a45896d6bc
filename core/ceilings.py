"""Per-operation ceilings on amounts: a single movement above its ceiling is bad input.

``ledger.store.MAX_CENTS`` (10^12) only keeps amounts inside the ledger's columns; a fill of
10^12 cents (ten billion euros) passed it and was stored. Each operation has its own
ceiling, the setting ``CASINO_CEILING_CENTS`` (``casino/settings.py`` holds the defaults, the one
place they are written; one environment variable ``CASINO_CEILING_<OPERATION>_CENTS`` each), far
above any real movement of the casino and far below the ledger's bound: a slip of the finger of
a few digits is refused, not booked.
"""

from django.conf import settings

from ledger.errors import InvalidInput


def ceiling_cents(operation: str) -> int:
    """The ceiling of ``operation`` (a key of the setting ``CASINO_CEILING_CENTS``: fill, credit,
    buy_in, chips_purchase, chips_redeem, opener, closer, drop_count), in cents."""
    return int(settings.CASINO_CEILING_CENTS[operation])


def check_ceiling(operation: str, amount_cents: int, *, field: str) -> None:
    """Raise ``InvalidInput`` (400 naming ``field``) when ``amount_cents`` is over the ceiling
    of ``operation``."""
    ceiling = ceiling_cents(operation)
    if amount_cents > ceiling:
        name = operation.replace("_", " ")
        raise InvalidInput(
            f"{amount_cents} cents is over the ceiling of a {name} ({ceiling} cents, CASINO_CEILING_CENTS)",
            field=field,
        )

"""Money for people to read: integer cents in, text out (display only; amounts stay in cents)."""

from __future__ import annotations


def format_cents(cents: int, currency: str = "EUR") -> str:
    """``123456`` → ``"1,234.56 EUR"``; negative with a leading minus (``-500`` → ``"-5.00 EUR"``).

    ``cents``: an integer amount in the currency's minor unit (two decimals). Raises
    ``TypeError`` for a float or anything else not an ``int`` (money is never a float)."""
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"cents must be an int, not {type(cents).__name__}")
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d} {currency}"

"""The one formatter of amounts for people: integer cents → ``1,234.56 EUR``.

Standard library only (this is the rules' layer, the lowest), locale-independent: comma for
thousands, point for cents, a minus before a negative amount, the ISO 4217 code after. The
currency is the casino's ``CASINO_CURRENCY``, which the ledger app sets here at start-up
(``ledger.apps``: the rules never read Django's settings); a caller may name another one.
"""

from __future__ import annotations

from functools import lru_cache

_currency = "EUR"  # the default of CASINO_CURRENCY, until the ledger app sets the configured one


def set_currency(code: str) -> None:
    """Use ``code`` (ISO 4217, e.g. ``CHF``) when ``format_cents`` is not told a currency."""
    global _currency
    if not (isinstance(code, str) and len(code) == 3 and code.isascii() and code.isalpha() and code.isupper()):
        raise ValueError(f"a currency is a three-letter ISO 4217 code in capitals, not {code!r}")
    _currency = code


def currency() -> str:
    return _currency


def format_cents(cents: int, currency: str | None = None) -> str:
    """``123456`` → ``"1,234.56 EUR"``; ``-5`` → ``"-0.05 EUR"``. ``cents``: an int (a float or a
    bool is refused with ``TypeError``: money is integer cents)."""
    if not isinstance(cents, int) or isinstance(cents, bool):
        raise TypeError(f"an amount is integer cents, not {type(cents).__name__}")
    return _format(cents, currency or _currency)


def format_amount(cents: int) -> str:
    """The number alone, ``123456`` → ``"1,234.56"`` (a column whose heading names the currency)."""
    if not isinstance(cents, int) or isinstance(cents, bool):
        raise TypeError(f"an amount is integer cents, not {type(cents).__name__}")
    return _number(cents)


# French typography, for the French registers (arrêté du 14 mai 2007): a no-break space groups
# the thousands, a comma marks the cents.
FRENCH_GROUP = "\u00a0"


def format_amount_fr(cents: int) -> str:
    """The number alone in French: ``123456`` → ``"1 234,56"`` (no-break space), ``-5`` → ``"-0,05"``."""
    return format_amount(cents).replace(",", FRENCH_GROUP).replace(".", ",")


def format_cents_fr(cents: int, currency: str | None = None) -> str:
    """``123456`` → ``"1 234,56 EUR"``: ``format_cents`` in French typography."""
    return f"{format_amount_fr(cents)} {currency or _currency}"


@lru_cache(maxsize=4096)  # a handful of stakes and chip values recur all day (audit lines, rebuilds)
def format_denomination(cents: int) -> str:
    """A chip's or a note's value, whole units without cents: ``50000`` → ``"500 EUR"``,
    ``250`` → ``"2.50 EUR"``, ``100000000`` → ``"1,000,000 EUR"``."""
    if not isinstance(cents, int) or isinstance(cents, bool):
        raise TypeError(f"an amount is integer cents, not {type(cents).__name__}")
    return f"{cents // 100:,} {_currency}" if cents % 100 == 0 else _format(cents, _currency)


def _format(cents: int, code: str) -> str:
    return f"{_number(cents)} {code}"


def _number(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100:,}.{abs(cents) % 100:02d}"

"""What the workstations' forms send, read into the services' arguments (cents, counts)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from ledger.errors import InvalidInput

AMOUNT = re.compile(r"^\d{1,10}(\.\d{1,2})?$")


def amount_cents(text: object, field: str = "amount") -> int:
    """``"1,500.00"`` / ``"1500"`` / ``"0.5"`` (currency units, thousands commas allowed) → cents.
    ``InvalidInput`` naming ``field`` for anything else (negative, three decimals, words)."""
    raw = (text or "").strip().replace(",", "").replace(" ", "") if isinstance(text, str) else ""
    if not AMOUNT.match(raw):
        raise InvalidInput("an amount in currency units, e.g. 1,500.00", field=field)
    try:
        cents = int(Decimal(raw) * 100)
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        raise InvalidInput("an amount in currency units, e.g. 1,500.00", field=field) from None
    if cents <= 0:
        raise InvalidInput("the amount must be more than zero", field=field)
    return cents


def count(post, prefix: str, denominations) -> dict[str, int]:
    """The pieces typed per denomination (inputs ``<prefix>-<cents>``; blank = none) as a count
    ``{"<cents>": pieces}`` for ``core.denominations.count_total``."""
    lines: dict[str, int] = {}
    for d in denominations:
        text = (post.get(f"{prefix}-{d}") or "").strip()
        if not text:
            continue
        if not text.isdigit() or len(text) > 9:
            raise InvalidInput(f"pieces of {d / 100:.2f} are a whole number", field=prefix)
        if int(text):
            lines[str(d)] = int(text)
    return lines

"""What the pit boss's forms send, read into the services' arguments (cents, counts, times).

Every refusal is an ``InvalidInput`` naming the field, in words saying how to type it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.utils import timezone

from games.rules.money import format_cents
from ledger.errors import InvalidInput

_DIGITS = re.compile(r"[0-9]+")
# Whole units, or units and cents after a comma or a point; thousands grouped by a space.
_AMOUNT = re.compile(r"([0-9]{1,3}(?: [0-9]{3})+|[0-9]{1,10})(?:[.,]([0-9]{1,2}))?")
_TIME = re.compile(r"([01]?[0-9]|2[0-3])[:h]([0-5][0-9])")
HOW = "type it in currency units, cents after a comma or a point (250, 12,50 or 1 000.50)"


def amount_cents(text: object, field: str = "amount") -> int:
    """``"250"`` → 25000, ``"12,5"`` / ``"12.50"`` → 1250, ``"1 000,50"`` → 100050. ``InvalidInput``
    naming ``field`` for anything else (a sign, letters, three decimals, zero); never a float."""
    raw = re.sub(r"[\u00a0\u202f]", " ", text.strip()) if isinstance(text, str) else ""
    match = _AMOUNT.fullmatch(raw)
    if not match:
        raise InvalidInput(
            f'"{raw[:30]}" is not an amount: {HOW}' if raw else f"an amount is needed: {HOW}", field=field
        )
    units, cents = match.group(1).replace(" ", ""), (match.group(2) or "0").ljust(2, "0")
    value = int(units) * 100 + int(cents)
    if value <= 0:
        raise InvalidInput("the amount must be more than zero", field=field)
    return value


def count(post, prefix: str, denominations, *, field: str | None = None) -> dict[str, int]:
    """The pieces typed per denomination (inputs ``<prefix>-<cents>``; blank = none) as a count
    ``{"<cents>": pieces}``. ``InvalidInput`` naming ``field`` (default ``prefix``)."""
    lines: dict[str, int] = {}
    for d in denominations:
        text = (post.get(f"{prefix}-{d}") or "").strip()
        if not text:
            continue
        if not _DIGITS.fullmatch(text) or len(text) > 9:  # ASCII digits only ("²" is a digit to Python)
            raise InvalidInput(f"pieces of {format_cents(d)} are a whole number", field=field or prefix)
        if int(text):
            lines[str(d)] = int(text)
    return lines


def whole_number(text: object, *, field: str, most: int = 24 * 60) -> int:
    """A whole number from 1 to ``most`` typed in ASCII digits; ``InvalidInput`` naming ``field``."""
    raw = text.strip() if isinstance(text, str) else ""
    if not _DIGITS.fullmatch(raw) or not 1 <= int(raw[:6]) <= most:
        raise InvalidInput(f"a whole number of minutes from 1 to {most}", field=field)
    return int(raw)


def local_time(text: object, *, field: str) -> datetime:
    """``"14:05"`` (or ``14h05``), today in the casino's zone (the active one), as an aware
    datetime; a time later than now is yesterday's. ``InvalidInput`` naming ``field``."""
    raw = text.strip() if isinstance(text, str) else ""
    match = _TIME.fullmatch(raw)
    if not match:
        raise InvalidInput("a time of day, hours and minutes: 14:05", field=field)
    now = timezone.localtime()
    moment = now.replace(hour=int(match.group(1)), minute=int(match.group(2)), second=0, microsecond=0)
    if moment > now:  # a table is rated after the play: a time still to come was yesterday's
        moment -= timedelta(days=1)
    return moment

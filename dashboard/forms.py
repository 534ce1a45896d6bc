"""What the pit boss's forms send beyond amounts and counts (``core.typed_amounts``): minutes, times.

Every refusal is an ``InvalidInput`` naming the field, in words saying how to type it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.utils import timezone

from ledger.errors import InvalidInput

_DIGITS = re.compile(r"[0-9]+")
_TIME = re.compile(r"([01]?[0-9]|2[0-3])[:h]([0-5][0-9])")


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

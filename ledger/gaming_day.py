"""The casino's gaming day: a local calendar day that starts at a configured hour.

An event at 03:00 Paris time with ``GAMING_DAY_START=06:00`` belongs to the previous day.
"""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings

# The event that seals a closed gaming day (``ledger.seal``), on stream ``seal/YYYY-MM-DD``.
SEAL_EVENT = "GamingDaySealed"


def gaming_day_of(moment: datetime, *, tz_name: str, start: str) -> date:
    """The gaming day of ``moment`` (aware datetime) in zone ``tz_name``, day starting at ``start`` "HH:MM"."""
    if moment.tzinfo is None:
        raise ValueError("moment must be timezone-aware (UTC)")
    hour, minute = (int(part) for part in start.split(":"))
    local = moment.astimezone(ZoneInfo(tz_name))
    day = local.date()
    return day - timedelta(days=1) if local.time() < time(hour, minute) else day


def current_gaming_day(moment: datetime | None = None) -> date:
    """The gaming day of ``moment`` (default: now) under the configured zone and start hour."""
    return gaming_day_of(moment or datetime.now(UTC), tz_name=settings.CASINO_TIMEZONE, start=settings.GAMING_DAY_START)


def gaming_day_stream(day: date) -> str:
    """The stream of gaming day ``day``'s close and seal: ``gamingday/YYYY-MM-DD``."""
    return f"gamingday/{day.isoformat()}"

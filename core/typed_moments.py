"""A date and time a person types in a form (the browser's ``datetime-local`` picker, or by
hand), read as an aware datetime in the casino's zone: one reading for the pit boss's and the
cage's outage forms."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

from django.conf import settings

from ledger.errors import InvalidInput


def local_moment(text: object, field: str) -> datetime:
    """``2026-12-07T14:05`` (the picker) or ``2026-12-07 14:05`` typed in the casino's zone
    (``CASINO_TIMEZONE``) as an aware datetime; one that names its own offset keeps it.
    Raises ``InvalidInput`` naming ``field`` for anything else."""
    raw = text.strip().replace(" ", "T") if isinstance(text, str) else ""
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise InvalidInput("a date and a time of day: 2026-12-07 14:05", field=field) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(settings.CASINO_TIMEZONE))
    return moment

"""A closed gaming day keeps the figures it was closed (and sealed) with.

Once ``GamingDayClosed`` is on the stream ``gamingday/<YYYY-MM-DD>`` the day's report is final
and ``ledger.seal`` has signed its events: nothing may be played on that day any more, and
nothing of it may be reversed (a coup, a fill or credit delivered that day, its drop counts).
Each such service calls ``refuse_if_closed`` before it appends; a correction found later is
a matter for the next open day, never a change to a closed one. Underneath, the ledger itself
refuses any event stamped with a closed day (``ledger.store.append``: money or not, a role
change as a bet; only the day's seal and staff sign-ins pass), whatever service sends it.
"""

from datetime import date

from ledger.errors import StateConflict
from ledger.event_seals import sealed_events
from ledger.gaming_day import gaming_day_stream
from ledger.models import Event
from ledger.store import closed_gaming_days


def gaming_day_closed(day: date) -> Event | None:
    """The ``GamingDayClosed`` event of ``day``, if it was closed (one the application sealed:
    ``ledger.event_seals``)."""
    closes = sealed_events(Event.objects.filter(stream=gaming_day_stream(day), type="GamingDayClosed"))
    return closes[0] if closes else None


def refuse_if_closed(days: date | set[date], *, what: str, field: str) -> None:
    """Raise ``StateConflict`` (409, on ``field``) when ``days`` (one gaming day or several) holds
    a closed day: "gaming day 2026-11-29 is closed: <what>"."""
    closed = closed_gaming_days({days} if isinstance(days, date) else set(days))
    if closed:
        raise StateConflict(f"gaming day {min(closed)} is closed: {what}", field=field)

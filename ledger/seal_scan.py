"""Finding the events the application did not write, so that every read but the chain's own
leaves them out (``ledger.disowned`` keeps their positions).

An event INSERTed around the application (``ledger.event_seals``) carries no seal, another
key's, or a seal copied from another event. ``manage.py ledger verify`` names it and the
checkpoint writer refuses to sign past it; until someone acts on that alarm, the pages, reports
and projections must not count it: a forged ``TroncShared`` of 5,000 EUR would otherwise be
paid out from the tips report like a real one.

Only the application holds the key, so only Python can tell: each process scans the events
appended since it last looked (``refresh``), with the same check as the reads that grant
authority (the hash recomputed from the row and its postings, then the seal), and keeps the
positions that fail. ``Event.objects`` and ``Posting.objects`` leave those positions out;
``Event.chain`` and ``Posting.chain`` are every row, for the code that keeps the chain (the
store's head, ``verify``, checkpoints, exports and the day's seal, which must see what is there).

Who refreshes: each GET or HEAD request (``core.middleware.RequestContextMiddleware``), the
projections' catch-up and rebuilds. A command (POST) decides with the set as it stood at the
process's last read. A process starts its scan after the latest checkpoint whose signed file
still holds (the writer signs a head only when every event since the one before is sealed), or
from the first event; the scan then costs the events appended since (about 30 µs an event).
"""

from __future__ import annotations

import logging
import threading

from . import disowned
from .checkpoints import latest_signed
from .event_seals import SEAL_FIELDS, authenticity
from .models import Event

log = logging.getLogger(__name__)

_lock = threading.Lock()
# (position, hash) scanned through, and the positions found not to be the application's. The
# hash catches a database that is not the one scanned (restored, or a test's rolled back).
_through: tuple[int, str] = (0, "")


def refresh() -> frozenset[int]:
    """Scan the events appended since the last scan and return every position found so far
    that the application did not write. Logs an error naming each new one."""
    global _through
    with _lock:
        through, found = _through, set(disowned.positions())
        if through[0] and not _still_there(*through):
            through, found = _start(), set()
        last, bad = _scan_after(through[0])
        for position in sorted(bad - found):
            log.error("ledger: event %s was not written by the application; every read leaves it out", position)
        found |= bad
        through = last or through
        _through = through
        disowned.keep(frozenset(found))
        return disowned.positions()


def forget() -> None:
    """Start the next ``refresh`` from the beginning (a database replaced under the process)."""
    global _through
    with _lock:
        _through = (0, "")
        disowned.keep(frozenset())


def _still_there(position: int, hash_: str) -> bool:
    return Event.chain.filter(position=position, hash=hash_).exists()


def _start() -> tuple[int, str]:
    return latest_signed() or (0, "")


def _scan_after(position: int) -> tuple[tuple[int, str] | None, set[int]]:
    rows = Event.chain.filter(position__gt=position).order_by("position").values_list(*SEAL_FIELDS)
    last, bad = None, set()
    for row, authentic in authenticity(rows.iterator(chunk_size=2000)):
        last = (row[0], row[len(SEAL_FIELDS) - 2])
        if not authentic:
            bad.add(row[0])
    return last, bad

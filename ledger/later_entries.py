"""Later entries: what was written on paper during an outage, entered once the system is back.

A later entry goes through the same services as a live record; only its events differ, and
only in two ways, both hashed with the rest of the event:

- ``occurred_at`` is the time written on the paper form (the moment it happened), while
  ``recorded_at`` stays the database's time at the append (the moment it was entered), so the
  gaming day is the one the paper time falls on;
- ``data["later_entry"]`` says it is one: the outage, the form, who entered it and when, who
  approved it (``LaterEntry.mark``). Reports, the audit trail and the export read that flag.

The ledger stays append-only and gap-free: a later entry is a new event at the head of the
chain, ordered by entry, carrying the time it describes. ``Command.append`` stamps every event a
service appends while ``later_entry`` is active (``stamped``); nothing else changes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from datetime import datetime

from .errors import InvalidInput

# The key of an event's data that marks it as a later entry.
FLAG = "later_entry"


@dataclass(frozen=True)
class LaterEntry:
    """One paper record being entered: the time written on it, its outage and form, who
    entered it (the maker), when (his request, ISO 8601) and who approved it."""

    occurred_at: datetime
    outage: str
    form: str
    entered_by: str
    entered_at: str
    approved_by: str

    def mark(self) -> dict:
        return {
            "outage": self.outage,
            "form": self.form,
            "entered_by": self.entered_by,
            "entered_at": self.entered_at,
            "approved_by": self.approved_by,
        }


_current: ContextVar[LaterEntry | None] = ContextVar("ledger_later_entry", default=None)


@contextmanager
def later_entry(entry: LaterEntry) -> Iterator[None]:
    """Stamp every event appended in this block (by any command) as the later entry ``entry``."""
    if type(entry.occurred_at) is not datetime or entry.occurred_at.utcoffset() is None:
        raise InvalidInput("the paper time is a date and time with its zone", field="occurred_at")
    token = _current.set(entry)
    try:
        yield
    finally:
        _current.reset(token)


def active() -> LaterEntry | None:
    """The later entry being made in this context, if any."""
    return _current.get()


def stamped(events: Sequence) -> Sequence:
    """``events`` (``store.NewEvent``) as later entries when one is active: the paper time as
    their ``occurred_at`` (unless a service set its own) and the flag in their data."""
    entry = _current.get()
    if entry is None:
        return events
    mark = entry.mark()
    return [
        replace(
            new,
            occurred_at=new.occurred_at or entry.occurred_at,
            data={**new.data, FLAG: mark} if isinstance(new.data, dict) else new.data,
        )
        for new in events
    ]


def is_later_entry(data: object) -> bool:
    """Whether an event's ``data`` marks it as a later entry."""
    return isinstance(data, dict) and isinstance(data.get(FLAG), dict)

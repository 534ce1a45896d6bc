"""Outage periods and their paper forms, as the ledger records them (manual fallback).

When the system is down (or part of it: a table's terminal, the cage) the floor writes on
printed blank forms, one a table and one for the cage. The outage is an event on stream
``outage/<id>``: ``OutageDeclared`` (its start, its end when declared after recovery, its
scope, its reason and its forms), ``OutageEnded`` (the end of one declared while it lasted),
``PaperLineEntered`` (one paper record entered and approved, a later entry:
``ledger.later_entries``) and ``PaperFormEntered`` (a form whose every line is entered).

The ledger reads them here, from the sealed events only (one INSERTed around the application
decides nothing), because the day's seal must refuse while an outage of that day still has a
form not entered: the paper would otherwise never reach the sealed range (``ledger.seal``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from .errors import StateConflict
from .event_seals import sealed_events
from .gaming_day import current_gaming_day
from .models import Event

STREAM_PREFIX = "outage/"
DECLARED = "OutageDeclared"
ENDED = "OutageEnded"
LINE_ENTERED = "PaperLineEntered"
FORM_ENTERED = "PaperFormEntered"
TYPES = (DECLARED, ENDED, LINE_ENTERED, FORM_ENTERED)


def stream_of(outage: str) -> str:
    return f"{STREAM_PREFIX}{outage}"


@dataclass
class Outage:
    """One outage as its events tell it; ``forms``: ``[{"form", "place", "table"}]`` in order,
    ``lines``: the lines entered per form, ``entered``: the forms declared fully entered."""

    id: str
    started_at: datetime
    ended_at: datetime | None
    scope: str
    reason: str
    declared_by: str
    declared_at: datetime
    forms: list[dict]
    lines: dict[str, list[dict]] = field(default_factory=dict)
    entered: dict[str, dict] = field(default_factory=dict)

    @property
    def ongoing(self) -> bool:
        return self.ended_at is None

    def form(self, serial: str) -> dict | None:
        return next((each for each in self.forms if each["form"] == serial), None)

    def unentered(self) -> list[str]:
        """The serials of the forms not yet declared entered, in their order."""
        return [each["form"] for each in self.forms if each["form"] not in self.entered]

    def gaming_days(self) -> list[date]:
        """The gaming days the outage covers, from its start to its end (ongoing: to today)."""
        first = current_gaming_day(self.started_at)
        last = current_gaming_day(self.ended_at or datetime.now(UTC))
        return [first + timedelta(days=n) for n in range((last - first).days + 1)] if last >= first else [first]


def _moment(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def outages() -> list[Outage]:
    """Every outage declared, in the order declared, as its sealed events tell it."""
    rows = Event.chain.filter(stream__startswith=STREAM_PREFIX, type__in=TYPES).order_by("position")
    found: dict[str, Outage] = {}
    for event in sealed_events(rows):
        data = event.data
        if event.type == DECLARED:
            found[data["outage"]] = Outage(
                id=data["outage"],
                started_at=_moment(data["started_at"]),
                ended_at=_moment(data.get("ended_at")),
                scope=data["scope"],
                reason=data["reason"],
                declared_by=event.actor,
                declared_at=event.recorded_at,
                forms=list(data["forms"]),
            )
            continue
        outage = found.get(data.get("outage"))
        if outage is None:
            continue
        if event.type == ENDED:
            outage.ended_at = _moment(data["ended_at"])
        elif event.type == LINE_ENTERED:
            outage.lines.setdefault(data["form"], []).append(data | {"position": event.position})
        elif event.type == FORM_ENTERED:
            outage.entered[data["form"]] = data | {"by": event.actor, "at": event.recorded_at}
    return list(found.values())


def outage(outage_id: str) -> Outage | None:
    return next((each for each in outages() if each.id == outage_id), None)


def outages_of_day(day: date) -> list[Outage]:
    """The outages covering gaming day ``day``."""
    return [each for each in outages() if day in each.gaming_days()]


def refuse_while_unentered(day: date, *, what: str, field: str = "day") -> None:
    """``StateConflict`` (409) when an outage of gaming day ``day`` is still going on or has a
    paper form not entered: "gaming day D cannot be <what>: outage OUT1 has forms not entered
    (OUT1-R1, OUT1-CAGE)"."""
    for each in outages_of_day(day):
        if each.ongoing:
            raise StateConflict(
                f"gaming day {day.isoformat()} cannot be {what}: outage {each.id} is still going on; "
                "end it and enter its paper forms first",
                field=field,
            )
        missing = each.unentered()
        if missing:
            raise StateConflict(
                f"gaming day {day.isoformat()} cannot be {what}: outage {each.id} has paper forms "
                f"not entered ({', '.join(missing)})",
                field=field,
            )

"""Investigations of a fluctuation beyond the house's confidence (``games.protection``).

An investigation is a stream of ledger events, ``investigation/<id>``:

- ``FluctuationInvestigationOpened``: a table's or a patron's gaming day, with the figures that
  raised the alarm (win, theory, standard deviation, z); opened by the pit boss, or by
  ``system`` when ``raise_alarms`` finds a day beyond the confidence with none open;
- ``FluctuationInvestigationNoted``: who looked and what was found, as many as needed;
- ``FluctuationInvestigationClosed``: the conclusion, by a second person: not the one who
  opened it nor anyone who wrote its notes (the one who looks is not the one who closes), each
  from his own login (the API's and the page's user: never a typed name).

Refusals: a bad field 400 naming it, an unknown investigation 404, a close by the opener or by
someone who noted it 403, a note or close once closed and a second open investigation of the
same subject and day 409, a close before anyone looked 409.
"""

from __future__ import annotations

import uuid
from datetime import date

from games.models import Table
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.models import Event
from ledger.store import NewEvent, stream_version
from patrons.models import Patron
from staff.roles import RoleRequired

from ..protection import alarms, day_fluctuations

OPENED = "FluctuationInvestigationOpened"
NOTED = "FluctuationInvestigationNoted"
CLOSED = "FluctuationInvestigationClosed"
EVENTS = (OPENED, NOTED, CLOSED)
SUBJECTS = ("table", "patron")
STREAM = "investigation/"
MAX_TEXT = 2000


def _text(value: object, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"say {'what was found' if field != 'reason' else 'why'}", field=field)
    if len(value) > MAX_TEXT or "\x00" in value:
        raise InvalidInput(f"at most {MAX_TEXT} characters, without NUL", field=field)
    return value.strip()


def _figures(subject: str, code: str, day: date) -> dict:
    """The subject's figures of the day, JSON-safe: cents, exact fractions as text, z to 2 places."""
    rows = day_fluctuations(day, table=code if subject == "table" else None)[
        "tables" if subject == "table" else "patrons"
    ]
    row = next((r for r in rows if r[subject] == code), None)
    if row is None:
        return {}
    return {
        "bets": row["bets"],
        "handle_cents": row["handle_cents"],
        "win_cents": row["win_cents"],
        "theoretical_win": str(row["theoretical_win"]),
        "variance": str(row["variance"]),
        "z": None if row["z"] is None else f"{row['z']:.2f}",
        "beyond_confidence": row["alarm"],
    }


def investigation(key: object) -> dict:
    """The investigation ``key`` (its id) folded from its events: ``{"id", "subject", "table",
    "patron", "gaming_day", "state" ("open"/"closed"), "opened_by", "opened_at", "automatic",
    "reason", "figures", "notes": [{"by", "at", "note"}], "closed_by", "closed_at", "finding"}``.
    ``NotFound`` for an id that is none."""
    try:
        key = str(uuid.UUID(str(key)))
    except ValueError:
        raise NotFound("no such investigation") from None
    events = list(Event.objects.filter(stream=STREAM + key).order_by("version"))
    if not events or events[0].type != OPENED:
        raise NotFound("no such investigation")
    return _fold(key, events)


def _fold(key: str, events: list[Event]) -> dict:
    opened = events[0]
    data = opened.data
    out = {
        "id": key,
        "subject": data["subject"],
        "table": data.get("table"),
        "patron": data.get("patron"),
        "gaming_day": date.fromisoformat(data["gaming_day"]),
        "state": "open",
        "opened_by": opened.actor,
        "opened_at": opened.occurred_at,
        "automatic": bool(data.get("automatic")),
        "reason": data.get("reason", ""),
        "figures": data.get("figures") or {},
        "notes": [],
        "closed_by": None,
        "closed_at": None,
        "finding": "",
    }
    for event in events[1:]:
        if event.type == NOTED:
            out["notes"].append({"by": event.actor, "at": event.occurred_at, "note": event.data.get("note", "")})
        elif event.type == CLOSED:
            out.update(state="closed", closed_by=event.actor, closed_at=event.occurred_at)
            out["finding"] = event.data.get("finding", "")
    return out


def investigations(*, state: str | None = None, gaming_day: date | None = None) -> list[dict]:
    """Every investigation, newest first; ``state`` ``"open"`` or ``"closed"`` keeps those;
    ``gaming_day`` those of that day (the day investigated)."""
    by_stream: dict[str, list[Event]] = {}
    for event in Event.objects.filter(type__in=EVENTS).order_by("position"):
        by_stream.setdefault(event.stream, []).append(event)
    rows = [
        _fold(stream.removeprefix(STREAM), events)
        for stream, events in by_stream.items()
        if events and events[0].type == OPENED
    ]
    if state:
        rows = [r for r in rows if r["state"] == state]
    if gaming_day:
        rows = [r for r in rows if r["gaming_day"] == gaming_day]
    rows.sort(key=lambda r: r["opened_at"], reverse=True)
    return rows


def _open_one(subject: str, code: str, day: date) -> dict | None:
    return next(
        (r for r in investigations(state="open", gaming_day=day) if r["subject"] == subject and r[subject] == code),
        None,
    )


def open_investigation(
    *,
    subject: object,
    code: object,
    gaming_day: object,
    actor: str,
    reason: object = "",
    automatic: bool = False,
    idempotency_key: str | None = None,
) -> dict:
    """Open an investigation of ``subject`` (``"table"`` or ``"patron"``) ``code`` on
    ``gaming_day``, recording the day's figures as they stand. 400 for a bad field, 409 when
    one is open already for the same subject and day."""
    if subject not in SUBJECTS:
        raise InvalidInput("table or patron", field="subject")
    if not isinstance(gaming_day, date):
        raise InvalidInput("a gaming day, YYYY-MM-DD", field="gaming_day")
    if not isinstance(code, str) or not code:
        raise InvalidInput(f"a {subject} code", field=subject)
    model = Table if subject == "table" else Patron
    if not model.objects.filter(code=code).exists():
        raise InvalidInput(f"no {subject} {code}", field=subject)
    reason = _text(reason, "reason") if (reason or not automatic) else "beyond the house's confidence"
    with ledger_command(
        actor=actor,
        request={"op": "investigation_open", "subject": subject, "code": code, "day": gaming_day.isoformat()},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        existing = _open_one(subject, code, gaming_day)
        if existing is not None:
            raise StateConflict(f"the {subject} {code} on {gaming_day} is under investigation already")
        key = str(uuid.uuid4())
        data = {
            "investigation": key,
            "subject": subject,
            subject: code,
            "gaming_day": gaming_day.isoformat(),
            "reason": reason,
            "automatic": automatic,
            "figures": _figures(subject, code, gaming_day),
        }
        if subject == "table":
            data["table"] = code
        cmd.append(stream=STREAM + key, expected_version=0, events=[NewEvent(OPENED, data)])
        return cmd.finish({"investigation": key, "state": "open"})


def note_investigation(*, key: object, actor: str, note: object, idempotency_key: str | None = None) -> dict:
    """Who looked and what was found. 409 once closed."""
    note = _text(note, "note")
    current = investigation(key)
    with ledger_command(
        actor=actor,
        request={"op": "investigation_note", "key": current["id"], "note": note},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        current = investigation(current["id"])
        if current["state"] == "closed":
            raise StateConflict("the investigation is closed")
        stream = STREAM + current["id"]
        data = {"investigation": current["id"], "note": note}
        if current["table"]:
            data["table"] = current["table"]
        cmd.append(stream=stream, expected_version=stream_version(stream), events=[NewEvent(NOTED, data)])
        return cmd.finish({"investigation": current["id"], "state": "open", "notes": len(current["notes"]) + 1})


def close_investigation(*, key: object, actor: str, finding: object, idempotency_key: str | None = None) -> dict:
    """Close it with ``finding``, by a second person: not the opener, nor anyone who noted it
    (403); 409 when closed already or before anyone looked."""
    finding = _text(finding, "finding")
    current = investigation(key)
    with ledger_command(
        actor=actor, request={"op": "investigation_close", "key": current["id"]}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        current = investigation(current["id"])
        if current["state"] == "closed":
            raise StateConflict(f"the investigation was closed by {current['closed_by']} already")
        if actor == current["opened_by"]:
            raise RoleRequired("the one who opened the investigation cannot close it: a second person closes it")
        if actor in {n["by"] for n in current["notes"]}:
            raise RoleRequired("the one who looked cannot close the investigation: a second person closes it")
        if not current["notes"]:
            raise StateConflict("nobody has recorded what was found yet: note it before closing")
        stream = STREAM + current["id"]
        data = {"investigation": current["id"], "finding": finding}
        if current["table"]:
            data["table"] = current["table"]
        cmd.append(stream=stream, expected_version=stream_version(stream), events=[NewEvent(CLOSED, data)])
        return cmd.finish({"investigation": current["id"], "state": "closed"})


def raise_alarms(day: date, *, actor: str = "system") -> list[str]:
    """Open an investigation for each table and patron of ``day`` beyond the confidence that
    has none open: the ids opened."""
    opened = []
    for row in alarms(day):
        subject = "table" if "table" in row else "patron"
        if _open_one(subject, row[subject], day) is not None:
            continue
        result = open_investigation(subject=subject, code=row[subject], gaming_day=day, actor=actor, automatic=True)
        opened.append(result["investigation"])
    return opened


__all__ = [
    "CLOSED",
    "EVENTS",
    "NOTED",
    "OPENED",
    "close_investigation",
    "investigation",
    "investigations",
    "note_investigation",
    "open_investigation",
    "raise_alarms",
]

"""The read model of the suspicion cases: each case's state, replayed from its events
(``compliance.steps.CASE_EVENTS`` on ``suspicion/<case>``) and the words beside them
(``CaseRecord``), a row checked against its event's digest.

A case (``suspicion_case``)::

    {"case" (reference), "version" (its stream's version), "patron" (code), "source" ("flag" or
     "hand"), "flag" ({"position", "type", "words", "at"} or None), "reason", "opened_by",
     "opened_at" and "deadline" (aware UTC datetimes), "filing_kind" ("SAR-C"/"TRACFIN"),
     "deadline_days", "transactions" ([{"position", "type", "at", "amount_cents", "direction",
     "words", "attached_by"}]), "findings" ([{"text", "by", "at"}]), "decision" ({"decision",
     "reason", "by", "at"} or None), "filing" ({"kind", "reference", "filed_at", "by", "at"} or
     None), "state" ("open", "to_file", "filed", "not_filed"), "done" (bool), "days_left" (calendar
     days in the casino's zone to the deadline's day, negative once past; None once done), "overdue" (bool), "steps"
     ([{"type", "by", "at", "differs"}]), "differs" (a step's words do not match its event)}

Amounts in integer cents, times aware UTC (the pages show them in the casino's zone).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from basis.money import format_cents as eur
from games.rules.event_words import line
from ledger.gaming_day import current_gaming_day
from ledger.identity import digest_matches
from ledger.models import Event
from patrons.models import Patron
from patrons.structuring import FLAG_TYPE, structuring_flags
from patrons.visits import CASH_EVENTS

from .models import CaseRecord
from .steps import ATTACHED, CASE_EVENTS, DECIDED, FILED, FINDINGS, OPENED, STREAM_PREFIX, case_not_found, content_text


def _matches(event: Event, record: CaseRecord | None) -> bool:
    """The step's words are the ones its event's digest was made of (under the current key or a
    former one: ``ledger.identity.digest_matches``)."""
    if record is None:
        return False
    text = content_text(record.content)
    return digest_matches(event.data.get("content_digest", ""), "suspicion case", record.case, event.type, text)


def _moment(text: object, event: Event) -> datetime:
    """A moment the step's words record (UTC ISO), or the event's own when they are unreadable."""
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return event.occurred_at


def _transaction(position: int) -> dict | None:
    event = Event.objects.filter(position=position).first()
    if event is None:
        return None
    return {
        "position": event.position,
        "type": event.type,
        "at": event.occurred_at,
        "amount_cents": event.data.get("amount_cents"),
        "direction": CASH_EVENTS.get(event.type, ("", ""))[0],
        "words": line(event.type, event.data),
    }


def _fold(case: str, events: list[Event], records: dict[int, CaseRecord], now: datetime) -> dict:
    state: dict = {"case": case, "version": len(events), "transactions": [], "findings": [], "steps": []}
    state |= {"decision": None, "filing": None, "differs": False}
    for event in events:
        record = records.get(event.position)
        good = _matches(event, record)
        state["steps"].append({"type": event.type, "by": event.actor, "at": event.occurred_at, "differs": not good})
        if not good:
            state["differs"] = True
            if event.type != OPENED:
                continue
        content = record.content if record is not None else {}
        if event.type == OPENED:
            flag = content.get("flag")
            if flag:
                flagged = Event.objects.filter(position=flag["position"]).first()
                if flag.get("type") == FLAG_TYPE:
                    words = structuring_words(flag)
                else:
                    words = line(flagged.type, flagged.data) if flagged else ""
                flag = {**flag, "words": words, "at": flagged.occurred_at if flagged else None}
            state |= {
                "patron": content.get("patron", ""),
                "source": content.get("source", ""),
                "flag": flag,
                "reason": content.get("reason", ""),
                "opened_by": event.actor,
                "opened_at": datetime.fromisoformat(content["opened_at"])
                if "opened_at" in content
                else event.occurred_at,
                "deadline": datetime.fromisoformat(content["deadline"]) if "deadline" in content else event.occurred_at,
                "filing_kind": content.get("filing_kind", ""),
                "deadline_days": content.get("deadline_days"),
            }
        elif event.type == ATTACHED:
            for position in content.get("positions", []):
                seen = _transaction(position)
                if seen is not None:
                    state["transactions"].append({**seen, "attached_by": event.actor})
        elif event.type == FINDINGS:
            state["findings"].append({"text": content["text"], "by": event.actor, "at": event.occurred_at})
        elif event.type == DECIDED:
            state["decision"] = {
                "decision": content["decision"],
                "reason": content["reason"],
                "by": event.actor,
                "at": event.occurred_at,
            }
        elif event.type == FILED:
            state["filing"] = {
                "kind": content["kind"],
                "reference": content["reference"],
                "filed_at": datetime.fromisoformat(content["filed_at"]),
                "by": event.actor,
                "at": event.occurred_at,
            }
    if state["filing"] is not None:
        state["state"] = "filed"
    elif state["decision"] is None:
        state["state"] = "open"
    else:
        state["state"] = "to_file" if state["decision"]["decision"] == "file" else "not_filed"
    state["done"] = state["state"] in ("filed", "not_filed")
    state["transactions"].sort(key=lambda t: t["position"])
    if state["done"]:
        state["days_left"], state["overdue"] = None, False
    else:
        # Calendar days in the casino's zone, as the rule counts them ("30 calendar days",
        # 31 CFR 1021.320(b)(3)): 30 the day the case opens, 0 on the deadline's day, -1 the day after.
        zone = ZoneInfo(settings.CASINO_TIMEZONE)
        state["days_left"] = (state["deadline"].astimezone(zone).date() - now.astimezone(zone).date()).days
        state["overdue"] = now > state["deadline"]
    return state


def _cases(stream: str | None, now: datetime | None) -> list[dict]:
    now = now or timezone.now()
    events = Event.objects.filter(type__in=CASE_EVENTS)
    events = events.filter(stream=stream) if stream else events.filter(stream__startswith=STREAM_PREFIX)
    by_case: dict[str, list[Event]] = {}
    for event in events.order_by("position"):
        by_case.setdefault(event.stream.removeprefix(STREAM_PREFIX), []).append(event)
    rows = CaseRecord.objects.filter(event__in=[e.position for es in by_case.values() for e in es])
    records = {r.event: r for r in rows}
    return [_fold(case, events, records, now) for case, events in by_case.items() if events[0].type == OPENED]


def suspicion_case(case: str, *, now: datetime | None = None) -> dict:
    """One case's state (the shape above); ``NotFound`` (404, ``case``) when there is none."""
    if not isinstance(case, str) or "\x00" in case:
        raise case_not_found(str(case))
    found = _cases(STREAM_PREFIX + case, now)
    if not found:
        raise case_not_found(case)
    return found[0]


def suspicion_cases(*, now: datetime | None = None) -> list[dict]:
    """Every case, those still owing a decision or a filing first (nearest deadline first),
    then the done ones, newest first."""
    cases = _cases(None, now)
    waiting = sorted((c for c in cases if not c["done"]), key=lambda c: c["deadline"])
    done = sorted((c for c in cases if c["done"]), key=lambda c: c["opened_at"], reverse=True)
    return waiting + done


def overdue_count(*, now: datetime | None = None) -> tuple[int, int]:
    """``(waiting, overdue)``: cases still owing a decision or filing, and those past their deadline."""
    cases = [c for c in _cases(None, now) if not c["done"]]
    return len(cases), sum(1 for c in cases if c["overdue"])


def structuring_words(flag: dict) -> str:
    """A structuring flag in words (its ``units`` a count or the flag's list of units), e.g.
    "suspected structuring: 3 visits in 7 days, each between 80 % and 100 % of the identity
    threshold (2,000.00 EUR), cash in"."""
    units = flag.get("units")
    count = len(units) if isinstance(units, list) else units
    unit = "visits" if flag.get("basis") == "visit" else "gaming days"
    return (
        f"suspected structuring: {count} {unit} in {flag.get('window_days')} days, each between "
        f"{flag.get('floor_percent')} % and 100 % of the identity threshold ({eur(flag['threshold_cents'])}), "
        f"cash {flag.get('direction')}"
    )


def aml_flags_without_case(*, limit: int = 50, today: date | None = None, day: date | None = None) -> list[dict]:
    """The latest AML flags no case covers, newest first: the AML decisions
    (``patrons.services.aml.DECISION_EVENTS``) and the structuring flags of the last
    ``AML_STRUCTURING_DAYS`` gaming days to ``today`` (``patrons.structuring``; ``position``: the
    exchange that completed one). A case covers a flag it was opened from, and one whose cash
    transaction (a decision's cause, a structuring flag's exchange) is attached to it. ``day``:
    only the flags of that gaming day. ``[{"position", "type", "patron", "gaming_day", "at",
    "words", "amount_cents"}]``."""
    from patrons.services.aml import DECISION_EVENTS

    taken = {
        r.content["flag"]["position"]
        for r in CaseRecord.objects.filter(content__source="flag")
        if isinstance(r.content.get("flag"), dict)
    }
    attached = {
        position
        for r in CaseRecord.objects.filter(content__has_key="positions")
        for position in (r.content["positions"] if isinstance(r.content["positions"], list) else [])
        if type(position) is int
    }
    taken |= attached
    found = []
    decisions = Event.objects.filter(type__in=DECISION_EVENTS)
    if day is not None:
        decisions = decisions.filter(gaming_day=day)
    for event in decisions.order_by("-position")[: limit + len(taken)]:
        cause = int(event.causation_id) if event.causation_id.isdigit() else None
        if event.position in taken or cause in attached:
            continue
        found.append(
            {
                "position": event.position,
                "type": event.type,
                "patron": event.data.get("patron", ""),
                "gaming_day": event.gaming_day,
                "at": event.occurred_at,
                "words": line(event.type, event.data),
                "amount_cents": event.data.get("amount_cents"),
            }
        )
    today = today or current_gaming_day()
    days = [day] if day is not None else [today - timedelta(days=back) for back in range(settings.AML_STRUCTURING_DAYS)]
    for flag_day in days:
        for flag in structuring_flags(flag_day):
            if flag["position"] in taken:
                continue
            found.append(
                {
                    "position": flag["position"],
                    "type": FLAG_TYPE,
                    "patron": flag["patron"],
                    "gaming_day": flag_day,
                    "at": flag["at"],
                    "words": structuring_words(flag),
                    "amount_cents": flag["amount_cents"],
                }
            )
    found.sort(key=lambda f: f["at"], reverse=True)
    return found[:limit]


def patron_cash_transactions(patron: str, *, limit: int = 50) -> list[dict]:
    """The patron's latest cash transactions (``patrons.visits.CASH_EVENTS``), newest first,
    each as ``_transaction`` gives it, to pick some to attach."""
    events = Event.objects.filter(type__in=list(CASH_EVENTS), data__patron=patron).order_by("-position")[:limit]
    return [_transaction(e.position) for e in events]


def _iso(moment) -> str | None:
    return moment.isoformat() if moment else None


def case_json(state: dict) -> dict:
    """A case for the API: times as UTC ISO 8601 texts, the rest as ``suspicion_case`` gives it."""

    def clean(value):
        if isinstance(value, datetime):
            return _iso(value)
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(state)


def patron_identities(codes) -> dict[str, dict]:
    """The name and identity document of each patron of ``codes``, ``{code: {"name",
    "document"}}`` (an unknown code left out): the compliance officer's to read, as a report
    names the person it is about."""
    return {p.code: {"name": p.name, "document": p.document} for p in Patron.objects.filter(code__in=set(codes))}

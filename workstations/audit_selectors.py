"""Reads of the audit workstation (read-only; cents, UTC): the gaming days with their state
and seal, the exceptions of a day, an event's trail, and the check of an export file with
the standalone verifier (``ledger/export/verify_export.py``, the regulator's own script)."""

from __future__ import annotations

import tempfile
from datetime import date, timedelta

from django.conf import settings
from django.db.models import Count, Max, Min, Q

from cashier.reports import variance_report, variance_threshold_cents
from games.models import BetRefusal
from ledger.errors import NotFound
from ledger.export import verify_export
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import SEAL_EVENT, seal_key

# The exception view's kinds: label and the event types that make one (refused bets and
# variances come from elsewhere: ``BetRefusal`` rows and ``cashier.reports.variance_report``).
EXCEPTION_KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "void": ("voids", ("RoundVoided", "FillVoided", "CreditVoided")),
    "reversal": ("reversals", ("RoundReversed", "FillReversed", "CreditReversed", "DropCountReversed")),
    "rule_change": ("rule and limit changes", ("TableRulesChanged", "SelfLimitSet")),
    "aml": (
        "anti-money-laundering events",
        ("AmlIdentityChecked", "AmlTransactionLogged", "AmlAggregateFlagged", "AmlTransactionRefused"),
    ),
    "refused_bet": ("refused bets", ()),
    "variance": ("variances over the threshold", ()),
}


def gaming_days(limit: int = 60) -> list[dict]:
    """The latest ``limit`` gaming days, newest first: ``{"day", "events", "first", "last",
    "state": "open" | "closed" | "sealed", "closed_at", "seal": {...} | None, "head_hash"}``.
    ``sealed``: sealed on demand while still open; a closed day is sealed at its close.
    ``head_hash``: the seal's last hash, or the hash of the day's last event while unsealed."""
    rows = list(
        Event.objects.values("gaming_day")
        .annotate(events=Count("position"), first=Min("position"), last=Max("position"))
        .order_by("-gaming_day")[:limit]
    )
    seals: dict[str, Event] = {}
    for seal in Event.objects.filter(type=SEAL_EVENT).order_by("position"):
        seals[seal.data["day"]] = seal  # the latest seal of a day counts
    closes = {e.gaming_day: e for e in Event.objects.filter(type="GamingDayClosed", stream__startswith="gamingday/")}
    days = []
    for row in rows:
        day = row["gaming_day"]
        seal = seals.get(day.isoformat())
        closed = closes.get(day)
        head = seal.data["last_hash"] if seal else Event.objects.only("hash").get(position=row["last"]).hash
        days.append(
            {
                "day": day,
                "events": row["events"],
                "first": row["first"],
                "last": row["last"],
                "state": "closed" if closed else ("sealed" if seal else "open"),
                "closed_at": closed.occurred_at if closed else None,
                "closed_by": closed.actor if closed else None,
                "seal": None
                if seal is None
                else {
                    "at": seal.occurred_at,
                    "by": seal.actor,
                    "first_position": seal.data["first_position"],
                    "last_position": seal.data["last_position"],
                    "last_hash": seal.data["last_hash"],
                    "signature": seal.data["signature"],
                    "key_id": seal.data.get("key_id"),
                },
                "head_hash": head,
            }
        )
    return days


def gaming_day(day: date) -> dict | None:
    return next((d for d in gaming_days(limit=10_000) if d["day"] == day), None)


def verify_upload(upload) -> verify_export.Report:
    """Verify an uploaded export zip with the standalone verifier, the seal key as the verifier
    would be given it (``--key``); the file is spooled to a temporary file, never kept."""
    key_id, key = seal_key()
    with tempfile.NamedTemporaryFile(suffix=".zip") as spool:
        for chunk in upload.chunks():
            spool.write(chunk)
        spool.flush()
        try:
            return verify_export.verify(spool.name, key if key_id == "configured" else None)
        except Exception as exc:  # not a zip at all, a zip bomb's error, …: a refusal, never a 500
            return verify_export.Report(False, f"FAIL the file is not a readable export: {exc.__class__.__name__}")


def exceptions(day: date, kind: str | None = None, actor: str | None = None) -> list[dict]:
    """The exceptions of gaming ``day``, oldest first: ``{"kind", "label", "at", "actor",
    "what", "event"}`` (``event``: a ledger position, None for a refused bet, which the ledger
    never got). ``kind`` one of ``EXCEPTION_KINDS`` (None: all), ``actor`` a user name."""
    found: list[dict] = []
    wanted = [kind] if kind else list(EXCEPTION_KINDS)
    types = {t: k for k in wanted for t in EXCEPTION_KINDS[k][1]}
    if types:
        events = Event.objects.filter(gaming_day=day, type__in=list(types)).order_by("position")
        if actor:
            events = events.filter(actor=actor)
        for event in events:
            found.append(
                {
                    "kind": types[event.type],
                    "label": EXCEPTION_KINDS[types[event.type]][0],
                    "at": event.occurred_at,
                    "actor": event.actor,
                    "what": describe(event),
                    "event": event.position,
                }
            )
    if "refused_bet" in wanted:
        # A gaming day spans two calendar dates (it starts at GAMING_DAY_START, local time).
        window = (day - timedelta(days=1), day + timedelta(days=2))
        refusals = BetRefusal.objects.filter(created_at__date__range=window).order_by("created_at")
        if actor:
            refusals = refusals.filter(actor=actor)
        for refusal in refusals:
            if current_gaming_day(refusal.created_at) != day:
                continue
            found.append(
                {
                    "kind": "refused_bet",
                    "label": "refused bets",
                    "at": refusal.created_at,
                    "actor": refusal.actor,
                    "what": f"table {refusal.table_code}, {refusal.get_kind_display()}: {refusal.message}",
                    "event": None,
                }
            )
    if "variance" in wanted:
        for row in variance_report(day, variance_threshold_cents())["rows"]:
            if not row["investigate"] or (actor and row["actor"] != actor):
                continue
            event = Event.objects.only("occurred_at").get(position=row["event"])
            found.append(
                {
                    "kind": "variance",
                    "label": "variances over the threshold",
                    "at": event.occurred_at,
                    "actor": row["actor"],
                    "what": f"{row['kind'].replace('_', ' ')} of {row['subject']}",
                    "amount_cents": row["variance_cents"],
                    "event": row["event"],
                }
            )
    found.sort(key=lambda row: row["at"])
    return found


def describe(event: Event) -> str:
    """One line for an exception event, in words."""
    data = event.data
    reason = data.get("reason")
    if event.type.startswith("Aml"):
        what = {
            "AmlIdentityChecked": "identity checked",
            "AmlTransactionLogged": "cash transaction logged",
            "AmlAggregateFlagged": "day's cash over the reporting threshold",
            "AmlTransactionRefused": "transaction refused: no identity on file",
        }[event.type]
        return f"patron {data.get('patron')}, {what}, {data.get('direction', '')} {_units(data.get('amount_cents'))}"
    if event.type == "TableRulesChanged":
        return f"table {data.get('table', event.stream.partition('/')[2])}: rules changed"
    if event.type == "SelfLimitSet":
        return f"patron {data.get('patron')}: self-limit set"
    subject = data.get("slip") or data.get("table") or event.stream
    words = {"Voided": "voided", "Reversed": "reversed"}
    verb = next((w for suffix, w in words.items() if event.type.endswith(suffix)), event.type)
    noun = event.type.removesuffix("Voided").removesuffix("Reversed")
    noun = {"Round": "coup", "Fill": "fill", "Credit": "credit", "DropCount": "drop count"}.get(noun, noun)
    return f"{noun} {subject} {verb}" + (f": {reason}" if reason else "")


def _units(cents) -> str:
    if cents is None:
        return ""
    return f"{cents // 100:,}.{cents % 100:02d} {settings.CASINO_CURRENCY}"


def event_trail(position: int) -> dict:
    """An event and its trail: the event (all fields), the events of its stream, those of its
    correlation, and what caused it / what it caused. ``NotFound`` for an unknown position."""
    event = Event.objects.filter(position=position).prefetch_related("postings").first()
    if event is None:
        raise NotFound(f"no event at position {position}", field="position")
    related = Q(stream=event.stream)
    if event.correlation_id:
        related |= Q(correlation_id=event.correlation_id)
    related |= Q(causation_id=str(event.position))
    if event.causation_id and event.causation_id.isdigit():
        related |= Q(position=int(event.causation_id))
    trail = Event.objects.filter(related).order_by("position")[:200]
    return {"event": event, "postings": list(event.postings.all()), "trail": list(trail)}

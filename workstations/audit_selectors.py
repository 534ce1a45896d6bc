"""Reads of the audit workstation (read-only; cents, UTC): the gaming days with their state
and seal, the exceptions of a day, an event's trail, and the check of an export file with
the standalone verifier (``ledger/export/verify_export.py``, the regulator's own script)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from datetime import date

from django.db.models import Count, Max, Min, Q

from audit.exceptions import KINDS, exception_log
from core.ids import uuid_of
from dashboard.selectors import event_line
from games.models import Round
from games.rules.event_words import hides_card, is_face_down, without_card_value
from ledger import signing, withheld
from ledger.errors import NotFound
from ledger.export import verify_export
from ledger.models import Event
from ledger.seal import SEAL_EVENT, seal_key

# The exception view's kinds: the exception log's (``audit.exceptions``), label and event types.
EXCEPTION_KINDS = KINDS


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


@dataclass(frozen=True)
class Verdict:
    """What the page says of an uploaded export: ``state`` "verified" (intact and signed by this
    casino's key), "foreign" (intact as far as checked, but signed by a key not this casino's:
    anyone can make one) or "refused" (altered, not an export, …); ``message`` the verifier's."""

    state: str
    message: str

    @property
    def ok(self) -> bool:
        return self.state == "verified"


def verify_upload(upload) -> Verdict:
    """Verify an uploaded export zip with the standalone verifier in strict mode, trusting only
    this site's keys (``ledger.signing``: its signing key, as ``manage.py ledger public-key``
    prints it, and the keys of before a rotation, ``LEDGER_TRUSTED_PUBLIC_KEYS``) and the HMAC
    seal key of older exports. A valid signature by any other key is "foreign": an attacker can
    sign a forged day with a key of his own. A site still on its development key verifies its
    own exports with the verifier's warning that such a key proves nothing. The file is spooled
    to a temporary file, never kept."""
    site = signing.signing_key()
    trusted = tuple(signing.trusted_public_keys() | {site.public_key})
    key_id, key = seal_key()
    hmac_key = key if key_id == "configured" else None
    with tempfile.NamedTemporaryFile(suffix=".zip") as spool:
        for chunk in upload.chunks():
            spool.write(chunk)
        spool.flush()
        try:
            report = verify_export.verify(spool.name, hmac_key, strict=True, trusted=trusted)
            fault = report.fault
            own_development = isinstance(fault, verify_export.UntrustedKey) and fault.development
            if own_development and _own_development_key(fault, site):
                report = verify_export.verify(spool.name, hmac_key, trusted=trusted)
                fault = report.fault
        except Exception as exc:  # not a zip at all, a zip bomb's error, …: a refusal, never a 500
            return Verdict("refused", f"FAIL the file is not a readable export: {exc.__class__.__name__}")
    if report.ok:
        return Verdict("verified", report.message)
    if isinstance(fault, verify_export.UntrustedKey):
        signer = verify_export.key_fingerprint(fault.public_key) if fault.public_key else "an HMAC development key"
        return Verdict("foreign", f"signed by an unknown key — not this casino’s ({signer})")
    return Verdict("refused", report.message)


def _own_development_key(fault: verify_export.UntrustedKey, site: signing.SigningKey) -> bool:
    """Whether a development-key signature is this site's own: its Ed25519 development key, or
    (an export of before issue 21) the HMAC development key of a site with no seal key set."""
    if fault.public_key is not None:
        return site.kind == "development" and fault.public_key.lower() == site.public_key
    return seal_key()[0] == "development"


def exceptions(day: date, kind: str | None = None, table: str | None = None, person: str | None = None) -> list[dict]:
    """The exception log of gaming ``day``, oldest first (``audit.exceptions.exception_log``:
    its rows, with who, when, before and after). ``kind`` one of ``EXCEPTION_KINDS`` (None:
    all), ``table`` a table code, ``person`` a username or patron code."""
    return exception_log(day, kind=kind, table=table, person=person)["rows"]


# What the event page shows for the value of a card still face down in play.
HIDDEN_ON_PAGE = "hidden until the coup is over"


def _round_over(event: Event) -> bool:
    """Whether the coup a face-down card was dealt in is settled or voided (its value may show)."""
    round_id = event.data.get("round") if isinstance(event.data, dict) else None
    if not (is_face_down(event.type, event.data) or hides_card(event.data)) or not isinstance(round_id, str):
        return False
    try:
        key = uuid_of(round_id)
    except ValueError:
        return False
    return Round.objects.filter(pk=key, state__in=[Round.State.SETTLED, Round.State.VOIDED]).exists()


def event_trail(position: int) -> dict:
    """An event and its trail: the event (all fields), the events of its stream, those of its
    correlation, and what caused it / what it caused, and ``line``: what the event says, in
    words (``dashboard.selectors.event_line``), ``data``: the event's data to show, a face-down
    card's value (``games.rules.event_words.hides_card``) replaced by ``HIDDEN_ON_PAGE`` while
    its coup is in play (the stored event is untouched), and so ``hash``, ``prev_hash`` and each
    trail line's ``shown_hash`` where they are such a card's (``ledger.withheld``).
    ``NotFound`` for an unknown position."""
    event = Event.objects.filter(position=position).prefetch_related("postings").first()
    if event is None:
        raise NotFound(f"no event at position {position}", field="position")
    related = Q(stream=event.stream)
    if event.correlation_id:
        related |= Q(correlation_id=event.correlation_id)
    related |= Q(causation_id=str(event.position))
    if event.causation_id and event.causation_id.isdigit():
        related |= Q(position=int(event.causation_id))
    trail = list(Event.objects.filter(related).order_by("position")[:200])
    over = _round_over(event)
    hidden = hides_card(event.data) and not over
    # A hidden card's hash (even its first 16 digits) would give the card away: 52 guesses.
    previous = Event.objects.filter(position=event.position - 1).first()
    unshown = withheld.withheld_positions([event, *trail, *([previous] if previous else [])])
    for line in trail:
        line.shown_hash = HIDDEN_ON_PAGE if line.position in unshown else line.hash
    return {
        "event": event,
        "hash": HIDDEN_ON_PAGE if event.position in unshown else event.hash,
        "prev_hash": HIDDEN_ON_PAGE if event.position - 1 in unshown else event.prev_hash,
        "data": without_card_value(event.data, HIDDEN_ON_PAGE) if hidden else event.data,
        "line": event_line(event.type, event.data, round_over=over),
        "postings": list(event.postings.all()),
        "trail": trail,
    }

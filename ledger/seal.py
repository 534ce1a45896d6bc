"""Daily seals: a gaming day's position range and last hash, signed, appended as an event.

A seal partitions the chain: the range of day D starts right after the range of the latest
earlier seal (or at the day's first event when there is none) and ends at the last event of D
present when the seal is made. So every event belongs to exactly one sealed range, even one
whose business time put it in another gaming day (it is counted in ``other_day_events``), and
the export of D can be verified link by link from the previous seal's ``last_hash``.

The signature is Ed25519 (``ledger.signing``) over the canonical JSON
(``ledger.hashing``) of the seal's fields without ``signature``; the seal names the key
(``algorithm``, ``key_id``, ``key_kind``, ``public_key``). With no key file configured the
development key signs, the seal says ``key_kind: "development"``, and ``manage.py check
--deploy`` reports that as an error (``ledger.checks``). Older seals, before Ed25519, are
HMAC-SHA256 under ``LEDGER_SEAL_KEY`` (``algorithm: "HMAC-SHA256"``); the export verifier still
checks them (``sign`` below is that HMAC).

The seal is appended as ``GamingDaySealed`` on stream ``seal/<YYYY-MM-DD>`` (no postings). A
day may be sealed again (e.g. on demand mid-day, then at its close): the latest seal counts.
"""

import hashlib
import hmac
from datetime import date

from django.conf import settings
from django.db.models import Max, Min

from . import outage_forms, signing, withheld
from .commands import ledger_command
from .errors import Conflict, InvalidInput, NotFound, StateConflict
from .event_seals import sealed_events
from .gaming_day import SEAL_EVENT
from .hashing import canonical_json
from .models import Event
from .store import NewEvent, stream_version

DEVELOPMENT_KEY = "development-only-ledger-seal-key: set LEDGER_SEAL_KEY in production"
ALGORITHM = signing.ALGORITHM


def seal_key() -> tuple[str, bytes]:
    """The HMAC key of older seals, made before Ed25519: ``("configured", …)`` from ``LEDGER_SEAL_KEY``,
    else ``("development", …)``."""
    configured = getattr(settings, "LEDGER_SEAL_KEY", "")
    if configured:
        return "configured", configured.encode()
    return "development", DEVELOPMENT_KEY.encode()


def sign(payload: dict, key: bytes) -> str:
    """Hex HMAC-SHA256 of the canonical JSON of ``payload`` (every field but ``signature``): how
    seals were signed before Ed25519."""
    body = {k: v for k, v in payload.items() if k != "signature"}
    return hmac.new(key, canonical_json(body).encode(), hashlib.sha256).hexdigest()


def latest_seal(*, before: date | None = None, day: date | None = None) -> Event | None:
    """The latest ``GamingDaySealed`` event of ``day``, or of the latest day earlier than ``before``.

    Seals are one or two a day, so a scan of them all is small even after years. Only seals the
    application wrote count (``ledger.event_seals``): one INSERTed around it would otherwise
    move the day's partition, or forbid sealing every earlier day.
    """
    best = None
    for seal in sealed_events(Event.chain.filter(type=SEAL_EVENT).only("position", "data").order_by("position")):
        sealed = seal.data["day"]
        if day is not None and sealed != day.isoformat():
            continue
        if before is not None and sealed >= before.isoformat():
            continue
        if best is None or (sealed, seal.position) > (best.data["day"], best.position):
            best = seal
    return best


def day_range(day: date) -> tuple[int, int, Event | None]:
    """``(first_position, last_position, previous seal)`` of ``day``'s partition of the chain now.

    Raises ``NotFound`` when the day has no event in its partition.
    """
    previous = latest_seal(before=day)
    last = Event.chain.filter(gaming_day=day).aggregate(p=Max("position"))["p"]
    if previous is not None:
        first = previous.data["last_position"] + 1
    else:
        first = Event.chain.filter(gaming_day=day).aggregate(p=Min("position"))["p"]
    if last is None or first is None or last < first:
        raise NotFound(f"gaming day {day.isoformat()} has no event after the previous seal", field="day")
    return first, last, previous


def seal_payload(*, day: date, first: int, last: int, previous: Event | None) -> dict:
    """The fields a seal signs (all but ``signature``, ``algorithm`` and ``key_id`` come from the ledger)."""
    last_event = Event.chain.only("hash").get(position=last)
    in_day = Event.chain.filter(position__gte=first, position__lte=last, gaming_day=day).count()
    return {
        "day": day.isoformat(),
        "first_position": first,
        "last_position": last,
        "last_hash": last_event.hash,
        "event_count": last - first + 1,
        "other_day_events": last - first + 1 - in_day,
        "previous_seal": (
            {
                "day": previous.data["day"],
                "position": previous.position,
                "last_position": previous.data["last_position"],
                "last_hash": previous.data["last_hash"],
                "signature": previous.data["signature"],
            }
            if previous is not None
            else None
        ),
        **signing.signing_key().stamp(),
    }


def seal_gaming_day(*, day: date, actor: str) -> dict:
    """Seal gaming day ``day``: sign its partition of the chain and append ``GamingDaySealed``.

    Returns the seal: ``{"day", "first_position", "last_position", "last_hash", "event_count",
    "other_day_events", "previous_seal", "algorithm", "key_id", "key_kind", "public_key",
    "signature", "event"}``
    (``event``: the seal event's position). Raises ``InvalidInput`` (``day`` not a date),
    ``NotFound`` (no event in the day's partition), ``Conflict`` (409: a later day is already
    sealed, so this day's partition is closed), ``StateConflict`` (409: a face-down card of a
    coup still in play lies in the range, or an outage of the day is still going on or has a
    paper form not entered: ``ledger.outage_forms``).
    """
    if not isinstance(day, date):
        raise InvalidInput("day must be a date (YYYY-MM-DD)", field="day")
    with ledger_command(actor=actor, request={"op": "seal_gaming_day", "day": day.isoformat()}) as cmd:
        seals = sealed_events(Event.chain.filter(type=SEAL_EVENT).only("position", "data").order_by("position"))
        later = [s for s in seals if s.data["day"] > day.isoformat()]
        if later:
            raise Conflict(
                f"gaming day {later[-1].data['day']} is already sealed; {day.isoformat()} can no longer be",
                field="day",
            )
        # Paper forms of an outage not yet entered would stay outside the sealed range for ever.
        outage_forms.refuse_while_unentered(day, what="sealed")
        first, last, previous = day_range(day)
        hidden = withheld.hashes_withheld_from()
        if hidden is not None and hidden <= last:
            # The seal shows its last hash, and its signature checks any guess of it: 52
            # guesses would find the card (``ledger.withheld``).
            raise StateConflict(
                f"gaming day {day.isoformat()}: a face-down card of a coup still in play lies in its range; "
                "seal it once that coup is over",
                field="day",
            )
        payload = seal_payload(day=day, first=first, last=last, previous=previous)
        payload = signing.sign_document(payload)
        stream = f"seal/{day.isoformat()}"
        (event,) = cmd.append(
            stream=stream, expected_version=stream_version(stream), events=[NewEvent(SEAL_EVENT, payload)]
        )
        return cmd.finish({**payload, "event": event.position})

"""Reads of the audit workstation (read-only; cents, UTC): the gaming days with their state
and seal, the exceptions of a day, an event's trail, and the check of an export file with
the standalone verifier (``ledger/export/verify_export.py``, the regulator's own script)."""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from datetime import date

from django.db.models import Count, Max, Min, Q

from audit.exceptions import KINDS, exception_log
from basis.face_down import hides_card, is_face_down, without_card_value
from cashier.services.pit_shift import gaming_day_bounds
from core.ids import uuid_of
from dashboard.floor_cards import day_number, first_numbers_of_day
from dashboard.table_reads import event_line, shoe_name
from games.models import Round, Shoe
from ledger import signing, withheld
from ledger.errors import NotFound
from ledger.export import verify_export
from ledger.export.writer import NOT_SEALED
from ledger.models import AuditEntry, Event, Posting, ProjectionCheckpoint
from ledger.seal import SEAL_EVENT, seal_key
from patrons.models import Patron

# The exception view's kinds: the exception log's (``audit.exceptions``), label and event types.
EXCEPTION_KINDS = KINDS


def gaming_days(limit: int = 60) -> list[dict]:
    """The latest ``limit`` gaming days, newest first: ``{"day", "events", "events_query",
    "later", "later_query", "first", "last", "state": "open" | "closed" | "sealed", "closed_at",
    "seal": {...} | None, "head_hash", "exportable", "export_why"}``.

    ``events``: the events of the day as every page counts them, the one figure: for a sealed
    day, the events of its sealed range (what its export holds and its seal signs, ``last −
    first + 1``); for a day not sealed, the events stamped with it so far. ``later``: events
    stamped with a sealed day after its range (the seal itself, sign-ins): they fall in the next
    day's range. ``*_query``: the filters of the event list that shows exactly those events.
    ``sealed``: sealed on demand while still open; a closed day is sealed at its close.
    ``head_hash``: the seal's last hash, or the hash of the day's last event while unsealed
    (``ledger.withheld.HASH_WITHHELD`` past a face-down card of a coup in play).
    ``exportable``: only a sealed day has an export; ``export_why`` says why not."""
    rows = list(
        Event.objects.values("gaming_day")
        .annotate(events=Count("position"), first=Min("position"), last=Max("position"))
        .order_by("-gaming_day")[:limit]
    )
    seals: dict[str, Event] = {}
    for seal in Event.objects.filter(type=SEAL_EVENT).order_by("position"):
        seals[seal.data["day"]] = seal  # the latest seal of a day counts
    closes = {e.gaming_day: e for e in Event.objects.filter(type="GamingDayClosed", stream__startswith="gamingday/")}
    hashes_from = withheld.hashes_withheld_from()
    days = []
    for row in rows:
        day = row["gaming_day"]
        seal = seals.get(day.isoformat())
        closed = closes.get(day)
        if seal:
            head = seal.data["last_hash"]
        elif withheld.hash_shown(row["last"], hashes_from):
            head = Event.objects.only("hash").get(position=row["last"]).hash
        else:
            head = withheld.HASH_WITHHELD
        entry = {
            "day": day,
            "events": row["events"],
            "events_query": {"gaming_day": day.isoformat()},
            "later": 0,
            "later_query": None,
            "first": row["first"],
            "last": row["last"],
            "state": "closed" if closed else ("sealed" if seal else "open"),
            "closed_at": closed.occurred_at if closed else None,
            "closed_by": closed.actor if closed else None,
            "seal": None,
            "head_hash": head,
            "exportable": seal is not None,
            "export_why": "" if seal else NOT_SEALED,
        }
        if seal is not None:
            first, last = seal.data["first_position"], seal.data["last_position"]
            entry["seal"] = {
                "at": seal.occurred_at,
                "by": seal.actor,
                "first_position": first,
                "last_position": last,
                "last_hash": seal.data["last_hash"],
                "signature": seal.data["signature"],
                "key_id": seal.data.get("key_id"),
            }
            entry["events"] = last - first + 1
            entry["events_query"] = {"from": first, "to": last}
            entry["later"] = Event.objects.filter(gaming_day=day, position__gt=last).count()
            entry["later_query"] = {"gaming_day": day.isoformat(), "from": last + 1}
        days.append(entry)
    return days


def site_key() -> dict:
    """The site's signing key as the auditor checks an export against it (``ledger.signing``;
    ``manage.py ledger public-key`` prints the same): ``{"public_key"`` (64 hex digits),
    ``"key_id"`` (its fingerprint), ``"development"``: a development key, public, proves nothing}``."""
    key = signing.signing_key()
    return {"public_key": key.public_key, "key_id": key.key_id, "development": key.kind == "development"}


def day_bounds(day: date) -> tuple:
    """The start and end of gaming ``day`` (UTC-aware; the casino's zone and start hour)."""
    return gaming_day_bounds(day)


def gaming_day(day: date) -> dict | None:
    return next((d for d in gaming_days(limit=10_000) if d["day"] == day), None)


def day_states(limit: int = 60) -> list[dict]:
    """The latest ``limit`` gaming days for a day picker, newest first (three queries):
    ``{"day", "state": "open" | "sealed" | "closed", "closed_at", "closed_by", "seal":
    {"first_position", "last_position", "at"} | None}``."""
    days = list(Event.objects.values_list("gaming_day", flat=True).distinct().order_by("-gaming_day")[:limit])
    closes = {
        e.gaming_day: e
        for e in Event.objects.filter(type="GamingDayClosed", stream__startswith="gamingday/", gaming_day__in=days)
    }
    seals = {}
    for seal in Event.objects.filter(type=SEAL_EVENT).order_by("position"):
        seals[seal.data["day"]] = seal  # the latest seal of a day counts
    rows = []
    for day in days:
        closed, seal = closes.get(day), seals.get(day.isoformat())
        rows.append(
            {
                "day": day,
                "state": "closed" if closed else ("sealed" if seal else "open"),
                "closed_at": closed.occurred_at if closed else None,
                "closed_by": closed.actor if closed else None,
                "seal": None
                if seal is None
                else {
                    "first_position": seal.data["first_position"],
                    "last_position": seal.data["last_position"],
                    "at": seal.occurred_at,
                },
            }
        )
    return rows


def default_day() -> date | None:
    """The day a report or list opens on: the last closed gaming day (its figures are final),
    else the latest day with an event, else None (an empty ledger)."""
    closed = (
        Event.objects.filter(type="GamingDayClosed", stream__startswith="gamingday/")
        .order_by("-gaming_day")
        .values_list("gaming_day", flat=True)
        .first()
    )
    if closed is not None:
        return closed
    return Event.objects.order_by("-gaming_day").values_list("gaming_day", flat=True).first()


# The event list's filters (``?name=value``), each an exact match but ``type``, ``table`` (comma
# lists), ``account`` (an account and its sub-accounts, or every account under ``prefix:`` when it
# ends so) and ``patron`` (a patron's code, or part of his name).
EVENT_FILTERS = ("gaming_day", "since", "until", "from", "to", "table", "type", "account", "stream", "patron")
# At most this many patrons match a part of a name (a filter, not a registry search).
PATRONS_MATCHED = 50


def patron_codes(text: str) -> list[str]:
    """The patron codes ``text`` names: the patron of that code (any case), else those whose
    name holds it (at most ``PATRONS_MATCHED``), by code."""
    text = text.strip()
    exact = Patron.objects.filter(code__iexact=text).values_list("code", flat=True).first()
    if exact:
        return [exact]
    named = Patron.objects.filter(name__icontains=text).order_by("code").values_list("code", flat=True)
    return list(named[:PATRONS_MATCHED])


def patron_names(codes: list[str]) -> dict[str, str]:
    """``{code: "Jeanne Martin (P00012)"}``: patrons by name, code second (the code alone without a name)."""
    names = dict(Patron.objects.filter(code__in=codes).values_list("code", "name"))
    return {code: f"{names[code]} ({code})" if names.get(code) else code for code in codes}


def event_types(day: str | None = None) -> list[str]:
    """The event types present in the ledger (on gaming ``day``, YYYY-MM-DD, when given), by name."""
    events = Event.objects.filter(gaming_day=day) if day else Event.objects.all()
    return sorted(events.order_by().values_list("type", flat=True).distinct())


def event_list(filters: dict[str, str]):
    """The ledger's events matching ``filters`` (``EVENT_FILTERS``; already checked: days are
    dates YYYY-MM-DD, ``from``/``to`` positions), oldest first, as a queryset of ``Event``.
    ``since``/``until``: a range of gaming days (a month to date); ``table``: events whose data
    names the table, or whose coup was played at it (the audit projection's table timeline)."""
    events = Event.objects.all()
    if filters.get("gaming_day"):
        events = events.filter(gaming_day=filters["gaming_day"])
    if filters.get("since"):
        events = events.filter(gaming_day__gte=filters["since"])
    if filters.get("until"):
        events = events.filter(gaming_day__lte=filters["until"])
    if filters.get("from"):
        events = events.filter(position__gte=int(filters["from"]))
    if filters.get("to"):
        events = events.filter(position__lte=int(filters["to"]))
    if filters.get("stream"):
        events = events.filter(stream=filters["stream"])
    if filters.get("type"):
        events = events.filter(type__in=filters["type"].split(","))
    if filters.get("table"):
        tables = filters["table"].split(",")
        # The event's own data names the table (a table's, slip's or count's event); the audit
        # projection adds those that name it only through their coup (bets, cards, results).
        events = events.filter(
            Q(data__table__in=tables) | Q(position__in=AuditEntry.objects.filter(table__in=tables).values("position"))
        )
    if account := filters.get("account"):
        # ``patron:P00024`` is the patron's every account (``:chips``, ``:front_money``, …).
        by = Q(account__startswith=account) if account.endswith(":") else Q(account=account)
        if not account.endswith(":"):
            by |= Q(account__startswith=f"{account}:")
        events = events.filter(position__in=Posting.objects.filter(by).values("event_id"))
    if filters.get("patron"):
        # Every event touching one of his accounts, or naming him (the audit projection's
        # patron timeline: bets, settlements, AML decisions, …).
        codes = patron_codes(filters["patron"])
        accounts_of = Q(pk__in=[])
        for code in codes:
            accounts_of |= Q(account__startswith=f"patron:{code}:")
        # The projection may lag the ledger by a few events: those past its checkpoint are read
        # from their data.
        projected = ProjectionCheckpoint.objects.filter(name="audit").values_list("position", flat=True).first() or 0
        events = events.filter(
            Q(position__in=AuditEntry.objects.filter(patron__in=codes).values("position"))
            | Q(position__in=Posting.objects.filter(accounts_of).values("event_id"))
            | Q(position__gt=projected, data__patron__in=codes)
        )
    return events.order_by("position").prefetch_related("postings")


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


def verify_upload(upload, *, day: date | None = None) -> Verdict:
    """Verify an uploaded export zip with the standalone verifier in strict mode, trusting only
    this site's keys (``ledger.signing``: its signing key, as ``manage.py ledger public-key``
    prints it, and the keys of before a rotation, ``LEDGER_TRUSTED_PUBLIC_KEYS``) and the HMAC
    seal key of older exports. A valid signature by any other key is "foreign": an attacker can
    sign a forged day with a key of his own. A site still on its development key verifies its
    own exports with the verifier's warning that such a key proves nothing. Checked on ``day``'s
    page, an intact export of another day is refused, naming its day: one day's export is never
    shown as another's. The file is spooled to a temporary file, never kept."""
    site = signing.signing_key()
    trusted = tuple(signing.trusted_public_keys() | {site.public_key})
    key_id, key = seal_key()
    hmac_key = key if key_id == "configured" else None
    with tempfile.NamedTemporaryFile(suffix=".zip") as spool:
        for chunk in upload.chunks():
            spool.write(chunk)
        spool.flush()
        if _registers_zip(spool.name):
            return Verdict(
                "refused",
                "this is a zip of registers, not an export: each register is checked with openssl against "
                "public-key.pem (the command is above, under the day's registers)",
            )
        try:
            report = verify_export.verify(spool.name, hmac_key, strict=True, trusted=trusted)
            fault = report.fault
            own_development = isinstance(fault, verify_export.UntrustedKey) and fault.development
            if own_development and _own_development_key(fault, site):
                report = verify_export.verify(spool.name, hmac_key, trusted=trusted)
                fault = report.fault
        except Exception:  # a zip bomb's error, an unreadable file, …: a refusal in words, never a 500
            return Verdict("refused", "FAIL the file cannot be read as a gaming day's export (a zip the site wrote)")
    if report.ok and day is not None and report.day != day.isoformat():
        return Verdict(
            "refused",
            f"FAIL this is the export of gaming day {report.day}, not of {day.isoformat()}: "
            f"check it on the page of {report.day}",
        )
    if report.ok:
        return Verdict("verified", f"{report.message}, gaming day {report.day}")
    if isinstance(fault, verify_export.UntrustedKey):
        signer = verify_export.key_fingerprint(fault.public_key) if fault.public_key else "an HMAC development key"
        return Verdict("foreign", f"signed by an unknown key — not this casino’s ({signer})")
    return Verdict("refused", report.message)


def _registers_zip(path: str) -> bool:
    """Whether the zip at ``path`` is a day's registers (signed files, no export manifest)."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "manifest.json" not in names and any(name.endswith(".csv.sig") for name in names)


def _own_development_key(fault: verify_export.UntrustedKey, site: signing.SigningKey) -> bool:
    """Whether a development-key signature is this site's own: its Ed25519 development key, or
    (an older, HMAC-signed export) the HMAC development key of a site with no seal key set.
    Never on a site with a key of its own: the HMAC development key is public (it is in the
    code), so anyone can sign a forged day with it."""
    if site.kind != "development":
        return False
    if fault.public_key is not None:
        return fault.public_key.lower() == site.public_key
    return seal_key()[0] == "development"


def exceptions(day: date, kind: str | None = None, table: str | None = None, person: str | None = None) -> list[dict]:
    """The exception log of gaming ``day``, oldest first (``audit.exceptions.exception_log``:
    its rows, with who, when, before and after). ``kind`` one of ``EXCEPTION_KINDS`` (None:
    all), ``table`` a table code, ``person`` a username or patron code."""
    return exception_log(day, kind=kind, table=table, person=person)["rows"]


def money_moved(event: Event) -> int | None:
    """The amount an event's line is about, in cents: its own ``amount_cents`` when it names one
    (a sale of 150 EUR moved 150 EUR, though its legs debit the cash, the patron's chips and the
    window's drawer); a drop count's amount counted (``counted_cents``, the drop the daily report
    shows: its legs debit the cage's cash with it and over/short with the variance, which
    ``event_row`` gives apart); else the sum of its debits outside the windows' subsidiary
    drawers, which only repeat the cage's control accounts. None when it moved no money."""
    data = event.data if isinstance(event.data, dict) else {}
    own = data.get("amount_cents")
    if type(own) is int:
        return own
    if event.type == "DropCounted" and type(data.get("counted_cents")) is int:
        return data["counted_cents"]
    debits = [
        p.amount_cents
        for p in event.postings.all()
        if p.amount_cents > 0 and not p.account.startswith(("cage:window:", "cage:windows:"))
    ]
    return sum(debits) if debits else None


def event_row(event: Event) -> dict:
    """One line of the event list: ``{"position", "at", "day", "type", "line", "stream", "actor",
    "amount_cents", "variance_cents"}`` (``amount_cents``: ``money_moved``; None when none;
    ``variance_cents``: a count's variance against the book, None when none)."""
    variance = event.data.get("variance_cents") if isinstance(event.data, dict) else None
    return {
        "variance_cents": variance if type(variance) is int and variance else None,
        "position": event.position,
        "at": event.occurred_at,
        "day": event.gaming_day,
        "type": event.type,
        "line": event_line(event.type, event.data),
        "stream": event.stream,
        "actor": event.actor,
        "amount_cents": money_moved(event),
    }


def coup_title(round_id: object) -> str | None:
    """``"Coup 3 at R1"``: a coup by its number within its table's gaming day (the day stamped
    on its opening, as the pit's pages count), None for an id of no coup."""
    try:
        key = uuid_of(round_id) if isinstance(round_id, str) else None
    except ValueError:
        key = None
    coup = Round.objects.select_related("table").filter(pk=key).first() if key is not None else None
    if coup is None:
        return None
    opened = Event.objects.filter(stream=f"round/{coup.id}", version=1).values_list("gaming_day", flat=True).first()
    first = first_numbers_of_day([coup.table_id], opened).get(coup.table_id) if opened else None
    return f"Coup {day_number(coup.number, first)} at {coup.table.code}"


def shoe_title(shoe_id: object) -> str | None:
    """``"Shoe 2 at B1"``: a shoe by its number among those its table started that gaming day
    (as the table page names it: ``dashboard.table_reads.shoe_name``), None for an id of no shoe."""
    try:
        key = uuid_of(shoe_id) if isinstance(shoe_id, str) else None
    except ValueError:
        key = None
    shoe = Shoe.objects.select_related("table").filter(pk=key).first() if key is not None else None
    if shoe is None:
        return None
    number = shoe_name(shoe.table, str(shoe.id)).get("number")
    return f"Shoe {number} at {shoe.table.code}" if number else f"A shoe at {shoe.table.code}"


# Streams of one thing a person names (``kind/<id>``): by the title of that thing.
TITLED_STREAMS = {"round": coup_title, "shoe": shoe_title}


def stream_title(stream: str, titles: dict[str, str] | None = None) -> str:
    """A stream as people name it: a coup's (``round/<id>``) ``Coup 3 at R1``, a shoe's
    (``shoe/<id>``) ``Shoe 1 at B1``, any other as it is. ``titles``: those already made, kept
    for the next line of the same stream."""
    titles = {} if titles is None else titles
    if stream not in titles:
        kind, _, key = stream.partition("/")
        title = TITLED_STREAMS[kind](key) if kind in TITLED_STREAMS else None
        titles[stream] = title or stream
    return titles[stream]


# Data keys that mean something else in one event type: shown under the key that says it
# (``workstation_tags.data_value``): a credit line's limits before and after are amounts, a
# staff member's roles before and after are roles, a pot's exact rake owed an amount.
SHOWN_AS = {
    "CreditLineApproved": {"before": "before_cents", "after": "after_cents"},
    "StaffRolesChanged": {"before": "roles_before", "after": "roles_after"},
    # The exact rake of a pot (a fraction of cents: ``games.rules.classic_stud.PotAward``).
    "PotAwarded": {"rake_owed": "rake_owed_cents"},
}


def data_fields(event_type: str, data: object) -> list[dict]:
    """An event's data as the page shows it: ``[{"key", "shown_as", "value", "title"}]``, one
    per data key: ``shown_as`` the key its value reads under (``SHOWN_AS``), ``title`` the coup
    or shoe an id names (``coup_title``, ``shoe_title``; None: none)."""
    if not isinstance(data, dict):
        return []
    aliases = SHOWN_AS.get(event_type, {})
    fields = []
    for key, value in data.items():
        title = TITLED_STREAMS[key](value) if key in TITLED_STREAMS and isinstance(value, str) else None
        fields.append({"key": key, "shown_as": aliases.get(key, key), "value": value, "title": title})
    return fields


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
    correlation, and what caused it / what it caused (each with its stream's ``title``:
    ``stream_title``), ``title`` its own stream's, ``coup`` the title of the coup its data
    names (None: none), ``correlation`` that of the coup its correlation id is, and ``line``: what the event says, in
    words (``dashboard.table_reads.event_line``), ``data``: the event's data to show (``fields``: the same, each
    with the key it reads under and the coup or shoe it names: ``data_fields``), a face-down
    card's value (``games.rules.event_words.hides_card``) replaced by ``HIDDEN_ON_PAGE`` while
    its coup is in play (the stored event is untouched); ``hash``, ``prev_hash`` and each trail
    line's ``shown_hash`` read ``ledger.withheld.HASH_WITHHELD`` from such a card onwards.
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
    # A hash from a hidden card onwards (even its first 16 digits) would give the card away.
    hashes_from = withheld.hashes_withheld_from()
    for line in trail:
        line.shown_hash = line.hash if withheld.hash_shown(line.position, hashes_from) else withheld.HASH_WITHHELD
    shown = withheld.hash_shown(event.position, hashes_from)
    titles: dict[str, str] = {}
    for line in trail:
        line.title = stream_title(line.stream, titles)
    return {
        "title": stream_title(event.stream, titles),
        "coup": coup_title(event.data.get("round")) if isinstance(event.data, dict) else None,
        "correlation": coup_title(event.correlation_id) if event.correlation_id else None,
        "event": event,
        "hash": event.hash if shown else withheld.HASH_WITHHELD,
        "prev_hash": event.prev_hash if shown else withheld.HASH_WITHHELD,
        "data": without_card_value(event.data, HIDDEN_ON_PAGE) if hidden else event.data,
        "fields": data_fields(event.type, without_card_value(event.data, HIDDEN_ON_PAGE) if hidden else event.data),
        "line": event_line(event.type, event.data, round_over=over),
        "postings": list(event.postings.all()),
        "trail": trail,
    }

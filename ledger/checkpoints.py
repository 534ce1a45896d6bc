"""Signed checkpoints of the chain's head, kept outside the ledger database.

The hash chain alone proves nothing against someone who can write the database: he can edit
an event and recompute every hash after it, or delete the last events, and the chain is
consistent again. A checkpoint is the head ``(position, hash)`` signed with the site's Ed25519
key (``ledger.signing``) and written as a file to ``LEDGER_CHECKPOINT_DIR``, a directory the
application can only add to (deploy/README.md, "The anchored chain"): ``ledger verify`` then
finds a rewritten chain (the hash at a checkpoint's position differs) and a cut tail (a
checkpoint beyond the head).

Files: ``<dir>/<ledger id>/<YYYY-MM-DD>/<position, 15 digits>-<hash, first 16 hex>.json``, the day
being the UTC day of writing, each holding one canonical-JSON document ``{"format", "ledger",
"genesis", "position", "hash", "written_at", "previous", "algorithm", "key_id", "key_kind",
"public_key", "signature"}``. A file is created with ``O_CREAT | O_EXCL`` (mode 0444) and never
opened for writing again.

One directory may hold the checkpoints of several ledgers (a demo database deleted and made
again, a test copy): each names its ledger, ``ledger`` (the database's random id,
``LedgerIdentity``) and ``genesis`` (the hash of its first event). A checkpoint is this
ledger's when either matches; the others are counted and ignored, never failed. Checkpoints of
the first format (``…/1``, ``<dir>/<day>/<file>``, naming no ledger) count as this ledger's when
they were signed after its first event was recorded.

Each checkpoint written is recorded in the database (``CheckpointRecord``) and names its
predecessor (``previous``): a file deleted or renamed is found from either side (``examine``;
``missing_files`` for the ``casino_ledger_checkpoints_missing`` gauge). The next checkpoint's
position comes from those records, not from file names: a renamed file stops nothing.

Written by the Celery beat task ``ledger.tasks.write_checkpoint`` every
``LEDGER_CHECKPOINT_INTERVAL_SECONDS`` when the head moved, after a projection catch-up once
``LEDGER_CHECKPOINT_EVENTS`` events came after the last checkpoint or the last is that many
seconds old (``write_if_due``), and by
``manage.py ledger checkpoint``.
"""

import json
import logging
import math
import os
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from . import signing, verification_records
from .event_seals import SEAL_FIELDS, first_unsealed
from .hashing import canonical_json, iso_utc
from .models import ChainVerification, CheckpointRecord, Event, LedgerIdentity
from .store import head

logger = logging.getLogger(__name__)

FORMAT = "casino-ledger-checkpoint/2"
FIRST_FORMAT = "casino-ledger-checkpoint/1"  # before checkpoints named their ledger
_NAME = re.compile(r"^(\d{15})-([0-9a-f]{16})\.json$")


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint file: ``position``, ``hash`` (hex), ``written_at`` (ISO UTC), ``file`` (path);
    ``ledger`` (id, "" for the first format), ``genesis`` (its ledger's first event hash, "" for the
    first format), ``previous`` (``(position, hash)`` of the checkpoint before it, or None)."""

    position: int
    hash: str
    written_at: str
    file: str
    ledger: str = ""
    genesis: str = ""
    previous: tuple[int, str] | None = None


@dataclass(frozen=True)
class Identity:
    """This database's ledger: ``ledger_id`` (32 hex), ``named_at`` (UTC), ``head_at_naming``."""

    ledger_id: str
    named_at: datetime | None
    head_at_naming: int


@dataclass
class Anchors:
    """What ``examine`` found: ``mine`` (this ledger's checkpoints, position order), ``foreign``
    (checkpoints of other ledgers, counted by ledger id; "" for unnamed first-format ones),
    ``faults`` (missing, renamed or moved checkpoint files, a predecessor missing, a checkpoint
    of this ledger signing another first event: one sentence each)."""

    ledger: Identity
    mine: list[Checkpoint] = field(default_factory=list)
    foreign: dict[str, int] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)


class CheckpointFault(Exception):
    """A checkpoint file that cannot be relied on (unreadable, unsigned, an unknown key): names it."""

    def __init__(self, file: str, what: str):
        super().__init__(f"checkpoint {file}: {what}")
        self.file, self.what = file, what


def directory() -> Path:
    return Path(settings.LEDGER_CHECKPOINT_DIR)


def identity(*, create: bool = True) -> Identity:
    """This database's ledger, named now (a random id, the head noted) if it has no name yet:
    its first checkpoint names it. ``create=False`` (a reader, perhaps a read-only role): an
    unnamed ledger is ``Identity("", None, <head>)``."""
    row = LedgerIdentity.objects.filter(one=1).first()
    if row is None and not create:
        return Identity("", None, head()[0])
    if row is None:
        try:
            with transaction.atomic():
                row = LedgerIdentity.objects.create(
                    one=1, ledger_id=uuid.uuid4().hex, named_at=datetime.now(UTC), head_at_naming=head()[0]
                )
        except IntegrityError:  # named by another process meanwhile
            row = LedgerIdentity.objects.get(one=1)
    return Identity(row.ledger_id, row.named_at, row.head_at_naming)


def first_event_hash() -> str:
    """The hash of the ledger's first event ("" while it is empty)."""
    return Event.chain.filter(position=1).values_list("hash", flat=True).first() or ""


def _latest_record(head_position: int) -> CheckpointRecord | None:
    # A record beyond the head is a cut tail or a forged row: ``examine`` reports it; the next
    # checkpoint is not held back by it.
    return CheckpointRecord.objects.filter(position__lte=head_position).order_by("-position", "-id").first()


def latest_position() -> int:
    """The highest position anchored so far (0: none), from the database's records."""
    record = _latest_record(head()[0])
    return record.position if record else 0


def staleness(now: datetime | None = None) -> tuple[float, int]:
    """How far the anchoring is behind at ``now`` (UTC; default: now): ``(age, unanchored)``, the
    seconds since the latest checkpoint at or below the head was written (``inf`` while none
    was), and the events after it (head position minus its position; 0 when it holds the head).
    Two indexed reads of the database's records (``CheckpointRecord``), no file."""
    now = now or datetime.now(UTC)
    position = head()[0]
    record = _latest_record(position)
    if record is None:
        return math.inf, position
    return max(0.0, (now - record.written_at).total_seconds()), position - record.position


def latest_signed() -> tuple[int, str] | None:
    """``(position, hash)`` of the latest recorded checkpoint whose signed file still holds it
    (a trusted key's signature) and whose event is still in the ledger; None when there is none.
    A record alone proves nothing: whoever holds the database can insert one."""
    record = CheckpointRecord.objects.order_by("-position", "-id").first()
    if record is None:
        return None
    try:
        signed = _read(directory() / record.file, signing.trusted_public_keys())
    except (CheckpointFault, OSError, ValueError):
        return None
    if (signed.position, signed.hash) != (record.position, record.hash):
        return None
    if not Event.chain.filter(position=record.position, hash=record.hash).exists():
        return None
    return record.position, record.hash


def write_checkpoint() -> Checkpoint | None:
    """Sign the head and add it to the directory, under this ledger's id, and record it. Returns
    it, or None when the ledger is empty, its head is already anchored, or an event since the
    last checkpoint is not sealed by the application (``_unsealed_since``). Raises ``OSError``
    when the directory cannot be written."""
    position, last_hash = head()
    previous = _latest_record(position)
    if position == 0 or (previous is not None and position <= previous.position):
        return None
    if _unsealed_since(previous.position if previous else 0, position):
        return None
    ledger = identity()
    now = datetime.now(UTC)
    document = signing.sign_document(
        {
            "format": FORMAT,
            "ledger": ledger.ledger_id,
            "genesis": first_event_hash(),
            "position": position,
            "hash": last_hash,
            "written_at": iso_utc(now),
            "previous": {"position": previous.position, "hash": previous.hash} if previous else None,
        }
    )
    folder = directory() / ledger.ledger_id / now.strftime("%Y-%m-%d")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{position:015d}-{last_hash[:16]}.json"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        return None  # another worker anchored the same head (and records it)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(canonical_json(document) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    CheckpointRecord.objects.create(
        position=position, hash=last_hash, file=path.relative_to(directory()).as_posix(), written_at=now
    )
    return Checkpoint(
        position,
        last_hash,
        document["written_at"],
        str(path),
        ledger.ledger_id,
        document["genesis"],
        (previous.position, previous.hash) if previous else None,
    )


def _unsealed_since(after: int, head_position: int) -> bool:
    """Whether an event in ``(after, head_position]`` lacks its seal (``ledger.event_seals``):
    the head is then not signed, and a failed verification is recorded naming the event, so
    ``/api/health/ready`` answers 503 until ``manage.py ledger verify`` passes again."""
    rows = Event.chain.filter(position__gt=after, position__lte=head_position).order_by("position")
    bad = first_unsealed(rows.values_list(*SEAL_FIELDS).iterator(chunk_size=2000))
    if bad is None:
        return False
    latest = ChainVerification.objects.order_by("-verified_at", "-id").values_list("ok", "first_bad_position").first()
    if latest == (False, bad):
        return True  # said once: a catch-up runs after every command, the alarm stands meanwhile
    logger.error("ledger: event %s is not sealed by the application; checkpoint not written", bad)
    with transaction.atomic():
        verification_records.record(
            ok=False,
            checked=max(0, bad - 1),
            head_position=head_position,
            first_bad_position=bad,
            reason=f"event {bad} is not sealed by the application: the checkpoint writer would not sign it",
        )
    return True


def write_if_due() -> Checkpoint | None:
    """``write_checkpoint`` once ``LEDGER_CHECKPOINT_EVENTS`` events (0: never by count) came
    after the last, or once the head moved and the last (the first event, when none was
    written) is ``LEDGER_CHECKPOINT_INTERVAL_SECONDS`` old (0: never by age). The age matters
    where no beat runs (eager Celery, the served demo): events after the last checkpoint are the
    ones a forger can cut unseen by the signatures."""
    position = head()[0]
    last = _latest_record(position)
    since = position - (last.position if last else 0)
    if since <= 0:
        return None
    every, interval = settings.LEDGER_CHECKPOINT_EVENTS, settings.LEDGER_CHECKPOINT_INTERVAL_SECONDS
    by_count = every > 0 and since >= every
    since_time = last.written_at if last else Event.chain.filter(position=1).values_list("recorded_at", flat=True)[0]
    by_age = interval > 0 and (datetime.now(UTC) - since_time).total_seconds() >= interval
    return write_checkpoint() if by_count or by_age else None


def _read(path: Path, trusted: set[str]) -> Checkpoint:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointFault(str(path), f"unreadable ({exc})") from None
    if not isinstance(document, dict) or document.get("format") not in (FORMAT, FIRST_FORMAT):
        raise CheckpointFault(str(path), "not a checkpoint")
    fault = signing.signature_fault(document, trusted)
    if fault:
        raise CheckpointFault(str(path), fault)
    if not (isinstance(document.get("position"), int) and isinstance(document.get("hash"), str)):
        raise CheckpointFault(str(path), "no position or hash")
    previous = document.get("previous")
    return Checkpoint(
        document["position"],
        document["hash"],
        document.get("written_at", ""),
        str(path),
        str(document.get("ledger") or ""),
        str(document.get("genesis") or ""),
        (previous["position"], previous["hash"]) if isinstance(previous, dict) else None,
    )


def _all_files() -> list[Path]:
    where = directory()
    if not where.is_dir():
        return []
    return sorted({*where.glob("*/*.json"), *where.glob("*/*/*.json")})


def examine() -> Anchors:
    """Every checkpoint in the directory, its signature checked against the trusted keys
    (``signing.trusted_public_keys``), sorted into this ledger's and others'; and the faults
    of this ledger's: a recorded checkpoint whose file is missing or renamed, a file whose name
    is not its content's, a predecessor missing, a checkpoint signing another first event.
    Raises ``CheckpointFault`` naming the first file that is not a valid checkpoint signed by a
    trusted key."""
    ledger = identity(create=False)
    genesis = first_event_hash()
    trusted = signing.trusted_public_keys()
    found = Anchors(ledger)
    root = directory()
    for path in _all_files():
        checkpoint = _read(path, trusted)
        if checkpoint.ledger:
            mine = (ledger.ledger_id != "" and checkpoint.ledger == ledger.ledger_id) or (
                genesis != "" and checkpoint.genesis == genesis
            )
        else:
            mine = _anchors_this_ledger(checkpoint)
        if not mine:
            found.foreign[checkpoint.ledger] = found.foreign.get(checkpoint.ledger, 0) + 1
            continue
        found.mine.append(checkpoint)
        found.faults += _misnamed(checkpoint, path.relative_to(root))
        if checkpoint.genesis and genesis and checkpoint.genesis != genesis:
            found.faults.append(
                f"checkpoint {path} of this ledger signed first event hash {checkpoint.genesis}, the ledger's is "
                f"{genesis}: the chain was rewritten from position 1"
            )
    found.mine.sort(key=lambda c: (c.position, c.file))
    anchored = {(c.position, c.hash) for c in found.mine}
    held = {Path(c.file).relative_to(root).as_posix(): c for c in found.mine}
    records = list(CheckpointRecord.objects.order_by("position", "id"))
    gone = [record for record in records if record.file not in held]
    if gone and len(gone) == len(records) and not found.mine:
        found.faults.append(
            f"none of the {len(records)} checkpoints this database recorded writing (positions "
            f"{records[0].position} to {records[-1].position}) is in {root}: all deleted, or not this site's "
            "checkpoint directory (LEDGER_CHECKPOINT_DIR)"
        )
        records = []
    elif len(gone) > 10:
        found.faults.append(f"{len(gone)} recorded checkpoint files are missing from {root}, the first ten:")
    shown = 0
    for record in records:
        there = held.get(record.file)
        if there is None:
            shown += 1
            if shown <= 10:
                found.faults.append(
                    f"checkpoint of position {record.position} written {iso_utc(record.written_at)}, "
                    f"file {record.file}: missing from {root} (deleted, renamed or moved)"
                )
        elif (there.position, there.hash) != (record.position, record.hash):
            found.faults.append(
                f"file {record.file} holds the checkpoint of position {there.position}, not the one of position "
                f"{record.position} written there (renamed over)"
            )
    for checkpoint in found.mine:
        if checkpoint.previous and checkpoint.previous not in anchored:
            found.faults.append(
                f"checkpoint {checkpoint.file} follows the checkpoint of position {checkpoint.previous[0]}, "
                "which is missing (deleted, renamed or moved)"
            )
    return found


def _anchors_this_ledger(checkpoint: Checkpoint) -> bool:
    """Whether a checkpoint of the first format (no ledger named) can be this ledger's: it was
    signed after this ledger's first event was recorded (a checkpoint of a database deleted
    before this one began was written before)."""
    first = Event.chain.filter(position=1).values_list("recorded_at", flat=True).first()
    try:
        written = datetime.fromisoformat(checkpoint.written_at)
    except ValueError:
        return True  # unknown: checked against this ledger, as before ledgers were named
    return first is not None and written >= first


def _misnamed(checkpoint: Checkpoint, relative: Path) -> list[str]:
    match = _NAME.match(relative.name)
    named = (int(match.group(1)), match.group(2)) if match else None
    if named != (checkpoint.position, checkpoint.hash[:16]):
        return [f"file {relative} holds the checkpoint of position {checkpoint.position}: renamed"]
    if checkpoint.ledger and relative.parts[0] != checkpoint.ledger:
        return [f"file {relative} holds a checkpoint of ledger {checkpoint.ledger}: moved to another ledger's folder"]
    return []


def load_checkpoints() -> list[Checkpoint]:
    """This ledger's checkpoints (``examine``), signatures checked, in position order. Raises
    ``CheckpointFault`` as ``examine`` does."""
    return examine().mine


# The gauge: recorded checkpoints whose file is gone, read at each scrape. The records are
# append-only, so each process keeps those it has read and asks only for newer ones; a folder is
# listed again only when its modification time changed.
_records: dict[tuple, dict] = {}
_listings: dict[str, tuple[int, frozenset[str]]] = {}


def missing_files() -> list[str]:
    """Files (relative to ``LEDGER_CHECKPOINT_DIR``) of recorded checkpoints that are not there."""
    key = (connection.alias, str(connection.settings_dict.get("NAME")), str(directory()))
    cache = _records.setdefault(key, {"last": 0, "files": []})
    known = CheckpointRecord.objects.filter(id__lte=cache["last"])
    if cache["last"] and (
        known.count() != len(cache["files"])
        or known.filter(id=cache["last"]).values_list("file", flat=True).first() != cache["files"][-1]
    ):
        cache.update(last=0, files=[])  # another database under the same name: read again
    for record_id, file in (
        CheckpointRecord.objects.filter(id__gt=cache["last"]).order_by("id").values_list("id", "file")
    ):
        cache["files"].append(file)
        cache["last"] = record_id
    root = directory()
    return [file for file in cache["files"] if Path(file).name not in _listing(root / Path(file).parent)]


def _listing(folder: Path) -> frozenset[str]:
    try:
        modified = folder.stat().st_mtime_ns
    except OSError:
        return frozenset()
    known = _listings.get(str(folder))
    if known is None or known[0] != modified:
        known = (modified, frozenset(os.listdir(folder)))
        _listings[str(folder)] = known
    return known[1]

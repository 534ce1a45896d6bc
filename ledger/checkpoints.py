"""Signed checkpoints of the chain's head, kept outside the ledger database (issue 21).

The hash chain alone proves nothing against someone who can write the database: he can edit
an event and recompute every hash after it, or delete the last events, and the chain is
consistent again. A checkpoint is the head ``(position, hash)`` signed with the site's Ed25519
key (``ledger.signing``) and written as a file to ``LEDGER_CHECKPOINT_DIR``, a directory the
application can only add to (deploy/README.md, "The anchored chain"): ``ledger verify`` then
finds a rewritten chain (the hash at a checkpoint's position differs) and a cut tail (a
checkpoint beyond the head).

Files: ``<dir>/<YYYY-MM-DD>/<position, 15 digits>-<hash, first 16 hex>.json``, the day being the
UTC day of writing, each holding one canonical-JSON document ``{"format", "position", "hash",
"written_at", "algorithm", "key_id", "key_kind", "public_key", "signature"}``. A file is created
with ``O_CREAT | O_EXCL`` (mode 0444) and never opened for writing again.

Written by the Celery beat task ``ledger.tasks.write_checkpoint`` every
``LEDGER_CHECKPOINT_INTERVAL_SECONDS`` when the head moved, after a projection catch-up once
``LEDGER_CHECKPOINT_EVENTS`` events came after the last checkpoint, and by
``manage.py ledger checkpoint``.
"""

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from . import signing
from .hashing import canonical_json, iso_utc
from .store import head

FORMAT = "casino-ledger-checkpoint/1"


@dataclass(frozen=True)
class Checkpoint:
    """One checkpoint file: ``position``, ``hash`` (hex), ``written_at`` (ISO UTC), ``file`` (path)."""

    position: int
    hash: str
    written_at: str
    file: str


class CheckpointFault(Exception):
    """A checkpoint file that cannot be relied on (unreadable, unsigned, an unknown key): names it."""

    def __init__(self, file: str, what: str):
        super().__init__(f"checkpoint {file}: {what}")
        self.file, self.what = file, what


def directory() -> Path:
    return Path(settings.LEDGER_CHECKPOINT_DIR)


_latest: dict[str, int] = {}  # directory → the highest position this process knows is anchored there


def latest_position() -> int:
    """The highest position anchored in the directory (0: none). The newest day's folder holds it."""
    where = directory()
    if str(where) in _latest:
        return _latest[str(where)]
    found = 0
    if where.is_dir():
        for day in sorted((p for p in where.iterdir() if p.is_dir()), reverse=True):
            names = sorted(p.name for p in day.glob("*.json"))
            if names:
                found = int(names[-1].split("-", 1)[0])
                break
    _latest[str(where)] = found
    return found


def write_checkpoint() -> Checkpoint | None:
    """Sign the head and add it to the directory. Returns it, or None when the ledger is empty
    or its head is already anchored (a head below the last checkpoint is left to ``ledger
    verify``, which reports the cut). Raises ``OSError`` when the directory cannot be written."""
    position, last_hash = head()
    if position == 0 or position <= latest_position():
        return None
    now = datetime.now(UTC)
    document = signing.sign_document(
        {"format": FORMAT, "position": position, "hash": last_hash, "written_at": iso_utc(now)}
    )
    folder = directory() / now.strftime("%Y-%m-%d")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{position:015d}-{last_hash[:16]}.json"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        return None  # another worker anchored the same head
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(canonical_json(document) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    _latest[str(directory())] = position
    return Checkpoint(position, last_hash, document["written_at"], str(path))


def write_if_due() -> Checkpoint | None:
    """``write_checkpoint`` once ``LEDGER_CHECKPOINT_EVENTS`` events (0: never) came after the last."""
    every = settings.LEDGER_CHECKPOINT_EVENTS
    if every <= 0 or head()[0] - latest_position() < every:
        return None
    return write_checkpoint()


def load_checkpoints() -> list[Checkpoint]:
    """Every checkpoint in the directory, its signature checked against the trusted keys
    (``signing.trusted_public_keys``), in position order. Raises ``CheckpointFault`` naming
    the first file that is not a valid checkpoint signed by a trusted key."""
    where = directory()
    if not where.is_dir():
        return []
    trusted = signing.trusted_public_keys()
    found = []
    for path in sorted(where.glob("*/*.json")):
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CheckpointFault(str(path), f"unreadable ({exc})") from None
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise CheckpointFault(str(path), "not a checkpoint")
        fault = signing.signature_fault(document, trusted)
        if fault:
            raise CheckpointFault(str(path), fault)
        if not (isinstance(document.get("position"), int) and isinstance(document.get("hash"), str)):
            raise CheckpointFault(str(path), "no position or hash")
        found.append(Checkpoint(document["position"], document["hash"], document.get("written_at", ""), str(path)))
    return sorted(found, key=lambda c: (c.position, c.file))

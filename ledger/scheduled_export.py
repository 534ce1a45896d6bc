"""The scheduled seal and export of closed gaming days.

Celery beat runs ``ledger.tasks.seal_and_export_closed_days`` every
``CASINO_EXPORT_INTERVAL_SECONDS``; it calls ``seal_and_export_closed_days`` here. For each gaming
day closed (``GamingDayClosed`` on ``gamingday/<YYYY-MM-DD>``), oldest first:

1. if it has no seal yet (the seal at its close was refused or never ran), seal it
   (``ledger.seal.seal_gaming_day``);
2. write its export, the zip ``export_zip_stream`` streams (the same files as ``manage.py
   export_gaming_day``, identity columns empty), to ``CASINO_EXPORT_DIR/gaming-day-<day>.zip``.
   The bytes go to a hidden temporary file in the same directory, are flushed to disk, then the
   file is renamed into place (``os.replace``, atomic on one file system): a reader, or the
   regulator's copy job, sees the whole file or none, never a partial one;
3. record the outcome in ``GamingDayExport`` (one row a day) and log one line: INFO with the day
   and the file, or ERROR with the day, the file and the reason.

A day already exported from its latest seal is skipped, so the task is idempotent: a second
run, or a redelivered task, writes nothing. A failed day is tried again at each run; while its
latest attempt failed the pit boss's floor shows an alert (``failed_exports``, read by
``dashboard.floor_cards``); a later success clears it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from contextlib import suppress
from datetime import UTC, date, datetime
from pathlib import Path

from django.conf import settings

from .errors import DomainError
from .export.writer import export_zip_stream
from .models import Event, GamingDayExport
from .replica import reads_from_replica
from .seal import SEAL_EVENT, seal_gaming_day

logger = logging.getLogger(__name__)

ACTOR = "system:scheduled-export"


def export_directory() -> Path:
    """``CASINO_EXPORT_DIR``: where the scheduled exports are written."""
    return Path(settings.CASINO_EXPORT_DIR)


def export_file(day: date) -> Path:
    """The path of ``day``'s export: ``CASINO_EXPORT_DIR/gaming-day-YYYY-MM-DD.zip``."""
    return export_directory() / f"gaming-day-{day.isoformat()}.zip"


def closed_days() -> list[date]:
    """Every gaming day closed (``GamingDayClosed`` on its day's stream), oldest first."""
    closes = Event.objects.filter(type="GamingDayClosed", stream__startswith="gamingday/")
    return sorted({date.fromisoformat(stream.split("/", 1)[1]) for stream in closes.values_list("stream", flat=True)})


def _latest_seals() -> dict[date, Event]:
    """Each sealed day's latest seal event (one scan: seals are one or two a day)."""
    seals: dict[date, Event] = {}
    for seal in Event.objects.filter(type=SEAL_EVENT).only("position", "data").order_by("position"):
        seals[date.fromisoformat(seal.data["day"])] = seal
    return seals


def seal_and_export_closed_days(*, actor: str = ACTOR) -> list[dict]:
    """Seal (when unsealed) and export every closed gaming day not yet exported from its latest seal.

    Returns one outcome per day worked on, oldest first (days already exported are skipped and
    not listed): ``{"gaming_day": "YYYY-MM-DD", "outcome": "exported" | "failed", "file": path,
    "error": str}``. Never raises for one day's failure: it is recorded (``GamingDayExport``),
    logged at ERROR, and the next days are still tried.
    """
    exported = {
        row.gaming_day: row.seal_position
        for row in GamingDayExport.objects.filter(state=GamingDayExport.State.EXPORTED).only(
            "gaming_day", "seal_position"
        )
    }
    seals = _latest_seals()
    outcomes = []
    for day in closed_days():
        seal = seals.get(day)
        if seal is not None and exported.get(day) == seal.position:
            continue
        outcomes.append(seal_and_export_day(day, seal=seal, actor=actor))
    return outcomes


def seal_and_export_day(day: date, *, seal: Event | None, actor: str) -> dict:
    """Seal ``day`` when ``seal`` is None, then write its export and record the outcome (see
    ``seal_and_export_closed_days``)."""
    path = export_file(day)
    try:
        if seal is None:
            sealed = seal_gaming_day(day=day, actor=actor)
            seal_position, events = sealed["event"], sealed["event_count"]
        else:
            seal_position, events = seal.position, seal.data["event_count"]
        # Read on the replica once it holds the seal (and so every event the seal covers), else
        # on the primary: the export is the same either way.
        with reads_from_replica(min_position=seal_position):
            digest = write_export(day, path)
    except Exception as error:  # any failure is the alert's business: recorded, logged, retried next run
        reason = _reason(error)
        _record(day, state=GamingDayExport.State.FAILED, file=str(path), error=reason[:2000])
        # The expected failures (a directory not writable, a full disk, a seal refused) are one
        # line; anything else keeps its traceback for whoever has to fix it.
        logger.error(
            "gaming day %s not exported to %s: %s",
            day.isoformat(),
            path,
            reason,
            exc_info=not isinstance(error, OSError | DomainError),
        )
        return {"gaming_day": day.isoformat(), "outcome": "failed", "file": str(path), "error": reason}
    _record(
        day, state=GamingDayExport.State.EXPORTED, file=str(path), sha256=digest, seal_position=seal_position, error=""
    )
    logger.info("gaming day %s sealed and exported to %s (%d events)", day.isoformat(), path, events)
    return {"gaming_day": day.isoformat(), "outcome": "exported", "file": str(path), "error": ""}


def _reason(error: Exception) -> str:
    """The failure in words for the floor and the log: the seal's refusal, or the system's
    message and the path it names ("Permission denied: /var/lib/casino-exports")."""
    if isinstance(error, DomainError):
        return error.message
    if isinstance(error, OSError) and error.strerror:
        return f"{error.strerror}: {error.filename}" if error.filename else error.strerror
    return f"{type(error).__name__}: {error}"


def write_export(day: date, path: Path) -> str:
    """Write ``day``'s export zip to ``path`` through a temporary file renamed into place.

    Returns the file's SHA-256 (hex). Raises ``OSError`` (the directory cannot be made or
    written, the disk is full; no file is left behind) or the writer's ``NotFound``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    digest = hashlib.sha256()
    try:
        with os.fdopen(descriptor, "wb") as handle:
            for chunk in export_zip_stream(day):
                handle.write(chunk)
                digest.update(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o444)  # an export is never written again in place
        os.replace(temporary, path)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _sync_directory(path.parent)  # the rename itself survives a power cut
    return digest.hexdigest()


def _sync_directory(directory: Path) -> None:
    with suppress(OSError):  # some file systems cannot open a directory; the data is on disk
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _record(day: date, **fields) -> None:
    now = datetime.now(UTC)
    if fields["state"] == GamingDayExport.State.EXPORTED:
        fields["exported_at"] = now
    GamingDayExport.objects.update_or_create(gaming_day=day, defaults={**fields, "attempted_at": now})


def failed_exports() -> list[dict]:
    """The closed days whose latest scheduled export failed, oldest first: ``{"gaming_day": date,
    "file": path, "error": reason, "attempted_at": datetime (UTC)}``."""
    rows = GamingDayExport.objects.filter(state=GamingDayExport.State.FAILED).order_by("gaming_day")
    return list(rows.values("gaming_day", "file", "error", "attempted_at"))

"""The background player's heartbeat (``manage.py simulate_floor``): a small file beside the
data, ``var/floor_player-<database tag>.json``, rewritten at every step and once more when the player stops,
read by the dashboard's banner (``demo.templatetags.demo_floor``). A heartbeat older than a few
steps means the player is gone even if it could not say so (killed).

Shape: ``{"database", "pid", "state": "playing" | "waiting" (for the database) | "stopped", "gaming_day": "YYYY-MM-DD",
"at": UTC ISO 8601, "pace": seconds between steps, "coups", "why"}``.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from django.conf import settings

FILE_NAME = "floor_player.json"
STALE_AFTER_STEPS = 10  # a step takes ``pace`` seconds, plus the work of a coup
STALE_AFTER_MIN_SECONDS = 30


def _file() -> Path:
    # One file per database: a test run's player never overwrites the served demo's heartbeat.
    tag = hashlib.sha256(_database().encode()).hexdigest()[:10]
    return Path(settings.VAR_DIR) / FILE_NAME.replace(".json", f"-{tag}.json")


def _database() -> str:
    return str(settings.DATABASES["default"]["NAME"])


def beat(*, state: str, gaming_day, pace: float, coups: int, why: str = "") -> None:
    """Write the heartbeat now (atomically: a reader never sees half a file)."""
    path = _file()
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "database": _database(),
        "pid": os.getpid(),
        "state": state,
        "gaming_day": str(gaming_day),
        "at": datetime.now(UTC).isoformat(),
        "pace": pace,
        "coups": coups,
        "why": why,
    }
    spool = path.with_suffix(".tmp")
    spool.write_text(json.dumps(body))
    spool.replace(path)


def player_status(now: datetime | None = None) -> dict | None:
    """The player's state for the banner: ``{"playing": bool, "gaming_day", "at" (aware UTC),
    "coups", "why"}``, or None when no player ever ran against this database."""
    try:
        body = json.loads(_file().read_text())
        at = datetime.fromisoformat(body["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if body.get("database") != _database():
        return None
    now = now or datetime.now(UTC)
    fresh = now - at <= timedelta(seconds=max(STALE_AFTER_MIN_SECONDS, STALE_AFTER_STEPS * float(body.get("pace", 3))))
    playing = body.get("state") == "playing" and fresh
    why = body.get("why") or ("" if playing else "no heartbeat since: the player was stopped")
    return {"playing": playing, "gaming_day": body.get("gaming_day"), "at": at, "coups": body.get("coups"), "why": why}

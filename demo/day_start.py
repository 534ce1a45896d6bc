"""Which gaming days the demo plays on, and the day start its database keeps (no Django import:
``casino.settings`` reads it before Django is set up).

A gaming day is a function of the clock and ``GAMING_DAY_START``: at a given moment only two
days can be reached, yesterday (a start later than now) and today (a start at or before now).
The demo keeps them apart so that no sequence of its commands leaves a dead floor:

- the demo day is **yesterday** (played with the day starting at 23:59) and is closed;
- the live floor plays **today** (the day starting at midnight), which the demo never closes.

So a second ``scripts/demo.sh`` finds yesterday closed, plays nothing more on it (a closed day
keeps its figures) and serves today's floor again. The day start of the floor is written
beside the data (``var/demo_day_start.json``, naming the database it holds for), and
``casino.settings`` takes it as ``GAMING_DAY_START`` for any ``manage.py`` run against that
database when the environment names none: a command typed by hand lands on the floor's day.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path

DEMO_DAY_START = "23:59"  # now falls before it: the gaming day is yesterday's
FLOOR_DAY_START = "00:00"  # now falls after it: the gaming day is today's calendar day
FILE_NAME = "demo_day_start.json"


@dataclass(frozen=True)
class DemoDays:
    """The demo's choice at one moment: ``demo_day`` (None: nothing to play, it is closed or
    cannot be reached), ``floor_day`` (None: closed), their day starts, and ``why`` in words
    when one of them is None."""

    demo_day: date | None
    floor_day: date | None
    demo_start: str = DEMO_DAY_START
    floor_start: str = FLOOR_DAY_START
    why: str = ""


def choose(now_local: datetime, is_closed: Callable[[date], bool]) -> DemoDays:
    """The demo day and the floor's day at ``now_local`` (a time in the casino's zone).

    ``is_closed(day)`` says whether gaming ``day`` is closed. In the last minute before
    midnight yesterday cannot be reached (23:59 is not later than now): the demo day is None.
    """
    today = now_local.date()
    yesterday = today - timedelta(days=1)
    notes = []
    demo_day = None
    if now_local.time() >= time(23, 59):
        notes.append("the demo day cannot be recorded in the last minute before midnight")
    elif is_closed(yesterday):
        notes.append(f"the demo day {yesterday} is closed already: it keeps its figures")
    else:
        demo_day = yesterday
    floor_day = None if is_closed(today) else today
    if floor_day is None:
        notes.append(f"today's gaming day {today} was closed by hand: the floor opens again at midnight")
    return DemoDays(demo_day=demo_day, floor_day=floor_day, why="; ".join(notes))


def _file(var_dir: Path) -> Path:
    return Path(var_dir) / FILE_NAME


def remember_floor_start(var_dir: Path, database: str, start: str = FLOOR_DAY_START) -> None:
    """Write the floor's day start for ``database`` (its name, or the SQLite file's path)."""
    Path(var_dir).mkdir(parents=True, exist_ok=True)
    _file(var_dir).write_text(json.dumps({"database": str(database), "gaming_day_start": start}) + "\n")


def served_day_start(var_dir: Path, database: str) -> str | None:
    """The day start the demo wrote for ``database``, or None (no file, another database, or a
    file that is not the demo's)."""
    try:
        kept = json.loads(_file(var_dir).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("database") != str(database):
        return None
    start = kept.get("gaming_day_start")
    try:
        time.fromisoformat(start)
    except (TypeError, ValueError):
        return None
    return start

"""Progress of long work: a rebuild, a verify, an export, the demo.

``Progress(label, total, unit=..., stream=...)`` is a context manager counting work done toward
``total``: on a terminal it draws a bar with the count, the rate and the time left (rich); on
anything else (a log file, journald, a pipe) it writes one line every ``every`` seconds
(``PROGRESS_LOG_SECONDS``, 10) and one at the end:

    2026-12-01T23:50:02Z rebuild balances: 1,250,000/4,000,000 events (31.2%), 48,210 events/s, 57s left

``stream`` is where it writes (default ``sys.stderr``, so a command's stdout stays its result).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from typing import TextIO

from django.conf import settings


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def _rate_text(rate: float) -> str:
    return f"{rate:,.1f}" if rate < 10 else f"{rate:,.0f}"


def is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


class Progress:
    def __init__(
        self,
        label: str,
        total: int | None,
        *,
        unit: str = "events",
        stream: TextIO | None = None,
        every: float | None = None,
        terminal: bool | None = None,
    ) -> None:
        self.label, self.total, self.unit = label, total, unit
        stream = stream if stream is not None else sys.stderr
        # A management command's OutputWrapper ends every write with a newline: the bar needs the raw stream.
        self.stream = getattr(stream, "_out", stream)
        self.every = every if every is not None else getattr(settings, "PROGRESS_LOG_SECONDS", 10.0)
        self.terminal = is_terminal(self.stream) if terminal is None else terminal
        self.done = 0
        self._started = self._last_line = time.monotonic()
        self._bar = None

    def __enter__(self) -> Progress:
        self._started = self._last_line = time.monotonic()
        if self.terminal:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TaskProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import (
                Progress as Bar,
            )

            self._bar = Bar(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn(self.unit),
                TaskProgressColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=Console(file=self.stream, force_terminal=True),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, rate="")
        return self

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
        if self._bar is not None:
            self._bar.update(self._task, advance=count, rate=f"{_rate_text(self._rate(now))} {self.unit}/s")
        elif now - self._last_line >= self.every:
            self._line(now)

    def __exit__(self, kind, error, traceback) -> None:
        if self._bar is not None:
            self._bar.stop()
        else:
            self._line(time.monotonic(), stopped=kind is not None)

    def _rate(self, now: float) -> float:
        elapsed = now - self._started
        return self.done / elapsed if elapsed > 0 else 0.0

    def text(self, now: float | None = None) -> str:
        """The progress as one line, without the time stamp."""
        now = time.monotonic() if now is None else now
        rate = self._rate(now)
        line = f"{self.label}: {self.done:,}"
        if self.total:
            line += f"/{self.total:,} {self.unit} ({100 * self.done / self.total:.1f}%)"
        else:
            line += f" {self.unit}"
        line += f", {_rate_text(rate)} {self.unit}/s"
        if self.total and rate > 0 and self.done < self.total:
            line += f", {_duration((self.total - self.done) / rate)} left"
        else:
            line += f", {_duration(now - self._started)} elapsed"
        return line

    def _line(self, now: float, *, stopped: bool = False) -> None:
        self._last_line = now
        text = self.text(now) + (" (stopped)" if stopped else "")
        stamp = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        self.stream.write(f"{stamp} {text}\n")
        self.stream.flush()


def counting(items, progress: Progress | None):
    """Yield ``items``, advancing ``progress`` by one as each is finished (when the next is asked
    for, and after the last). ``progress`` None: just the items."""
    if progress is None:
        yield from items
        return
    started = False
    for item in items:
        if started:
            progress.advance(1)
        started = True
        yield item
    if started:
        progress.advance(1)

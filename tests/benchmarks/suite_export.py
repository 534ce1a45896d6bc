"""Gaming-day export of ≥ 1,000,000 events: ``manage.py export_gaming_day`` (ledger/export)
in a child process, its wall time, MB written per second and peak resident memory
(the child's own ``VmHWM``: its ``ru_maxrss`` would count the parent's resident size, inherited
through the fork and kept across the exec)."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .common import Figure, log, timed

SECTION = "gaming-day export"
LIMIT_MB = 300
ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import resource, sys, django
django.setup()
from django.core.management import call_command
call_command("export_gaming_day", sys.argv[1], sys.argv[2], verbosity=0)
# VmHWM is this process's own peak: ru_maxrss keeps, across the exec, the peak of the forked
# image, i.e. the parent's resident size (the whole benchmark run's), not the export's.
try:
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")]
    print(int(hwm[0].split()[1]))
except (OSError, IndexError):
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def bench_export(*, events: int, dbname: str) -> list[Figure]:
    from ledger.gaming_day import current_gaming_day
    from ledger.models import Event

    from .suite_ledger import fill_ledger, no_projection_tasks

    if not (ROOT / "ledger" / "management" / "commands" / "export_gaming_day.py").exists():
        log("export: SKIPPED, manage.py export_gaming_day does not exist in this tree")
        return [Figure(SECTION, "SKIPPED: no manage.py export_gaming_day", 0, "", notes="skipped")]
    with no_projection_tasks():
        fill_ledger(events=events, dbname=dbname, mirror=False)
    day = current_gaming_day()
    count = Event.objects.filter(gaming_day=day).count()
    out = Path(tempfile.mkdtemp(prefix="bench-export-"))
    try:
        log(f"export: {count:,} events of gaming day {day}")
        done, seconds = timed(
            lambda: subprocess.run(
                [sys.executable, "-c", CHILD, day.isoformat(), str(out / "day")],
                cwd=ROOT,
                env=os.environ,
                capture_output=True,
                text=True,
            )
        )
        if done.returncode:
            raise SystemExit(f"export_gaming_day failed: {done.stderr[-2000:]}")
        peak_mb = int(done.stdout.strip().splitlines()[-1]) / 1024  # KiB (VmHWM, ru_maxrss) on Linux
        size_mb = sum(f.stat().st_size for f in (out / "day").rglob("*") if f.is_file()) / 2**20
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return [
        Figure(
            SECTION,
            f"export_gaming_day of {count:,} events ({size_mb:,.0f} MB written in {seconds:,.1f} s)",
            size_mb / seconds,
            "MB/s",
            notes=f"{count / seconds:,.0f} events/s",
        ),
        Figure(
            SECTION,
            "export_gaming_day: peak resident memory of the exporting process",
            peak_mb,
            "MB",
            target=f"under {LIMIT_MB} MB",
            met=peak_mb < LIMIT_MB,
        ),
    ]

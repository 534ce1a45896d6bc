"""No file of the project keeps a merge conflict's markers: a stylesheet with one silently
drops every rule after it (the browser skips what it cannot parse), a template shows it."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = re.compile(rb"^(<{7}|>{7}) ", re.M)


def test_no_tracked_file_holds_a_merge_conflict_marker():
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    found = [
        name.decode()
        for name in tracked
        if name and (ROOT / name.decode()).is_file() and MARKER.search((ROOT / name.decode()).read_bytes())
    ]
    assert found == []

"""Comments and docstrings give reasons, not the number of the issue that asked for the change:
a reader cannot look an issue up, and git keeps the history."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ISSUE_NUMBER = re.compile(r"\bissues? ?#?\d+\b", re.IGNORECASE)
SKIPPED = {".venv", "node_modules", "var", ".git"}


def _product_sources():
    for path in ROOT.rglob("*"):
        if path.suffix not in (".py", ".html", ".sql", ".md") or not path.is_file():
            continue
        parts = set(path.relative_to(ROOT).parts)
        if parts & SKIPPED or "results" in parts:  # benchmark results are dated records
            continue
        yield path


def test_no_source_or_document_names_an_issue_number():
    named = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _product_sources()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1)
        if ISSUE_NUMBER.search(line)
    ]
    assert named == []


def test_the_scan_sees_an_issue_number():
    # Built from parts so that this file does not trip its own scan.
    assert ISSUE_NUMBER.search("# moved here (iss" + "ue 22): state only")
    assert not ISSUE_NUMBER.search("# an issue with the count, 22 pieces")

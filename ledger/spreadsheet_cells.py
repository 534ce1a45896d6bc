"""Spreadsheet-safe cells for every CSV and XLSX the casino writes (the export's files, the
cage's reports, the exception log, the access review).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula, and one
that starts with a tab or a carriage return after trimming it (OWASP, "CSV Injection"): a
patron's name ``=HYPERLINK(...)`` in the AML file would run on the auditor's machine. Such a
text is written with a leading apostrophe, which the spreadsheet shows as plain text. Numbers
are left as they are: ``-1250`` or ``-12.50`` is an amount, not a formula.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?\d+(\.\d+)?\Z")


def safe_cell(value: object) -> object:
    """``value`` itself, or a text a spreadsheet would run as a formula with ``'`` before it."""
    if isinstance(value, str) and value[:1] in FORMULA_STARTS and not _NUMBER.match(value):
        return "'" + value
    return value


def safe_row(row: Iterable[object]) -> list[object]:
    """``safe_cell`` of each cell of ``row``."""
    return [safe_cell(value) for value in row]

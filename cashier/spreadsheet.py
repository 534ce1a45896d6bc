"""Reports as spreadsheets: CSV and XLSX that open as a table.

The header is the first row; the metadata (title, casino, period, generation time, version,
currency, status) is a file of its own (``metadata_csv``) or, in the XLSX, a sheet of its
own. Amounts are in currency units (``1234.56``, a dot, no thousands separator) with a
``currency`` column; booleans are ``true`` / ``false``; games are named as people write them.
The table-games report has one row per table, game and total, its periods side by side
(``win (day)``, ``win (month to date)``, ``win (year to date)``) rather than stacked; the cage
report starts with the book at the start of the day and ends with the book at its end, as its
JSON has them.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from django.conf import settings

from games.names import game_name
from ledger.spreadsheet_cells import safe_row

from .reports import PERIODS

PERIOD_WORDS = {"day": "day", "month_to_date": "month to date", "year_to_date": "year to date"}
TABLE_KEYS = ("level", "key", "game")


def units(cents: int) -> Decimal:
    """Cents → currency units, exact: ``123456`` → ``Decimal("1234.56")``."""
    return Decimal(cents).scaleb(-2)


def _name(column: str) -> str:
    return column.removesuffix("_cents").replace("_", " ")


def _cell(column: str, value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if column.endswith("_cents") and isinstance(value, int):
        return units(value)
    if column == "game" and value:
        return game_name(str(value))
    return value


def table(report: dict) -> tuple[list[str], list[list[object]]]:
    """``(header, rows)`` of a report built by ``cashier.reports`` (amounts as ``Decimal``)."""
    columns, rows = list(report["columns"]), [dict(row) for row in report["rows"]]
    if rows and "period" in columns and {"level", "key"} <= set(columns):
        columns, rows = _periods_side_by_side(columns, rows)
    if "book" in report:  # the cage report: the book at the start and the end of the day, as the JSON has it
        book_columns = [f"book_{name}" for name in report["book"]]
        columns += [c for c in book_columns if c not in columns]
        if "opening" in report:
            rows.insert(0, {"line": "book_start_of_day", **{f"book_{k}": v for k, v in report["opening"].items()}})
        rows.append({"line": "book_end_of_day", **{f"book_{k}": v for k, v in report["book"].items()}})
    money = any(c.endswith("_cents") for c in columns)
    header = [_name(c) for c in columns] + (["currency"] if money else [])
    body = [[_cell(c, row.get(c)) for c in columns] + ([settings.CASINO_CURRENCY] if money else []) for row in rows]
    return header, body


def _periods_side_by_side(columns: list[str], rows: list[dict]) -> tuple[list[str], list[dict]]:
    """One row per (level, key, game), each figure once per period: ``win (day)_cents``… (the
    unit suffix stays last so that the cell is still read as money)."""
    figures = [c for c in columns if c not in (*TABLE_KEYS, "period")]

    def spread(figure: str, period: str) -> str:
        bare = figure.removesuffix("_cents")
        return f"{bare} ({PERIOD_WORDS[period]})" + ("_cents" if bare != figure else "")

    wide: dict[tuple, dict] = {}
    for row in rows:
        line = wide.setdefault(tuple(row.get(k) for k in TABLE_KEYS), {k: row.get(k) for k in TABLE_KEYS})
        line |= {spread(figure, row["period"]): row.get(figure) for figure in figures}
    return [*TABLE_KEYS, *(spread(f, p) for f in figures for p in PERIODS)], list(wide.values())


def metadata(report: dict) -> list[tuple[str, object]]:
    """The report's metadata as ``(name, value)`` pairs."""
    pairs = [
        ("title", report["title"]),
        ("casino", getattr(settings, "CASINO_NAME", "Casino")),
        ("period_from", report["period"]["from"]),
        ("period_to", report["period"]["to"]),
        ("generated_at_utc", report["generated_at"]),
        ("software_version", report["software_version"]),
        ("currency", settings.CASINO_CURRENCY),
        ("status", report["status"]),
    ]
    if "threshold_cents" in report:
        pairs.append(("variance_threshold", units(report["threshold_cents"])))
    return pairs


def _csv(rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows(safe_row(row) for row in rows)
    return out.getvalue()


def report_csv(report: dict) -> str:
    """The report's table as CSV: the header, then one line per row (no row: the header only)."""
    header, body = table(report)
    return _csv([header, *body])


def metadata_csv(report: dict) -> str:
    """The report's metadata as CSV: ``name,value`` then one line per item."""
    return _csv([["name", "value"], *metadata(report)])


def _as_text(sheet) -> None:
    """openpyxl stores a text starting with ``=`` as a formula: every cell is stored as the
    value it was given, a formula never (``ledger.spreadsheet_cells``)."""
    for row in sheet.iter_rows():
        for cell in row:
            if cell.data_type == "f":
                cell.data_type = "s"


def report_xlsx(report: dict) -> bytes:
    """The report as an XLSX workbook: sheet ``Report`` (header first, amounts as numbers with
    two decimals) and sheet ``About`` (the metadata)."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Report"
    header, body = table(report)
    sheet.append(header)
    for row in body:
        sheet.append(row)
    money = {i + 1 for i, name in enumerate(header) if any(isinstance(r[i], Decimal) for r in body)}
    for column in money:
        for (cell,) in sheet.iter_rows(min_row=2, min_col=column, max_col=column):
            cell.number_format = "#,##0.00"
    about = book.create_sheet("About")
    about.append(["name", "value"])
    for name, value in metadata(report):
        about.append([name, value])
    for worksheet in (sheet, about):
        _as_text(worksheet)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()

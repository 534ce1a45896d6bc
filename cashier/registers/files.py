"""A register's files: ``<slug>-<day>.csv`` and ``<slug>-<day>.pdf``, each with its detached
``.sig`` (the raw Ed25519 signature of the file's exact bytes under the site's key,
``ledger.export.detached``), and ``public-key.pem`` beside them, so an inspector checks any file
offline with ``openssl pkeyutl -verify -pubin -inkey public-key.pem -rawin -in F -sigfile F.sig``.

The CSV: the register's column titles, then its rows; amounts in currency units with two
decimals (``1234.56``, exact from the cents), dates ISO 8601; a register without an entry has the
single line ``Néant`` and its reason. Text a spreadsheet would run as a formula is written as
text (``ledger.spreadsheet_cells``). The PDF: the same table with the casino, the legal basis,
the period, the generation time (local, with its zone), the notes and the signature lines.
"""

from __future__ import annotations

import csv
import io
import tempfile
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from django.conf import settings
from django.template.loader import render_to_string

from basis.money import currency, format_amount_fr
from ledger import signing
from ledger.export import detached
from ledger.spreadsheet_cells import safe_row

from .books import BUILDERS, Register, euros

NO_ENTRY = "Néant"
FORMATS = ("csv", "pdf")


def file_name(slug: str, day: date, fmt: str) -> str:
    return f"{slug}-{day.isoformat()}.{fmt}"


def _cell(value, money: bool) -> object:
    if money and isinstance(value, int):
        return euros(value)
    if isinstance(value, date):
        return value.isoformat()
    return value


def csv_bytes(register: Register) -> bytes:
    """The register as CSV (UTF-8, ``\\r\\n`` lines as the csv module writes them)."""
    buffer = io.StringIO()
    out = csv.writer(buffer)
    out.writerow(safe_row([f"{c.title} ({currency()})" if c.money else c.title for c in register.columns]))
    for row in register.rows:
        out.writerow(safe_row([_cell(v, c.money) for v, c in zip(register.values(row), register.columns, strict=True)]))
    if not register.rows:
        out.writerow(safe_row([NO_ENTRY, register.empty_reason]))
    return buffer.getvalue().encode("utf-8")


def _shown(value, money: bool) -> str:
    if money and isinstance(value, int):
        return format_amount_fr(value)
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def html(register: Register) -> str:
    generated = datetime.now(UTC).astimezone(ZoneInfo(settings.CASINO_TIMEZONE))
    return render_to_string(
        "cashier/register_pdf.html",
        {
            "register": register,
            "casino": getattr(settings, "CASINO_NAME", "Casino"),
            "currency": currency(),
            "generated_at": generated.strftime("%Y-%m-%d %H:%M %Z"),
            "headers": [c.title for c in register.columns],
            "money": [c.money for c in register.columns],
            "rows": [
                {
                    "kind": getattr(row, "line", ""),
                    "cells": [
                        (_shown(v, c.money), c.money)
                        for v, c in zip(register.values(row), register.columns, strict=True)
                    ],
                }
                for row in register.rows
            ],
            "no_entry": NO_ENTRY,
        },
    )


def pdf_bytes(register: Register) -> bytes:
    from weasyprint import HTML  # imported here: its system libraries load on first use

    return HTML(string=html(register)).write_pdf()


def register_file(slug: str, day: date, fmt: str) -> bytes:
    """The bytes of register ``slug``'s ``fmt`` file (``csv`` or ``pdf``) for ``day``. Raises
    ``KeyError`` for an unknown slug or format."""
    register = BUILDERS[slug](day)
    return {"csv": csv_bytes, "pdf": pdf_bytes}[fmt](register)


def signature(data: bytes) -> bytes:
    """The raw Ed25519 signature (64 bytes) of ``data`` under the site's key."""
    return signing.signing_key().sign_raw(data)


def public_pem() -> str:
    return signing.signing_key().public_pem()


def write_registers(day: date, out_dir: str | Path, *, formats: tuple[str, ...] = FORMATS) -> list[str]:
    """Write every register of ``day`` into ``out_dir`` (created): each file, its ``.sig`` and
    ``public-key.pem`` (with its own ``.sig``). Returns the names written, signatures excluded."""
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    key = signing.signing_key()
    written = []
    for slug, build in BUILDERS.items():
        register = build(day)
        for fmt in formats:
            name = file_name(slug, day, fmt)
            data = csv_bytes(register) if fmt == "csv" else pdf_bytes(register)
            (target / name).write_bytes(data)
            detached.sign_path(key, target / name)
            written.append(name)
    detached.write_public_key(key, target)
    written.append("public-key.pem")
    return written


def registers_zip(day: date) -> bytes:
    """``write_registers`` of ``day`` into a temporary directory, as one zip (files by name)."""
    with tempfile.TemporaryDirectory() as folder:
        write_registers(day, folder)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(Path(folder).iterdir()):
                archive.write(path, path.name)
        return buffer.getvalue()

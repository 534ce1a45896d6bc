#!/usr/bin/env python3
"""Verify a gaming-day export: standard library only, so a regulator can run it anywhere.

    python verify_export.py OUT_DIR_OR_ZIP [--key SECRET]   (or LEDGER_SEAL_KEY in the environment)

Checks, in this order, and stops at the first fault, naming the file and line:
1. ``manifest.json`` is in its canonical form and each of its lines matches its MAC (HMAC-SHA256);
2. ``events.jsonl``: each line canonical JSON, positions consecutive over the manifest's range,
   each ``prev_hash`` the previous line's ``hash`` (the first: the previous seal's ``last_hash``),
   each ``hash`` recomputed (SHA-256 of the canonical envelope, as ``ledger/hashing.py``), the
   postings of each event summing to zero per currency;
3. the seal: its signature, its range and last hash against the events, its link to the
   previous day's seal;
4. ``postings.csv`` line by line against the events' postings;
5. ``balances.csv``: opening + the day's postings = closing for every account, re-added from
   the events;
6. an export written before issue 24 ends each CSV line with a chain column (SHA-256 of the
   previous line's chain and the line): each chain is checked. Later exports are plain CSV
   tables, the header first; their integrity is step 7;
7. each file's SHA-256, size and record count against the manifest.

Exit status 0 when everything matches, 1 naming the first mismatch, 2 on usage errors.
``canonical_json`` and ``event_hash`` duplicate ``ledger/hashing.py`` on purpose (a test
proves they agree) so that this file needs nothing of the project.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

GENESIS_HASH = "0" * 64
FORMAT = "casino-gaming-day-export/1"
DEVELOPMENT_KEY = "development-only-ledger-seal-key: set LEDGER_SEAL_KEY in production"
CSV_FILES = ("postings.csv", "balances.csv", "tables.csv", "cage.csv", "aml.csv")
EVENT_FIELDS = (
    "position",
    "stream",
    "version",
    "type",
    "schema_version",
    "data",
    "occurred_at",
    "recorded_at",
    "gaming_day",
    "actor",
    "correlation_id",
    "causation_id",
    "idempotency_key",
    "prev_hash",
    "postings",
)


def canonical_json(value: object) -> str:
    """Same as ``ledger.hashing.canonical_json``: sorted keys, no whitespace, no floats."""
    _reject_floats(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _reject_floats(value: object) -> None:
    if isinstance(value, float):
        raise TypeError("floats are not allowed in ledger data: use integer cents")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("ledger data keys must be strings")
            _reject_floats(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _reject_floats(item)
    elif value is not None and not isinstance(value, (str, int, bool)):
        raise TypeError(f"{type(value).__name__} is not allowed in ledger data")


def event_hash(line: dict) -> str:
    """SHA-256 of an ``events.jsonl`` record, as ``ledger.hashing.event_hash`` computes it."""
    document = {name: line[name] for name in EVENT_FIELDS}
    document["postings"] = sorted([list(p) for p in line["postings"]])
    return hashlib.sha256(canonical_json(document).encode()).hexdigest()


def sign(payload: dict, key: bytes) -> str:
    """HMAC-SHA256 over the canonical JSON of ``payload`` without ``signature`` (``ledger.seal.sign``)."""
    body = {k: v for k, v in payload.items() if k != "signature"}
    return hmac.new(key, canonical_json(body).encode(), hashlib.sha256).hexdigest()


def manifest_text(document: dict) -> str:
    """The one accepted layout of ``manifest.json``: ``{``, then one entry a line in key order
    (``  "name": [value, "mac"],``), then ``}`` — so entry *i* (from 0) is on line *i + 2*."""
    names = sorted(document)
    lines = [
        f"  {json.dumps(name, ensure_ascii=False)}: {json.dumps(document[name], ensure_ascii=False, sort_keys=True)}"
        + ("," if number < len(names) - 1 else "")
        for number, name in enumerate(names)
    ]
    return "\n".join(["{", *lines, "}"]) + "\n"


def flatten(value: dict, prefix: str = "") -> dict:
    """``{"files": {"a.csv": {"sha256": x}}}`` → ``{"files/a.csv/sha256": x}`` (leaves: not dicts)."""
    flat = {}
    for name, item in value.items():
        path = f"{prefix}{name}"
        if isinstance(item, dict) and item:
            flat.update(flatten(item, path + "/"))
        else:
            flat[path] = item
    return flat


def unflatten(flat: dict) -> dict:
    nested: dict = {}
    for path, item in flat.items():
        *parents, leaf = path.split("/")
        node = nested
        for parent in parents:
            node = node.setdefault(parent, {})
        node[leaf] = item
    return nested


def line_mac(key: bytes, line: int, name: str, value: object) -> str:
    """HMAC-SHA256 of one manifest entry with its line number: an altered, moved or removed line fails alone."""
    return hmac.new(key, canonical_json([line, name, value]).encode(), hashlib.sha256).hexdigest()


def manifest_document(body: dict, key: bytes) -> dict:
    """The manifest as written: each leaf of ``body`` on its own line as ``[value, line MAC]``,
    closed by ``~lines`` (the number of entries). Line 1 is ``{``, so entry *i* is on line *i + 1*."""
    flat = flatten(body)
    document = {name: [flat[name], line_mac(key, line, name, flat[name])] for line, name in enumerate(sorted(flat), 2)}
    document["~lines"] = [len(flat), line_mac(key, len(flat) + 2, "~lines", len(flat))]
    return document


def line_chain(previous: str, text: str) -> str:
    """A CSV line's chain value: SHA-256 of the previous line's chain and this line's text."""
    return hashlib.sha256((previous + text).encode()).hexdigest()


class Fault(Exception):
    """The first mismatch: ``file``, ``line`` (1-based, or 0 for the whole file) and what."""

    def __init__(self, file: str, line: int, what: str):
        super().__init__(f"{file}:{line}: {what}" if line else f"{file}: {what}")
        self.file, self.line, self.what = file, line, what


@dataclass
class Report:
    ok: bool
    message: str
    events: int = 0
    fault: Fault | None = None


class Export:
    """Read access to the files of a directory or a zip, line by line (bytes, newline kept)."""

    def __init__(self, path: str):
        self.path = path
        self.zip = zipfile.ZipFile(path) if os.path.isfile(path) else None
        self.chained: dict[str, bool] = {}  # CSV name → written with a chain column (before issue 24)

    def exists(self, name: str) -> bool:
        if self.zip is not None:
            return name in self.zip.namelist()
        return os.path.isfile(os.path.join(self.path, name))

    def open(self, name: str):
        if not self.exists(name):
            raise Fault(name, 0, "missing from the export")
        if self.zip is not None:
            return self.zip.open(name)
        return open(os.path.join(self.path, name), "rb")

    def lines(self, name: str) -> Iterator[tuple[int, str]]:
        with self.open(name) as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise Fault(name, number, "not valid UTF-8") from None
                if not text.endswith("\n"):
                    raise Fault(name, number, "line does not end with a newline (truncated?)")
                yield number, text[:-1]


def verify(path: str, key: bytes | None = None) -> Report:
    """Verify the export at ``path`` (directory or zip). ``key``: the seal key (bytes) or None."""
    try:
        count, key_id = _verify(Export(path), key)
    except Fault as fault:
        return Report(False, f"FAIL {fault}", fault=fault)
    warning = (
        " (signed with the public development key: anyone could have re-signed it)" if key_id != "configured" else ""
    )
    return Report(True, f"OK: {count} events verified{warning}", events=count)


def _verify(export: Export, key: bytes | None) -> tuple[int, str]:
    manifest = _check_manifest(export, key)
    movements = _check_events(export, manifest)
    _check_seal(manifest, key)
    _check_postings(export)
    _check_balances(export, movements)
    for name in CSV_FILES:
        if _chained(export, name):
            _check_chain(export, name)
    _check_files(export, manifest)
    return manifest["last_position"] - manifest["first_position"] + 1, manifest["key_id"]


def _key_for(key_id: str, key: bytes | None, file: str) -> bytes:
    if key_id == "development":
        return DEVELOPMENT_KEY.encode()
    if not key:
        raise Fault(file, 0, "signed with the configured seal key: give it with --key or LEDGER_SEAL_KEY")
    return key


def _check_manifest(export: Export, key: bytes | None) -> dict:
    name = "manifest.json"
    with export.open(name) as handle:
        raw = handle.read()
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Fault(name, getattr(exc, "lineno", 0), f"not valid JSON ({exc})") from None
    if not isinstance(document, dict):
        raise Fault(name, 1, "not a manifest")
    expected = manifest_text(document).encode()
    if raw != expected:
        got, want = raw.split(b"\n"), expected.split(b"\n")
        line = next((i for i, (a, b) in enumerate(zip(got, want, strict=False), start=1) if a != b), len(want))
        raise Fault(name, line, "not in canonical form (altered)")
    entries = sorted(document)
    for line, entry in enumerate(entries, start=2):
        if not (isinstance(document[entry], list) and len(document[entry]) == 2):
            raise Fault(name, line, "not a [value, MAC] entry")
    key_id = document.get("key_id", [None])[0]
    if key_id not in ("configured", "development"):
        raise Fault(name, entries.index("key_id") + 2 if "key_id" in document else 0, "unknown key_id")
    signing_key = _key_for(key_id, key, name)
    for line, entry in enumerate(entries, start=2):
        value, mac = document[entry]
        if not hmac.compare_digest(line_mac(signing_key, line, entry, value), str(mac)):
            raise Fault(name, line, "entry does not match its MAC (altered, moved, or wrong key)")
    if document.get("~lines", [None])[0] != len(entries) - 1:
        raise Fault(name, len(entries) + 1, "entries are missing")
    manifest = unflatten({entry: document[entry][0] for entry in entries if entry != "~lines"})
    if manifest.get("format") != FORMAT:
        raise Fault(name, 0, f"unknown format {manifest.get('format')!r}")
    return manifest


def _check_events(export: Export, manifest: dict) -> dict[tuple[str, str], int]:
    """Walk events.jsonl; return the day's movement per (account, currency)."""
    name = "events.jsonl"
    first, last = manifest["first_position"], manifest["last_position"]
    previous_seal = manifest.get("previous_seal")
    prev_hash = manifest["first_prev_hash"]
    if previous_seal is not None and previous_seal["last_position"] == first - 1:
        if previous_seal["last_hash"] != prev_hash:
            raise Fault("manifest.json", 0, "first_prev_hash is not the previous seal's last hash")
    seal = manifest.get("seal")
    expected = first
    movements: dict[tuple[str, str], int] = defaultdict(int)
    for number, text in export.lines(name):
        try:
            record = json.loads(text)
        except json.JSONDecodeError:
            raise Fault(name, number, "not valid JSON") from None
        if not isinstance(record, dict) or set(record) != set(EVENT_FIELDS) | {"hash"}:
            raise Fault(name, number, "not an event record (fields differ)")
        try:
            if canonical_json(record) != text:
                raise Fault(name, number, "not in canonical JSON form (altered)")
        except TypeError as exc:
            raise Fault(name, number, str(exc)) from None
        if record["position"] != expected:
            raise Fault(
                name, number, f"position {record['position']} where {expected} was expected (line missing or moved)"
            )
        if record["prev_hash"] != prev_hash:
            raise Fault(name, number, "prev_hash is not the previous event's hash (line missing or moved)")
        if event_hash(record) != record["hash"]:
            raise Fault(name, number, "hash does not match the event's content (altered)")
        totals: dict[str, int] = defaultdict(int)
        for account, amount, currency in record["postings"]:
            totals[currency] += amount
            movements[(account, currency)] += amount
        if any(totals.values()):
            raise Fault(name, number, f"postings do not sum to zero: {dict(totals)}")
        if seal is not None and record["position"] == seal["last_position"] and record["hash"] != seal["last_hash"]:
            raise Fault(name, number, "the seal's last_hash is not this event's hash")
        prev_hash, expected = record["hash"], expected + 1
    if expected != last + 1:
        raise Fault(name, 0, f"ends at position {expected - 1}, the manifest says {last} (lines missing)")
    if prev_hash != manifest["last_hash"]:
        raise Fault("manifest.json", 0, "last_hash is not the last event's hash")
    return movements


def _check_seal(manifest: dict, key: bytes | None) -> None:
    seal = manifest.get("seal")
    if seal is None:
        raise Fault("manifest.json", 0, "the gaming day is not sealed (seal it, then export again)")
    if not hmac.compare_digest(sign(seal, _key_for(seal["key_id"], key, "manifest.json")), seal["signature"]):
        raise Fault("manifest.json", 0, "the seal's signature does not match")
    if seal["day"] != manifest["day"]:
        raise Fault("manifest.json", 0, "the seal is of another day")
    if (seal["first_position"], seal["last_position"]) != (manifest["first_position"], manifest["last_position"]):
        raise Fault("manifest.json", 0, "the seal's position range is not the export's")
    previous = manifest.get("previous_seal")
    if (seal["previous_seal"] or {}).get("signature") != (previous or {}).get("signature"):
        raise Fault("manifest.json", 0, "the seal does not link to the previous day's seal")
    if previous is not None:
        if not hmac.compare_digest(
            sign(previous, _key_for(previous["key_id"], key, "manifest.json")), previous["signature"]
        ):
            raise Fault("manifest.json", 0, "the previous day's seal's signature does not match")
        if previous["last_position"] != manifest["first_position"] - 1:
            raise Fault("manifest.json", 0, "the previous seal does not end right before this day's first event")


def _chained(export: Export, name: str) -> bool:
    """True for a CSV of an export written before issue 24: its header (like every line) ends
    with a chain column, a comma and 64 hex digits, which no header name is."""
    if name not in export.chained:
        first = next(export.lines(name), (1, ""))[1]
        tail = first[-64:]
        export.chained[name] = len(first) > 65 and first[-65] == "," and all(c in "0123456789abcdef" for c in tail)
    return export.chained[name]


def _csv_fields(export: Export, name: str, number: int, text: str) -> list[str]:
    import csv

    if _chained(export, name):
        if len(text) < 65 or text[-65] != ",":
            raise Fault(name, number, "no line chain column")
        text = text[:-65]
    return next(csv.reader([text]), [])


def _check_postings(export: Export) -> None:
    """postings.csv lists the events' postings, in the same order."""
    events = export.lines("events.jsonl")
    pending: list[tuple[int, list]] = []
    lines = export.lines("postings.csv")
    next(lines, None)  # header
    for number, text in lines:
        while not pending:
            record = next(events, None)
            if record is None:
                raise Fault("postings.csv", number, "a posting no event of events.jsonl has")
            parsed = json.loads(record[1])
            pending = [(parsed["position"], p) for p in parsed["postings"]]
        position, (account, amount, currency) = pending.pop(0)
        if _csv_fields(export, "postings.csv", number, text) != [str(position), account, str(amount), currency]:
            raise Fault("postings.csv", number, f"does not match posting {account} {amount} of event {position}")
    if pending or any(json.loads(t)["postings"] for _, t in events):
        raise Fault("postings.csv", 0, "postings of events.jsonl are missing")


def _check_balances(export: Export, movements: dict[tuple[str, str], int]) -> None:
    """Re-add the events' postings: opening + movement = closing, for every account moved."""
    seen = set()
    lines = export.lines("balances.csv")
    next(lines, None)
    for number, text in lines:
        fields = _csv_fields(export, "balances.csv", number, text)
        try:
            account, currency, opening, movement, closing = fields[0], fields[1], *map(int, fields[2:5])
        except (ValueError, IndexError):
            raise Fault("balances.csv", number, "malformed line") from None
        if opening + movement != closing:
            raise Fault("balances.csv", number, f"{account}: opening {opening} + movement {movement} != {closing}")
        added = movements.get((account, currency), 0)
        if added != movement:
            raise Fault("balances.csv", number, f"{account}: movement {movement}, the events' postings add {added}")
        seen.add((account, currency))
    missing = sorted(k for k, v in movements.items() if k not in seen and v)
    if missing:
        raise Fault("balances.csv", 0, f"no line for {missing[0][0]} {missing[0][1]}, moved by the events")


def _check_chain(export: Export, name: str) -> None:
    previous = GENESIS_HASH
    for number, text in export.lines(name):
        if len(text) < 65 or text[-65] != ",":
            raise Fault(name, number, "no line chain column (altered)")
        body, chain = text[:-65], text[-64:]
        previous = line_chain(previous, body)
        if chain != previous:
            raise Fault(name, number, "line chain does not match (line altered, missing or moved)")


def _check_files(export: Export, manifest: dict) -> None:
    for name, expected in sorted(manifest["files"].items()):
        digest, size, records = hashlib.sha256(), 0, 0
        with export.open(name) as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
                records += chunk.count(b"\n")
        if digest.hexdigest() != expected["sha256"] or size != expected["bytes"]:
            raise Fault(name, 0, "SHA-256 or size differs from the manifest")
        if records != expected["lines"]:
            raise Fault(name, 0, f"{records} lines, the manifest says {expected['lines']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a gaming-day export (directory or zip).")
    parser.add_argument("path")
    parser.add_argument("--key", help="the seal key (default: $LEDGER_SEAL_KEY)")
    args = parser.parse_args(argv)
    if not os.path.exists(args.path):
        print(f"no such export: {args.path}", file=sys.stderr)
        return 2
    key = args.key if args.key is not None else os.environ.get("LEDGER_SEAL_KEY", "")
    report = verify(args.path, key.encode() if key else None)
    print(report.message)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

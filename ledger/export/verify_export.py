#!/usr/bin/env python3
"""Verify a gaming-day export: standard library only, so a regulator can run it anywhere.

    python verify_export.py OUT_DIR_OR_ZIP [--strict] [--trusted-key HEX]... [--key SECRET]

Exports are signed with Ed25519: the manifest names the public key (``public_key``,
64 hex digits) and each of its lines carries that key's signature; the seals likewise. A
signature proves who signed only if the key is one you expect: give the site's public key with
``--trusted-key`` (or ``LEDGER_TRUSTED_PUBLIC_KEYS``, comma-separated) and ``--strict``, which
fails, naming the file, on a development key or a key not among the trusted ones (without
``--strict`` that is a warning). Older exports, made before Ed25519, are signed with
HMAC-SHA256 under the seal key: ``--key`` (or ``LEDGER_SEAL_KEY``) verifies them.

Checks, in this order, and stops at the first fault, naming the file and line:
1. ``manifest.json`` is in its canonical form and each of its lines matches its signature
   (Ed25519, or HMAC-SHA256 for an older export) and, with ``--strict``, a trusted key;
2. ``events.jsonl``: each line canonical JSON, positions consecutive over the manifest's range,
   each ``prev_hash`` the previous line's ``hash`` (the first: the previous seal's ``last_hash``),
   each ``hash`` recomputed (SHA-256 of the canonical envelope, as ``ledger/hashing.py``), the
   postings of each event summing to zero per currency;
3. the seal: its signature, its range and last hash against the events, its link to the
   previous day's seal;
4. ``postings.csv`` line by line against the events' postings;
5. ``balances.csv``: opening + the day's postings = closing for every account, re-added from
   the events;
6. an older export ends each CSV line with a chain column (SHA-256 of the
   previous line's chain and the line): each chain is checked. Later exports are plain CSV
   tables, the header first; their integrity is step 7;
7. each file's SHA-256, size and record count against the manifest.

Exit status 0 when everything matches, 1 naming the first mismatch, 2 on usage errors.
``canonical_json`` and ``event_hash`` duplicate ``ledger/hashing.py`` on purpose (a test
proves they agree) so that this file needs nothing of the project. Ed25519 is checked with the
``cryptography`` library when it is installed, else with the RFC 8032 reference arithmetic
below (standard library only; slower, the same answers: a test proves it).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import sys
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

GENESIS_HASH = "0" * 64
FORMAT = "casino-gaming-day-export/1"
DEVELOPMENT_KEY = "development-only-ledger-seal-key: set LEDGER_SEAL_KEY in production"
HMAC_SHA256 = "HMAC-SHA256"
ED25519 = "Ed25519"
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


def key_fingerprint(public_key: str) -> str:
    """``ed25519:`` and the first 16 hex digits of the SHA-256 of the raw public key."""
    try:
        raw = bytes.fromhex(public_key)
    except (TypeError, ValueError):
        raw = b""
    return "ed25519:" + hashlib.sha256(raw).hexdigest()[:16]


# --- Ed25519 verification (RFC 8032 §5.1.7), for a machine without ``cryptography`` ----------
_P = 2**255 - 19
_L = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    return _P - x if (x & 1) != sign else x


def _point_add(p: tuple, q: tuple) -> tuple:
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _point_mul(scalar: int, point: tuple) -> tuple:
    result = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _point_decode(data: bytes) -> tuple | None:
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


def _points_equal(p: tuple, q: tuple) -> bool:
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


_BASE = _point_decode((4 * pow(5, _P - 2, _P) % _P).to_bytes(32, "little"))


def ed25519_verify_reference(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """RFC 8032 Ed25519 verification in plain integers (standard library only)."""
    return ed25519_verify_chunks(public_key, iter((message,)), signature)


def ed25519_verify_chunks(public_key: bytes, chunks: Iterator[bytes], signature: bytes) -> bool:
    """RFC 8032 Ed25519 verification of the message ``chunks`` make, read once: verifying
    needs one SHA-512 over the message (signing needs two), so a file of any size is checked
    in constant memory."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a, r = _point_decode(public_key), _point_decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= _L:
        return False
    digest = hashlib.sha512(signature[:32] + public_key)
    for chunk in chunks:
        digest.update(chunk)
    h = int.from_bytes(digest.digest(), "little") % _L
    return _points_equal(_point_mul(s, _BASE), _point_add(r, _point_mul(h, a)))


# --- Detached signatures: checkable with ``openssl`` alone ------------------------------------
# Each file F of an export has ``F.sig``: the raw 64-byte Ed25519 signature of F's exact bytes,
# under the key ``public-key.pem`` holds (``docs/regulatory_exports.md`` gives the command).
SIG_SUFFIX = ".sig"
PUBLIC_KEY_FILE = "public-key.pem"
# DER SubjectPublicKeyInfo of an Ed25519 key (RFC 8410 §4) before its 32 raw bytes.
_ED25519_SPKI_PREFIX = bytes.fromhex("302a300506032b6570032100")


def public_key_pem(public_key: str) -> str:
    """The PEM text (RFC 8410 ``PUBLIC KEY``) of an Ed25519 public key given as 64 hex digits."""
    import base64

    body = base64.b64encode(_ED25519_SPKI_PREFIX + bytes.fromhex(public_key)).decode()
    return f"-----BEGIN PUBLIC KEY-----\n{body}\n-----END PUBLIC KEY-----\n"


def public_key_from_pem(text: str) -> str | None:
    """The 64 hex digits of the Ed25519 key in PEM ``text``; None when it holds no such key."""
    import base64
    import binascii

    lines = [line.strip() for line in text.strip().splitlines()]
    if len(lines) < 3 or lines[0] != "-----BEGIN PUBLIC KEY-----" or lines[-1] != "-----END PUBLIC KEY-----":
        return None
    try:
        der = base64.b64decode("".join(lines[1:-1]), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(der) != 44 or not der.startswith(_ED25519_SPKI_PREFIX):
        return None
    return der[len(_ED25519_SPKI_PREFIX) :].hex()


try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
except ImportError:  # the standard library only: the reference arithmetic above
    Ed25519PublicKey = None


def ed25519_verify(public_key: str, message: bytes, signature: str) -> bool:
    """Whether ``signature`` (hex) is ``public_key``'s (hex) Ed25519 signature of ``message``."""
    try:
        public, sig = bytes.fromhex(public_key), bytes.fromhex(signature)
    except (TypeError, ValueError):
        return False
    if Ed25519PublicKey is None:
        return ed25519_verify_reference(public, message, sig)
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(sig, message)
    except (InvalidSignature, ValueError):
        return False
    return True


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


def line_message(line: int, name: str, value: object) -> bytes:
    """What one manifest entry's MAC or signature covers: the entry with its line number, so an
    altered, moved or removed line fails alone."""
    return canonical_json([line, name, value]).encode()


def line_mac(key: bytes, line: int, name: str, value: object) -> str:
    """HMAC-SHA256 of one manifest entry (older exports, made before Ed25519)."""
    return hmac.new(key, line_message(line, name, value), hashlib.sha256).hexdigest()


def manifest_document(body: dict, key: bytes | None = None, *, signer=None) -> dict:
    """The manifest as written: each leaf of ``body`` on its own line as ``[value, signature]``,
    closed by ``~lines`` (the number of entries). Line 1 is ``{``, so entry *i* is on line *i + 1*.
    ``signer``: bytes → hex Ed25519 signature (``body`` names its key); else HMAC under ``key``."""
    sign_line = signer if signer is not None else (lambda message: hmac.new(key, message, hashlib.sha256).hexdigest())
    flat = flatten(body)
    document = {
        name: [flat[name], sign_line(line_message(line, name, flat[name]))] for line, name in enumerate(sorted(flat), 2)
    }
    document["~lines"] = [len(flat), sign_line(line_message(len(flat) + 2, "~lines", len(flat)))]
    return document


def line_chain(previous: str, text: str) -> str:
    """A CSV line's chain value: SHA-256 of the previous line's chain and this line's text."""
    return hashlib.sha256((previous + text).encode()).hexdigest()


class Fault(Exception):
    """The first mismatch: ``file``, ``line`` (1-based, or 0 for the whole file) and what."""

    def __init__(self, file: str, line: int, what: str):
        super().__init__(f"{file}:{line}: {what}" if line else f"{file}: {what}")
        self.file, self.line, self.what = file, line, what


class UntrustedKey(Fault):
    """A signature that holds under a key not to rely on (``--strict``): ``public_key`` the
    export's Ed25519 key (hex; None for an HMAC export), ``development`` whether it is a
    development key."""

    def __init__(self, file: str, line: int, what: str, *, public_key: str | None, development: bool):
        super().__init__(file, line, what)
        self.public_key, self.development = public_key, development


@dataclass
class Report:
    ok: bool
    message: str
    events: int = 0
    fault: Fault | None = None
    day: str | None = None  # the gaming day the manifest names (YYYY-MM-DD), once it verified


class Export:
    """Read access to the files of a directory or a zip, line by line (bytes, newline kept)."""

    def __init__(self, path: str):
        self.path = path
        self.zip = zipfile.ZipFile(path) if os.path.isfile(path) else None
        self.chained: dict[str, bool] = {}  # CSV name → written with a chain column (an older export)

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


@dataclass(frozen=True)
class Trust:
    """What a signature must be to pass: ``key`` the HMAC seal key (older exports); ``trusted``
    the Ed25519 public keys (hex) expected; ``strict``: a development or untrusted key fails."""

    key: bytes | None = None
    trusted: frozenset[str] = frozenset()
    strict: bool = False


def verify(path: str, key: bytes | None = None, *, strict: bool = False, trusted: tuple[str, ...] = ()) -> Report:
    """Verify the export at ``path`` (directory or zip). ``key``: the HMAC seal key of an older
    export, or None; ``trusted``: the Ed25519 public keys (hex) expected; ``strict``: fail
    (naming the file) on a development key or one not in ``trusted``, instead of warning."""
    trust = Trust(key, frozenset(k.strip().lower() for k in trusted if k.strip()), strict)
    warnings: list[str] = []
    try:
        count, day = _verify(Export(path), trust, warnings)
    except Fault as fault:
        return Report(False, f"FAIL {fault}", fault=fault)
    except zipfile.BadZipFile as exc:  # not a zip, or a member whose CRC no longer matches
        fault = Fault(os.path.basename(path), 0, f"not a readable zip archive: {exc}")
        return Report(False, f"FAIL {fault}", fault=fault)
    except (zlib.error, EOFError) as exc:  # a byte changed inside a member's compressed data
        fault = Fault(os.path.basename(path), 0, f"a file inside the zip is damaged (its data does not inflate: {exc})")
        return Report(False, f"FAIL {fault}", fault=fault)
    warning = f" ({'; '.join(dict.fromkeys(warnings))})" if warnings else ""
    return Report(True, f"OK: {count} events verified{warning}", events=count, day=day)


def _verify(export: Export, trust: Trust, warnings: list[str]) -> tuple[int, str]:
    manifest = _check_manifest(export, trust, warnings)
    _check_members(export, manifest)
    movements = _check_events(export, manifest)
    _check_seal(manifest, trust, warnings)
    _check_postings(export)
    _check_balances(export, movements)
    for name in CSV_FILES:
        if _chained(export, name):
            _check_chain(export, name)
    _check_files(export, manifest)
    _check_detached(export, manifest, warnings)
    return manifest["last_position"] - manifest["first_position"] + 1, str(manifest.get("day"))


def _check_members(export: Export, manifest: dict) -> None:
    """A zip holds each of its files once, and only the files the manifest names with their
    signatures: a second member of the same name (a reader that takes the first would show a
    forged one) or a file nobody signed is refused, never shown as part of the export."""
    if export.zip is None:
        return
    names = [name for name in export.zip.namelist() if not name.endswith("/")]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise Fault(twice[0], 0, "appears twice in the zip (which one is the export's?)")
    signed = {*manifest["files"], "manifest.json", PUBLIC_KEY_FILE}
    extra = sorted(set(names) - signed - {name + SIG_SUFFIX for name in signed})
    if extra:
        raise Fault(extra[0], 0, "is not named by the manifest: not part of the signed export")


def _key_for(key_id: str, key: bytes | None, file: str) -> bytes:
    if key_id == "development":
        return DEVELOPMENT_KEY.encode()
    if not key:
        raise Fault(file, 0, "signed with the configured seal key: give it with --key or LEDGER_SEAL_KEY")
    return key


def _distrust(kind: str | None, key_id: str, public_key: str | None, trust: Trust) -> str:
    """Why a signature's key is not one to rely on ("" when it is)."""
    if kind == "development" or key_id == "development":
        return "signed with a development key: anyone holding it could have re-signed it"
    if public_key is not None and public_key.lower() not in trust.trusted:
        given = "" if trust.trusted else "; give the site's with --trusted-key"
        return f"signed with key {key_id}, not a trusted key{given}"
    return ""


def _check_manifest(export: Export, trust: Trust, warnings: list[str]) -> dict:
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

    def line_of(entry: str) -> int:
        return entries.index(entry) + 2 if entry in document else 0

    algorithm = document.get("signature_algorithm", [HMAC_SHA256])[0]
    key_id = document.get("key_id", [None])[0]
    if algorithm == ED25519:
        _check_manifest_signatures(document, entries, line_of)
        public = document["public_key"][0]
        if key_id != key_fingerprint(public):
            raise Fault(name, line_of("key_id"), "key_id is not the public key's")
        problem = _distrust(document.get("key_kind", [None])[0], key_id, public, trust)
    elif algorithm == HMAC_SHA256:
        if key_id not in ("configured", "development"):
            raise Fault(name, line_of("key_id"), "unknown key_id")
        signing_key = _key_for(key_id, trust.key, name)
        for line, entry in enumerate(entries, start=2):
            value, mac = document[entry]
            if not hmac.compare_digest(line_mac(signing_key, line, entry, value), str(mac)):
                raise Fault(name, line, "entry does not match its MAC (altered, moved, or wrong key)")
        problem = _distrust(None, key_id, None, trust)
    else:
        raise Fault(name, line_of("signature_algorithm"), f"unknown signature algorithm {algorithm!r}")
    if problem:
        if trust.strict:
            raise UntrustedKey(
                name,
                line_of("public_key") or line_of("key_id"),
                f"{problem} (--strict)",
                public_key=document["public_key"][0] if algorithm == ED25519 else None,
                development=key_id == "development" or document.get("key_kind", [None])[0] == "development",
            )
        warnings.append(problem)
    if document.get("~lines", [None])[0] != len(entries) - 1:
        raise Fault(name, len(entries) + 1, "entries are missing")
    manifest = unflatten({entry: document[entry][0] for entry in entries if entry != "~lines"})
    if manifest.get("format") != FORMAT:
        raise Fault(name, 0, f"unknown format {manifest.get('format')!r}")
    return manifest


def _check_manifest_signatures(document: dict, entries: list[str], line_of) -> None:
    """Each entry against the Ed25519 signature of the manifest's public key. When none
    matches, the key itself is what changed (its line is named)."""
    name = "manifest.json"
    public = document.get("public_key", [None])[0]
    if not isinstance(public, str):
        raise Fault(name, line_of("public_key"), "no public_key")
    failed = [
        line
        for line, entry in enumerate(entries, start=2)
        if not ed25519_verify(public, line_message(line, entry, document[entry][0]), str(document[entry][1]))
    ]
    if failed and len(failed) == len(entries):
        raise Fault(name, line_of("public_key"), "no entry matches the public key (public_key altered, or another key)")
    if failed:
        raise Fault(name, failed[0], "entry does not match its signature (altered or moved)")


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


def _seal_signature_fault(seal: dict, trust: Trust, warnings: list[str], which: str) -> str:
    """Why ``seal``'s signature fails ("" when it holds); a distrusted key fails only when strict."""
    if seal.get("algorithm") == ED25519:
        public = str(seal.get("public_key", ""))
        body = {k: v for k, v in seal.items() if k != "signature"}
        if seal.get("key_id") != key_fingerprint(public) or not ed25519_verify(
            public, canonical_json(body).encode(), str(seal.get("signature", ""))
        ):
            return f"{which} signature does not match"
        problem = _distrust(seal.get("key_kind"), seal["key_id"], public, trust)
    else:
        if not hmac.compare_digest(sign(seal, _key_for(seal["key_id"], trust.key, "manifest.json")), seal["signature"]):
            return f"{which} signature does not match"
        problem = _distrust(None, seal["key_id"], None, trust)
    if problem and trust.strict:
        return f"{which} key: {problem} (--strict)"
    if problem:
        warnings.append(problem)
    return ""


def _check_seal(manifest: dict, trust: Trust, warnings: list[str]) -> None:
    seal = manifest.get("seal")
    if seal is None:
        raise Fault("manifest.json", 0, "the gaming day is not sealed (seal it, then export again)")
    fault = _seal_signature_fault(seal, trust, warnings, "the seal's")
    if fault:
        raise Fault("manifest.json", 0, fault)
    if seal["day"] != manifest["day"]:
        raise Fault("manifest.json", 0, "the seal is of another day")
    if (seal["first_position"], seal["last_position"]) != (manifest["first_position"], manifest["last_position"]):
        raise Fault("manifest.json", 0, "the seal's position range is not the export's")
    previous = manifest.get("previous_seal")
    if (seal["previous_seal"] or {}).get("signature") != (previous or {}).get("signature"):
        raise Fault("manifest.json", 0, "the seal does not link to the previous day's seal")
    if previous is not None:
        fault = _seal_signature_fault(previous, trust, warnings, "the previous day's seal's")
        if fault:
            raise Fault("manifest.json", 0, fault)
        if previous["last_position"] != manifest["first_position"] - 1:
            raise Fault("manifest.json", 0, "the previous seal does not end right before this day's first event")


def _chained(export: Export, name: str) -> bool:
    """True for a CSV of an older export, before CSVs were plain tables: its header (like every
    line) ends with a chain column, a comma and 64 hex digits, which no header name is."""
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


def _check_detached(export: Export, manifest: dict, warnings: list[str]) -> None:
    """Each file's ``.sig`` against its exact bytes and the manifest's public key, which
    ``public-key.pem`` must hold. An export made before detached signatures has none: a warning."""
    public = manifest.get("public_key")
    if public is None or not export.exists("manifest.json" + SIG_SUFFIX):
        warnings.append("no detached signatures (an export made before they were added)")
        return
    if not export.exists(PUBLIC_KEY_FILE):
        raise Fault(PUBLIC_KEY_FILE, 0, "missing from the export")
    with export.open(PUBLIC_KEY_FILE) as handle:
        in_pem = public_key_from_pem(handle.read().decode("ascii", "replace"))
    if in_pem != public:
        raise Fault(PUBLIC_KEY_FILE, 1, "not the manifest's public key")
    for name in [*sorted(manifest["files"]), "manifest.json", PUBLIC_KEY_FILE]:
        sig_name = name + SIG_SUFFIX
        if not export.exists(sig_name):
            raise Fault(sig_name, 0, "missing from the export")
        with export.open(sig_name) as handle:
            signature = handle.read()
        with export.open(name) as handle:
            chunks = iter(lambda: handle.read(1 << 20), b"")
            if not ed25519_verify_chunks(bytes.fromhex(public), chunks, signature):
                raise Fault(sig_name, 0, f"not the Ed25519 signature of {name}'s bytes (altered)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Verify a gaming-day export (directory or zip).")
    parser.add_argument("path")
    parser.add_argument("--key", help="the HMAC seal key of an older, HMAC-signed export (default: $LEDGER_SEAL_KEY)")
    parser.add_argument(
        "--trusted-key",
        action="append",
        default=[],
        help="an Ed25519 public key (64 hex digits) the export may be signed with; repeatable "
        "(default: $LEDGER_TRUSTED_PUBLIC_KEYS, comma-separated)",
    )
    parser.add_argument(
        "--strict", action="store_true", help="fail on a development key or a key not trusted (default: warn)"
    )
    args = parser.parse_args(argv)
    if not os.path.exists(args.path):
        print(f"no such export: {args.path}", file=sys.stderr)
        return 2
    key = args.key if args.key is not None else os.environ.get("LEDGER_SEAL_KEY", "")
    trusted = args.trusted_key or os.environ.get("LEDGER_TRUSTED_PUBLIC_KEYS", "").split(",")
    report = verify(args.path, key.encode() if key else None, strict=args.strict, trusted=tuple(trusted))
    print(report.message)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

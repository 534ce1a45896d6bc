"""Write a gaming day's export: to a directory, or as a zip streamed chunk by chunk.

Files, in order: ``events.jsonl`` (one canonical-JSON event per line: the envelope, its
postings sorted as the hash sorts them, ``prev_hash`` and ``hash``), ``postings.csv``,
``balances.csv`` (opening, movement and closing per account moved), ``tables.csv``,
``cage.csv``, ``aml.csv`` (``registry``), then ``manifest.json``: each file's SHA-256, size and
line count, the position range, the previous day's seal, the day's seal, the chain head, the
site's Ed25519 public key, each line signed with that key (``ledger.signing``). The
CSVs are plain tables, the header first: their integrity is their SHA-256 in the
manifest; ``postings.csv`` and ``balances.csv`` are re-checked line by line against the events,
so the verifier names a line altered there. Each file F, the manifest included, also has a
detached ``F.sig`` and the export a ``public-key.pem`` (``detached``), so ``openssl`` alone
can check it.

Memory does not grow with the day: rows come from server-side cursors
(``.iterator(chunk_size=…)``), events and postings are merged as two sorted streams, and only
the current file's digest is kept.
"""

import csv
import hashlib
import io
import zipfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from django.db.models import Count, Q, Sum

from .. import seal as seals
from .. import signing, withheld
from ..errors import Conflict, NotFound, StateConflict
from ..hashing import HASHED_FIELDS, canonical_json, iso_utc
from ..models import Event, Posting
from ..spreadsheet_cells import safe_row
from ..store import head
from . import detached, registry
from .verify_export import FORMAT, GENESIS_HASH, SIG_SUFFIX, manifest_document, manifest_text, unflatten

CHUNK = 2000
# Why a day has no export yet (the API's 409, the auditor's days page).
NOT_SEALED = "the day is open and not sealed (a day is sealed when it closes)"
FLUSH_BYTES = 1 << 16


@dataclass(frozen=True)
class Plan:
    """What one export covers: the day's range of the chain and its seals."""

    ctx: registry.ExportContext
    first_prev_hash: str
    last_hash: str
    seal: Event | None
    previous_seal: Event | None


def plan_export(day: date, *, include_identity: bool) -> Plan:
    """The range to export: the latest seal's of ``day``, else the day's partition so far up
    to the event before the first face-down card of a coup still in play (none such: all).

    Raises ``NotFound`` when the day has no event, ``Conflict`` when the day is open and such a
    card comes before it (even its first event's ``prev_hash`` would give the card away).
    """
    seal = seals.latest_seal(day=day)
    if seal is not None:
        first, last = seal.data["first_position"], seal.data["last_position"]
        linked = seal.data["previous_seal"]
        previous = Event.chain.get(position=linked["position"]) if linked else None
    else:
        first, last, previous = seals.day_range(day)
        # An open day's export stops before the first card still face down in play: the
        # card, its hash and every later hash would give it away (``ledger.withheld``).
        # The sealed export carries the whole range.
        hidden = withheld.hashes_withheld_from()
        if hidden is not None and hidden <= first - 1:
            raise Conflict(
                f"gaming day {day.isoformat()} is open and a face-down card before it is still in play: "
                "its export waits until that coup is over"
            )
        if hidden is not None and hidden <= last:
            last = hidden - 1
    before = Event.chain.filter(position=first - 1).values_list("hash", flat=True).first()
    last_hash = Event.chain.filter(position=last).values_list("hash", flat=True).first()
    if last_hash is None:
        raise NotFound(f"gaming day {day.isoformat()} has no event", field="day")
    return Plan(
        ctx=registry.ExportContext(day=day, first=first, last=last, include_identity=include_identity),
        first_prev_hash=before or GENESIS_HASH,
        last_hash=last_hash,
        seal=seal,
        previous_seal=previous,
    )


def event_lines(ctx: registry.ExportContext) -> Iterator[str]:
    """Canonical JSON of each event of the range with its postings: the lines of ``events.jsonl``."""
    for record in event_records(ctx):
        yield canonical_json(record)


def event_records(ctx: registry.ExportContext) -> Iterator[dict]:
    """Each event of the range with its postings (a merge of two cursors sorted by position)."""
    events = (
        Event.chain.filter(position__gte=ctx.first, position__lte=ctx.last)
        .order_by("position")
        .values_list(*HASHED_FIELDS, "hash")
        .iterator(chunk_size=CHUNK)
    )
    postings = (
        Posting.chain.filter(event_id__gte=ctx.first, event_id__lte=ctx.last)
        .order_by("event_id", "id")
        .values_list("event_id", "account", "amount_cents", "currency")
        .iterator(chunk_size=CHUNK * 2)
    )
    pending = next(postings, None)
    for row in events:
        position = row[0]
        legs = []
        while pending is not None and pending[0] == position:
            legs.append([pending[1], pending[2], pending[3]])
            pending = next(postings, None)
        yield {
            "position": position,
            "stream": row[1],
            "version": row[2],
            "type": row[3],
            "schema_version": row[4],
            "data": row[5],
            "occurred_at": iso_utc(row[6]),
            "recorded_at": iso_utc(row[7]),
            "gaming_day": row[8].isoformat(),
            "actor": row[9],
            "correlation_id": row[10],
            "causation_id": row[11],
            "idempotency_key": row[12],
            "prev_hash": row[13],
            "hash": row[14],
            "postings": sorted(legs),
        }


def postings_rows(ctx: registry.ExportContext) -> Iterator[list]:
    """``position, account, amount_cents, currency`` in the order of ``events.jsonl``."""
    yield ["position", "account", "amount_cents", "currency"]
    # A second pass over the events keeps the order events.jsonl gives the legs (sorted in
    # Python, as the hash sorts them): a SQL ORDER BY would follow the database's collation.
    for record in event_records(ctx):
        for account, amount, currency in record["postings"]:
            yield [record["position"], account, amount, currency]


def balances_rows(ctx: registry.ExportContext) -> Iterator[list]:
    """Every account the range moved: opening (before ``first``), movement, closing (at ``last``), cents."""
    yield ["account", "currency", "opening_cents", "movement_cents", "closing_cents"]
    in_range = Q(event_id__gte=ctx.first)
    rows = (
        Posting.chain.filter(event_id__lte=ctx.last)
        .values("account", "currency")
        .annotate(
            opening=Sum("amount_cents", filter=Q(event_id__lt=ctx.first), default=0),
            movement=Sum("amount_cents", filter=in_range, default=0),
            moved=Count("id", filter=in_range),
        )
        .filter(moved__gt=0)
        .order_by("account", "currency")
        .values_list("account", "currency", "opening", "movement")
    )
    for account, currency, opening, movement in rows.iterator(chunk_size=CHUNK):
        yield [account, currency, opening, movement, opening + movement]


def csv_lines(rows: Iterable[Iterable[object]]) -> Iterator[str]:
    """CSV text lines, without their newline (see module docstring); a text a spreadsheet would
    run as a formula is written as text (``ledger.spreadsheet_cells``)."""
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="")
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        out.writerow(safe_row(row))
        yield buffer.getvalue()


def files(plan: Plan) -> Iterator[tuple[str, Iterator[str]]]:
    """``(name, lines)`` of every data file, in order."""
    ctx = plan.ctx
    yield "events.jsonl", event_lines(ctx)
    yield "postings.csv", csv_lines(postings_rows(ctx))
    yield "balances.csv", csv_lines(balances_rows(ctx))
    for name in registry.REPORT_CSV:
        yield name, csv_lines(registry.WRITERS[name](ctx))


def _chain_head(position: int, head_hash: str) -> dict:
    """The ledger's head at export time; its hash withheld past a face-down card in play (it
    would give the card away as well as the card's own hash would: ``ledger.withheld``)."""
    if withheld.hash_shown(position, withheld.hashes_withheld_from()):
        return {"position": position, "hash": head_hash}
    return {"position": position, "hash": None, "hash_withheld": True}


def manifest(plan: Plan, written: dict[str, dict]) -> str:
    """The ``manifest.json`` text for the files ``written`` (name → sha256, bytes, lines), each
    line with its Ed25519 signature (``verify_export.manifest_document``)."""
    # A sealed day's export is one file whenever it is made (an auditor may publish its hash):
    # the head and the time it names are the seal's, not the moment of the download.
    head_position, head_hash = (plan.seal.position, plan.seal.hash) if plan.seal else head()
    key = signing.signing_key()
    body = {
        "format": FORMAT,
        "day": plan.ctx.day.isoformat(),
        "first_position": plan.ctx.first,
        "last_position": plan.ctx.last,
        "first_prev_hash": plan.first_prev_hash,
        "last_hash": plan.last_hash,
        "event_count": plan.ctx.last - plan.ctx.first + 1,
        "files": written,
        "seal": plan.seal.data if plan.seal else None,
        "seal_event_position": plan.seal.position if plan.seal else None,
        "previous_seal": plan.previous_seal.data if plan.previous_seal else None,
        "previous_seal_event_position": plan.previous_seal.position if plan.previous_seal else None,
        "chain_head": _chain_head(head_position, head_hash),
        "identities_included": plan.ctx.include_identity,
        "exported_at": iso_utc(_made_at(plan)),
        "signature_algorithm": signing.ALGORITHM,
        "key_id": key.key_id,
        "key_kind": key.kind,
        "public_key": key.public_key,
    }
    return manifest_text(manifest_document(body, signer=key.sign_bytes))


class _FileDigest:
    def __init__(self):
        self.sha, self.bytes, self.lines = hashlib.sha256(), 0, 0

    def add(self, chunk: bytes, lines: int) -> None:
        self.sha.update(chunk)
        self.bytes += len(chunk)
        self.lines += lines

    def summary(self) -> dict:
        return {"sha256": self.sha.hexdigest(), "bytes": self.bytes, "lines": self.lines}


def _chunks(lines: Iterator[str], digest: _FileDigest) -> Iterator[bytes]:
    batch: list[str] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line) + 1
        if size >= FLUSH_BYTES:
            chunk = ("\n".join(batch) + "\n").encode()
            digest.add(chunk, len(batch))
            yield chunk
            batch, size = [], 0
    if batch:
        chunk = ("\n".join(batch) + "\n").encode()
        digest.add(chunk, len(batch))
        yield chunk


def export_to_dir(
    day: date, out_dir: str | Path, *, include_identity: bool = False, progress: Callable[..., object] | None = None
) -> dict:
    """Write the export of ``day`` into ``out_dir`` (created). Returns the manifest (dict).

    ``progress(total)``, when given, returns a context manager with ``advance(n)`` (a
    ``ledger.progress.Progress``): it counts the day's events as ``events.jsonl`` is written."""
    import json

    plan = plan_export(day, include_identity=include_identity)
    target = Path(out_dir)
    target.mkdir(parents=True, exist_ok=True)
    written: dict[str, dict] = {}
    with progress(plan.ctx.last - plan.ctx.first + 1) if progress else nullcontext() as shown:
        for name, lines in files(plan):
            if shown is not None and name == "events.jsonl":
                lines = _counted(lines, shown)
            written[name] = _write(target / name, lines)
    key = signing.signing_key()
    for name in written:
        detached.sign_path(key, target / name)
    text = manifest(plan, written)
    (target / "manifest.json").write_text(text, encoding="utf-8")
    detached.sign_path(key, target / "manifest.json")
    detached.write_public_key(key, target)
    return unflatten({name: entry[0] for name, entry in json.loads(text).items() if name != "~lines"})


def _counted(lines: Iterator[str], shown) -> Iterator[str]:
    for line in lines:
        shown.advance(1)
        yield line


def _write(path: Path, lines: Iterator[str]) -> dict:
    digest = _FileDigest()
    with open(path, "wb") as handle:
        for chunk in _chunks(lines, digest):
            handle.write(chunk)
    return digest.summary()


class _Pipe(io.RawIOBase):
    """A write-only, unseekable sink whose bytes the zip generator hands out as they come."""

    def __init__(self):
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self.chunks.append(bytes(data))
        return len(data)

    def drain(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def export_zip_stream(day: date, *, include_identity: bool = False) -> Iterator[bytes]:
    """The export of ``day`` as a zip, yielded in chunks (for ``StreamingHttpResponse``).

    ``plan_export`` runs first, so a day with no event raises ``NotFound`` before any byte.
    """
    plan = plan_export(day, include_identity=include_identity)
    return _zip_chunks(plan)


def sealed_export_zip_stream(day: date, *, include_identity: bool = False) -> Iterator[bytes]:
    """``export_zip_stream`` of a sealed day only (the API's, as the auditor's pages offer it):
    an open day's export would be a partial range that changes with each event, its manifest
    signing no seal. Raises ``NotFound`` for a day without events, ``StateConflict`` (409) for
    one not sealed, saying ``NOT_SEALED``."""
    if seals.latest_seal(day=day) is None:
        if not Event.chain.filter(gaming_day=day).exists():
            raise NotFound(f"gaming day {day.isoformat()} has no event", field="day")
        raise StateConflict(f"no export of gaming day {day.isoformat()}: {NOT_SEALED}", field="day")
    return export_zip_stream(day, include_identity=include_identity)


def _made_at(plan: Plan) -> datetime:
    """When the export's content was fixed: its seal's time for a sealed day, else now (UTC)."""
    return plan.seal.recorded_at.astimezone(UTC) if plan.seal else datetime.now(UTC)


def _entry(name: str, when: datetime) -> zipfile.ZipInfo:
    """A zip member stamped ``when`` (not the moment written): with the seal's time, a sealed
    day's zip is the same bytes at every download (Ed25519 signs deterministically too)."""
    entry = zipfile.ZipInfo(name, date_time=when.timetuple()[:6])
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.external_attr = 0o600 << 16
    return entry


def _zip_chunks(plan: Plan) -> Iterator[bytes]:
    pipe = _Pipe()
    written: dict[str, dict] = {}
    key = signing.signing_key()
    when = _made_at(plan)
    # Unseekable output: zipfile writes data descriptors after each member (ZIP64 for big files).
    with zipfile.ZipFile(pipe, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, lines in files(plan):
            digest = _FileDigest()
            spool = detached.Spool()
            with archive.open(_entry(name, when), "w", force_zip64=True) as member:
                for chunk in spool.tee(_chunks(lines, digest)):
                    member.write(chunk)
                    if pipe.chunks:
                        yield pipe.drain()
            written[name] = digest.summary()
            archive.writestr(_entry(name + SIG_SUFFIX, when), spool.signature(key))
        text = manifest(plan, written).encode("utf-8")
        archive.writestr(_entry("manifest.json", when), text)
        archive.writestr(_entry("manifest.json" + SIG_SUFFIX, when), key.sign_raw(text))
        for member_name, data in detached.public_key_members(key):
            archive.writestr(_entry(member_name, when), data)
    yield pipe.drain()

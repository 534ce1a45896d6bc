"""Daily seals, the gaming-day export and its verifier.

A played gaming day is sealed, exported and verified; then each kind of tampering the issue
names (one byte flipped in any file, an event line deleted, two lines swapped) must make the
verifier fail naming the file and the line.
"""

import hashlib
import io
import json
import random
import subprocess
import sys
import zipfile
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.db import transaction

from demo.roulette import play_demo_session
from ledger import hashing, signing, store
from ledger.errors import Conflict, NotFound
from ledger.export import verify_export
from ledger.export.verify_export import verify
from ledger.export.writer import export_to_dir, export_zip_stream
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.seal import seal_gaming_day
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from workstations.audit_selectors import verify_upload

pytestmark = pytest.mark.django_db
SCRIPT = Path(verify_export.__file__)


@pytest.fixture
def played_day() -> date:
    """A gaming day with a few spins of English roulette played by the demo, then sealed."""
    play_demo_session(spins=4, seated=2, rng=random.Random(8), out=lambda *a, **k: None)
    day = current_gaming_day()
    seal_gaming_day(day=day, actor="auditor1")
    return day


@pytest.fixture
def exported(played_day, tmp_path) -> Path:
    out = tmp_path / "export"
    export_to_dir(played_day, out)
    return out


def _append_on(moment: datetime, stream: str, count: int = 2) -> None:
    """Events of another gaming day (business time ``moment``), with a balanced posting each."""
    with transaction.atomic():
        store.lock_writers()
        store.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            actor="tester",
            events=[
                NewEvent("TestMoved", {"n": i}, [Leg("test:a", 100), Leg("test:b", -100)], occurred_at=moment)
                for i in range(count)
            ],
        )


def test_a_played_and_sealed_day_exports_and_verifies(exported, played_day):
    entries = json.loads((exported / "manifest.json").read_text())
    manifest = verify_export.unflatten({name: entry[0] for name, entry in entries.items() if name != "~lines"})
    report = verify(str(exported))
    assert report.ok, report.message
    assert report.events == manifest["event_count"] == manifest["last_position"] - manifest["first_position"] + 1
    assert manifest["seal"]["day"] == played_day.isoformat()
    assert manifest["seal"]["last_hash"] == Event.objects.get(position=manifest["last_position"]).hash
    assert manifest["files"]["events.jsonl"]["lines"] == manifest["event_count"]
    lines = (exported / "events.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert first["position"] == 1 and first["prev_hash"] == hashing.GENESIS_HASH
    assert {json.loads(line)["type"] for line in lines} >= {"CageOpened", "ChipsPurchased", "BetPlaced"}
    # balances.csv re-adds: the cage's cash closing balance is the ledger's
    closing = {
        row.split(",")[0]: int(row.split(",")[4]) for row in (exported / "balances.csv").read_text().splitlines()[1:]
    }
    assert closing["cage:cash"] == store.balance("cage:cash")


def test_the_zip_stream_holds_the_same_files_and_verifies(played_day, tmp_path):
    archive = tmp_path / "day.zip"
    archive.write_bytes(b"".join(export_zip_stream(played_day)))
    report = verify(str(archive))
    assert report.ok, report.message


def test_a_byte_flipped_inside_the_zip_or_a_file_that_is_no_zip_fails_in_words_never_a_traceback(played_day, tmp_path):
    """The regulator's script once crashed (zlib.error) on a zip with one byte changed inside a
    member's compressed data; it says FAIL, naming the archive, and exits 1."""
    import zipfile

    stored = tmp_path / "stored.zip"
    stored.write_bytes(b"".join(export_zip_stream(played_day)))
    archive = tmp_path / "day.zip"  # compressed, as a browser or an archiver may hand it back
    with zipfile.ZipFile(stored) as source, zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            target.writestr(name, source.read(name))
    with zipfile.ZipFile(archive) as opened:
        member = opened.getinfo("events.jsonl")
    # The member's compressed data starts after its 30-byte local header, name and extra field.
    start = member.header_offset + 30 + len(member.filename) + len(member.extra)
    messages = {}
    for offset in range(0, member.compress_size, max(1, member.compress_size // 16)):
        data = bytearray(archive.read_bytes())
        data[start + offset] ^= 0xFF
        damaged = tmp_path / f"damaged-{offset}.zip"
        damaged.write_bytes(bytes(data))
        messages[damaged] = verify(str(damaged)).message  # never raises
    # A flipped bit may fall where the inflated bytes stay the same (padding after the last
    # block): the files are then whole and OK is right. Anything else is a FAIL in words.
    assert all(message.startswith(("FAIL ", "OK: ")) for message in messages.values()), messages
    inflating = [path for path, message in messages.items() if message.startswith(f"FAIL {path.name}: ")]
    assert inflating, messages  # some flips break the deflate stream itself (zlib.error once escaped)
    not_a_zip = tmp_path / "tables.zip"
    not_a_zip.write_text("table,drop\nR1,100\n")
    for path in (inflating[0], not_a_zip):
        done = subprocess.run([sys.executable, "-I", "-S", str(SCRIPT), str(path)], capture_output=True, text=True)
        assert (done.returncode, done.stderr) == (1, ""), done.stderr
        assert done.stdout.startswith(f"FAIL {path.name}: "), done.stdout
    assert "not a readable zip archive" in verify(str(not_a_zip)).message


def test_the_standalone_script_needs_only_the_standard_library(exported):
    """``-I -S``: isolated, no site-packages, so neither Django nor the project can be imported."""
    done = subprocess.run([sys.executable, "-I", "-S", str(SCRIPT), str(exported)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("OK:")


def test_manage_py_verify_export_and_export_gaming_day(played_day, tmp_path, capsys):
    call_command("export_gaming_day", played_day.isoformat(), str(tmp_path / "x"))
    call_command("verify_export", str(tmp_path / "x"))
    assert "events verified" in capsys.readouterr().out


@pytest.mark.parametrize(
    "name", ["events.jsonl", "postings.csv", "balances.csv", "tables.csv", "cage.csv", "aml.csv", "manifest.json"]
)
def test_flipping_one_byte_in_any_file_fails_naming_file_and_line(exported, name):
    path = exported / name
    data = bytearray(path.read_bytes())
    lines = data.split(b"\n")
    line = min(2, len(lines) - 1)  # the second line: a data row (the header of a CSV is line 1)
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + len(lines[line - 1]) // 2
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))
    report = verify(str(exported))
    assert not report.ok
    # The report CSVs are plain tables: their SHA-256 in the manifest finds the change,
    # naming the file; the ledger's files are re-read against the events, naming the line.
    expected = 0 if name in ("tables.csv", "cage.csv", "aml.csv") else line
    assert (report.fault.file, report.fault.line) == (name, expected), report.message


def test_deleting_an_event_line_fails_naming_the_line(exported):
    path = exported / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    del lines[4]
    path.write_text("".join(lines))
    report = verify(str(exported))
    assert (report.fault.file, report.fault.line) == ("events.jsonl", 5)
    assert "missing or moved" in report.fault.what


def test_swapping_two_event_lines_fails_naming_the_first(exported):
    path = exported / "events.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[6], lines[7] = lines[7], lines[6]
    path.write_text("".join(lines))
    report = verify(str(exported))
    assert (report.fault.file, report.fault.line) == ("events.jsonl", 7)


def test_swapping_two_csv_lines_fails_naming_the_file(exported):
    path = exported / "balances.csv"
    lines = path.read_text().splitlines(keepends=True)
    assert len(lines) >= 4
    lines[1], lines[2] = lines[2], lines[1]
    path.write_text("".join(lines))
    report = verify(str(exported))
    assert (report.fault.file, report.fault.line) == ("balances.csv", 0)  # its SHA-256 differs


def _legacy_hmac_export(day: date, out: Path, key: bytes, key_id: str = "configured") -> None:
    """An export as made before Ed25519: the day sealed with HMAC-SHA256 under the seal key
    (``key_id: "configured"``, or ``"development"``: the public key in the code), the
    manifest's lines MACed with it."""
    from ledger import seal as seals
    from ledger.commands import ledger_command

    with ledger_command(actor="auditor1", request={"op": "legacy_seal", "day": day.isoformat()}) as cmd:
        first, last, previous = seals.day_range(day)
        payload = seals.seal_payload(day=day, first=first, last=last, previous=previous)
        for field in ("key_kind", "public_key"):
            payload.pop(field)
        payload.update(algorithm="HMAC-SHA256", key_id=key_id)
        payload["signature"] = seals.sign(payload, key)
        stream = f"seal/{day.isoformat()}"
        cmd.append(
            stream=stream, expected_version=store.stream_version(stream), events=[NewEvent(seals.SEAL_EVENT, payload)]
        )
    export_to_dir(day, out)
    entries = json.loads((out / "manifest.json").read_text())
    body = verify_export.unflatten({name: entry[0] for name, entry in entries.items() if name != "~lines"})
    for field in ("signature_algorithm", "key_kind", "public_key"):
        body.pop(field)
    body["key_id"] = key_id
    (out / "manifest.json").write_text(verify_export.manifest_text(verify_export.manifest_document(body, key)))


def test_an_export_signed_with_the_old_hmac_seal_key_still_verifies(played_day, tmp_path):
    _legacy_hmac_export(played_day, tmp_path / "e", b"k" * 32)
    manifest = json.loads((tmp_path / "e" / "manifest.json").read_text())
    assert manifest["key_id"][0] == "configured" and manifest["seal/algorithm"][0] == "HMAC-SHA256"
    assert verify(str(tmp_path / "e"), b"k" * 32).ok
    assert verify(str(tmp_path / "e"), b"k" * 32, strict=True).ok  # the secret itself is the trust
    wrong = verify(str(tmp_path / "e"), b"not the key")
    assert not wrong.ok and wrong.fault.file == "manifest.json" and "MAC" in wrong.fault.what
    assert "give it with --key" in verify(str(tmp_path / "e"), None).message


def test_an_export_signed_with_the_public_hmac_development_key_is_foreign_where_the_site_has_its_own_key(
    played_day, tmp_path, settings
):
    """The HMAC development key is in the code: anyone signs a forged day with it. A site with an
    Ed25519 key of its own and no seal key set must not show such an export as verified."""
    key_file = tmp_path / "site.pem"
    key_file.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE, settings.LEDGER_SEAL_KEY = str(key_file), ""
    out = tmp_path / "forged"
    _legacy_hmac_export(played_day, out, verify_export.DEVELOPMENT_KEY.encode(), key_id="development")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(out.iterdir()):
            z.write(path, path.name)
    verdict = verify_upload(SimpleUploadedFile("forged.zip", archive.getvalue()))
    assert (verdict.state, verdict.message) == (
        "foreign",
        "signed by an unknown key — not this casino’s (an HMAC development key)",
    )
    with pytest.raises(CommandError, match="development"):
        call_command("verify_export", str(out))


def test_an_unsealed_day_exports_but_does_not_verify(tmp_path, cage):
    export_to_dir(current_gaming_day(), tmp_path / "u")
    report = verify(str(tmp_path / "u"))
    assert not report.ok and "not sealed" in report.message


def test_the_next_day_links_to_the_previous_seal(played_day, tmp_path):
    """Day D+1's range starts right after D's seal (D's seal event is in it) and verifies from D's last hash."""
    sealed = Event.objects.filter(type="GamingDaySealed").latest("position")
    tomorrow = datetime.now(UTC) + timedelta(days=1)
    _append_on(tomorrow, "test/next", 3)
    next_day = current_gaming_day(tomorrow)
    seal = seal_gaming_day(day=next_day, actor="auditor1")
    assert seal["first_position"] == sealed.data["last_position"] + 1
    assert seal["previous_seal"]["signature"] == sealed.data["signature"]
    manifest = export_to_dir(next_day, tmp_path / "d2")
    assert manifest["first_prev_hash"] == sealed.data["last_hash"]
    assert verify(str(tmp_path / "d2")).ok
    # the earlier day cannot be sealed again now that a later one is
    with pytest.raises(Conflict):
        seal_gaming_day(day=played_day, actor="auditor1")


def test_a_day_without_events_cannot_be_sealed_or_exported(tmp_path, db):
    with pytest.raises(NotFound):
        seal_gaming_day(day=date(2001, 1, 1), actor="a")
    with pytest.raises(NotFound):
        export_to_dir(date(2001, 1, 1), tmp_path / "none")


def test_the_standalone_hash_is_the_ledgers(played_day):
    """verify_export.py duplicates ledger.hashing: same canonical JSON, same event hash."""
    samples = [{"b": [1, "é", None, True], "a": {"z": -(10**15), "y": "\u2028"}}, [], "x", 0]
    for sample in samples:
        assert verify_export.canonical_json(sample) == hashing.canonical_json(sample)
    with pytest.raises(TypeError):
        verify_export.canonical_json({"x": 1.5})
    for event in Event.objects.prefetch_related("postings")[:50]:
        legs = [[p.account, p.amount_cents, p.currency] for p in event.postings.all()]
        record = {
            "position": event.position,
            "stream": event.stream,
            "version": event.version,
            "type": event.type,
            "schema_version": event.schema_version,
            "data": event.data,
            "occurred_at": hashing.iso_utc(event.occurred_at),
            "recorded_at": hashing.iso_utc(event.recorded_at),
            "gaming_day": event.gaming_day.isoformat(),
            "actor": event.actor,
            "correlation_id": event.correlation_id,
            "causation_id": event.causation_id,
            "idempotency_key": event.idempotency_key,
            "prev_hash": event.prev_hash,
            "postings": legs,
        }
        assert verify_export.event_hash(record) == event.hash


def test_erasing_an_identity_leaves_the_chain_and_the_exports_verifiable(played_day, tmp_path, settings):
    """Exports made before and after an erasure both verify; aml.csv then says ``erased``."""
    from django.contrib.auth import get_user_model

    from cashier.services.cage import chips_purchase
    from patrons.models import Patron
    from staff.roles import grant

    grant(get_user_model().objects.create_user(username="sup", password="x"), "cage_supervisor")
    patron = Patron.objects.exclude(document="").order_by("code").first()
    chips_purchase(patron=patron.code, amount_cents=300_000, actor="cashier1")  # identity checked + logged
    seal_gaming_day(day=played_day, actor="auditor1")
    export_to_dir(played_day, tmp_path / "before", include_identity=True)
    assert patron.name in (tmp_path / "before" / "aml.csv").read_text()
    with pytest.raises(CommandError, match="not erased"):  # stderr: "must be kept until 20..-..-.."
        call_command("erase_identity", patron.code, actor="sup")
    settings.AML_IDENTITY_RETENTION_YEARS = 0  # as if the retention period had run out
    call_command("erase_identity", "--due", actor="sup")
    assert not Patron.objects.exclude(name="", document="").exists()
    seal_gaming_day(day=played_day, actor="auditor1")  # the erasure events are in the day too
    export_to_dir(played_day, tmp_path / "after", include_identity=True)
    after = (tmp_path / "after" / "aml.csv").read_text()
    assert patron.name not in after and patron.document not in after and ",erased,," in after
    assert verify(str(tmp_path / "before")).ok and verify(str(tmp_path / "after")).ok
    assert verify_chain().ok


def test_the_whole_demo_day_exports_and_verifies(tmp_path):
    """The demo's gaming day (every game, the cage) — the issue's acceptance — exports and verifies."""
    call_command(
        "demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=2, classic_stud_coups=2, baccarat_coups=3, tq_coups=3
    )
    day = current_gaming_day()
    seal_gaming_day(day=day, actor="auditor1")
    manifest = export_to_dir(day, tmp_path / "demo", include_identity=True)
    report = verify(str(tmp_path / "demo"))
    assert report.ok, report.message
    types = {json.loads(line)["type"] for line in (tmp_path / "demo" / "events.jsonl").read_text().splitlines()}
    assert {"ChipsPurchased", "CashBuyIn", "BetPlaced", "TableOpened", "TableClosed"} <= types
    assert manifest["files"]["tables.csv"]["lines"] > 1


def test_a_byte_flipped_on_any_line_of_the_manifest_names_that_line(exported):
    path = exported / "manifest.json"
    original = path.read_bytes()
    lines = original.split(b"\n")
    assert len(lines) > 40  # one entry a line: the day, the range, each file's digest, both seals...
    for number in range(1, len(lines)):  # the last element is the empty string after the final newline
        data = bytearray(original)
        offset = sum(len(x) + 1 for x in lines[: number - 1]) + len(lines[number - 1]) // 2
        data[offset] ^= 0x04
        path.write_bytes(bytes(data))
        report = verify(str(exported))
        assert (report.fault.file, report.fault.line) == ("manifest.json", number), (number, report.message)
    path.write_bytes(original)
    assert verify(str(exported)).ok


def test_a_missing_file_is_named(exported):
    (exported / "cage.csv").unlink()
    report = verify(str(exported))
    assert (report.fault.file, report.fault.what) == ("cage.csv", "missing from the export")


def test_check_deploy_refuses_the_development_signing_key(settings, tmp_path):
    from ledger.checks import signing_key_configured

    settings.LEDGER_SIGNING_KEY_FILE = ""
    assert [error.id for error in signing_key_configured(None)] == ["ledger.E002"]
    settings.LEDGER_SIGNING_KEY_FILE = str(settings.LEDGER_DEVELOPMENT_KEY_FILE)
    assert [error.id for error in signing_key_configured(None)] == ["ledger.E002"]
    settings.LEDGER_SIGNING_KEY_FILE = str(tmp_path / "site.pem")
    assert signing_key_configured(None) == []


def test_tables_of_the_day_are_read_as_one_row_per_table_not_per_posting(played_day):
    """The export's peak memory: the DISTINCT reads of ``table_codes_active`` (tables.csv, four
    times a report) must not carry the models' default ordering, which made them return one
    row per posting of a busy table (970,000 rows held at once on a 1,000,000-event day)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cashier.services.gaming_day import table_codes_active

    with transaction.atomic():
        store.lock_writers()
        store.append(
            stream="bench/z9",
            expected_version=0,
            actor="tester",
            events=[
                NewEvent("TestMoved", {"n": i}, [Leg("table:Z9:tray", 100), Leg("test:b", -100)]) for i in range(30)
            ],
        )
    with CaptureQueriesContext(connection) as queries:
        codes = table_codes_active(played_day, played_day)
    assert "Z9" in codes and codes == sorted(set(codes))
    distinct = [q["sql"] for q in queries.captured_queries if "DISTINCT" in q["sql"]]
    assert len(distinct) == 2
    assert all("ORDER BY" not in sql for sql in distinct), distinct


def _rewrite_as_chained(exported: Path) -> None:
    """Rewrite an export as the writer did before CSVs were plain tables: each CSV line ends with its chain
    column; the manifest's file digests follow and it is signed again with the site's key."""
    v = verify_export
    manifest = v._check_manifest(v.Export(str(exported)), v.Trust(), [])
    for name in v.CSV_FILES:
        previous, lines = v.GENESIS_HASH, []
        for text in (exported / name).read_text().splitlines():
            previous = v.line_chain(previous, text)
            lines.append(f"{text},{previous}\n")
        body = "".join(lines).encode()
        (exported / name).write_bytes(body)
        manifest["files"][name] = {"sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "lines": len(lines)}
    document = v.manifest_document(manifest, signer=signing.signing_key().sign_bytes)
    (exported / "manifest.json").write_text(v.manifest_text(document))
    for detached in [*exported.glob("*.sig"), exported / "public-key.pem"]:  # older exports had none
        detached.unlink()


def test_an_export_written_with_line_chains_still_verifies_and_a_broken_chain_names_the_line(exported):
    """Archived older exports carry a chain column on every CSV line: the
    verifier recognises them by their header and checks each chain, naming the line."""
    _rewrite_as_chained(exported)
    report = verify(str(exported))
    assert report.ok, report.message
    path = exported / "tables.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace(",", ";", 1)  # a line altered, its chain left as it was
    path.write_text("".join(lines))
    report = verify(str(exported))
    assert (report.fault.file, report.fault.line) == ("tables.csv", 2)
    assert "line chain does not match" in report.fault.what

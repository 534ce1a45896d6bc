"""Every file of an export, the manifest included, has a detached ``F.sig`` (the raw Ed25519
signature of its exact bytes) and the export carries the site's ``public-key.pem``: an
inspector checks each file with ``openssl pkeyutl -verify -pubin -rawin`` and nothing of ours.
A byte changed in a file fails openssl and our verifier alike, naming the file.
"""

import io
import json
import random
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from demo.roulette import play_demo_session
from ledger import signing
from ledger.export.verify_export import public_key_from_pem, verify
from ledger.export.writer import export_to_dir, export_zip_stream
from ledger.gaming_day import current_gaming_day
from ledger.seal import seal_gaming_day

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed"),
]
DATA_FILES = ["events.jsonl", "postings.csv", "balances.csv", "tables.csv", "cage.csv", "aml.csv"]


@pytest.fixture
def sealed_day(settings, tmp_path):
    key_file = tmp_path / "site.pem"
    key_file.write_bytes(signing.new_private_key_pem())
    settings.LEDGER_SIGNING_KEY_FILE = str(key_file)
    play_demo_session(spins=2, seated=1, rng=random.Random(5), out=lambda *a, **k: None)
    day = current_gaming_day()
    seal_gaming_day(day=day, actor="auditor1")
    return day


def _openssl_verifies(folder: Path, name: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            "openssl",
            "pkeyutl",
            "-verify",
            "-pubin",
            "-inkey",
            str(folder / "public-key.pem"),
            "-rawin",
            "-in",
            str(folder / name),
            "-sigfile",
            str(folder / f"{name}.sig"),
        ],
        capture_output=True,
        text=True,
    )


def test_each_exported_file_verifies_with_openssl_and_the_site_public_key(sealed_day, tmp_path):
    out = tmp_path / "export"
    export_to_dir(sealed_day, out)
    site = signing.signing_key().public_key
    assert public_key_from_pem((out / "public-key.pem").read_text()) == site
    for name in [*DATA_FILES, "manifest.json", "public-key.pem"]:
        assert (out / f"{name}.sig").stat().st_size == 64
        done = _openssl_verifies(out, name)
        assert (done.returncode, done.stdout.strip()) == (0, "Signature Verified Successfully"), name
    report = verify(str(out), strict=True, trusted=(site,))
    assert report.ok and "detached" not in report.message


def test_a_byte_changed_in_a_file_fails_openssl_and_the_verifier_names_its_signature(sealed_day, tmp_path):
    out = tmp_path / "export"
    export_to_dir(sealed_day, out)
    data = bytearray((out / "tables.csv").read_bytes())
    data[-2] = ord("9") if data[-2] != ord("9") else ord("8")
    (out / "tables.csv").write_bytes(bytes(data))
    done = _openssl_verifies(out, "tables.csv")
    assert done.returncode == 1 and "Signature Verification Failure" in done.stdout
    assert _openssl_verifies(out, "events.jsonl").returncode == 0
    # The manifest's SHA-256 catches it first; with that check passed, the .sig names it too.
    report = verify(str(out), strict=True, trusted=(signing.signing_key().public_key,))
    assert not report.ok and report.fault.file == "tables.csv"


def test_a_signature_file_swapped_for_another_files_is_named(sealed_day, tmp_path):
    out = tmp_path / "export"
    export_to_dir(sealed_day, out)
    shutil.copy(out / "cage.csv.sig", out / "aml.csv.sig")
    report = verify(str(out))
    assert not report.ok
    assert (report.fault.file, report.fault.what) == (
        "aml.csv.sig",
        "not the Ed25519 signature of aml.csv's bytes (altered)",
    )


def test_a_public_key_file_not_the_manifests_is_refused(sealed_day, tmp_path):
    out = tmp_path / "export"
    export_to_dir(sealed_day, out)
    other = tmp_path / "other.pem"
    other.write_bytes(signing.new_private_key_pem())
    (out / "public-key.pem").write_text(signing.load_key(str(other)).public_pem())
    report = verify(str(out))
    assert not report.ok and (report.fault.file, report.fault.what) == (
        "public-key.pem",
        "not the manifest's public key",
    )


def test_the_zip_export_carries_the_same_detached_signatures(sealed_day, tmp_path):
    archive = zipfile.ZipFile(io.BytesIO(b"".join(export_zip_stream(sealed_day))))
    names = set(archive.namelist())
    expected = {*DATA_FILES, "manifest.json", "public-key.pem"}
    assert names == expected | {f"{name}.sig" for name in expected}
    folder = tmp_path / "unzipped"
    archive.extractall(folder)
    for name in expected:
        assert _openssl_verifies(folder, name).returncode == 0, name
    zipped = tmp_path / "day.zip"
    zipped.write_bytes(b"".join(export_zip_stream(sealed_day)))
    assert verify(str(zipped), strict=True, trusted=(signing.signing_key().public_key,)).ok


def test_a_sealed_days_zip_is_the_same_bytes_at_every_download_whatever_came_after(sealed_day):
    """An auditor publishes one hash of a sealed day's export: the manifest names the seal's
    head and time, the members carry the seal's time, and Ed25519 signs deterministically."""
    import hashlib
    import time

    from ledger.models import Event
    from staff.services import staff_account_create

    first = b"".join(export_zip_stream(sealed_day))
    time.sleep(2.1)  # a zip member's time has a two-second step
    staff_account_create(username="later1", password="x", roles=["auditor"], actor="manage.py")  # the head moves
    again = b"".join(export_zip_stream(sealed_day))

    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(again).hexdigest()
    seal = Event.objects.filter(type="GamingDaySealed").latest("position")
    assert Event.objects.latest("position").position > seal.position
    manifest = json.loads(zipfile.ZipFile(io.BytesIO(again)).read("manifest.json"))
    assert (manifest["chain_head/position"][0], manifest["chain_head/hash"][0]) == (seal.position, seal.hash)


def test_the_public_key_command_prints_the_pem_openssl_reads(sealed_day, tmp_path):
    out = io.StringIO()
    call_command("ledger", "public-key", "--pem", stdout=out)
    assert public_key_from_pem(out.getvalue()) == signing.signing_key().public_key
    pem = tmp_path / "site-public.pem"
    pem.write_text(out.getvalue())
    shown = subprocess.run(
        ["openssl", "pkey", "-pubin", "-in", str(pem), "-noout", "-text"], capture_output=True, text=True
    )
    assert shown.returncode == 0 and "ED25519 Public-Key" in shown.stdout

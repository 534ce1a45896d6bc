"""The daily seal and the export manifest are signed with the site's Ed25519 key, its
public key in the export; ``verify_export --strict`` (the command and the standalone script)
exits non-zero, naming the file, for a development key or a key it was not told to trust.
Before, a wrong key only warned and exited 0, and whoever held the development key re-signed a
doctored day that then passed.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from demo.roulette import play_demo_session
from ledger import signing
from ledger.export import verify_export
from ledger.export.verify_export import verify
from ledger.export.writer import export_to_dir
from ledger.gaming_day import current_gaming_day
from ledger.seal import seal_gaming_day

pytestmark = pytest.mark.django_db
SCRIPT = Path(verify_export.__file__)


def _key(tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.pem"
    path.write_bytes(signing.new_private_key_pem())
    return str(path)


@pytest.fixture
def site_key(settings, tmp_path) -> str:
    """The site's own key configured; returns its public key (hex)."""
    settings.LEDGER_SIGNING_KEY_FILE = _key(tmp_path, "site")
    return signing.signing_key().public_key


def _export(tmp_path: Path) -> Path:
    play_demo_session(spins=2, seated=1, rng=random.Random(3), out=lambda *a, **k: None)
    day = current_gaming_day()
    seal_gaming_day(day=day, actor="auditor1")
    out = tmp_path / "export"
    export_to_dir(day, out)
    return out


def _manifest(out: Path) -> dict:
    entries = json.loads((out / "manifest.json").read_text())
    return verify_export.unflatten({name: entry[0] for name, entry in entries.items() if name != "~lines"})


def _script(*args: str) -> subprocess.CompletedProcess:
    """The standalone verifier with the standard library only (no cryptography: the reference Ed25519)."""
    return subprocess.run([sys.executable, "-I", "-S", str(SCRIPT), *args], capture_output=True, text=True)


def test_the_export_carries_the_site_public_key_and_verifies_strictly_with_it(site_key, tmp_path):
    out = _export(tmp_path)
    manifest = _manifest(out)
    assert manifest["public_key"] == manifest["seal"]["public_key"] == site_key
    assert manifest["signature_algorithm"] == manifest["seal"]["algorithm"] == "Ed25519"
    assert manifest["key_kind"] == manifest["seal"]["key_kind"] == "configured"
    assert verify(str(out), strict=True, trusted=(site_key,)).ok
    done = _script(str(out), "--strict", "--trusted-key", site_key)
    assert (done.returncode, done.stdout.split(":")[0]) == (0, "OK")
    call_command("verify_export", str(out), "--strict")  # the site's own key is trusted at the site


def test_strict_refuses_a_key_it_was_not_told_to_trust(site_key, tmp_path, settings):
    out = _export(tmp_path)
    stranger = signing.load_key(_key(tmp_path, "stranger"), "configured").public_key
    report = verify(str(out), strict=True, trusted=(stranger,))
    assert not report.ok and report.fault.file == "manifest.json"
    assert "not a trusted key" in report.fault.what and "--strict" in report.fault.what
    lenient = verify(str(out), trusted=(stranger,))
    assert lenient.ok and "not a trusted key" in lenient.message  # without --strict: a warning
    done = _script(str(out), "--strict", "--trusted-key", stranger)
    assert done.returncode == 1 and done.stdout.startswith("FAIL manifest.json:")
    assert not verify(str(out), strict=True).ok  # no trusted key given at all
    # The site's command trusts its own key and LEDGER_TRUSTED_PUBLIC_KEYS, not another one.
    settings.LEDGER_SIGNING_KEY_FILE = _key(tmp_path, "rotated")
    with pytest.raises(CommandError, match="FAIL manifest.json:.*not a trusted key"):
        call_command("verify_export", str(out), "--strict")
    settings.LEDGER_TRUSTED_PUBLIC_KEYS = [site_key]
    call_command("verify_export", str(out), "--strict")


def test_strict_refuses_the_development_key(settings, tmp_path):
    settings.LEDGER_SIGNING_KEY_FILE = ""
    out = _export(tmp_path)
    development = signing.signing_key().public_key
    assert _manifest(out)["key_kind"] == "development"
    report = verify(str(out), strict=True, trusted=(development,))
    assert not report.ok and report.fault.file == "manifest.json" and "development key" in report.fault.what
    assert verify(str(out), trusted=(development,)).ok  # without --strict: a warning
    done = _script(str(out), "--strict", "--trusted-key", development)
    assert done.returncode == 1 and "FAIL manifest.json" in done.stdout and "development key" in done.stdout
    with pytest.raises(CommandError, match="FAIL manifest.json:.*development key"):
        call_command("verify_export", str(out), "--strict")


def test_a_day_re_signed_with_another_key_fails_strictly(site_key, tmp_path):
    """The forger's move of the report: doctor the files, re-sign the manifest with a key he holds."""
    out = _export(tmp_path)
    body = _manifest(out)
    forger = signing.load_key(_key(tmp_path, "forger"), "configured")
    body.update(public_key=forger.public_key, key_id=forger.key_id)
    document = verify_export.manifest_document(body, signer=forger.sign_bytes)
    (out / "manifest.json").write_text(verify_export.manifest_text(document))
    report = verify(str(out), strict=True, trusted=(site_key,))
    assert not report.ok and report.fault.file == "manifest.json" and "not a trusted key" in report.fault.what


def test_an_altered_seal_fails_its_ed25519_signature(site_key, tmp_path):
    out = _export(tmp_path)
    body = _manifest(out)
    body["seal"]["event_count"] += 1
    key = signing.signing_key()
    (out / "manifest.json").write_text(
        verify_export.manifest_text(verify_export.manifest_document(body, signer=key.sign_bytes))
    )
    report = verify(str(out), strict=True, trusted=(site_key,))
    assert (report.fault.file, report.fault.what) == ("manifest.json", "the seal's signature does not match")

"""deploy/backup dumps the database; deploy/restore-check restores it into a scratch
database and proves it: the chain verifies, the models replay, the latest seal matches."""

import os
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from cashier.services.cage import chips_purchase
from ledger import signing
from ledger.gaming_day import current_gaming_day
from ledger.seal import seal_gaming_day
from tests.conftest import ACTOR

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.postgres


def _url() -> str:
    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _run(script: str, *args: str, **env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("LEDGER_SEAL_KEY", "DATABASE_URL")}
    # The drill checks the seal with the key that signed it: this run's (tests/conftest.py).
    environment["LEDGER_SIGNING_KEY_FILE"] = str(signing.signing_key().path)
    environment["LEDGER_CHECKPOINT_DIR"] = str(settings.LEDGER_CHECKPOINT_DIR)
    environment.update(env)
    return subprocess.run(
        [str(ROOT / "deploy" / script), *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300
    )


def test_a_backup_restores_and_passes_the_drill_and_a_tampered_one_fails(committed_db, patron, tmp_path):
    for amount in (1_000, 2_500):
        chips_purchase(patron=patron, amount_cents=amount, actor=ACTOR)
    seal = seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    backup = _run("backup", str(tmp_path), CASINO_BACKUP_URL=_url())
    assert backup.returncode == 0, backup.stderr
    dump = Path(backup.stdout.strip())
    assert dump.is_file() and dump.suffix == ".dump"
    assert Path(f"{dump}.sha256").read_text().split()[1] == dump.name

    drill = _run("restore-check", str(dump))
    assert drill.returncode == 0, drill.stdout + drill.stderr
    assert "SHA-256 matches" in drill.stdout
    assert f"ledger chain intact: {seal['event']} events" in drill.stdout
    assert "replay-check: the models match the events" in drill.stdout
    assert f"position {seal['last_position']} has its hash {seal['last_hash'][:16]}" in drill.stdout
    assert drill.stdout.rstrip().endswith("[restore-check] PASS")
    with connection.cursor() as cursor:  # the scratch database is gone
        cursor.execute("SELECT count(*) FROM pg_database WHERE datname LIKE 'casino_restore_check_%%'")
        assert cursor.fetchone()[0] == 0

    # A ledger altered behind the triggers' back (a superuser with replication role): the drill
    # of its backup fails.
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        cursor.execute(
            "UPDATE ledger_posting SET amount_cents = amount_cents + 1"
            " WHERE id = (SELECT min(id) FROM ledger_posting"
            " WHERE event_id = (SELECT max(event_id) FROM ledger_posting))"
        )
        cursor.execute("RESET session_replication_role")
    tampered = Path(_run("backup", str(tmp_path / "b"), CASINO_BACKUP_URL=_url()).stdout.strip())
    drill = _run("restore-check", str(tampered))
    assert drill.returncode != 0
    assert "FAIL: ledger verify" in drill.stdout


def test_a_dump_that_does_not_match_its_checksum_is_refused(tmp_path):
    dump = tmp_path / "casino-20261201T000000Z.dump"
    dump.write_bytes(b"not a dump")
    (tmp_path / f"{dump.name}.sha256").write_text(f"{'0' * 64}  {dump.name}\n")
    drill = _run("restore-check", str(dump))
    assert drill.returncode == 1
    assert "does not match its SHA-256" in drill.stdout

"""deploy/backup dumps the database; deploy/restore-check restores it into a scratch
database and proves it: the chain verifies, the models replay, the latest seal matches;
deploy/restore brings a guarded database's dump back as the documented roles, guarded."""

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


@pytest.mark.database_roles  # deploy/restore runs the roles script
def test_a_guarded_database_backs_up_as_the_owner_role_and_restores_as_the_roles(committed_db, patron, tmp_path):
    """deploy/README.md's roles, end to end: a database guarded as deploy/migrate leaves it
    (deploy/postgres_roles.sql as the superuser, casino_owner owning every table) is dumped by
    deploy/backup as casino_owner, and deploy/restore brings it back as casino_owner with the
    guard on throughout and armed at the end; a dump the role may not take leaves no file."""
    import psycopg
    from psycopg import errors

    from .roles_database import connect_as, roles_database

    for amount in (1_000, 2_500):
        chips_purchase(patron=patron, amount_cents=amount, actor=ACTOR)
    settings_db = connection.settings_dict
    server = f"{settings_db['HOST'] or '127.0.0.1'}:{settings_db['PORT'] or 5432}"
    where = ["-h", server.split(":")[0], "-p", server.split(":")[1], "-U", settings_db["USER"]]
    with roles_database("guarded") as db:
        # The test database's rows into the guarded copy (a superuser's load, past the ledger's
        # insert triggers): the copy then holds a ledger, owned by casino_owner, armed.
        rows = subprocess.run(
            ["pg_dump", "--data-only", "--disable-triggers", *where, "-d", settings_db["NAME"]],
            capture_output=True, text=True, timeout=120, check=True,
        ).stdout  # fmt: skip
        loaded = subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *where, "-d", db["dbname"], "-f", "-"],
            input=rows, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert loaded.returncode == 0, loaded.stderr
        with connect_as(db, db["user"]) as superuser:
            assert superuser.execute("SELECT casino_guard.ledger_begun()").fetchone() == (True,)
            head = superuser.execute(
                "SELECT position, hash FROM ledger_event ORDER BY position DESC LIMIT 1"
            ).fetchone()
        assert head is not None

        # The auditor may not read every table: its dump fails and leaves nothing behind.
        refused = _run(
            "backup", str(tmp_path / "refused"), CASINO_BACKUP_URL=f"postgres://casino_auditor@{server}/{db['dbname']}"
        )
        assert refused.returncode != 0 and "no dump written" in refused.stderr
        assert list((tmp_path / "refused").iterdir()) == []

        backup = _run("backup", str(tmp_path), CASINO_BACKUP_URL=f"postgres://casino_owner@{server}/{db['dbname']}")
        assert backup.returncode == 0, backup.stderr
        dump = Path(backup.stdout.strip())

        restored = f"{db['dbname']}_restored"
        try:
            done = _run(
                "restore", str(dump),
                CASINO_DB_ADMIN_URL=f"postgres://{settings_db['USER']}@{server}/{restored}",
                DATABASE_URL=f"postgres://casino_owner@{server}/{restored}",
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            assert f"ledger chain intact: {head[0]} events" in done.stdout
            assert f"head {head[0]} {head[1]}" in done.stderr
            assert "guard armed" in done.stderr
            with connect_as({**db, "dbname": restored}, "casino_owner") as owner:
                assert owner.execute("SELECT current_user, count(*) FROM ledger_event").fetchone() == (
                    "casino_owner",
                    head[0],
                )
                assert owner.execute(
                    "SELECT tableowner FROM pg_tables WHERE tablename = 'ledger_event'"
                ).fetchone() == ("casino_owner",)
                with pytest.raises(errors.InsufficientPrivilege):  # the lock: armed
                    owner.execute("ALTER TABLE ledger_event DISABLE TRIGGER ledger_event_no_change")
                with pytest.raises(errors.InsufficientPrivilege):  # the window: closed
                    owner.execute("CREATE TABLE after_the_restore (id int)")
        finally:
            with psycopg.connect(
                host=db["host"], port=db["port"], user=db["user"], dbname="postgres", autocommit=True
            ) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')

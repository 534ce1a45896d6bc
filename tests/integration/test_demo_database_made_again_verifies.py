"""The demo's database deleted and made again, its checkpoints kept: ``ledger verify`` says intact.

Before checkpoints named their ledger, the first demo's checkpoints (positions beyond the new
ledger's head, other hashes) stayed in ``LEDGER_CHECKPOINT_DIR`` and the second demo's
``ledger verify`` said BROKEN: a cut tail. Now the second run checks its own checkpoints and
says the first run's are another ledger's, ignored.

As a person runs it: ``manage.py migrate``, a short ``manage.py demo`` (5 spins, one coup of each
other game), the database deleted, the same again, then ``manage.py ledger verify``, each a
process of its own, on a temporary database (a SQLite file, or a PostgreSQL database made and
dropped on the test server) with a temporary checkpoint directory and signing key.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from ledger import signing

pytestmark = pytest.mark.django_db
DEMO = ["demo", "--spins", "5", "--patrons", "3", "--blackjack-coups", "1", "--stud-coups", "1"]
DEMO += ["--classic-stud-coups", "1", "--baccarat-coups", "1", "--tq-coups", "1"]


def _manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


class _Database:
    """A database for the demo that can be deleted and made again: ``url``, ``drop()``."""

    def __init__(self, tmp_path: Path):
        if connection.vendor == "postgresql":
            given = connection.settings_dict
            self.admin = {"host": given["HOST"] or "127.0.0.1", "port": given["PORT"] or 5432, "user": given["USER"]}
            self.name = f"{given['NAME']}_demo_again"
            self.url = f"postgres://{self.admin['user']}@{self.admin['host']}:{self.admin['port']}/{self.name}"
            self._admin(f'CREATE DATABASE "{self.name}"')
        else:
            self.file = tmp_path / "demo.sqlite3"
            self.url = f"sqlite:///{self.file}"

    def _admin(self, sql: str) -> None:
        with psycopg.connect(**self.admin, dbname="postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            if sql:
                conn.execute(sql)

    def drop_and_make_again(self) -> None:
        if connection.vendor == "postgresql":
            self._admin(f'CREATE DATABASE "{self.name}"')
        else:
            self.file.unlink()

    def drop(self) -> None:
        if connection.vendor == "postgresql":
            self._admin("")


def test_a_new_demo_database_verifies_beside_the_old_ones_checkpoints(tmp_path):
    key = tmp_path / "site.pem"
    key.write_bytes(signing.new_private_key_pem())
    database = _Database(tmp_path)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DATABASE_URL": database.url,
        "LEDGER_CHECKPOINT_DIR": str(tmp_path / "checkpoints"),
        "LEDGER_SIGNING_KEY_FILE": str(key),
        "LEDGER_CHECKPOINT_EVENTS": "20",  # a checkpoint after each catch-up 20 events on
        "CELERY_BROKER_URL": "",  # tasks run in the process, as in the demo
        "CASINO_EXPORT_DIR": str(tmp_path / "exports"),
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    try:
        heads = []
        for run in ("first", "second"):
            if run == "second":
                database.drop_and_make_again()
            for args in (["migrate", "--noinput", "-v0"], DEMO):
                done = _manage(env, *args)
                assert done.returncode == 0, f"{run} {args[0]}: {done.stderr[-2000:]}"
            verified = _manage(env, "ledger", "verify", "--require-checkpoints")
            assert verified.returncode == 0, verified.stderr[-2000:]
            heads.append(verified.stdout)
    finally:
        database.drop()
    first, second = heads
    ledgers = [name.name for name in (tmp_path / "checkpoints").iterdir()]
    assert len(ledgers) == 2  # one folder a ledger
    first_id, second_id = (re.search(r"; ledger ([0-9a-f]{32})", text).group(1) for text in heads)
    assert sorted(ledgers) == sorted([first_id, second_id])
    assert second.startswith("ledger chain intact: ")
    assert "signed checkpoints match" in second
    count = len(list((tmp_path / "checkpoints" / first_id).glob("*/*.json")))
    assert count >= 2
    assert f"{count} checkpoints of other ledgers ignored ({count} of ledger {first_id})" in second

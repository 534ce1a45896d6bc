"""``manage.py check --deploy`` errors (ledger.E002) when production would sign the
ledger's checkpoints, seals and exports with the development key."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key_file", ["", "development"])
def test_check_deploy_errors_on_the_development_signing_key(tmp_path, key_file):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LEDGER_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DJANGO_DEBUG="false",
        DJANGO_HTTPS="true",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="casino.example.com",
        LEDGER_SIGNING_KEY_FILE=str(ROOT / "var" / "ledger-signing-key.dev.pem") if key_file else "",
        DATABASE_URL=f"sqlite:///{tmp_path / 'deploy.sqlite3'}",
        CELERY_BROKER_URL="",
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode != 0
    assert "ledger.E002" in done.stderr and "development key" in done.stderr

"""With the production environment (DEBUG off, HTTPS on, secrets from the
environment) ``manage.py check --deploy`` finds no security issue and no error; without a
secret key in the environment the settings refuse to load; the security headers are sent.

Each check runs ``manage.py`` in a child process, because settings are read once per process.
"""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _signing_key(tmp_path) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    path = tmp_path / "ledger-signing-key.pem"
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.write_bytes(pem)
    return path


def _production_env(tmp_path, **overrides) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LEDGER_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DJANGO_DEBUG="false",
        DJANGO_HTTPS="true",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="casino.example.com",
        LEDGER_SIGNING_KEY_FILE=str(_signing_key(tmp_path)),
        DATABASE_URL=f"sqlite:///{tmp_path / 'deploy.sqlite3'}",
        CELERY_BROKER_URL="",
    )
    env.update(overrides)
    return env


def _manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )


def test_check_deploy_is_clean_with_the_production_environment(tmp_path):
    env = _production_env(tmp_path)
    security = _manage(env, "check", "--deploy", "--tag", "security", "--fail-level", "WARNING")
    assert security.returncode == 0, security.stdout + security.stderr
    assert "System check identified no issues" in security.stdout
    whole = _manage(env, "check", "--deploy")  # every app's checks: no error (ledger seal key, axes, ...)
    assert whole.returncode == 0, whole.stdout + whole.stderr
    assert "ERRORS" not in whole.stderr + whole.stdout
    assert "axes." not in whole.stderr + whole.stdout


@pytest.mark.parametrize("key", ["", "insecure-dev-key-change-me-in-production"])
def test_https_settings_refuse_a_secret_key_not_from_the_environment(tmp_path, key):
    result = _manage(_production_env(tmp_path, DJANGO_SECRET_KEY=key), "check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set in the environment" in result.stderr


def test_the_security_headers_are_sent_over_https(tmp_path):
    script = (
        "import django; django.setup()\n"
        "from django.test import Client\n"
        "r = Client().get('/api/health/', secure=True, HTTP_HOST='casino.example.com')\n"
        "print(r.status_code, r['Strict-Transport-Security'], r['X-Content-Type-Options'], r['X-Frame-Options'],"
        " r['Referrer-Policy'])\n"
        "r = Client().get('/api/health/', HTTP_HOST='casino.example.com')\n"
        "print(r.status_code, r['Location'])\n"
    )
    env = _production_env(tmp_path)
    assert _manage(env, "migrate", "-v0").returncode == 0
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, result.stderr
    secure, plain = result.stdout.splitlines()
    assert secure == "200 max-age=31536000; includeSubDomains; preload nosniff DENY same-origin"
    assert plain == "301 https://casino.example.com/api/health/"

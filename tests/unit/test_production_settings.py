"""The production settings (DJANGO_HTTPS on) pass ``manage.py check --deploy
--fail-level WARNING`` with every app's checks (there were two ``drf_spectacular.W001``
warnings), refuse a short or repetitive secret key at start (a 5-character key passed with a
warning), and take no HTTP Basic (a password hash, about 0.47 s of CPU, on every request):
sessions and device tokens only. The demo keeps HTTP Basic.

Each check runs in a child process, because settings are read once per process.
"""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.signing import new_private_key_pem

ROOT = Path(__file__).resolve().parents[2]


def _signing_key(tmp_path) -> Path:
    path = tmp_path / "ledger-signing-key.pem"
    path.write_bytes(new_private_key_pem())
    path.chmod(0o600)
    return path


def _env(tmp_path, *, https: bool, **overrides) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LEDGER_", "DATABASE_URL"))}
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DJANGO_DEBUG="false",
        DJANGO_HTTPS="true" if https else "false",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="casino.example.com",
        LEDGER_SEAL_KEY=secrets.token_urlsafe(50),
        LEDGER_SIGNING_KEY_FILE=str(_signing_key(tmp_path)),  # the site's Ed25519 key (ledger.E002 otherwise)
        DATABASE_URL=f"sqlite:///{tmp_path / 'production.sqlite3'}",
        CELERY_BROKER_URL="",
    )
    env.update(overrides)
    return env


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)


def test_check_deploy_finds_not_even_a_warning_in_production(tmp_path):
    result = _run(_env(tmp_path, https=True), "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "System check identified no issues (0 silenced)."
    assert "W001" not in result.stderr


@pytest.mark.parametrize(
    "key",
    [
        "abcde",  # five characters
        secrets.token_urlsafe(36),  # 48 random characters: under Django's 50
        "ab" * 30,  # long, but two characters repeated
        "django-insecure-" + secrets.token_urlsafe(40),  # Django's generated development key
    ],
    ids=["five-characters", "48-characters", "two-distinct-characters", "django-insecure"],
)
def test_production_refuses_to_start_with_a_weak_secret_key(tmp_path, key):
    result = _run(_env(tmp_path, https=True, DJANGO_SECRET_KEY=key), "manage.py", "check")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is too weak: 50 or more random characters" in result.stderr


AUTH_PROBE = """
import base64, django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.settings import api_settings
from staff.services import staff_account_create
staff_account_create(username="pit", password="pit-password", roles=["pit_boss"], actor="probe")
user = get_user_model().objects.get(username="pit")
basic = "Basic " + base64.b64encode(b"pit:pit-password").decode()
print(",".join(cls.__name__ for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES))
r = Client().get("/api/tables/", secure=True, HTTP_HOST="casino.example.com", HTTP_AUTHORIZATION=basic)
print(r.status_code, r.get("WWW-Authenticate"))
client = Client()
client.force_login(user)
print(client.get("/api/tables/", secure=True, HTTP_HOST="casino.example.com").status_code)
"""


def test_production_takes_sessions_and_device_tokens_but_no_http_basic(tmp_path):
    """The pit boss's right password over HTTP Basic is 401 (the challenge names the device
    scheme); his session is 200."""
    result = _run(_env(tmp_path, https=True), "-c", AUTH_PROBE)
    assert result.returncode == 0, result.stderr
    classes, basic, session = result.stdout.splitlines()
    assert classes == "DeviceTokenAuthentication,SessionAuthentication"
    assert basic == "401 Device"
    assert session == "200"


def test_the_demo_keeps_http_basic(tmp_path):
    result = _run(_env(tmp_path, https=False), "-c", AUTH_PROBE)
    assert result.returncode == 0, result.stderr
    classes, basic, session = result.stdout.splitlines()
    assert classes == "BasicAuthentication,DeviceTokenAuthentication,SessionAuthentication"
    assert basic == "200 None"
    assert session == "200"

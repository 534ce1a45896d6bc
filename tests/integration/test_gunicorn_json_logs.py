"""gunicorn as deployed (deploy/gunicorn.conf.py) with ``LOG_FORMAT=json``: every line it and the
application write is one JSON object, and gunicorn's access line carries the request id the
application gave the response (``X-Request-ID``), so one grep of a collector finds both."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _start(tmp_path: Path) -> tuple[subprocess.Popen, Path, Path]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GUNICORN_", "PROMETHEUS_", "DATABASE_")) and key != "CELERY_BROKER_URL"
    }
    env.update(
        DJANGO_SETTINGS_MODULE="casino.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'seeing-gunicorn.sqlite3'}",
        CELERY_BROKER_URL="",
        LOG_FORMAT="json",
        LOG_LEVEL="INFO",
        GUNICORN_BIND="127.0.0.1:0",  # a free port, chosen by the kernel; gunicorn logs which
        GUNICORN_WORKERS="1",
    )
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "casino.wsgi:application"],
            cwd=ROOT,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    return process, out, err


def _listening_port(process: subprocess.Popen, err: Path) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", err.read_text())
        if found:
            return int(found.group(1))
        assert process.poll() is None, err.read_text()
        time.sleep(0.1)
    raise AssertionError(f"gunicorn did not listen within 60 s:\n{err.read_text()}")


def _get(url: str, **headers) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.headers["X-Request-ID"]
    except urllib.error.HTTPError as error:
        return error.code, error.headers["X-Request-ID"]


def _lines(path: Path) -> list[dict]:
    """Every line of ``path`` as JSON (fails on the first line that is not a JSON object)."""
    parsed = []
    for line in path.read_text().splitlines():
        value = json.loads(line)
        assert isinstance(value, dict), line
        parsed.append(value)
    return parsed


def test_gunicorn_and_the_application_write_json_lines_and_the_access_line_names_the_request_id(tmp_path):
    process, out, err = _start(tmp_path)
    try:
        port = _listening_port(process, err)
        live_status, live_id = _get(f"http://127.0.0.1:{port}/api/health/live")
        missing_status, missing_id = _get(f"http://127.0.0.1:{port}/no-such-page", **{"X-Request-ID": "ops-check-42"})
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)

    assert (live_status, missing_status, missing_id) == (200, 404, "ops-check-42")
    assert re.fullmatch(r"[0-9a-f]{32}", live_id)  # made by the application: the client sent none
    access, rest = _lines(out), _lines(err)
    assert all(line.keys() >= {"time", "level", "logger", "message"} for line in access + rest)
    fields = ("logger", "request_id", "method", "path", "status")
    assert [tuple(line.get(key) for key in fields) for line in access] == [
        ("gunicorn.access", live_id, "GET", "/api/health/live", 200),
        ("gunicorn.access", "ops-check-42", "GET", "/no-such-page", 404),
    ]
    assert all(isinstance(line["duration_ms"], float) for line in access)
    # gunicorn's own lines, from start to stop, and the application's lines of each request
    gunicorn = [line["message"] for line in rest if line["logger"] == "gunicorn.error"]
    assert gunicorn[0].startswith("Starting gunicorn") and gunicorn[-1] == "Shutting down: Master"
    by_request = {(line["logger"], line.get("request_id")) for line in rest}
    assert {("casino.request", live_id), ("casino.request", "ops-check-42"), ("django.request", "ops-check-42")} <= (
        by_request
    )

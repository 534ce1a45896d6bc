"""The worker's broker settings for an outage (deploy/README.md, "A worker outlives a broker
outage"): it retries the broker without a limit, and on Redis it keeps its connections checked
(keepalive, a PING after 10 s idle). Read in a process of their own: the settings take the
broker's URL at import."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SHOW = (
    "import json, django; django.setup()\n"
    "from casino.celery import app\n"
    "c = app.conf\n"
    "print(json.dumps([c.broker_connection_max_retries, c.broker_connection_retry_on_startup,"
    " c.broker_transport_options]))\n"
)


def _worker_settings(broker: str) -> list:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings", "CELERY_BROKER_URL": broker}
    done = subprocess.run([sys.executable, "-c", SHOW], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_worker_on_redis_retries_forever_and_checks_its_connections():
    assert _worker_settings("redis://127.0.0.1:6390/0") == [
        None,
        True,
        {"socket_keepalive": True, "health_check_interval": 10},
    ]


def test_a_worker_on_rabbitmq_retries_forever_with_no_redis_options():
    assert _worker_settings("amqp://guest:guest@127.0.0.1:5672//") == [None, True, {}]

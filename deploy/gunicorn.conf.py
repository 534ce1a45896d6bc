"""gunicorn configuration for the API and the admin (deploy/README.md).

    gunicorn --config deploy/gunicorn.conf.py casino.wsgi:application

The same command runs under systemd (deploy/systemd/casino-web.service), in compose
(deploy/compose.yaml, service ``web``) and in ``deploy/smoke``. Everything that differs between
machines comes from the environment (deploy/casino.env.example, section "gunicorn"):

GUNICORN_BIND                 address(es) to listen on, comma-separated  [127.0.0.1:8000]
GUNICORN_WORKERS              worker processes                           [2 x cores + 1: 5 on 2 cores]
GUNICORN_TIMEOUT              seconds a request may take before its worker is killed  [30]
GUNICORN_GRACEFUL_TIMEOUT     seconds to finish requests on stop/reload  [30]
GUNICORN_KEEPALIVE            seconds to keep an idle connection         [5]
GUNICORN_MAX_REQUESTS         recycle a worker after this many requests  [1000, 0 = never]
GUNICORN_FORWARDED_ALLOW_IPS  proxies trusted for X-Forwarded-*          [127.0.0.1,::1]
GUNICORN_WORKER_TMP_DIR       heartbeat files (use /dev/shm in containers)  [system temp dir]
GUNICORN_CONTROL_SOCKET       path of gunicorn's control socket (gunicornc); unset = no socket
GUNICORN_LOG_LEVEL            error log level                            [info]
LOG_FORMAT                    json or text: gunicorn's lines as the application's  [text]

The repository's ``.env``, when there is one, is read first, as the settings read it: a
variable set there and not in the environment counts here too.

Sync workers: a request is a short database transaction (a coup's settlement is one append of
~10-100 events, a few milliseconds), and ledger writes are serialised by the writer lock anyway,
so more concurrency per node buys nothing for writes; reads scale with workers and nodes.
"""

import os
from pathlib import Path

import environ


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


# Run from the repository root whatever the caller's directory (systemd sets it too).
chdir = str(Path(__file__).resolve().parent.parent)
# The settings read it in each worker; read here too, so gunicorn's own lines take the same
# LOG_FORMAT as the application's. Never overrides the environment.
environ.Env.read_env(Path(chdir) / ".env")
proc_name = "casino-web"

bind = [address.strip() for address in os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",") if address.strip()]
workers = _int("GUNICORN_WORKERS", 2 * (os.cpu_count() or 1) + 1)
worker_class = "sync"
timeout = _int("GUNICORN_TIMEOUT", 30)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# Recycle workers now and then (bounded memory), staggered so they do not all restart at once.
max_requests = _int("GUNICORN_MAX_REQUESTS", 1000)
max_requests_jitter = max_requests // 10
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
worker_tmp_dir = os.environ.get("GUNICORN_WORKER_TMP_DIR") or None
# Each worker imports Django itself: no database connection or broker channel is ever shared
# across a fork, and a HUP reload picks up new code.
preload_app = False

# gunicorn >= 25 opens a control socket under $HOME by default; two instances on one machine
# would fight over it and systemd's ProtectHome forbids it. Only where asked for.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket
if not control_socket:
    del control_socket

# Logs: access lines to stdout, the rest to stderr (journald or docker collect both), in the
# application's format (core/logs.py, LOG_FORMAT): with json, one JSON object a line, and each
# access line carries the request's X-Request-ID as ``request_id``, as the application's lines
# of that request do, plus method, path, status and duration_ms (core.logs.GunicornAccessFilter).
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The access line's message. %(M)s: request time in milliseconds; %({x-forwarded-for}i): the
# client behind the balancer.
access_log_format = '%(h)s "%({x-forwarded-for}i)s" %(u)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'
log_format = os.environ.get("LOG_FORMAT", "text").strip() or "text"
if log_format not in ("json", "text"):
    raise RuntimeError(f"LOG_FORMAT must be json or text, not {log_format!r}")
# Replaces gunicorn's handlers of both loggers (logconfig_dict takes precedence over its own
# formats); the root logger catches anything else the master logs before Django configures
# logging in a worker.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"access": {"()": "core.logs.GunicornAccessFilter"}},
    "formatters": {"line": {"()": f"core.logs.{log_format.capitalize()}Formatter"}},
    "handlers": {
        "access": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": "line",
            "filters": ["access"],
        },
        "error": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "line"},
    },
    "loggers": {
        "gunicorn.error": {"level": loglevel.upper(), "handlers": ["error"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["access"], "propagate": False},
    },
    "root": {"level": "WARNING", "handlers": ["error"]},
}


def post_worker_init(worker):
    """Freeze what the worker has loaded (Django, the apps, the URLconf and its views) out of
    the garbage collector's reach. Without it every full collection walks those ~120,000
    objects, 50 ms of CPU on the benchmark machine, and a worker that collects inside a bet's
    transaction holds the round's and the ledger's locks meanwhile: every other worker waits,
    and the API's p99 went from 20 ms to 140 ms. ``gc.freeze`` is CPython's own
    answer for pre-forked servers; nothing frozen is ever freed, which is what a loaded module is.
    """
    import gc

    from django.urls import get_resolver

    get_resolver().check()  # imports the URLconf and its views now, not at the first request
    gc.collect()
    gc.freeze()


def child_exit(server, worker):
    """Metrics: with PROMETHEUS_MULTIPROC_DIR set, a worker that exits (recycled
    after max_requests, or killed) leaves its counts in the directory; its live gauges go."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)

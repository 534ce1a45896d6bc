"""Settings, all from the environment (DESIGN.md §Configuration).

Defaults give the embedded demo: a SQLite file under ``var/`` and eager Celery.
"""

from datetime import timedelta
from pathlib import Path

import environ

from demo.day_start import served_day_start

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env")  # optional; missing file is fine

DEBUG = env.bool("DJANGO_DEBUG", default=False)
# The production settings: served over TLS (see "HTTPS deployment" below). Off for the demo.
HTTPS = env.bool("DJANGO_HTTPS", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="insecure-dev-key-change-me-in-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    # Bottom to top (docs/architecture.md): an app imports only those above it in this list.
    # The ledger and staff come before django.contrib.auth so that staff's own createsuperuser
    # and changepassword replace Django's (an app earlier in the list wins a command's name):
    # they record the account's identity event (staff.services), which Django's would not.
    "ledger",
    "staff",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served locally: no CDN needed
    "patrons",
    "games",
    "cashier",
    "approvals",  # maker-checker: second signatures as the approver's own act
    "compliance",  # suspicion cases: the compliance officer's follow-up of AML flags
    "audit",
    "django_htmx",  # {% htmx_script %}: the htmx the package ships, served as a static file
    "dashboard",  # the pit boss dashboard
    "workstations",  # the cage and audit workstations
    "demo",  # the demo day and its commands: never imported by the product
    "axes",  # login lockout after repeated failures
]

MIDDLEWARE = [
    "core.middleware.RequestContextMiddleware",  # first: request id and log context
    "core.middleware.DatabaseUnavailableMiddleware",  # a view meeting no database: 503, not 500
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files, right after SecurityMiddleware
    "core.middleware.RejectNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "ledger.middleware.DisownedEventsMiddleware",  # reads leave out events the application did not write
    "ledger.middleware.ReadYourWritesMiddleware",  # a replica serves a client once it has his writes
    "staff.middleware.PasswordChangeRequiredMiddleware",  # someone else changed it: a new password first
    "django.contrib.messages.middleware.MessageMiddleware",
    "core.form_addresses.FormAddressMiddleware",  # a refused form's address reloaded: its page, not a 405
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes requires: answers a locked-out login
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "ledger.context_processors.ledger_alarm",  # events written around the application
            ]
        },
    }
]

# The one schema the application's tables live in (PostgreSQL); deploy/postgres_roles.sql, the
# migrations' trigger functions and `ledger verify` name it too.
DATABASE_SCHEMA = "public"
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'casino.sqlite3'}"),
}


# --- Database timeouts (ledger/postgresql/base.py, deploy/README.md "When the database is out of reach") ---
# Seconds to open a connection (libpq's connect_timeout: the TCP connection and the handshake).
DATABASE_CONNECT_TIMEOUT_SECONDS = env.int("DATABASE_CONNECT_TIMEOUT_SECONDS", default=5)
# Seconds one statement may run on the server before PostgreSQL cancels it (statement_timeout;
# 0: no limit). Under gunicorn's 30 s request timeout (deploy/gunicorn.conf.py), so a request
# that meets a slow or frozen database answers 503 itself before its worker is killed.
DATABASE_STATEMENT_TIMEOUT_SECONDS = env.int("DATABASE_STATEMENT_TIMEOUT_SECONDS", default=20)
# The work that legitimately runs longer gets this budget instead (ledger.timeouts.long_statements):
# rebuilds, exports, seals, `ledger verify` and replay checks, migrations, the demo. 0: no limit.
DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS = env.int("DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS", default=3600)
# The client gives up waiting for any answer this long after the server should have cancelled the
# statement itself: the server is frozen (SIGSTOP, a hung host), not slow.
DATABASE_ANSWER_GRACE_SECONDS = 5


def _answer_timeout(statement_seconds: int) -> int | None:
    """Seconds a connection waits for one answer of the server (None: for ever)."""
    return statement_seconds + DATABASE_ANSWER_GRACE_SECONDS if statement_seconds > 0 else None


def _postgres_options(database: dict) -> None:
    # Each wait for the server bounded (ledger/postgresql/base.py): a database that is down or
    # frozen costs a request seconds, not a worker.
    database["ENGINE"] = "ledger.postgresql"
    database.setdefault("OPTIONS", {}).setdefault("connect_timeout", DATABASE_CONNECT_TIMEOUT_SECONDS)
    database["OPTIONS"].setdefault("answer_timeout", _answer_timeout(DATABASE_STATEMENT_TIMEOUT_SECONDS))
    # Keep each worker's connection between requests: opening one (a server process, its
    # authentication, Django's set-up queries) cost more CPU than the bet it served.
    # The health check replaces a connection the server dropped before it is used.
    database["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
    database["CONN_HEALTH_CHECKS"] = True
    # Django turns psycopg's prepared statements off (threshold None) even where asked for;
    # its own cursors bind client-side and never prepare, so this only lets core.rawsql's
    # few hot reads be parsed and planned once per connection.
    database.setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
    # Every table lives in the schema "public", and every connection looks only there: with
    # PostgreSQL's default search path ("$user", public) a schema named after the connecting role
    # (one the owner role made, say casino_app) would answer for the ledger with copies that have
    # no triggers. libpq's `options` sets it at connection start; deploy/postgres_roles.sql pins
    # it on the roles too (ALTER ROLE … SET search_path), and `ledger verify` checks it.
    options = database["OPTIONS"]
    options["options"] = f"{options.get('options', '')} -c search_path={DATABASE_SCHEMA}".strip()
    options["options"] += f" -c statement_timeout={DATABASE_STATEMENT_TIMEOUT_SECONDS * 1000}"


if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _postgres_options(DATABASES["default"])
# A streaming replica (hot standby) of the primary, read only inside `reads_from_replica()`
# blocks: the dashboard's and the auditor's pages, the audit API's lists, the reports and the
# exports (ledger/replica.py, deploy/README.md "Read replicas"). Unset: every read on the primary.
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = env.db("DATABASE_REPLICA_URL")
    if DATABASES["replica"]["ENGINE"] == "django.db.backends.postgresql":
        _postgres_options(DATABASES["replica"])
        # A replica out of reach costs a page this long before it falls back to the primary.
        DATABASES["replica"]["OPTIONS"]["connect_timeout"] = env.int(
            "DATABASE_REPLICA_CONNECT_TIMEOUT_SECONDS", default=2
        )
    DATABASES["replica"]["TEST"] = {"MIRROR": "default"}  # the tests read the primary under its name
DATABASE_ROUTERS = ["ledger.replica.ReplicaRouter"]
# Beyond this lag (seconds) a block of replica reads goes to the primary instead.
DATABASE_REPLICA_MAX_LAG_SECONDS = env.float("DATABASE_REPLICA_MAX_LAG_SECONDS", default=5.0)
# How long a process reuses its measurement of the replica's lag (two small queries).
DATABASE_REPLICA_LAG_CHECK_SECONDS = env.float("DATABASE_REPLICA_LAG_CHECK_SECONDS", default=1.0)
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # IMMEDIATE takes SQLite's write lock at BEGIN, so two writers queue instead of failing
    # with "database is locked" halfway through a coup.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"transaction_mode": "IMMEDIATE", "timeout": 30})
    if DATABASES["default"]["NAME"] != ":memory:":
        Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en"
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"  # storage and API are UTC; the casino's zone only shapes the gaming day

# The casino's local zone and the hour its gaming day starts (DESIGN.md §The ledger).
CASINO_TIMEZONE = env.str("CASINO_TIMEZONE", default="Europe/Paris")
# On the demo's database the day start the served floor plays with (demo/day_start.py, written
# by scripts/demo.sh), so that a command typed by hand lands on the floor's day; else 06:00.
GAMING_DAY_START = env.str(
    "GAMING_DAY_START", default=served_day_start(VAR_DIR, DATABASES["default"]["NAME"]) or "06:00"
)
CASINO_CURRENCY = env.str("CASINO_CURRENCY", default="EUR")
CASINO_NAME = env.str("CASINO_NAME", default="Casino")
# The foreign currencies the cage buys at its windows (cashier.services.foreign_exchange): ISO
# 4217 codes with two decimals (amounts in hundredths, as the house's cents), never the house's own.
CASINO_FOREIGN_CURRENCIES = env.list("CASINO_FOREIGN_CURRENCIES", default=["USD", "GBP", "CHF"])
for _code in CASINO_FOREIGN_CURRENCIES:
    if not (len(_code) == 3 and _code.isascii() and _code.isalpha() and _code.isupper()) or _code == CASINO_CURRENCY:
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"CASINO_FOREIGN_CURRENCIES lists ISO 4217 codes in capitals other than {CASINO_CURRENCY}, not {_code!r}"
        )
# the house named on printed reports
# Cage and table accounting, in cents: the chips a tray is counted in (value chips
# and the change tokens the ledger's exact cents need), the cash of a drop box, and the variance
# from which the variance list flags an investigation.
CASINO_CHIP_DENOMINATIONS = env.list(
    "CASINO_CHIP_DENOMINATIONS",
    cast=int,
    default=[1, 2, 5, 10, 20, 50, 100, 250, 500, 1_000, 2_500, 10_000, 50_000, 100_000, 500_000, 1_000_000],
)
CASINO_CASH_DENOMINATIONS = env.list(
    "CASINO_CASH_DENOMINATIONS",
    cast=int,
    default=[1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000],
)
CASINO_VARIANCE_THRESHOLD_CENTS = env.int("CASINO_VARIANCE_THRESHOLD_CENTS", default=10_000)
# Game protection (games.protection): a table's or a patron's day whose win is more than this
# many standard deviations from its theoretical win (two-sided, the bets' exact variance) is an
# alarm and opens an investigation; days of fewer decided bets than the minimum are not judged.
CASINO_FLUCTUATION_Z = env.str("CASINO_FLUCTUATION_Z", default="3.0")
CASINO_FLUCTUATION_MIN_BETS = env.int("CASINO_FLUCTUATION_MIN_BETS", default=100)
CASINO_FLUCTUATION_INTERVAL_SECONDS = env.int("CASINO_FLUCTUATION_INTERVAL_SECONDS", default=300)
# Inputs checked against the domain. Per-operation ceilings, cents (core/ceilings.py):
# CASINO_CEILING_FILL_CENTS, ..._CREDIT_, ..._BUY_IN_, ..._CHIPS_PURCHASE_, ..._CHIPS_REDEEM_,
# ..._OPENER_, ..._CLOSER_, ..._DROP_COUNT_CENTS; a movement above its ceiling is 400. The
# defaults (cents: 10,000,000.00 for a movement, 100,000,000.00 for a table's opener or closer
# and a drop box's count) are written here only.
CASINO_CEILING_CENTS = {
    operation: env.int(f"CASINO_CEILING_{operation.upper()}_CENTS", default=default)
    for operation, default in {
        "fill": 1_000_000_000,
        "credit": 1_000_000_000,
        "buy_in": 1_000_000_000,
        "chips_purchase": 1_000_000_000,
        "chips_redeem": 1_000_000_000,
        "opener": 10_000_000_000,
        "closer": 10_000_000_000,
        "drop_count": 10_000_000_000,
    }.items()
}
# How many gaming days back a drop box removal, a drop count or its reversal, and a gaming-day
# close may name: the open (current) gaming day, or the previous one, whose boxes are removed
# and counted and which is closed once the next day has begun (cashier/services/count_room.py).
CASINO_GAMING_DAY_LOOKBACK_DAYS = env.int("CASINO_GAMING_DAY_LOOKBACK_DAYS", default=1)
# The tronc's points scheme: the points a share-out gives by role, the highest of
# the roles a person holds; a share-out may give a person other points. E.g.
# CASINO_TRONC_POINTS_BY_ROLE="dealer=10;pit_boss=12;cashier=8". The defaults are written here only.
CASINO_TRONC_POINTS_BY_ROLE = env.dict(
    "CASINO_TRONC_POINTS_BY_ROLE",
    cast={"value": int},
    default={
        "pit_boss": 12,
        "cage_supervisor": 12,
        "dealer": 10,
        "cashier": 8,
        "count_team": 8,
        "drop_team": 6,
        "runner": 6,
    },
)
LEDGER_SEAL_KEY = env.str("LEDGER_SEAL_KEY", default="")  # HMAC: verifies seals and exports made before Ed25519
# The anchored chain (ledger/signing.py, ledger/checkpoints.py). The Ed25519 private
# key (PEM) that signs checkpoints, seals and export manifests: a file off the database host's
# reach, readable by the application only. Empty: a development key generated under var/
# (`check --deploy` errors). Trusted public keys (hex, comma-separated): earlier keys after a
# rotation; the site's own key is always trusted.
LEDGER_SIGNING_KEY_FILE = env.str("LEDGER_SIGNING_KEY_FILE", default="")
LEDGER_DEVELOPMENT_KEY_FILE = VAR_DIR / "ledger-signing-key.dev.pem"
LEDGER_TRUSTED_PUBLIC_KEYS = env.list("LEDGER_TRUSTED_PUBLIC_KEYS", default=[])
# Signed checkpoints of the chain's head, one file each, in a directory outside the database
# that the application can only add to. Written every LEDGER_CHECKPOINT_INTERVAL_SECONDS (beat)
# when the head moved, and once LEDGER_CHECKPOINT_EVENTS events came after the last one.
LEDGER_CHECKPOINT_DIR = env.str("LEDGER_CHECKPOINT_DIR", default=str(VAR_DIR / "checkpoints"))
LEDGER_CHECKPOINT_INTERVAL_SECONDS = env.int("LEDGER_CHECKPOINT_INTERVAL_SECONDS", default=60)
LEDGER_CHECKPOINT_EVENTS = env.int("LEDGER_CHECKPOINT_EVENTS", default=1000)
# The whole chain walked every LEDGER_VERIFY_INTERVAL_SECONDS (beat), its result recorded: a row
# changed under the triggers by a superuser is then named on every page's banner and by the
# readiness probe (about 3 s per 100,000 events, read only).
LEDGER_VERIFY_INTERVAL_SECONDS = env.int("LEDGER_VERIFY_INTERVAL_SECONDS", default=3600)
# Every event from this position on carries the application's seal (ledger/event_seals.py,
# keyed by SECRET_KEY): a ledger written before seals existed sets it past its older events.
LEDGER_EVENTS_SEALED_FROM = env.int("LEDGER_EVENTS_SEALED_FROM", default=1)
# Login refused to an account no identity event created (a row inserted with raw SQL). An
# upgraded database records its older accounts first: manage.py staff_baseline (deploy/README.md).
STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT = env.bool("STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT", default=True)
# A table the floor does not have yet is set up (its first opening asked) by an administrator
# only (staff.roles.TABLE_CREATORS); a pit boss opens the tables already there.
TABLE_SET_UP_NEEDS_ADMINISTRATOR = True
# The role that must own the ledger tables (`ledger verify`, PostgreSQL); empty: the database's owner
# (deploy/postgres_roles.sql hands both to casino_owner).
LEDGER_TABLE_OWNER = env.str("LEDGER_TABLE_OWNER", default="")
# The scheduled seal and export (ledger/scheduled_export.py): every
# CASINO_EXPORT_INTERVAL_SECONDS beat seals each closed gaming day still unsealed and writes its
# export to CASINO_EXPORT_DIR/gaming-day-YYYY-MM-DD.zip; a failure is an alert on the floor.
CASINO_EXPORT_DIR = env.str("CASINO_EXPORT_DIR", default=str(VAR_DIR / "exports"))
CASINO_EXPORT_INTERVAL_SECONDS = env.int("CASINO_EXPORT_INTERVAL_SECONDS", default=900)
# Maker-checker (approvals/): an opener or a fill above these (cents) needs a cage supervisor's
# second signature; a pending approval lapses after CASINO_APPROVAL_TTL_MINUTES.
CASINO_LARGE_OPENER_CENTS = env.int("CASINO_LARGE_OPENER_CENTS", default=10_000_000)
CASINO_LARGE_FILL_CENTS = env.int("CASINO_LARGE_FILL_CENTS", default=5_000_000)
CASINO_APPROVAL_TTL_MINUTES = env.int("CASINO_APPROVAL_TTL_MINUTES", default=60)
# Anti-money-laundering thresholds (patrons/services/aml.py), cents of CASINO_CURRENCY; defaults: France/EU.
AML_JURISDICTION = env.str("AML_JURISDICTION", default="FR")
AML_IDENTITY_THRESHOLD_CENTS = env.int("AML_IDENTITY_THRESHOLD_CENTS", default=200_000)  # at or above: identity
AML_LOG_THRESHOLD_CENTS = env.int("AML_LOG_THRESHOLD_CENTS", default=300_000)  # at or above: transaction log
AML_REPORT_THRESHOLD_CENTS = env.int("AML_REPORT_THRESHOLD_CENTS", default=1_000_000)  # day total above: report
AML_IDENTITY_RETENTION_YEARS = env.int("AML_IDENTITY_RETENTION_YEARS", default=5)  # after the last transaction
# What the identity and report thresholds total: "gaming_day" (the US rules) or "visit" (the French
# séance: a patron's exchanges less than AML_VISIT_GAP_HOURS apart; patrons/visits.py).
AML_BASIS = env.str("AML_BASIS", default="gaming_day")
if AML_BASIS not in ("gaming_day", "visit"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"AML_BASIS is gaming_day or visit, not {AML_BASIS!r}")
AML_VISIT_GAP_HOURS = env.int("AML_VISIT_GAP_HOURS", default=4)
# Structuring (patrons/structuring.py): AML_STRUCTURING_VISITS visits (or gaming days, by AML_BASIS)
# within AML_STRUCTURING_DAYS gaming days, each totalling AML_STRUCTURING_FLOOR_PERCENT % or more of the
# identity threshold but under it, flag the patron for the compliance officer.
AML_STRUCTURING_VISITS = env.int("AML_STRUCTURING_VISITS", default=3)
AML_STRUCTURING_DAYS = env.int("AML_STRUCTURING_DAYS", default=7)
AML_STRUCTURING_FLOOR_PERCENT = env.int("AML_STRUCTURING_FLOOR_PERCENT", default=80)
# Suspicion cases (compliance/services.py): a SAR-C within 30 days of detection (31 CFR
# 1021.320(b)(3)); a TRACFIN déclaration is owed without delay (CMF L561-15: no day count), so
# its deadline is the casino's own target.
COMPLIANCE_SAR_C_DAYS = env.int("COMPLIANCE_SAR_C_DAYS", default=30)
COMPLIANCE_TRACFIN_DAYS = env.int("COMPLIANCE_TRACFIN_DAYS", default=30)

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on every request until collectstatic
# WhiteNoise serves STATIC_ROOT (filled by `manage.py collectstatic`) with gzip copies made at
# collectstatic time. Not the Manifest variant: that one makes {% static %} fail until
# collectstatic has run, and the demo and the tests never run it.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Production (DJANGO_HTTPS on, below) takes sessions and device tokens only: HTTP Basic sends the
# password with every request and costs a password hash (PBKDF2, about 0.47 s of CPU) each time,
# so 4 requests a second would fill 2 cores. The demo, the tests and the smoke test keep it.
HTTP_BASIC = not HTTPS
# The largest request body read, in bytes: a form, ``request.body`` and the API's JSON
# (core.parsers: 413 beyond). A batch of 1,000 bets is about 150 kB. Uploaded files (the
# auditor's export to verify) are streamed to disk and not counted.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("API_MAX_BODY_BYTES", default=1_048_576)

REST_FRAMEWORK = {
    # The first class answers the challenge: an unauthenticated request gets 401 with a
    # WWW-Authenticate header (Basic in the demo, Device in production); 403 is kept for
    # "logged in, but not allowed".
    "DEFAULT_AUTHENTICATION_CLASSES": [
        *(["staff.authentication.BasicAuthentication"] if HTTP_BASIC else []),  # DRF's, a NUL byte is 401
        "staff.authentication.DeviceTokenAuthentication",  # `Authorization: Device <token>`, one table
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",  # each operation's 400/401/403/404/409 too
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "core.pagination.BoundedLimitOffsetPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_PARSER_CLASSES": ["core.parsers.SafeJSONParser"],
    # Escape non-ASCII in responses: a lone surrogate echoed in an error message stays valid JSON.
    "UNICODE_JSON": False,
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Casino table-games accounting API",
    "DESCRIPTION": "Event-sourced ledger, cage and table games. Money is integer cents; times are UTC.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two choice sets named `kind`: one enum name each (else drf_spectacular.W001 at every check).
    "ENUM_NAME_OVERRIDES": {
        "PatronKindEnum": "patrons.models.Patron.Kind",
        "DeviceKindEnum": "staff.models.DeviceToken.Kind",
        # chips or cash: a marker paid at a table, a foreign exchange paid out
        "ChipsOrCashEnum": "cashier.services.credit.TABLE_PAYMENT_METHODS",
    },
}

# Celery: no broker configured means eager, in-process tasks (the embedded default).
CELERY_TASK_ALWAYS_EAGER = not env.str("CELERY_BROKER_URL", default="")
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="casino")
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_BACKEND = None
# A broker outage (deploy/README.md, "A worker outlives a broker outage"): the worker retries
# the broker forever, 2 s, 4 s, ... then every 30 s, instead of exiting (``Unrecoverable error``,
# exit status 0) after Celery's default of 100 attempts, about 47 minutes of outage; and it waits
# for a broker that is not up yet when it starts.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
# Redis only: TCP keepalive and a PING before reusing a connection idle for 10 s, so a Redis that
# went away (a restart, a dropped NAT entry) is noticed and reconnected instead of read forever.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"socket_keepalive": True, "health_check_interval": 10}
    if env.str("CELERY_BROKER_URL", default="").startswith(("redis", "rediss"))
    else {}
)
# Queues (deploy/README.md). With CELERY_ROUTE_QUEUES on (production: deploy/casino.env.example)
# the projection catch-up goes to `projections`, exports to `exports` and the rest to the default
# queue (there CELERY_QUEUE=default); workers consume `-Q projections,exports,default`. Off (the
# demo, the tests): every task goes to the one default queue, so a test that points it at a
# private queue gets every task there.
CELERY_TASK_ROUTES = (
    {
        "ledger.tasks.catch_up_projections": {"queue": "projections"},
        "ledger.tasks.rebuild_projection": {"queue": "projections"},
        "ledger.tasks.export_*": {"queue": "exports"},  # regulatory exports
        "ledger.tasks.seal_and_export_closed_days": {"queue": "exports"},
    }
    if env.bool("CELERY_ROUTE_QUEUES", default=False)
    else {}
)
CELERY_BEAT_SCHEDULE = {
    "projections-catch-up": {"task": "ledger.tasks.catch_up_projections", "schedule": 5.0},
    "ledger-checkpoint": {
        "task": "ledger.tasks.write_checkpoint",
        "schedule": float(LEDGER_CHECKPOINT_INTERVAL_SECONDS),
    },
    "ledger-verify": {
        "task": "ledger.tasks.verify_chain",
        "schedule": float(LEDGER_VERIFY_INTERVAL_SECONDS),
    },
    # Game protection: a day beyond CASINO_FLUCTUATION_Z opens its investigation by itself.
    "fluctuation-alarms": {
        "task": "games.tasks.raise_fluctuation_alarms",
        "schedule": float(CASINO_FLUCTUATION_INTERVAL_SECONDS),
    },
    "gaming-day-seal-and-export": {
        "task": "ledger.tasks.seal_and_export_closed_days",
        "schedule": float(CASINO_EXPORT_INTERVAL_SECONDS),
    },
}

# --- Operations: logs --------------------------------------------------------------------------
# One console handler; every line carries time (UTC), level, logger and, where known, the request
# id, user, device and table (core/logs.py). LOG_FORMAT=json in production (one JSON object a
# line, deploy/casino.env.example), text for the demo and the tests.
LOG_LEVEL = env.str("LOG_LEVEL", default="WARNING")
LOG_FORMAT = env.str("LOG_FORMAT", default="text")
if LOG_FORMAT not in ("json", "text"):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "core.logs.ContextFilter"}, "client_error": {"()": "core.logs.ClientErrorFilter"}},
    "formatters": {"json": {"()": "core.logs.JsonFormatter"}, "text": {"()": "core.logs.TextFormatter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["context", "client_error"], "formatter": LOG_FORMAT}
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
}
# django-axes masks the username and the address in its log lines by default; an operator needs
# both to see who is being locked out and from where (the password is always masked).
AXES_SENSITIVE_PARAMETERS: list[str] = []
# --- end of logs ---------------------------------------------------------------------------------

# --- Table limits (games/services/table_limits.py) ---------------------------------------------
# The house's approved range of a table's limits, per game, in cents of CASINO_CURRENCY: a table
# opens and its limits change only within it (SHIFTS.md, pit boss §3). Every minimum is at least
# the low end (1.00: the smallest value chip; the tokens under it are change, not stakes) and at
# least the table's own smallest chip; every maximum at most the high end. E.g.
# CASINO_TABLE_MAX_BACCARAT_CENTS=5000000. The defaults are written here only.
CASINO_TABLE_LIMITS_CENTS = {
    game: (
        env.int(f"CASINO_TABLE_MIN_{game.upper()}_CENTS", default=100),
        env.int(f"CASINO_TABLE_MAX_{game.upper()}_CENTS", default=highest),
    )
    for game, highest in {
        "english_roulette": 1_000_000,
        "blackjack": 1_000_000,
        "baccarat": 2_000_000,
        "caribbean_stud": 500_000,
        "trente_quarante": 2_000_000,
        "classic_stud": 1_000_000,
    }.items()
}

# --- Comps (patrons/services/comps.py) --------------------------------------------------------
# The share of a patron's theoretical win the house gives back as comps, in basis points
# (2500 = 25.00 %): earned = floor(Σ theoretical win × rate / 10,000), in cents. Each comp
# records the rate it was given under.
CASINO_COMP_REINVESTMENT_BASIS_POINTS = env.int("CASINO_COMP_REINVESTMENT_BASIS_POINTS", default=2500)

# --- Manual ratings (games/services/ratings.py) --------------------------------------------------
# A patron rated by hand played this many decisions an hour at the game's usual pace; his time
# × this pace × his average bet is his handle, × the table's house edge his theoretical win.
# Recorded in each PatronRatedManually, so a new pace never rewrites an old rating.
CASINO_DECISIONS_PER_HOUR = {
    "english_roulette": 35,
    "blackjack": 60,
    "baccarat": 70,
    "caribbean_stud": 50,
    "trente_quarante": 50,
    "classic_stud": 30,
}

# --- Operations: readiness (ledger/health.py, GET /api/health/ready) ------------------------------
# Not ready when a projection is more than this many positions behind the ledger head.
HEALTH_MAX_PROJECTION_LAG = env.int("HEALTH_MAX_PROJECTION_LAG", default=1_000)
# Not ready when a closed gaming day is still unsealed this many hours after its end (0: off).
HEALTH_SEAL_GRACE_HOURS = env.int("HEALTH_SEAL_GRACE_HOURS", default=6)
# Seconds the broker check waits for a connection.
HEALTH_BROKER_TIMEOUT_SECONDS = env.float("HEALTH_BROKER_TIMEOUT_SECONDS", default=2.0)
# An append waiting longer than this for the ledger's writer lock makes the node not ready (a
# session holding the lock stops every write; an append takes it for milliseconds).
HEALTH_WRITER_LOCK_WAIT_SECONDS = env.float("HEALTH_WRITER_LOCK_WAIT_SECONDS", default=10.0)
# --- end of readiness ------------------------------------------------------------------------------

# --- Operations: metrics (GET /metrics, casino/metrics.py) ----------------------------------------
# Seconds the scrape waits for the database's answer to casino_database_up's probe (at least 2
# for the connection: libpq's minimum).
METRICS_DATABASE_TIMEOUT_SECONDS = env.float("METRICS_DATABASE_TIMEOUT_SECONDS", default=2.0)
# Addresses allowed to read /metrics (the Prometheus server scraping this node directly).
METRICS_ALLOWED_IPS = env.list("METRICS_ALLOWED_IPS", default=["127.0.0.1", "::1"])
# Or a bearer token (`Authorization: Bearer <token>`) accepted from any address; empty: none.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# Seconds each of the scrape's database reads may take (PostgreSQL's statement_timeout): a
# scrape reports a gauge it could not read in time as absent, never waits on a slow database.
METRICS_QUERY_TIMEOUT_SECONDS = env.float("METRICS_QUERY_TIMEOUT_SECONDS", default=2.0)
# PROMETHEUS_MULTIPROC_DIR (read by prometheus-client, not here): one directory per host shared
# by gunicorn and Celery, emptied at boot, so /metrics sums every process (deploy/README.md).
# The probes and the scrape speak plain HTTP to the node itself: never redirected to HTTPS.
SECURE_REDIRECT_EXEMPT = [r"^api/health/(live|ready)$", r"^metrics$"]
# --- end of metrics ------------------------------------------------------------------------------

# --- Operations: progress of long work (ledger/progress.py) ---------------------------------------
# Off a terminal (a log, journald), rebuild, verify, export and the demo write a progress line
# this often, in seconds; on a terminal they draw a bar.
PROGRESS_LOG_SECONDS = env.float("PROGRESS_LOG_SECONDS", default=10.0)
# --- end of progress -------------------------------------------------------------------------------

# --- Operations: rate limits and cache (core/throttling.py) ---------------------------------------
# Requests allowed per device token, per logged-in person, per address without login:
# "<n>/second|minute|hour|day", or "off". 429 with Retry-After beyond.
API_THROTTLE_RATES = {
    scope: (None if rate.lower() == "off" else rate)
    for scope, rate in (
        ("device", env.str("API_THROTTLE_DEVICE", default="600/minute")),
        ("user", env.str("API_THROTTLE_USER", default="1200/minute")),
        ("anon", env.str("API_THROTTLE_ANON", default="120/minute")),
    )
}
# How many reverse proxies of ours stand in front of the application (nginx alone: 1). Only the
# X-Forwarded-For entries they append are believed (core.throttling.client_address); 0, the
# default: the header is ignored and the address is REMOTE_ADDR, as a client can write the header.
NUM_PROXIES = env.int("NUM_PROXIES", default=0)
REST_FRAMEWORK["NUM_PROXIES"] = NUM_PROXIES
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = [
    "core.throttling.DeviceRateThrottle",
    "core.throttling.PersonRateThrottle",
    "core.throttling.AnonymousRateThrottle",
]
# Where the throttles count: local memory is per process; several workers or nodes need a shared
# cache for the limits to be global (redis://redis:6379/1, or dbcache://casino_cache after
# `manage.py createcachetable`).
CACHES = {"default": env.cache("DJANGO_CACHE_URL", default="locmemcache://")}
# --- end of rate limits ----------------------------------------------------------------------------

# --- Authentication and lockout -------------------------------------------------------------------
# django-axes counts failed logins (session and HTTP Basic alike) and, after AXES_FAILURE_LIMIT
# failures, refuses logins for AXES_COOLOFF_MINUTES to that username from that address: the
# combination, so that nobody can lock a colleague out from elsewhere, nor one address (a proxy,
# the cage's NAT) lock out everyone behind it. Guessing many accounts from one place is slowed by
# the anonymous rate limit. The address is core.throttling.client_address (NUM_PROXIES).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "staff.backends.StaffBackend",  # ModelBackend, the user's roles read with him
]
SESSION_ENGINE = "staff.sessions"  # database sessions, read by a prepared statement
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=30))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "core.throttling.client_address"
AXES_USERNAME_CALLABLE = "core.throttling.client_username"  # any name a client sends, cut to fit
AXES_RESET_ON_SUCCESS = True
LOGIN_URL = "rest_framework:login"
# After a login with no ``next`` (DRF's browsable API login among them): ``/``, each role's page.
LOGIN_REDIRECT_URL = "home"
# Passwords of people (25 CFR 543.16): at least 12 characters, not like the
# username or name, not a common password, not all digits. Applied wherever Django sets a
# password through a form (admin, changepassword), never by create_user in set-up scripts.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": env.int("AUTH_PASSWORD_MIN_LENGTH", default=12)},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- HTTPS deployment (`manage.py check --deploy` is clean with these) ----------------------------
# DJANGO_HTTPS=true where the site is served over TLS (production): HTTPS redirect, HSTS,
# secure cookies, a strong secret key from the environment, no HTTP Basic. Off for the demo, the
# tests and the loopback smoke test, which speak plain HTTP.
if HTTPS:
    from django.core.exceptions import ImproperlyConfigured

    if not env.str("DJANGO_SECRET_KEY", default="") or SECRET_KEY.startswith("insecure-"):
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set in the environment when DJANGO_HTTPS is on")
    # Django's own bar (security.W009), refused instead of warned: a short or repetitive key
    # can be guessed, and with it every session and signature.
    if len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-"):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY is too weak: 50 or more random characters, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
        )
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env.bool("DJANGO_BEHIND_TLS_PROXY", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

"""Settings, all from the environment (DESIGN.md §Configuration).

Defaults give the embedded demo: a SQLite file under ``var/`` and eager Celery.
"""

from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env")  # optional; missing file is fine

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="insecure-dev-key-change-me-in-production")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served locally: no CDN needed
    # Bottom to top (docs/architecture.md): an app imports only those above it in this list.
    "ledger",
    "staff",
    "patrons",
    "games",
    "cashier",
    "audit",
    "django_htmx",  # {% htmx_script %}: the htmx the package ships, served as a static file
    "dashboard",  # the pit boss dashboard (issue #9)
    "workstations",  # the cage and audit workstations (issue 24)
    "demo",  # the demo day and its commands: never imported by the product
    "axes",  # login lockout after repeated failures (issue #10)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files, right after SecurityMiddleware
    "core.middleware.RejectNulMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
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
            ]
        },
    }
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'casino.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Keep each worker's connection between requests: opening one (a server process, its
    # authentication, Django's set-up queries) cost more CPU than the bet it served (issue 11).
    # The health check replaces a connection the server dropped before it is used.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DJANGO_CONN_MAX_AGE", default=60)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Django turns psycopg's prepared statements off (threshold None) even where asked for;
    # its own cursors bind client-side and never prepare, so this only lets core.rawsql's
    # few hot reads be parsed and planned once per connection (issue 11).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
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
GAMING_DAY_START = env.str("GAMING_DAY_START", default="06:00")
CASINO_CURRENCY = env.str("CASINO_CURRENCY", default="EUR")
CASINO_NAME = env.str("CASINO_NAME", default="Casino")  # the house named on printed reports (issue 24)
# Cage and table accounting (issue #7), in cents: the chips a tray is counted in (value chips
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
LEDGER_SEAL_KEY = env.str("LEDGER_SEAL_KEY", default="")
# Anti-money-laundering thresholds (patrons/services/aml.py), cents of CASINO_CURRENCY; defaults: France/EU.
AML_JURISDICTION = env.str("AML_JURISDICTION", default="FR")
AML_IDENTITY_THRESHOLD_CENTS = env.int("AML_IDENTITY_THRESHOLD_CENTS", default=200_000)  # at or above: identity
AML_LOG_THRESHOLD_CENTS = env.int("AML_LOG_THRESHOLD_CENTS", default=300_000)  # at or above: transaction log
AML_REPORT_THRESHOLD_CENTS = env.int("AML_REPORT_THRESHOLD_CENTS", default=1_000_000)  # day total above: report
AML_IDENTITY_RETENTION_YEARS = env.int("AML_IDENTITY_RETENTION_YEARS", default=5)  # after the last transaction

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

REST_FRAMEWORK = {
    # Basic first: an unauthenticated request gets 401 with a WWW-Authenticate challenge;
    # 403 is kept for "logged in, but not allowed".
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.BasicAuthentication",
        "rest_framework.authentication.SessionAuthentication",
        "staff.authentication.DeviceTokenAuthentication",  # `Authorization: Device <token>`, one table
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
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
# Queues (deploy/README.md). With CELERY_ROUTE_QUEUES on (production: deploy/casino.env.example)
# the projection catch-up goes to `projections`, exports to `exports` and the rest to the default
# queue (there CELERY_QUEUE=default); workers consume `-Q projections,exports,default`. Off (the
# demo, the tests): every task goes to the one default queue, so a test that points it at a
# private queue gets every task there.
CELERY_TASK_ROUTES = (
    {
        "ledger.tasks.catch_up_projections": {"queue": "projections"},
        "ledger.tasks.export_*": {"queue": "exports"},  # regulatory exports, when they come
    }
    if env.bool("CELERY_ROUTE_QUEUES", default=False)
    else {}
)
CELERY_BEAT_SCHEDULE = {
    "projections-catch-up": {"task": "ledger.tasks.catch_up_projections", "schedule": 5.0},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}

# --- Authentication and lockout (issue #10) ---------------------------------------------------
# django-axes counts failed logins (session and HTTP Basic alike) and, after AXES_FAILURE_LIMIT
# failures, refuses logins for AXES_COOLOFF_MINUTES: per username (guessing one account's
# password) and per client address (trying many accounts from one place), as axes recommends.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "staff.backends.StaffBackend",  # ModelBackend, the user's roles read with him
]
SESSION_ENGINE = "staff.sessions"  # database sessions, read by a prepared statement
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=30))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
LOGIN_URL = "rest_framework:login"

# --- HTTPS deployment (issue #10; `manage.py check --deploy` is clean with these) ------------
# DJANGO_HTTPS=true where the site is served over TLS (production): HTTPS redirect, HSTS,
# secure cookies, and the secret key must come from the environment. Off for the demo, the
# tests and the loopback smoke test, which speak plain HTTP.
HTTPS = env.bool("DJANGO_HTTPS", default=False)
if HTTPS:
    if not env.str("DJANGO_SECRET_KEY", default="") or SECRET_KEY.startswith("insecure-"):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set in the environment when DJANGO_HTTPS is on")
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

"""Log lines that say who, where and which request.

Every record handled by the console handler (``settings.LOGGING``) carries, where known:
``request_id`` (the ``X-Request-ID`` of the HTTP request, or of the Celery task's id),
``user`` (the authenticated username), ``device`` (a device token's name), ``table`` (the
gaming table the request acts on). ``RequestContextMiddleware`` binds them per request, the
Celery signals in ``casino.celery`` per task; code that learns the table later (the table
scope of a round or bet: ``staff.scopes``) calls ``bind(table=...)``.

Two formats, chosen by ``LOG_FORMAT``: ``json`` (production: one JSON object a line with
``time`` in ISO 8601 UTC, ``level``, ``logger``, ``message`` and the fields above, plus any
``extra=`` of the call) and ``text`` (the demo: ``2026-12-01T23:15:02.123Z WARNING
django.request [req=… user=alice table=R1] Forbidden: /api/…``).

gunicorn writes its own lines (``gunicorn.error``, ``gunicorn.access``) in the same two formats
(``deploy/gunicorn.conf.py``); ``GunicornAccessFilter`` gives each access line its request id
and the request's fields.
"""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar, Token
from datetime import UTC, datetime

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

CONTEXT_FIELDS = ("request_id", "user", "device", "table", "task")

# Per request (or task): the fields bound so far and, for a request, the Django request, whose
# authenticated user is read when a line is logged (authentication happens inside the view).
_context: ContextVar[dict | None] = ContextVar("casino_log_context", default=None)

# An X-Request-ID from the proxy is kept when it is this tame; otherwise a fresh one is made,
# so nothing a client sends can forge a log line's structure.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")


def new_request_id(offered: str | None = None) -> str:
    """``offered`` when it is 1-64 characters of ``[A-Za-z0-9._:-]``, else 32 random hex digits."""
    if offered and _REQUEST_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


def start(**fields) -> Token:
    """Open a fresh context (a request, a task) with ``fields``; give the token to ``end``."""
    return _context.set(dict(fields))


def end(token: Token) -> None:
    _context.reset(token)


def clear(**_signal_kwargs) -> None:
    """Forget the context (connected to Django's ``request_finished``)."""
    _context.set(None)


def bind(**fields) -> None:
    """Add fields to the current request's or task's context (no-op outside one)."""
    context = _context.get()
    if context is not None:
        context.update({key: value for key, value in fields.items() if value not in (None, "")})


def current() -> dict:
    """The context's fields known now (the user and device read from the request)."""
    context = _context.get()
    if not context:
        return {}
    fields = {key: value for key, value in context.items() if key in CONTEXT_FIELDS}
    request = context.get("request")
    if request is not None:
        fields.update(_who(request))
        fields.setdefault("table", context.get("table"))
    return {key: value for key, value in fields.items() if value not in (None, "")}


def _who(request) -> dict:
    """User and device of a request, without evaluating a lazy user (that would query the
    session inside whatever is logging): only once authentication has set them."""
    found = {}
    user = request.__dict__.get("user")
    wrapped = getattr(user, "_wrapped", user)  # SimpleLazyObject: its object once evaluated
    if wrapped is not None and getattr(wrapped, "is_authenticated", False) is True:
        found["user"] = wrapped.get_username()
    auth = request.__dict__.get("auth")  # DRF sets the Django request's ``auth`` too
    name = getattr(auth, "name", None)
    if isinstance(name, str):  # a device token (staff.models.DeviceToken)
        found["device"] = name
        found["table"] = getattr(auth, "table_code", None)
    return found


class ContextFilter(logging.Filter):
    """Copies the context's fields onto each record (never overwriting an ``extra=``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in current().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        return True


class ClientErrorFilter(logging.Filter):
    """A refused request (4xx: 403 role, 404) is the client's error, not the server's: its line
    stays (at WARNING, as Django logs it) without the traceback Django attaches to it."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500 and record.exc_info:
            record.exc_info = None
            record.exc_text = None
        return True


class GunicornAccessFilter(logging.Filter):
    """gunicorn's access line (logger ``gunicorn.access``, whose arguments are gunicorn's
    "atoms" of the request) gets the fields the application's own request line has:
    ``request_id`` (the response's ``X-Request-ID``, which ``RequestContextMiddleware`` set),
    ``method``, ``path``, ``status`` (int), ``duration_ms`` (float, ms), and ``bytes`` (the
    body's size), ``remote_addr``, ``forwarded_for``, ``user_agent`` where known. A response
    without the header (a request refused before Django) keeps the client's ``X-Request-ID``
    when it is tame (``new_request_id``), else has none."""

    def filter(self, record: logging.LogRecord) -> bool:
        atoms = record.args
        if not isinstance(atoms, dict):
            return True
        request_id = atoms.get("{x-request-id}o")
        offered = atoms.get("{x-request-id}i")
        if not request_id and offered and _REQUEST_ID.fullmatch(offered):
            request_id = offered
        status = str(atoms.get("s", ""))
        sent = atoms.get("B")
        fields = {
            "request_id": request_id,
            "method": atoms.get("m"),
            "path": atoms.get("U"),
            "status": int(status) if status.isdigit() else None,
            "duration_ms": round(atoms["D"] / 1000, 1) if isinstance(atoms.get("D"), int) else None,
            "bytes": sent if isinstance(sent, int) else None,
            "remote_addr": atoms.get("h"),
            "forwarded_for": atoms.get("{x-forwarded-for}i"),
            "user_agent": atoms.get("a"),
        }
        for key, value in fields.items():
            if value not in (None, "", "-") and not hasattr(record, key):
                # gunicorn escapes the double quotes of its atoms for its quoted text line.
                setattr(record, key, value.replace('\\"', '"') if isinstance(value, str) else value)
        return True


def _utc_iso(created: float) -> str:
    return datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class JsonFormatter(_JsonFormatter):
    """One JSON object a line: ``time`` (UTC, ms), ``level``, ``logger``, ``message``, then the
    context fields and any ``extra=``; ``exc_info`` as a string."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("json_ensure_ascii", False)
        super().__init__("{asctime}{levelname}{name}{message}", *args, style="{", **kwargs)

    def formatTime(self, record, datefmt=None):  # noqa: N802 (logging's name)
        return _utc_iso(record.created)


class TextFormatter(logging.Formatter):
    """``<UTC time> <LEVEL> <logger> [req=… user=… device=… table=… task=…] message``."""

    def format(self, record: logging.LogRecord) -> str:
        context = " ".join(
            f"{'req' if key == 'request_id' else key}={getattr(record, key)}"
            for key in CONTEXT_FIELDS
            if getattr(record, key, None) not in (None, "")
        )
        line = f"{_utc_iso(record.created)} {record.levelname} {record.name} "
        line += f"[{context}] " if context else ""
        line += record.getMessage()
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        if record.stack_info:
            line += "\n" + self.formatStack(record.stack_info)
        return line

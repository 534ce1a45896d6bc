"""One place where domain errors become HTTP responses (STYLE.md: not in each view).

400 with the field at fault for bad input, 404 for an unknown resource, 409 for a state or
version conflict, 403 for a role. Anything a client can send must land here, never as a 500.
"""

import sys

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, OperationalError
from django.http import HttpResponse, JsonResponse
from django_fsm import ConcurrentTransition, TransitionNotAllowed
from rest_framework import status
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from basis.errors import RuleError
from ledger import outage
from ledger.errors import BetRefused, DomainError

from .signals import bet_refused

NON_FIELD = "non_field_errors"  # DRF's name for an error about the input as a whole
BODY = "body"  # a body that is not JSON at all

# The code of an error DRF's own handler answered without one of ours.
CODES = {401: "not_authenticated", 403: "permission_denied", 404: "not_found", 405: "method_not_allowed"}


# The database refused a connection (down, restarting, out of connection slots) or dropped
# one: nothing was written, and the client may retry; never a 500, never the driver's words
# (they name the host and port).
UNAVAILABLE = {"error": "unavailable", "detail": "the database is unavailable; retry in a few seconds"}
RETRY_AFTER = "5"
# The server cancelled a statement that ran past DATABASE_STATEMENT_TIMEOUT_SECONDS (SQLSTATE
# 57014): it is up but overloaded or waiting on a lock; the transaction rolled back.
TIMED_OUT = {"error": "timeout", "detail": "the database did not answer in time; nothing was recorded; retry"}


# The database took the connection but refuses every write: this node is pointed at a standby
# (a hot-standby replica, or a primary demoted by a failover) or at a database set
# `default_transaction_read_only`. PostgreSQL says SQLSTATE 25006 (psycopg's
# ReadOnlySqlTransaction, an InternalError to Django). Nothing was written; the client retries
# on a node of the primary (the balancer stops sending here: /api/health/ready is 503 too).
READ_ONLY_SQLSTATE = "25006"
READ_ONLY = {
    "error": "read_only",
    "detail": "this node's database is read-only (a standby): nothing was recorded; retry on a node of the primary",
}


def database_read_only(exc: BaseException) -> bool:
    """Whether ``exc`` (or the driver's error it wraps) is PostgreSQL refusing a write on a
    read-only database or transaction (SQLSTATE 25006)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if getattr(current, "sqlstate", None) == READ_ONLY_SQLSTATE:
            return True
        current = current.__cause__ or current.__context__
    return False


def database_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` is the database being out of reach (not a lock, not a refused write, not
    a statement past its timeout): ``ledger.outage.unreachable``."""
    return outage.unreachable(exc)


def database_timed_out(exc: BaseException) -> bool:
    """Whether ``exc`` is the server cancelling a statement past ``statement_timeout``."""
    return outage.timed_out(exc)


PAGES = {
    "unavailable": (
        "Unavailable",
        "The database cannot be reached just now. Nothing you sent was recorded; try again in a few seconds.",
    ),
    "timeout": ("Too slow", "The database did not answer in time. Nothing you sent was recorded; try again."),
    "read_only": (
        "Read-only",
        "This server's database is a read-only copy just now. Nothing you sent was recorded; "
        "try again in a few seconds.",
    ),
}


def database_error_response(request, exc: BaseException) -> HttpResponse | None:
    """The 503 for a database that is out of reach, too slow or read-only (JSON under ``/api/``,
    a short page that needs no database elsewhere, ``Retry-After`` on both), or None for any other
    error. Out of reach: noted in ``ledger.outage`` (one log line an outage) and not logged again
    per request."""
    if database_read_only(exc):
        body = READ_ONLY
    elif database_timed_out(exc):
        body = TIMED_OUT
    elif database_unavailable(exc):
        body = UNAVAILABLE
        outage.noted_unavailable(exc)
    else:
        return None
    if request.path.startswith("/api/"):
        response = JsonResponse(body, status=503)
    else:
        title, text = PAGES[body["error"]]
        response = HttpResponse(
            f"<!doctype html><html lang=en><meta charset=utf-8><title>{title}</title><h1>{title}</h1><p>{text}</p>",
            status=503,
        )
    response["Retry-After"] = RETRY_AFTER
    if body is UNAVAILABLE:
        _logged_once(response)
    return response


def _logged_once(response) -> None:
    # Django logs every 5xx on django.request ("Service Unavailable: /path"); an outage is
    # logged once by ledger.outage instead, not once per request. log_response skips a
    # response marked as logged.
    response._has_been_logged = True


def server_error(request):
    """``handler500``: a database out of reach met before any view (the login cookie or the user of a
    logged-in request, read by a middleware) answers the 503 of ``database_error_response``, not
    a 500 with its traceback; anything else is Django's 500 page."""
    from django.views.defaults import server_error as django_server_error

    exc = sys.exc_info()[1]
    response = database_error_response(request, exc) if exc is not None else None
    return response if response is not None else django_server_error(request)


def _body(code: str, message: str, field: str | None) -> dict:
    body = {"error": code, "detail": message}
    if field:
        body["field"] = field
        body["errors"] = {field: [message]}
    return body


def _first_message(errors) -> str:
    """The first message of a DRF error structure (nested dicts and lists of strings)."""
    if isinstance(errors, dict):
        errors = list(errors.values())
    if isinstance(errors, list):
        for item in errors:
            message = _first_message(item)
            if message:
                return message
        return ""
    return str(errors)


def _validation_body(data) -> dict:
    """A DRF ``ValidationError``'s body: ``field`` names the first input at fault, or
    ``non_field_errors`` when the error is about the input as a whole (or not about a key)."""
    if not isinstance(data, dict):
        data = {NON_FIELD: data if isinstance(data, list) else [data]}
    fields = [key for key in data if key != NON_FIELD]
    field = fields[0] if fields else NON_FIELD
    return {
        "error": "invalid",
        "detail": _first_message(data[field]) or "invalid input",
        "field": field,
        "errors": data,
    }


def _actor(context) -> str:
    request = context.get("request")
    user = getattr(request, "user", None)
    return (user.get_username() if user is not None else "") or "anonymous"


def exception_handler(exc, context):
    if isinstance(exc, BetRefused):
        # The one place a refused bet is announced for the floor: the command's transaction has
        # rolled back by now, so the receiver (games) records it on its own and the ledger stays
        # untouched. A signal, because the base must not import the apps above it.
        request = context.get("request")
        key = request.headers.get("Idempotency-Key") if request is not None else None
        bet_refused.send(sender=exc.__class__, exc=exc, actor=_actor(context), idempotency_key=key)
    if isinstance(exc, DomainError):
        field = exc.field or (NON_FIELD if exc.status == status.HTTP_400_BAD_REQUEST else None)
        return Response(_body(exc.code, exc.message, field), status=exc.status)
    if isinstance(exc, RuleError):
        return Response(_body("invalid", exc.message, exc.field or NON_FIELD), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (TransitionNotAllowed, ConcurrentTransition)):
        return Response(_body("state_conflict", str(exc), None), status=status.HTTP_409_CONFLICT)
    if database_read_only(exc):
        return Response(READ_ONLY, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": RETRY_AFTER})
    if isinstance(exc, IntegrityError):
        # A unique or check constraint lost a race with another request: a conflict, not a crash.
        return Response(
            _body("conflict", "the request conflicts with a concurrent change; retry", None),
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, OperationalError) and "locked" in str(exc):
        return Response(_body("busy", "the ledger is busy; retry", None), status=status.HTTP_409_CONFLICT)
    if database_timed_out(exc):
        return Response(TIMED_OUT, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": RETRY_AFTER})
    if database_unavailable(exc):
        outage.noted_unavailable(exc)
        response = Response(
            UNAVAILABLE, status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": RETRY_AFTER}
        )
        _logged_once(response)
        return response
    if isinstance(exc, DjangoValidationError):
        # The ORM refusing a malformed value (e.g. an id that is not a UUID): bad input, not a crash.
        field = next(iter(exc.error_dict), NON_FIELD) if hasattr(exc, "error_dict") else NON_FIELD
        return Response(_body("invalid", "; ".join(exc.messages), field), status=status.HTTP_400_BAD_REQUEST)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError):
        response.data = _validation_body(response.data)
    elif isinstance(exc, ParseError):
        # The body could not be read at all (not JSON, nested too deeply, a NUL): the body is at fault.
        response.data = _body("parse_error", str(exc.detail), BODY)
    elif not (isinstance(response.data, dict) and "error" in response.data):
        detail = response.data.get("detail", "") if isinstance(response.data, dict) else response.data
        code = getattr(exc, "default_code", None) or CODES.get(response.status_code, "error")
        response.data = {"error": code, "detail": str(detail)}
    if response.status_code == status.HTTP_400_BAD_REQUEST and not response.data.get("field"):
        # Every 400 names its field (README §API), whatever raised it.
        response.data = _body(response.data["error"], response.data["detail"], NON_FIELD)
    return response


def not_found(request, exception=None):
    """JSON 404 for API paths (an unknown URL is still an answer a client can read)."""
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "detail": f"no such resource: {request.path}"}, status=404)
    return page_not_found(request, exception)


def bad_request(request, exception=None):
    """JSON 400 for API paths, naming its field like every other 400: what Django refuses
    before any view (a Host header not in ALLOWED_HOSTS, another suspicious request)."""
    from django.core.exceptions import DisallowedHost
    from django.views.defaults import bad_request as html_bad_request

    if request.path.startswith("/api/"):
        field = "Host" if isinstance(exception, DisallowedHost) else NON_FIELD
        message = "the Host header names no site served here" if field == "Host" else "bad request"
        return JsonResponse(_body("bad_request", message, field), status=400)
    return html_bad_request(request, exception)

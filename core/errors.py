"""One place where domain errors become HTTP responses (STYLE.md: not in each view).

400 with the field at fault for bad input, 404 for an unknown resource, 409 for a state or
version conflict, 403 for a role. Anything a client can send must land here, never as a 500.
"""

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, OperationalError
from django.http import Http404
from django_fsm import ConcurrentTransition, TransitionNotAllowed
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from games.rules.errors import RuleError
from ledger.errors import BetRefused, DomainError

from .signals import bet_refused


def _body(code: str, message: str, field: str | None) -> dict:
    body = {"error": code, "detail": message}
    if field:
        body["field"] = field
        body["errors"] = {field: [message]}
    return body


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
        return Response(_body(exc.code, exc.message, exc.field), status=exc.status)
    if isinstance(exc, RuleError):
        return Response(_body("invalid", exc.message, exc.field), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (TransitionNotAllowed, ConcurrentTransition)):
        return Response(_body("state_conflict", str(exc), None), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, IntegrityError):
        # A unique or check constraint lost a race with another request: a conflict, not a crash.
        return Response(
            _body("conflict", "the request conflicts with a concurrent change; retry", None),
            status=status.HTTP_409_CONFLICT,
        )
    if isinstance(exc, OperationalError) and "locked" in str(exc):
        return Response(_body("busy", "the ledger is busy; retry", None), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        # The ORM refusing a malformed value (e.g. an id that is not a UUID): bad input, not a crash.
        return Response(_body("invalid", "; ".join(exc.messages), None), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (Http404, PermissionDenied)):
        return drf_exception_handler(exc, context)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ValidationError) and isinstance(response.data, dict):
        fields = [key for key in response.data if key != "non_field_errors"]
        response.data = {
            "error": "invalid",
            "detail": "invalid input",
            "field": fields[0] if fields else None,
            "errors": response.data,
        }
    elif isinstance(response.data, dict) and "error" not in response.data:
        code = getattr(exc, "default_code", "error")
        response.data = {"error": code, "detail": str(response.data.get("detail", ""))}
    return response


def not_found(request, exception=None):
    """JSON 404 for API paths (an unknown URL is still an answer a client can read)."""
    from django.http import JsonResponse
    from django.views.defaults import page_not_found

    if request.path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "detail": f"no such resource: {request.path}"}, status=404)
    return page_not_found(request, exception)

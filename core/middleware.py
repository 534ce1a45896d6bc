"""Refuse NUL characters in URLs and query strings before any view or query sees them
(PostgreSQL cannot compare text with NUL: it would be a 500)."""

import logging
import time

from django.core.signals import request_finished
from django.http import JsonResponse

from ledger import metrics

from . import logs
from .errors import database_error_response, database_read_only

access_log = logging.getLogger("casino.request")


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class RejectNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            # No table, patron or round code contains NUL: there is no such resource.
            return JsonResponse({"error": "not_found", "detail": "no such resource"}, status=404)
        fields = list(request.GET.lists())
        if request.method == "POST" and request.content_type in FORM_TYPES:
            fields += request.POST.lists()  # a page's form: no field of one holds a NUL either
        for name, values in fields:
            if "\x00" in name or any("\x00" in value for value in values):
                message = "NUL characters are not allowed"
                return JsonResponse(
                    {"error": "invalid", "detail": message, "field": name, "errors": {name: [message]}}, status=400
                )
        return self.get_response(request)


class RequestContextMiddleware:
    """Gives each request an id (the proxy's ``X-Request-ID`` when tame, else a new one), binds
    it for the log lines (``core.logs``), sends it back in ``X-Request-ID``, and logs one line a
    request on ``casino.request`` (INFO): method, path, status, duration in ms, view."""

    def __init__(self, get_response):
        self.get_response = get_response
        request_finished.connect(logs.clear, dispatch_uid="core.logs.clear")

    def __call__(self, request):
        request_id = logs.new_request_id(request.headers.get("X-Request-ID"))
        request.request_id = request_id
        # Cleared when the request is finished (``core.logs.clear`` on ``request_finished``),
        # not here: Django logs a 4xx or 5xx ("Forbidden: /api/…") after the middleware returns.
        logs.start(request_id=request_id, request=request)
        started = time.perf_counter()
        response = self.get_response(request)
        response["X-Request-ID"] = request_id
        elapsed = time.perf_counter() - started
        match = getattr(request, "resolver_match", None)
        view = match.view_name if match else "<unresolved>"  # not the path: unbounded labels
        metrics.http_request_seconds.labels(view, request.method).observe(elapsed)
        metrics.http_requests.labels(view, request.method, str(response.status_code)).inc()
        access_log.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(elapsed * 1000, 1),
                "view": view,
            },
        )
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        # A table's own URLs name it (``tables/<code>/…``): the log lines name it too.
        match = request.resolver_match
        if match is not None and "tables/<code:code>" in (match.route or ""):
            logs.bind(table=view_kwargs.get("code"))


class DatabaseUnavailableMiddleware:
    """A view that meets the database out of reach (``core.errors.database_unavailable``), too
    slow (a statement past its timeout) or read-only (``core.errors.database_read_only``: a
    standby) answers 503 with ``Retry-After``: JSON under ``/api/``, a short page elsewhere
    (``core.errors.database_error_response``); the API's own views answer the same through the
    exception handler, and a middleware meeting it (a logged-in request's login cookie) through
    ``handler500`` (``core.errors.server_error``). An outage is logged once (``ledger.outage``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if database_read_only(exception):
            access_log.warning("database read-only: %s", type(exception).__name__, extra={"path": request.path})
        return database_error_response(request, exception)

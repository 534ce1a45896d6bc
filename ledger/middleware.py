"""Before a page or report is read, the events appended since this process last looked are
checked for the application's seal (``ledger.seal_scan``): what it did not write is left out
of the read."""

from __future__ import annotations

import logging

from django.db import DatabaseError

from . import replica, seal_scan

log = logging.getLogger(__name__)

# Asked often and reading no event: not worth a scan.
_UNSCANNED = ("/api/health/", "/metrics", "/static/")


class DisownedEventsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("GET", "HEAD") and not request.path.startswith(_UNSCANNED):
            try:
                seal_scan.refresh()
            except DatabaseError:
                # The view meets the same database and answers for it (503, not 500).
                log.debug("disowned events not refreshed: database unavailable")
        return self.get_response(request)


READ_AFTER_COOKIE = "casino_read_after"
READ_AFTER_HEADER = "X-Ledger-Read-After"
POSITION_HEADER = "X-Ledger-Position"
_COOKIE_SALT = "ledger.middleware.read_after"
_COOKIE_SECONDS = 300  # a replica further behind than this is past any lag bound anyway


class ReadYourWritesMiddleware:
    """With a replica configured (``ledger.replica``): a response whose commands committed says
    the position they reached (header ``X-Ledger-Position``, and a signed cookie for a
    browser); a request carrying it (the cookie, or ``X-Ledger-Read-After`` from an API client)
    reads from the replica only once the replica has that position, else from the primary."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not replica.configured():
            return self.get_response(request)
        token = replica.must_see(self._read_after(request))
        written = replica._written.set(0)
        try:
            response = self.get_response(request)
            position = replica.written()
            if position:
                response[POSITION_HEADER] = str(position)
                response.set_signed_cookie(
                    READ_AFTER_COOKIE, str(position), salt=_COOKIE_SALT, max_age=_COOKIE_SECONDS,
                    httponly=True, samesite="Lax", secure=request.is_secure(),
                )  # fmt: skip
            return response
        finally:
            replica._written.reset(written)
            replica._must_see.reset(token)

    @staticmethod
    def _read_after(request) -> int:
        values = [request.headers.get(READ_AFTER_HEADER, "")]
        values.append(
            request.get_signed_cookie(READ_AFTER_COOKIE, default="", salt=_COOKIE_SALT, max_age=_COOKIE_SECONDS)
        )
        positions = [int(value) for value in values if value.isascii() and value.isdigit() and len(value) < 19]
        return max(positions, default=0)

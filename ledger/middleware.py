"""Before a page or report is read, the events appended since this process last looked are
checked for the application's seal (``ledger.seal_scan``): what it did not write is left out
of the read."""

from __future__ import annotations

import logging

from django.db import DatabaseError

from . import seal_scan

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

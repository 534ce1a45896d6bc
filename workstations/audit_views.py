"""The audit workstation (issue 24): the auditor's pages, read-only.

Gaming days with their state, seal and head hash; a day's export to download and to verify
on the page (an upload checked by the standalone verifier); the exceptions of a day with
filters; any event's trail. Only the verification form posts, and it writes nothing.
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods, require_safe

from cashier.reports import variance_threshold_cents
from ledger.export.writer import export_zip_stream

from . import audit_selectors
from .access import AUDIT_ROLES, roles_required

audit_only = roles_required(*AUDIT_ROLES, place="audit")
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Http404("a gaming day is a date YYYY-MM-DD") from None


@require_safe
@audit_only
def days(request):
    return render(request, "workstations/audit_days.html", {"days": audit_selectors.gaming_days()})


@require_http_methods(["GET", "HEAD", "POST"])
@audit_only
def day(request, day: str):
    """A day's seal and export; POST: the uploaded export checked by the standalone verifier."""
    found = audit_selectors.gaming_day(_day(day))
    if found is None:
        raise Http404(f"no event on gaming day {day}")
    context = {"day": found}
    status = 200
    if request.method == "POST":
        upload = request.FILES.get("export")
        if upload is None:
            context["verdict"] = {"ok": False, "message": "Choose the export file (.zip) to verify.", "name": ""}
            status = 400
        elif upload.size > MAX_UPLOAD_BYTES:
            too_big = "FAIL the file is larger than any export"
            context["verdict"] = {"ok": False, "message": too_big, "name": upload.name}
            status = 400
        else:
            report = audit_selectors.verify_upload(upload)
            context["verdict"] = {"ok": report.ok, "message": report.message, "name": upload.name}
            status = 200 if report.ok else 422
    return render(request, "workstations/audit_day.html", context, status=status)


@require_safe
@audit_only
def export(request, day: str):
    """The day's export zip, as ``GET /api/exports/gaming-days/<day>.zip`` gives it an auditor
    (identity columns filled: the auditor is entitled to them)."""
    gaming_day = _day(day)
    if audit_selectors.gaming_day(gaming_day) is None:
        raise Http404(f"no event on gaming day {day}")
    chunks = export_zip_stream(gaming_day, include_identity=True)
    response = StreamingHttpResponse(chunks, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="gaming-day-{gaming_day.isoformat()}.zip"'
    return response


@require_safe
@audit_only
def exceptions(request):
    """The exception log of a day (``audit.exceptions``), filtered by kind, table and person;
    the same filters give the CSV download of the API (``/api/audit/exceptions.csv``)."""
    days = audit_selectors.gaming_days()
    chosen = request.GET.get("day") or (days[0]["day"].isoformat() if days else "")
    kind = request.GET.get("kind") or None
    if kind not in audit_selectors.EXCEPTION_KINDS:
        kind = None
    table = (request.GET.get("table") or "").strip()[:20] or None
    person = (request.GET.get("person") or "").strip()[:150] or None
    rows = audit_selectors.exceptions(_day(chosen), kind, table, person) if chosen else []
    filters = {"gaming_day": chosen, "kind": kind, "table": table, "person": person}
    return render(
        request,
        "workstations/audit_exceptions.html",
        {
            "rows": rows,
            "days": days,
            "chosen": chosen,
            "kind": kind or "",
            "table": table or "",
            "person": person or "",
            "kinds": [(key, label) for key, (label, _) in audit_selectors.EXCEPTION_KINDS.items()],
            "threshold_cents": variance_threshold_cents(),
            "csv_query": urlencode({k: v for k, v in filters.items() if v}),
        },
    )


@require_safe
@audit_only
def event(request, position: int):
    return render(request, "workstations/audit_event.html", audit_selectors.event_trail(position))

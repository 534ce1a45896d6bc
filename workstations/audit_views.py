"""The audit workstation: the auditor's pages, read-only.

Gaming days with their state, seal and head hash; a day's export to download and to verify
on the page (an upload checked by the standalone verifier); the exceptions of a day with
filters; any event's trail. Two forms post: an export's verification, which writes nothing, and
"check the whole chain now", which records its result as the house's scheduled walk does.
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from cashier.registers import files as register_files
from cashier.registers.books import TITLES as REGISTER_TITLES
from cashier.reports import variance_threshold_cents
from ledger import verification_records
from ledger.export import verify_export
from ledger.export.writer import export_zip_stream
from ledger.replica import replica_view
from ledger.tasks import verify_chain

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
@replica_view
def days(request):
    context = {
        "days": audit_selectors.gaming_days(),
        "site_key": audit_selectors.site_key(),
        "chain": verification_records.latest(),
        "verify_every_minutes": settings.LEDGER_VERIFY_INTERVAL_SECONDS // 60,
    }
    return render(request, "workstations/audit_days.html", context)


# A walk of the whole chain is heavy: asked again within this many seconds, the last one stands.
CHAIN_CHECK_SPACING_SECONDS = 60


@require_POST
@audit_only
def chain_check(request):
    """The auditor asks for a walk of the whole chain now (``ledger.tasks.verify_chain``, the
    house's scheduled one): on a worker, or at once where tasks run in-process; its result is
    recorded and shown on the days page like the scheduled walk's."""
    last = verification_records.latest()
    if last is not None and (timezone.now() - last.verified_at).total_seconds() < CHAIN_CHECK_SPACING_SECONDS:
        messages.info(request, "The whole chain was checked less than a minute ago: its result is below.")
        return redirect("workstations:audit-days")
    verify_chain.delay()
    if verify_chain.app.conf.task_always_eager:  # in-process (the demo): done already
        done = verification_records.latest()
        words = "intact" if done is not None and done.ok else "BROKEN: see the line below"
        messages.success(request, f"Whole chain checked now: {words}.")
    else:
        messages.success(request, "Whole chain check asked: a worker walks it now; reload this page for its result.")
    return redirect("workstations:audit-days")


def _day_context(found: dict) -> dict:
    """A day's page: the day, its bounds and the site's signing key (to check an export by)."""
    return {
        "day": found,
        "bounds": audit_selectors.day_bounds(found["day"]),
        "site_key": audit_selectors.site_key(),
        "registers": list(REGISTER_TITLES.items()),
    }


@require_http_methods(["GET", "HEAD", "POST"])
@audit_only
@replica_view  # GET only: the verification form (POST) reads the primary
def day(request, day: str):
    """A day's seal and export; POST: the uploaded export checked by the standalone verifier."""
    found = audit_selectors.gaming_day(_day(day))
    if found is None:
        raise Http404(f"no event on gaming day {day}")
    context = _day_context(found)
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
            verdict = audit_selectors.verify_upload(upload, day=_day(day))
            context["verdict"] = {
                "ok": verdict.ok,
                "foreign": verdict.state == "foreign",
                "message": verdict.message,
                "name": upload.name,
            }
            status = 200 if verdict.ok else 422
    return render(request, "workstations/audit_day.html", context, status=status)


@require_safe
@audit_only
def export(request, day: str):
    """The day's export zip, as ``GET /api/exports/gaming-days/<day>.zip`` gives it an auditor
    (identity columns filled: the auditor is entitled to them). Only a sealed day has one: for a
    day not sealed, 409 and the day's page, which says why."""
    gaming_day = _day(day)
    found = audit_selectors.gaming_day(gaming_day)
    if found is None:
        raise Http404(f"no event on gaming day {day}")
    if not found["exportable"]:  # the verifier would refuse it as not sealed: say why, on the day's page
        return render(request, "workstations/audit_day.html", _day_context(found), status=409)
    chunks = export_zip_stream(gaming_day, include_identity=True)
    response = StreamingHttpResponse(chunks, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="gaming-day-{gaming_day.isoformat()}.zip"'
    return response


REGISTER_TYPES = {"csv": "text/csv; charset=utf-8", "pdf": "application/pdf"}


@require_safe
@audit_only
@replica_view
def register(request, day: str):
    """A French register of the day (``cashier.registers``): ``?name=<slug>&format=csv|pdf``, or
    ``format=csv.sig`` for the CSV's detached signature (64 raw bytes, of the file as generated
    now; the PDF carries its generation time, so a PDF and the signature of another download differ).
    An unknown register or format: 404. Like the export, only a sealed day has signed registers:
    a day still open, or closed and not yet sealed, may still change (409 and the day's page)."""
    gaming_day = _day(day)
    slug, fmt = request.GET.get("name", ""), request.GET.get("format", "")
    if slug not in REGISTER_TITLES or fmt not in (*REGISTER_TYPES, "csv.sig"):
        raise Http404("no such register")
    found = audit_selectors.gaming_day(gaming_day)
    if found is None:
        raise Http404(f"no event on gaming day {day}")
    if not found["exportable"]:
        return render(request, "workstations/audit_day.html", _day_context(found), status=409)
    data = register_files.register_file(slug, gaming_day, fmt.removesuffix(".sig"))
    name = register_files.file_name(slug, gaming_day, fmt.removesuffix(".sig"))
    if fmt.endswith(".sig"):
        data, name, kind = register_files.signature(data), f"{name}.sig", "application/octet-stream"
    else:
        kind = REGISTER_TYPES[fmt]
    response = HttpResponse(data, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_safe
@audit_only
@replica_view
def registers_zip(request, day: str):
    """Every register of the day, CSV and PDF, each with its ``.sig``, and ``public-key.pem``, as
    ``manage.py registers`` writes them, in one zip; for a sealed day only (409 and the day's
    page otherwise, as for the export)."""
    gaming_day = _day(day)
    found = audit_selectors.gaming_day(gaming_day)
    if found is None:
        raise Http404(f"no event on gaming day {day}")
    if not found["exportable"]:
        return render(request, "workstations/audit_day.html", _day_context(found), status=409)
    response = HttpResponse(register_files.registers_zip(gaming_day), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="registers-{gaming_day.isoformat()}.zip"'
    return response


@require_safe
@audit_only
def standalone_verifier(request):
    """The standalone verifier ``verify_export.py`` (Python's standard library only), to check an
    export on a machine of the inspector's own, without this application."""
    with open(verify_export.__file__, "rb") as source:
        response = HttpResponse(source.read(), content_type="text/x-python")
    response["Content-Disposition"] = 'attachment; filename="verify_export.py"'
    return response


@require_safe
@audit_only
def site_public_key(request):
    """The site's public key as ``public-key.pem``, to check a register's signature with openssl."""
    response = HttpResponse(register_files.public_pem(), content_type="application/x-pem-file")
    response["Content-Disposition"] = 'attachment; filename="public-key.pem"'
    return response


EXCEPTIONS_PER_PAGE = 100


def _with_page(query: str, number: int) -> str:
    return f"{query}&page={number}" if query else f"page={number}"


@require_safe
@audit_only
@replica_view
def exceptions(request):
    """The exception log of a day (``audit.exceptions``), filtered by kind, table and person,
    ``EXCEPTIONS_PER_PAGE`` rows a page (``?page=N``); the same filters give the CSV download
    of the API (``/api/audit/exceptions.csv``), the whole day. The day is ``?gaming_day=`` as
    in the API (``?day=`` too, the name the form once had; none: the last closed day, as the
    reports); one that is not a date
    YYYY-MM-DD is a 400 that says so, with no rows."""
    days = audit_selectors.gaming_days()
    asked = (request.GET.get("gaming_day") or request.GET.get("day") or "").strip()
    opening = audit_selectors.default_day()  # the last closed day, as the reports open on
    chosen = asked or (opening.isoformat() if opening else "")
    error = ""
    try:
        day = date.fromisoformat(chosen) if chosen else None
    except ValueError:
        day, error = None, f"Gaming day “{asked[:40]}” is not a date YYYY-MM-DD: no exception shown."
    kind = request.GET.get("kind") or None
    if kind not in audit_selectors.EXCEPTION_KINDS:
        kind = None
    table = (request.GET.get("table") or "").strip()[:20] or None
    person = (request.GET.get("person") or "").strip()[:150] or None
    rows = audit_selectors.exceptions(day, kind, table, person) if day else []
    page = Paginator(rows, EXCEPTIONS_PER_PAGE).get_page(request.GET.get("page"))
    filters = {"gaming_day": day.isoformat() if day else "", "kind": kind, "table": table, "person": person}
    query = urlencode({k: v for k, v in filters.items() if v})
    return render(
        request,
        "workstations/audit_exceptions.html",
        {
            "rows": page.object_list,
            "page": page,
            "pages": [{"number": n, "query": _with_page(query, n)} for n in page.paginator.page_range],
            "previous_query": _with_page(query, page.number - 1),
            "next_query": _with_page(query, page.number + 1),
            "days": days,
            "chosen": day.isoformat() if day else "",
            "unlisted": bool(day) and all(d["day"] != day for d in days),
            "error": error,
            "kind": kind or "",
            "table": table or "",
            "person": person or "",
            "kinds": [(key, label) for key, (label, _) in audit_selectors.EXCEPTION_KINDS.items()],
            "threshold_cents": variance_threshold_cents(),
            "csv_query": query,
        },
        status=400 if error else 200,
    )


@require_safe
@audit_only
@replica_view
def event(request, position: int):
    return render(request, "workstations/audit_event.html", audit_selectors.event_trail(position))

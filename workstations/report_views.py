"""Printable reports: ``/workstations/reports/<slug>/?gaming_day=YYYY-MM-DD`` (HTML
with a print stylesheet) and ``…/<slug>.pdf`` (the same page as PDF). Read by the roles that
sign them and the auditor: cashier, cage supervisor, pit boss, auditor.

Without ``?gaming_day=`` a report opens on the last closed gaming day (its figures are final),
not on the day being played (``?gaming_day=today``, the cage's links, opens the day being
played); a picker on the page chooses another. The page says whether its
figures are final (the day closed and sealed) or provisional (the day still open), offers the
day's export only when the day is sealed, and, for the auditor, links each figure to the
ledger events behind it."""

from __future__ import annotations

from datetime import date

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.http import require_safe

from dashboard.errors import landing
from ledger.gaming_day import current_gaming_day
from ledger.replica import replica_view
from staff.roles import Role, has_role

from . import audit_selectors, printable
from .access import AUDIT_ROLES, roles_required

readers = roles_required(Role.CASHIER, Role.CAGE_SUPERVISOR, Role.PIT_BOSS, Role.AUDITOR, place="reports")
REPORT_NAMES = {"table-games": "Daily report", "cage-accountability": "Cage report", "variances": "Variances"}


def _context(request, slug: str, *, paper: bool = False) -> dict:
    if slug not in printable.REPORTS:
        raise Http404(f"no report {slug!r}")
    raw = request.GET.get("gaming_day") or ""
    if raw == "today":  # the cage's own links: a cashier checks the day she works, not the last closed
        raw = current_gaming_day().isoformat()
    try:
        day = date.fromisoformat(raw) if raw else (audit_selectors.default_day() or current_gaming_day())
    except ValueError:
        raise Http404("a gaming day is a date YYYY-MM-DD") from None
    days = audit_selectors.day_states()
    state = next((d for d in days if d["day"] == day), None) or {"day": day, "state": "none", "seal": None}
    auditor = has_role(request.user, *AUDIT_ROLES) and not paper  # paper carries no links
    return printable.context(slug, day, links=auditor) | {
        "days": days,
        "day_state": state,
        "auditor": auditor,
        "report_links": list(REPORT_NAMES.items()),
    }


@require_safe
@readers
@replica_view
def report(request, slug: str):
    ctx = _context(request, slug) | {"landing": landing(request.user)}  # the reader's own page
    return render(request, printable.REPORTS[slug].template, ctx)


@require_safe
@readers
@replica_view
def report_pdf(request, slug: str):
    ctx = _context(request, slug, paper=True)
    html = render_to_string(printable.REPORTS[slug].template, ctx | {"for_pdf": True}, request=request)
    response = HttpResponse(printable.pdf(html, request.build_absolute_uri("/")), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{ctx["head"]["gaming_day"].isoformat()}.pdf"'
    return response

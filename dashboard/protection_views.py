"""Game protection on the pit boss's pages: the day's tables and patrons in standard deviations
of their bets' exact variance (``games.protection``) and the investigations of the alarms
(``games.services.investigations``): opened by the pit boss (or by the house itself), noted by whoever
looked, closed by a second person from his own login."""

from __future__ import annotations

from fractions import Fraction

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from games.protection import day_fluctuations
from games.services import investigations as inv
from ledger.errors import DomainError
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, has_role, role_names

from .alerts import z_words
from .days import asked_gaming_day
from .shift_views import _actor, _refused
from .views import roles_required

# Who works an investigation: the pit boss on the floor, the administrator (surveillance's
# accounts); the auditor reads them.
WORKERS = (Role.PIT_BOSS, Role.ADMIN)
READERS = (*WORKERS, Role.AUDITOR)
workers_only = roles_required(WORKERS, f"investigations are worked by the {role_names(WORKERS, ', ')}")
readers_only = roles_required(READERS, f"game protection is read by the {role_names(READERS, ', ')}")
LABELS = {"note": "What was found", "finding": "Conclusion", "reason": "Why", "subject": "Table or patron"}


def _rows(rows: list[dict], subject: str, cases: dict) -> list[dict]:
    return [
        row
        | {
            "code": row[subject],
            "theory_cents": round(row["theoretical_win"]),
            "sd_cents": row["sd_cents"],
            "z_words": z_words(row["z"]),
            "case": cases.get((subject, row[subject])),
        }
        for row in rows
    ]


def _protection_page(request, refused: dict | None = None):
    day = asked_gaming_day(request)
    figures = day_fluctuations(day)
    open_cases = inv.investigations(state="open")
    cases = {(c["subject"], c[c["subject"]]): c["id"] for c in open_cases if c["gaming_day"] == day}
    context = {
        "gaming_day": day,
        "today": day == current_gaming_day(),
        "z_limit": f"{float(figures['z_limit']):g}",
        "min_bets": figures["min_bets"],
        "tables": _rows(figures["tables"], "table", cases),
        "patrons": _rows(figures["patrons"], "patron", cases),
        "open_cases": open_cases,
        "closed_cases": inv.investigations(state="closed")[:20],
        "refused": refused,
        "may_work": has_role(request.user, *WORKERS),
    }
    return render(request, "dashboard/protection.html", context, status=refused["status"] if refused else 200)


@require_http_methods(["GET", "HEAD"])
@readers_only
def protection(request):
    """A gaming day's tables and patrons against their exact variance (``?gaming_day=``, today's
    by default), and the investigations."""
    return _protection_page(request)


@require_POST
@workers_only
def investigation_open(request):
    """Open an investigation of a table's or a patron's day, as the logged-in pit boss."""
    subject = request.POST.get("subject", "")
    try:
        result = inv.open_investigation(
            subject=subject,
            code=request.POST.get("code", ""),
            gaming_day=current_gaming_day(),
            actor=_actor(request),
            reason=request.POST.get("reason", ""),
        )
    except DomainError as exc:
        return _protection_page(request, _refused(exc, "open", LABELS))
    messages.success(request, f"Investigation opened of the {subject} {request.POST.get('code', '')}.")
    return redirect("dashboard:investigation", result["investigation"])


def _investigation_page(request, key: str, refused: dict | None = None):
    case = inv.investigation(key)
    figures = case["figures"]
    context = {
        "case": case,
        "figures": figures,
        "theory_cents": round(_fraction(figures.get("theoretical_win", "0"))),
        "z_words": z_words(float(figures["z"])) if figures.get("z") else "—",
        "refused": refused,
        "me": _actor(request),
        "may_work": has_role(request.user, *WORKERS),
    }
    return render(request, "dashboard/investigation.html", context, status=refused["status"] if refused else 200)


def _fraction(text: str) -> Fraction:
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return Fraction(0)


@require_http_methods(["GET", "HEAD"])
@readers_only
def investigation(request, investigation: str):
    """One investigation: the figures that raised it, who looked and what was found, its close."""
    return _investigation_page(request, investigation)


@require_POST
@workers_only
def investigation_note(request, investigation: str):
    key = investigation
    """Who looked (the logged-in user) and what was found."""
    try:
        inv.note_investigation(key=key, actor=_actor(request), note=request.POST.get("note", ""))
    except DomainError as exc:
        if exc.status == 404:
            raise
        return _investigation_page(request, key, _refused(exc, "note", LABELS))
    messages.success(request, "Noted.")
    return redirect("dashboard:investigation", key)


@require_POST
@workers_only
def investigation_close(request, investigation: str):
    key = investigation
    """Close it with a conclusion: the logged-in user, a second person (not the opener, nor
    anyone who noted it)."""
    try:
        inv.close_investigation(key=key, actor=_actor(request), finding=request.POST.get("finding", ""))
    except DomainError as exc:
        if exc.status == 404:
            raise
        return _investigation_page(request, key, _refused(exc, "close", LABELS))
    messages.success(request, "Investigation closed.")
    return redirect("dashboard:investigation", key)

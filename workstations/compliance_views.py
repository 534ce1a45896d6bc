"""The compliance officer's pages: the suspicion cases (``compliance``) with their deadlines,
the AML flags no case was opened from yet, and one case's page with its transactions, findings,
decision and filing, each form a step of ``compliance.services``.

Only the compliance role enters (403 for any other: the people who deal with the patron must
not learn of a case). Post/redirect/get: a reload never records a step twice. A refusal
(``DomainError``) is shown on the page with its reason; nothing is written. Times in the
casino's zone with its name, amounts through the one money formatter, no ledger positions or
cent counts on the page (a form's hidden values carry positions, never its words)."""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from compliance import selectors, services
from compliance.services import DECISIONS, FILING_KINDS
from ledger.errors import DomainError, InvalidInput

from .access import COMPLIANCE_ROLES, roles_required

compliance_only = roles_required(*COMPLIANCE_ROLES, place="compliance")
STATES = {
    "open": "open: findings and decision due",
    "to_file": "decided: report to file",
    "filed": "report filed",
    "not_filed": "decided: no report",
}


def _zone() -> ZoneInfo:
    return ZoneInfo(settings.CASINO_TIMEZONE)


@require_safe
@compliance_only
def cases(request):
    """The cases, and the AML flags no case covers: the latest, or a gaming day's
    (``?gaming_day=YYYY-MM-DD``; 404 on a date that is not one)."""
    raw = (request.GET.get("gaming_day") or "").strip()
    try:
        day = date.fromisoformat(raw) if raw else None
    except ValueError:
        raise Http404("a gaming day is a date YYYY-MM-DD") from None
    found = selectors.suspicion_cases()
    flags = selectors.aml_flags_without_case(limit=200 if day else 30, day=day)
    with timezone.override(_zone()):
        return render(
            request,
            "workstations/compliance.html",
            {
                "cases": found,
                "flags": flags,
                "flags_day": day,
                "states": STATES,
                "identities": selectors.patron_identities([c["patron"] for c in found] + [f["patron"] for f in flags]),
            },
        )


@require_safe
@compliance_only
def case(request, case: str):
    state = selectors.suspicion_case(case)
    attached = {t["position"] for t in state["transactions"]}
    candidates = [t for t in selectors.patron_cash_transactions(state["patron"]) if t["position"] not in attached]
    with timezone.override(_zone()):
        return render(
            request,
            "workstations/compliance_case.html",
            {
                "case": state,
                "identity": selectors.patron_identities([state["patron"]]).get(state["patron"]),
                "candidates": candidates,
                "states": STATES,
                "decisions": DECISIONS,
                "filing_kinds": FILING_KINDS,
                "now_local": timezone.now().astimezone(_zone()).strftime("%Y-%m-%dT%H:%M:%S"),
            },
        )


def _refused(request, exc: DomainError) -> None:
    messages.error(request, f"Refused: {exc.message}. Nothing was recorded.")


def _position(text: str, *, field: str) -> int:
    if not text.isdigit():
        raise InvalidInput("pick one from the list", field=field)
    return int(text)


@require_POST
@compliance_only
def open_case(request):
    """Open a case from a flag (its hidden position) or by hand (a patron code)."""
    me = request.user.get_username()
    flag = (request.POST.get("flag") or "").strip()
    try:
        if flag:
            result = services.suspicion_case_open(
                flag=_position(flag, field="flag"), reason=request.POST.get("reason", ""), actor=me
            )
        else:
            result = services.suspicion_case_open(
                patron=(request.POST.get("patron") or "").strip(), reason=request.POST.get("reason", ""), actor=me
            )
    except DomainError as exc:
        _refused(request, exc)
        return redirect("workstations:compliance")
    messages.success(request, f"Case {result['case']} opened for patron {result['patron']}.")
    return redirect("workstations:compliance-case", case=result["case"])


@require_POST
@compliance_only
def step(request, case: str, what: str):
    """One step on ``case``: ``attach``, ``findings``, ``decide`` or ``filing``."""
    me = request.user.get_username()
    post = request.POST
    try:
        if what == "attach":
            positions = [_position(p, field="positions") for p in post.getlist("positions")]
            if not positions:
                raise InvalidInput("tick at least one transaction to attach", field="positions")
            services.case_transactions_attach(case=case, positions=positions, actor=me)
            words = "1 transaction attached." if len(positions) == 1 else f"{len(positions)} transactions attached."
        elif what == "findings":
            services.case_findings_write(case=case, text=post.get("text", ""), actor=me)
            words = "Findings written."
        elif what == "decide":
            services.case_decide(case=case, decision=post.get("decision", ""), reason=post.get("reason", ""), actor=me)
            words = "Decision recorded."
        elif what == "filing":
            services.case_filing_record(
                case=case,
                kind=post.get("kind", ""),
                reference=post.get("reference", ""),
                filed_at=_local_moment(post.get("filed_at", "")),
                actor=me,
            )
            words = "Filing recorded."
        else:
            raise InvalidInput("no such step", field="step")
    except DomainError as exc:
        if exc.status == 404:
            raise
        _refused(request, exc)
        return redirect("workstations:compliance-case", case=case)
    messages.success(request, words)
    return redirect("workstations:compliance-case", case=case)


def _local_moment(text: str) -> datetime:
    """A ``datetime-local`` field's value, read in the casino's zone (the page says which)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInput("when it was filed: a date and time", field="filed_at") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_zone())
    return moment

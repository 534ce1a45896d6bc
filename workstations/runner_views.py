"""The runner's page: the fills and credits the cage issued to him, each waiting for his
signature that he carries it (``approvals`` act ``slip_issue``: a Confirm button signs it as
the logged-in runner, a Refuse button sends it back), and those he carries to their table.

Post/redirect/get: a reload never signs twice. A refusal (``DomainError``) is shown on the
page with its reason; nothing is written."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from approvals.services import approval_confirm, approval_reject
from dashboard.alerts import eur
from dashboard.shift_selectors import runner_slips
from ledger.errors import DomainError

from .access import RUNNER_ROLES, roles_required

runner_only = roles_required(*RUNNER_ROLES, place="runner's")


@require_safe
@runner_only
def runner(request):
    with timezone.override(ZoneInfo(settings.CASINO_TIMEZONE)):
        return render(request, "workstations/runner.html", {"slips": runner_slips(request.user.get_username())})


@require_POST
@runner_only
def sign(request, approval: str, decision: str):
    """Confirm (``approval_confirm``: the slip is issued to him, he carries it) or refuse
    (``approval_reject``) the slip the cage issued to this runner."""
    me = request.user.get_username()
    try:
        if decision == "confirm":
            result = approval_confirm(approval=approval, actor=me)
        else:
            result = approval_reject(approval=approval, actor=me, reason=(request.POST.get("reason") or "").strip())
    except DomainError as exc:
        messages.error(request, f"Refused: {exc.message}. Nothing was recorded.")
        return redirect("workstations:runner")
    if decision == "confirm":
        what = f"{result['kind']} {result['serial']} of {eur(result['amount_cents'])}"
        if result["kind"] == "credit":  # the chips go the other way: from the table to the cage
            words = f"You carry {what} from table {result['table']} to the cage: the cashier counts it in there."
        else:
            words = f"You carry {what} to table {result['table']}: the table accepts it there."
        messages.success(request, words)
    else:
        messages.success(request, "Refused: the slip goes back to the cage.")
    return redirect("workstations:runner")

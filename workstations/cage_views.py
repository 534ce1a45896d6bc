"""The cage workstation (issue 24): the cashier's and the cage supervisor's screens.

Each form posts to a view that calls the same ``cashier`` / ``patrons`` service as the API,
as the logged-in user; a refusal (``DomainError``) is shown on the page with the field at
fault, nothing is written. Post/redirect/get: a reload never repeats a sale.
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from approvals.services import approval_request
from cashier.services.cage import chips_purchase, chips_redeem
from cashier.services.cage_shifts import cage_shift_close, cage_shift_open, last_shift_event, require_shift_closer
from core.denominations import cash_denominations, chip_denominations
from ledger.errors import DomainError
from patrons.services.aml import IdentityRequired, patron_identity_record
from staff.roles import RoleRequired

from . import cage_selectors, forms
from .access import CAGE_ROLES, roles_required
from .templatetags.workstation_tags import eur

cage_only = roles_required(*CAGE_ROLES, place="cage")


# The form's own words for a refusal's field (the service names it as the API does).
FIELD_LABELS = {
    "amount_cents": "Amount",
    "amount": "Amount",
    "patron": "Patron code",
    "shift": "Cashier shift",
    "cage": "Cage",
    "cash": "Cash count",
    "chips": "Chip count",
    "runner": "Runner",
    "serial": "Slip",
    "kind": "Slip",
    "variance_reason": "Reason for a variance",
    "handover_to": "Hand over to",
    "name": "Full name",
    "document": "Identity document",
}


def field_label(field: str) -> str:
    return FIELD_LABELS.get(field) or field.replace("_", " ").capitalize()


def _refused(request, exc: DomainError) -> None:
    field = getattr(exc, "field", None)
    if isinstance(exc, RoleRequired) or not field:
        messages.error(request, f"Refused: {exc.message}")
    else:
        messages.error(request, f"Refused. {field_label(field)}: {exc.message}")


@require_safe
@cage_only
def cage(request):
    desk = cage_selectors.cage_desk(request.user.get_username())
    return render(request, "workstations/cage.html", {"desk": desk})


@require_POST
@cage_only
def shift_open(request):
    try:
        cash = forms.count(request.POST, "cash", cash_denominations())
        chips = forms.count(request.POST, "chips", chip_denominations())
        result = cage_shift_open(cash=cash, chips=chips, actor=request.user.get_username())
    except DomainError as exc:
        _refused(request, exc)
        return redirect("workstations:cage")
    note = f"Shift opened: counted {eur(result['counted_cents'])}, book {eur(result['expected_cents'])}"
    messages.success(request, f"{note}, variance {eur(result['variance_cents'])}.")
    return redirect("workstations:cage")


@require_POST
@cage_only
def shift_close(request):
    """Close the shift with its count. A count that differs from the book needs a reason: the
    form is sent back (nothing written) until the cashier gives one."""
    user = request.user.get_username()
    try:
        cash = forms.count(request.POST, "cash", cash_denominations())
        chips = forms.count(request.POST, "chips", chip_denominations())
        reason = (request.POST.get("variance_reason") or "").strip()
        opened = last_shift_event()
        if opened is not None and opened.type == "CageShiftOpened":
            require_shift_closer(opened, user)  # before asking for a variance reason
        desk = cage_selectors.cage_desk(user)
        counted = sum(int(d) * n for d, n in cash.items()) + sum(int(d) * n for d, n in chips.items())
        book = desk["book"]["cash_cents"] + desk["book"]["chips_cents"]
        if counted != book and not reason:
            messages.error(
                request,
                f"The count ({eur(counted)}) differs from the book ({eur(book)}) by {eur(counted - book)}: "
                "give the reason for the variance, then close again.",
            )
            return render(
                request,
                "workstations/cage.html",
                {"desk": desk, "close_count": {**_prefixed("cash", cash), **_prefixed("chips", chips)}},
                status=409,
            )
        handover = request.POST.get("handover_to") or None
        result = cage_shift_close(
            cash=cash, chips=chips, actor=user, handover_to=handover, variance_reason=reason or None
        )
    except DomainError as exc:
        _refused(request, exc)
        return redirect("workstations:cage")
    messages.success(
        request,
        f"Shift closed: counted {eur(result['counted_cents'])}, book {eur(result['expected_cents'])}, "
        f"variance {eur(result['variance_cents'])}.",
    )
    return redirect("workstations:cage-shift", opened_event=cage_selectors.shift_state()["opened_event"])


def _prefixed(prefix: str, count: dict) -> dict:
    return {f"{prefix}-{d}": n for d, n in count.items()}


@require_http_methods(["POST"])
@cage_only
def chips_movement(request, operation: str):
    """Sell (``purchase``) or redeem (``redemption``) value chips. At the AML identity threshold
    the service refuses (409); the page then asks for the patron's identity and, once it is
    recorded, makes the same movement."""
    service = {"purchase": chips_purchase, "redemption": chips_redeem}.get(operation)
    if service is None:
        return redirect("workstations:cage")
    user = request.user.get_username()
    patron = (request.POST.get("patron") or "").strip()[:20]
    try:
        cents = forms.amount_cents(request.POST.get("amount"))
        if request.POST.get("identity_name") or request.POST.get("identity_document"):
            patron_identity_record(
                patron=patron,
                name=request.POST.get("identity_name", ""),
                document=request.POST.get("identity_document", ""),
                actor=user,
            )
        result = service(patron=patron, amount_cents=cents, actor=user)
    except IdentityRequired as exc:
        if not exc.recordable:  # the shared anonymous patron: no identity form, register him
            _refused(request, exc)
            return redirect("workstations:cage")
        context = {
            "desk": cage_selectors.cage_desk(user),
            "identity": {
                "operation": operation,
                "patron": patron,
                "amount_cents": cents,
                "typed": forms.typed(cents),  # sent again as typed, unambiguous
                "why": exc.message,
            },
        }
        return render(request, "workstations/cage.html", context, status=409)
    except DomainError as exc:
        _refused(request, exc)
        return redirect("workstations:cage")
    what = "Sold" if operation == "purchase" else "Redeemed"
    messages.success(
        request,
        f"{what} {eur(result['amount_cents'])} of chips, patron {result['patron']} "
        f"(now holds {eur(result['chips_cents'])}).",
    )
    return redirect("workstations:cage")


@require_POST
@cage_only
def issue(request, kind: str, serial: str):
    """Ask to issue a slip to a runner: the same approval as the API's (``approvals`` act
    ``slip_issue``), so the slip stays requested until the runner signs that he carries it."""
    runner = request.POST.get("runner", "")
    try:
        result = approval_request(
            kind="slip_issue",
            payload={"kind": kind, "serial": serial, "runner": runner},
            actor=request.user.get_username(),
        )
    except DomainError as exc:
        _refused(request, exc)
        return redirect("workstations:cage")
    if result.get("approval", {}).get("state") == "pending":
        messages.success(
            request,
            f"{kind.capitalize()} {serial}: waiting for the runner {runner} to confirm he carries it; "
            "it is issued when he does.",
        )
    else:
        messages.success(
            request,
            f"{result['kind'].capitalize()} {result['serial']} issued to {runner} "
            f"for table {result['table']}: {eur(result['amount_cents'])}.",
        )
    return redirect("workstations:cage")


@require_safe
@cage_only
def shift(request, opened_event: int):
    return render(request, "workstations/cage_shift.html", {"report": cage_selectors.shift_report(opened_event)})

"""The pit boss's comp forms on a patron's page: give a comp within what he has earned, or
reverse one given in error (``patrons.services.comps``, as the logged-in pit boss).

Post/redirect/get as the table forms do; a refusal renders the patron's page again with what was
typed and the field at fault named, nothing written, with the refusal's status."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core import typed_amounts
from ledger.errors import DomainError
from patrons.services.comps import comp_give, comp_reverse

from .alerts import eur
from .shift_views import _refused, _typed, pit_boss_only
from .views import patron_context

LABELS = {"kind": "Kind of comp", "amount_cents": "Value", "amount": "Value", "note": "Note", "reason": "Reason"}


def _back(code: str):
    return redirect(reverse("dashboard:patron", kwargs={"code": code}) + "#comps")


def _again(request, code: str, form: str, exc: DomainError):
    context = patron_context(request, code)
    context.update(typed=_typed(request), refused=_refused(exc, form, LABELS))
    return render(request, "dashboard/patron.html", context, status=exc.status)


@require_POST
@pit_boss_only
def comp_give_form(request, code: str):
    """Give the patron a comp: a kind, its value typed in currency units (``12.50``), a note."""
    try:
        amount = typed_amounts.amount_cents(request.POST.get("amount"), field="amount")
        result = comp_give(
            patron=code,
            kind=request.POST.get("kind", ""),
            amount_cents=amount,
            note=request.POST.get("note", ""),
            actor=request.user.get_username(),
        )
    except DomainError as exc:
        return _again(request, code, "comp", exc)
    messages.success(request, f"Comp of {eur(result['amount_cents'])} given; {eur(result['available_cents'])} left.")
    return _back(code)


@require_POST
@pit_boss_only
def comp_reverse_form(request, code: str, position: int):
    """Reverse a comp given in error, with the reason."""
    try:
        result = comp_reverse(
            patron=code, event=position, reason=request.POST.get("reason", ""), actor=request.user.get_username()
        )
    except DomainError as exc:
        return _again(request, code, f"reverse-{position}", exc)
    messages.success(request, f"Comp of {eur(result['amount_cents'])} reversed.")
    return _back(code)

"""The pit boss's outage page (manual fallback, ``cashier.services.outage``): the blank forms to
print ahead, an outage declared (after recovery, or at once when only part of the system is
down) and ended, each coup written on a table's paper form entered as a later entry (asked
through ``approvals``: another pit boss or a cage supervisor approves it from his own login on
the approvals page), each fill or credit written on it likewise (a cage supervisor approves
it), each cash buy-in and each marker (another pit boss or a cage supervisor), and each form
marked entered once its every line is.

As the other forms: post/redirect/get, a refusal shows the page again with what was typed and
the field at fault named, nothing written."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from approvals.services import approval_request
from cashier.outage_forms_pdf import blank_forms_pdf, outage_forms_pdf
from cashier.services.outage import outage_declare, outage_end, outage_list, paper_form_complete
from core import typed_amounts
from core.typed_moments import local_moment
from games.catalog import spec
from games.models import Table
from ledger import outage_forms
from ledger.errors import DomainError, InvalidInput, NotFound

from . import shift_selectors
from .shift_views import _actor, _refused, _typed, pit_boss_only
from .views import pit_boss_required

# The even chances a value chip may be played on (English roulette): the paper's column "Bet".
CHANCES = [("rouge", "Rouge"), ("noir", "Noir"), ("pair", "Pair"), ("impair", "Impair"),
           ("manque", "Manque (1-18)"), ("passe", "Passe (19-36)")]  # fmt: skip
BET_LINES = 6
LABELS = {
    "started_at": "Started",
    "ended_at": "Ended",
    "scope": "Scope",
    "tables": "Tables",
    "reason": "Reason",
    "occurred_at": "Time on the paper",
    "number": "Winning number",
    "bets": "Bets",
    "lines": "Lines on the form",
    "form": "Form",
    "outage": "Outage",
    "kind": "Fill or credit",
    "denominations": "Chips by value",
    "amount_cents": "Total on the paper",
    "signers.requested_by": "Requested by (pit boss)",
    "signers.issued_by": "Issued by (cashier)",
    "signers.runner": "Runner",
    "signers.accepted_by": "Accepted by",
    "signers.approved_by": "Large fill approved by",
    "patron": "Patron",
    "amount": "Cash",
}
SLIP_SIGNERS = ("requested_by", "issued_by", "runner", "accepted_by", "approved_by")


def _layout(game: str | None) -> bool:
    """Whether a table of ``game`` takes a roulette layout's bets (its coups entered here)."""
    return game is not None and spec(game).layout_bets


def _page(request, *, typed: dict | None = None, refused: dict | None = None):
    tables = dict(Table.objects.values_list("code", "game"))
    shown = []
    for each in outage_list():
        found = outage_forms.outage(each["outage"])
        shown.append(
            each
            | {
                "started": found.started_at,
                "ended": found.ended_at,
                "forms": [form | {"roulette": _layout(tables.get(form["table"]))} for form in each["forms"]],
            }
        )
    context = {
        "outages": shown,
        "chances": CHANCES,
        "bet_lines": range(1, BET_LINES + 1),
        "denominations": shift_selectors.denominations(),
        "typed": typed or {},
        "refused": refused,
    }
    return render(request, "dashboard/outages.html", context, status=refused["status"] if refused else 200)


@pit_boss_required
def outages(request):
    """The outages declared, their forms, and the forms to declare, enter and complete."""
    return _page(request)


def _act(request, form: str, run, success, labels: dict = LABELS) -> HttpResponse:
    try:
        result = run()
    except DomainError as exc:
        return _page(request, typed=_typed(request), refused=_refused(exc, form, labels))
    messages.success(request, success(result))
    return redirect(reverse("dashboard:outages") + f"#{form}")


@require_POST
@pit_boss_only
def declare(request):
    """Declare an outage (``outage_declare``): its forms are listed with their serials."""

    def run():
        ended = (request.POST.get("ended_at") or "").strip()
        tables = [code.strip() for code in (request.POST.get("tables") or "").split(",") if code.strip()]
        return outage_declare(
            started_at=local_moment(request.POST.get("started_at"), "started_at"),
            ended_at=local_moment(ended, "ended_at") if ended else None,
            scope=(request.POST.get("scope") or "site").strip(),
            tables=tables or None,
            reason=(request.POST.get("reason") or "").strip(),
            actor=_actor(request),
        )

    return _act(
        request,
        "declare",
        run,
        lambda r: f"Outage {r['outage']} declared: print its forms ({', '.join(f['form'] for f in r['forms'])}).",
    )


@require_POST
@pit_boss_only
def end(request, outage: str):
    return _act(
        request,
        f"end-{outage}",
        lambda: outage_end(
            outage=outage, ended_at=local_moment(request.POST.get("ended_at"), "ended_at"), actor=_actor(request)
        ),
        lambda r: f"Outage {r['outage']} ended: enter its paper forms.",
    )


def _bets(request) -> list[dict]:
    bets = []
    for n in range(1, BET_LINES + 1):
        patron = (request.POST.get(f"patron-{n}") or "").strip()
        stake = (request.POST.get(f"stake-{n}") or "").strip()
        if not patron and not stake:
            continue
        field = f"bets[{n - 1}].stake_cents"
        bets.append(
            {
                "patron": patron,
                "stake_cents": typed_amounts.amount_cents(stake, field=field),
                "bet": {"type": "chance_simple", "chance": (request.POST.get(f"chance-{n}") or "").strip()},
            }
        )
    return bets


@require_POST
@pit_boss_only
def paper_coup(request, outage: str, form: str):
    """A coup written on the form: asked as a later entry, approved by a second login."""

    def run():
        number = (request.POST.get("number") or "").strip()
        if not (number.isascii() and number.isdigit()) or int(number) > 36:
            raise InvalidInput("the winning number, 0 to 36", field="number")
        return approval_request(
            kind="paper_coup_enter",
            payload={
                "outage": outage,
                "form": form,
                "occurred_at": local_moment(request.POST.get("occurred_at"), "occurred_at").isoformat(),
                "bets": _bets(request),
                "number": int(number),
            },
            actor=_actor(request),
        )

    return _act(
        request,
        f"coup-{form}",
        run,
        lambda r: (
            f"Coup of form {form} asked as a later entry: it waits for a second pit boss or a cage "
            "supervisor to approve it from his own login."
        ),
    )


@require_POST
@pit_boss_only
def paper_slip(request, outage: str, form: str):
    """A fill or credit written on a table's form, with the names of those who signed it: asked
    as a later entry, approved by a cage supervisor from his own login."""

    def run():
        total = (request.POST.get("amount") or "").strip()
        signers = {who: (request.POST.get(who) or "").strip() for who in SLIP_SIGNERS}
        if not signers["approved_by"]:
            del signers["approved_by"]
        return approval_request(
            kind="paper_slip_enter",
            payload={
                "outage": outage,
                "form": form,
                "occurred_at": local_moment(request.POST.get("occurred_at"), "occurred_at").isoformat(),
                "kind": (request.POST.get("kind") or "").strip(),
                "denominations": typed_amounts.count(
                    request.POST, f"paper-{form}", shift_selectors.denominations(), field="denominations"
                ),
                "signers": signers,
                **({"amount_cents": typed_amounts.amount_cents(total, field="amount_cents")} if total else {}),
            },
            actor=_actor(request),
        )

    return _act(
        request,
        f"slip-{form}",
        run,
        lambda r: (
            f"{(request.POST.get('kind') or 'slip').capitalize()} of form {form} asked as a later entry: "
            "waiting for approval by a second login (a cage supervisor)."
        ),
    )


@require_POST
@pit_boss_only
def paper_buy_in(request, outage: str, form: str):
    """A cash buy-in written on a table's form: asked as a later entry, approved by a second login."""

    def run():
        return approval_request(
            kind="paper_buy_in_enter",
            payload={
                "outage": outage,
                "form": form,
                "occurred_at": local_moment(request.POST.get("occurred_at"), "occurred_at").isoformat(),
                "patron": (request.POST.get("patron") or "").strip(),
                "amount_cents": typed_amounts.amount_cents(request.POST.get("amount"), field="amount"),
            },
            actor=_actor(request),
        )

    return _act(
        request,
        f"buy-in-{form}",
        run,
        lambda r: (
            f"Buy-in of form {form} asked as a later entry: waiting for approval by a second login "
            "(another pit boss or a cage supervisor)."
        ),
        LABELS | {"amount_cents": "Cash"},
    )


@require_POST
@pit_boss_only
def paper_marker(request, outage: str, form: str):
    """A marker written on a table's form: asked as a later entry, approved by a second login."""

    def run():
        return approval_request(
            kind="paper_marker_enter",
            payload={
                "outage": outage,
                "form": form,
                "occurred_at": local_moment(request.POST.get("occurred_at"), "occurred_at").isoformat(),
                "patron": (request.POST.get("patron") or "").strip(),
                "amount_cents": typed_amounts.amount_cents(request.POST.get("amount"), field="amount"),
                "issued_by": (request.POST.get("issued_by") or "").strip(),
            },
            actor=_actor(request),
        )

    return _act(
        request,
        f"marker-{form}",
        run,
        lambda r: (
            f"Marker of form {form} asked as a later entry: waiting for approval by a second login "
            "(another pit boss or a cage supervisor)."
        ),
        LABELS | {"amount_cents": "Amount", "issued_by": "Issued by (pit boss)"},
    )


@require_POST
@pit_boss_only
def complete(request, outage: str, form: str):
    def run():
        lines = (request.POST.get("lines") or "").strip()
        if not (lines.isascii() and lines.isdigit()):
            raise InvalidInput("the number of lines written on the form", field="lines")
        return paper_form_complete(outage=outage, form=form, lines=int(lines), actor=_actor(request))

    return _act(request, f"complete-{form}", run, lambda r: f"Form {form} entered.")


def _pdf(body: bytes, name: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@pit_boss_required
def blank_forms(request):
    """Blank forms to print ahead: one page for every table, one for the cage."""
    return _pdf(blank_forms_pdf(), "outage-forms-blank.pdf")


@pit_boss_required
def forms_of(request, outage: str):
    found = outage_forms.outage(outage)
    if found is None:
        raise NotFound(f"no outage {outage}", field="outage")
    return _pdf(outage_forms_pdf(found), f"outage-{found.id}-forms.pdf")

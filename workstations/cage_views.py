"""The cage workstation: the cashier's and the cage supervisor's screens.

Each form posts to a view that calls the same ``cashier`` / ``patrons`` / ``approvals`` service
as the API, as the logged-in user. A refusal (``DomainError``) renders the page again with what
was typed still in the form and the field at fault named beside it; nothing is written.

Each rendered form carries its own idempotency key (hidden ``idempotency_key``), used as the
ledger command's key as the API uses ``Idempotency-Key``: a double click or a form sent again
records one transaction, and the page says it was already recorded. Post/redirect/get after a
success: a reload never repeats a sale.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from approvals.services import approval_confirm, approval_reject, approval_request
from cashier.services.cage import chips_purchase, chips_redeem
from cashier.services.cage_shifts import (
    foreign_currencies,
    open_windows,
    window_book,
    window_cashier,
    window_foreign_book,
    window_of,
)
from cashier.services.credit import credit_line_set, front_money_deposit, front_money_withdraw, marker_pay
from cashier.services.foreign_exchange import exchange_rate_set, foreign_exchange, format_foreign
from cashier.services.outage import paper_form_complete
from cashier.services.slips import slip_accept
from core import typed_amounts
from core.denominations import cash_denominations, chip_denominations
from core.typed_moments import local_moment
from games.rules.event_words import aml_line
from ledger.accounts import ANONYMOUS_PATRON
from ledger.commands import replays_noted
from ledger.errors import DomainError, IdempotencyKeyReused, InvalidInput
from patrons.services.aml import IdentityRequired, patron_identity_record
from patrons.services.patrons import patron_register_identified
from patrons.services.self_limit import patron_pin_set, self_limit_set
from staff.roles import Role, RoleRequired

from . import cage_selectors
from .access import CAGE_ROLES, roles_required
from .templatetags.workstation_tags import eur, local

cage_only = roles_required(*CAGE_ROLES, place="cage")
supervisor_only = roles_required(Role.CAGE_SUPERVISOR, place="cage")

# The page's forms that carry a key and keep their values on a refusal.
FORMS = (
    "open",
    "close",
    "close_other",
    "sell",
    "redeem",
    "transfer",
    "register",
    "identity",
    "pin",
    "pin_reset",
    "self_limit",
    "exchange",
    "rate",
    "paper",
    "paper_complete",
    "deposit",
    "withdraw",
    "credit_line",
)

# The form's own words for a refusal's field (the service names it as the API does).
FIELD_LABELS = {
    "amount_cents": "Amount",
    "amount": "Amount",
    "patron": "Patron code",
    "shift": "Cashier window",
    "cage": "Cage",
    "cash": "Cash count",
    "chips": "Chip count",
    "count": "Chips counted",
    "runner": "Runner",
    "serial": "Slip",
    "kind": "Slip",
    "variance_reason": "Reason for a variance",
    "handover_to": "Hand over to",
    "cashier": "Cashier",
    "name": "Full name",
    "document": "Identity document",
    "pin": "Patron's PIN",
    "max_bet_cents": "New maximum bet",
    "reason": "Reason",
    "event": "Transaction",
    "direction": "Direction",
    "approver": "Cage supervisor",
    "approval": "Approval",
    "idempotency_key": "Form",
    "currency": "Currency",
    "foreign_cents": "Amount",
    "occurred_at": "Time on the paper",
    "transaction": "Sale or redemption",
    "form": "Paper form",
    "outage": "Outage",
    "lines": "Lines written on the form",
    "paid_in": "Paid in",
    "rate": "Rate",
    "foreign": "Foreign banknotes counted",
    "method": "Paid in",
    "limit_cents": "Credit limit",
    "limit": "Credit limit",
}

# Where a service's field is typed on the page: the input (or count table) to mark.
INPUTS = {
    "amount_cents": "amount",
    "foreign_cents": "amount",
    "identity_name": "name",
    "identity_document": "document",
    "limit_cents": "limit",
}


def field_label(field: str) -> str:
    return FIELD_LABELS.get(field) or field.replace("_", " ").capitalize()


def _key() -> str:
    return f"cage-{uuid.uuid4()}"


def _posted_key(request) -> str | None:
    return (request.POST.get("idempotency_key") or "").strip() or None


def _refusal(exc: DomainError) -> dict:
    """``{"field": the input at fault or None, "label", "message"}`` for the page."""
    field = getattr(exc, "field", None)
    if isinstance(exc, RoleRequired) or not field:
        return {"field": None, "label": "", "message": f"Refused: {exc.message}"}
    return {"field": INPUTS.get(field, field), "label": field_label(field), "message": exc.message}


def _failed(request, form: str, exc: DomainError) -> dict:
    """The form ``form`` as it was sent, with the refusal: the page renders it again."""
    # Never a PIN back into a page: the patron types it again.
    values = {k: v for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "idempotency_key", "pin")}
    key = _posted_key(request)
    if isinstance(exc, IdempotencyKeyReused) or key is None:
        key = _key()  # this form's key already recorded other values: a new one for the corrected form
    error = _refusal(exc)
    if isinstance(exc, IdempotencyKeyReused):
        error = {
            "field": None,
            "label": "",
            "message": "This form was already sent and recorded with other values; "
            "check the figures and send it again.",
        }
    return {"form": form, "key": key, "values": values, "error": error}


def _page(request, *, status: int = 200, failed: dict | None = None, **extra):
    """The cage page for the logged-in user; ``failed``: the refused form to show again."""
    desk = cage_selectors.cage_desk(request.user.get_username(), query=request.GET.get("q"))
    form_states = {name: {"key": _key(), "values": {}, "error": None} for name in FORMS}
    for row in desk["queue"]:
        row["key"] = _key()
    for line in desk["lines"]:
        line["key"] = _key()
    for row in desk["approvals"] + desk["closes"]["to_sign"] + desk["markers"]:
        row["key"] = _key()
    row_failure = None
    shown = (
        {"sell", "redeem", "deposit", "withdraw", "transfer", "close", "exchange", "paper"}
        if desk["window"]
        else {"open"}
    )
    shown |= {"rate", "paper_complete", "credit_line"} if desk["supervises"] else set()
    shown |= {"register", "identity", "pin", "pin_reset", "self_limit"} | (
        {"close_other"} if desk["supervises"] and desk["windows"] else set()
    )
    if failed is not None and failed["form"] in FORMS and failed["form"] not in shown:
        messages.error(request, f"Not recorded. {_words(failed['error'])}")  # its form is not on the page
    if failed is not None:
        if failed["form"] in form_states:
            form_states[failed["form"]] = failed
        else:
            row_failure = failed  # a line's or a slip's own form
    typed = form_states["close"]["values"]
    for held in desk["fx"]["window"]:  # the foreign counts as typed in a refused close
        held["typed"] = typed.get(f"foreign_{held['currency']}", "")
    context = {"desk": desk, "forms": form_states, "row_failure": row_failure, **extra}
    return render(request, "workstations/cage.html", context, status=status)


# What the cashier does about each AML decision a transaction brought.
AML_NEXT = {
    "AmlIdentityChecked": "His identity on file was checked: see that the document he shows is the one recorded.",
    "AmlTransactionLogged": "It is entered in the multiple-transaction log.",
    "AmlAggregateFlagged": "The patron is flagged for a report: the compliance officer sees it in the exception log.",
}


def _aml_notices(request, result: dict, *, key: str | None, replayed: set[str]) -> None:
    """Tell the cashier, as she records it, each AML threshold the transaction reached (its
    service's ``aml``: ``patrons.services.aml.decisions_result``) — once, not on a form sent again."""
    if key is not None and key in replayed:
        return
    for decision in result.get("aml") or []:
        line = aml_line(decision["type"], decision) or decision["type"]
        messages.warning(
            request, f"AML, patron {decision.get('patron', '')}: {line}. {AML_NEXT.get(decision['type'], '')}".strip()
        )


def _done(request, message: str, *, key: str | None, replayed: set[str], again: str) -> None:
    """Say what was recorded, or that the form had already been recorded (``again``)."""
    if key is not None and key in replayed:
        messages.info(request, f"Already recorded: {again}. The form was sent more than once; it counts once.")
    else:
        messages.success(request, message)


@require_safe
@cage_only
def cage(request):
    return _page(request)


@require_POST
@cage_only
def shift_open(request):
    """Open the cashier's own window with its imprest counted (cash and chips by denomination);
    after a window was handed over to her, a count that differs from the one handed over needs
    its reason (the service's 400, the form kept), and one off by more than the variance
    threshold waits for a cage supervisor to verify it from his own login (``approvals`` act
    ``cage_shift_open``): the window opens when he signs."""
    key = _posted_key(request)
    user = request.user.get_username()
    try:
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        chips = typed_amounts.count(request.POST, "chips", chip_denominations())
        reason = (request.POST.get("variance_reason") or "").strip() or None
        payload = {"cash": cash, "chips": chips, "cashier": user} | ({"variance_reason": reason} if reason else {})
        with replays_noted() as replayed:
            result = approval_request(kind="cage_shift_open", payload=payload, actor=user, idempotency_key=key)
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "open", exc))
    if result.get("approval", {}).get("state") == "pending":
        counted = _total(cash) + _total(chips)
        _done(
            request,
            f"Your count of {eur(counted)} is off the count handed over to you by more than the variance "
            "threshold: a cage supervisor other than you verifies it from his own login; your window opens "
            "when he signs.",
            key=key,
            replayed=replayed,
            again="the opening of your window was already asked",
        )
        return redirect("workstations:cage")
    handover = result.get("handover_variance_cents")
    _done(
        request,
        f"Window {result['window']} opened: imprest counted in {eur(result['counted_cents'])}"
        + ("." if handover is None else f", {eur(handover)} against the count handed over to you."),
        key=key,
        replayed=replayed,
        again=f"window {result['window']} opened with {eur(result['counted_cents'])}",
    )
    return redirect("workstations:cage")


@require_POST
@cage_only
def shift_close(request):
    """Close a window with its drawer counted: the cashier's own, or (a cage supervisor) the
    window of the cashier named in ``cashier``. A count that differs from the drawer needs a
    reason: the form comes back with the count kept (nothing written) until one is given.

    Handed over to an incoming cashier (``handover_to``), the close is asked through
    ``approvals`` (act ``cage_shift_close``): it waits for him to confirm from his own login (on
    his cage page) and the window closes then; the name picked here is not his signature.
    Without one (the end of the day) it closes at once."""
    user = request.user.get_username()
    cashier = (request.POST.get("cashier") or "").strip() or None
    form = "close_other" if cashier and cashier != user else "close"
    key = _posted_key(request)
    try:
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        chips = typed_amounts.count(request.POST, "chips", chip_denominations())
        reason = (request.POST.get("variance_reason") or "").strip()
        foreign = _foreign_count(request.POST)
        opened = open_windows().get(cashier or user)
        window = window_of(opened)
        if opened is not None and window is not None:
            counted = _total(cash) + _total(chips)
            book = window_book(window)
            drawer = book["cash_cents"] + book["chips_cents"]
            if counted != drawer and not reason:
                raise InvalidInput(
                    f"the count ({eur(counted)}) differs from the drawer ({eur(drawer)}) by "
                    f"{eur(counted - drawer)}: give the reason for the variance, then close again",
                    field="variance_reason",
                )
            for code, held in window_foreign_book(window).items():
                if code in foreign and foreign[code] != held and not reason:
                    raise InvalidInput(
                        f"the {code} banknotes counted ({format_foreign(foreign[code], code)}) differ from the "
                        f"drawer's {format_foreign(held, code)}: give the reason for the variance, then close again",
                        field="variance_reason",
                    )
        handover = (request.POST.get("handover_to") or "").strip() or None
        payload = {"cash": cash, "chips": chips, "cashier": window_cashier(user, cashier)}
        payload |= {"foreign": foreign} if foreign else {}
        payload |= {"handover_to": handover} if handover else {}
        payload |= {"variance_reason": reason} if reason else {}
        with replays_noted() as replayed:
            result = approval_request(kind="cage_shift_close", payload=payload, actor=user, idempotency_key=key)
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, form, exc))
    if result.get("approval", {}).get("state") == "pending":
        who = f"{handover} confirms the handover" if handover else "a cage supervisor verifies the variance"
        _done(
            request,
            f"Closing asked, counted {eur(_total(cash) + _total(chips))}: the window "
            f"stays open until {who} from his own login; it closes when he does.",
            key=key,
            replayed=replayed,
            again=f"the closing was already asked of {handover or 'a cage supervisor'}",
        )
        return redirect("workstations:cage")
    _done(
        request,
        f"Window {result['window'] or 'of the cage'} closed: counted {eur(result['counted_cents'])}, drawer "
        f"{eur(result['expected_cents'])}, variance {eur(result['variance_cents'])}.",
        key=key,
        replayed=replayed,
        again=f"the window was closed, counted {eur(result['counted_cents'])}",
    )
    return redirect("workstations:cage-shift", opened_event=result["opened_event"])


def _foreign_count(posted) -> dict[str, int]:
    """The foreign banknotes counted at a close, typed per currency in its units
    (``foreign_<CUR>``): ``{currency: hundredths}``, the currencies typed only; "0" is none."""
    counts = {}
    for code in foreign_currencies():
        text = (posted.get(f"foreign_{code}") or "").strip()
        if text:
            zero = re.fullmatch(r"0+(?:[.,]0{1,2})?", text) is not None
            counts[code] = 0 if zero else typed_amounts.amount_cents(text, field="foreign")
    return counts


def _patron_words(code: str) -> str:
    """``patron P00012``, or ``an unnamed patron`` for the house's shared unrated one."""
    return "an unnamed patron" if code == ANONYMOUS_PATRON else f"patron {code}"


@require_POST
@cage_only
def foreign_exchange_view(request):
    """Buy a patron's foreign banknotes at the cashier's window at the rate of the day: the
    amount typed in the currency's units, the house value paid in chips or cash (rounded down,
    the remainder kept on the event). No rate of the day: the page says so (409)."""
    key = _posted_key(request)
    patron = (request.POST.get("patron") or "").strip()[:20] or None
    currency = (request.POST.get("currency") or "").strip()[:3]
    try:
        cents = typed_amounts.amount_cents(request.POST.get("amount"), field="foreign_cents")
        with replays_noted() as replayed:
            result = foreign_exchange(
                currency=currency,
                foreign_cents=cents,
                paid_in=request.POST.get("paid_in", ""),
                patron=patron,
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "exchange", exc))
    bought = format_foreign(result["foreign_cents"], result["currency"])
    paid = f"{eur(result['house_cents'])} in {'chips' if result['paid_in'] == 'chips' else 'cash'}"
    kept = result["rounding_remainder_cents"]
    _done(
        request,
        f"Bought {bought} at {result['rate']}: paid {paid}, {_patron_words(result['patron'])}"
        + (f" (rounded down: {kept} of a cent kept by the house)." if kept != "0" else "."),
        key=key,
        replayed=replayed,
        again=f"the exchange of {bought}, {_patron_words(result['patron'])}",
    )
    _aml_notices(request, result, key=key, replayed=replayed)
    return redirect("workstations:cage")


@require_POST
@supervisor_only
def exchange_rate(request):
    """Record the cage's buying rate of a foreign currency for the gaming day (a cage
    supervisor): house units for one unit of it, typed as an exact decimal."""
    key = _posted_key(request)
    try:
        with replays_noted() as replayed:
            result = exchange_rate_set(
                currency=(request.POST.get("currency") or "").strip()[:3],
                rate=(request.POST.get("rate") or "").strip()[:20],
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "rate", exc))
    words = f"1 {result['currency']} = {result['rate']} {result['house_currency']}"
    _done(
        request,
        f"Buying rate of the day recorded: {words}.",
        key=key,
        replayed=replayed,
        again=f"the rate {words}",
    )
    return redirect("workstations:cage")


@dataclass(frozen=True)
class _Movement:
    """One of the window's cash movements for a patron: the service, the page's form, and
    its words (the noun for the identity prompt, the verb for its button)."""

    service: Callable[..., dict]
    form: str
    noun: str
    verb: str


# The operations the page posts to ``cage-chips``: value chips sold or redeemed, front money
# left at the cage or taken back. All four are cash at the window for the AML rules.
MOVEMENTS = {
    "purchase": _Movement(chips_purchase, "sell", "chip sale", "sell"),
    "redemption": _Movement(chips_redeem, "redeem", "chip redemption", "redeem"),
    "front-money-deposit": _Movement(front_money_deposit, "deposit", "front money deposit", "take the deposit"),
    "front-money-withdrawal": _Movement(front_money_withdraw, "withdraw", "front money withdrawal", "pay it out"),
}


def _movement_words(operation: str, result: dict) -> tuple[str, str]:
    """What the cashier reads once ``operation`` is recorded, and what a form sent twice says."""
    amount, patron = eur(result["amount_cents"]), result["patron"]
    if operation == "purchase":
        return f"Sold {amount} of chips, patron {patron} (now holds {eur(result['chips_cents'])}).", (
            f"the sale of {amount} of chips, patron {patron}"
        )
    if operation == "redemption":
        return f"Redeemed {amount} of chips, patron {patron} (now holds {eur(result['chips_cents'])}).", (
            f"the redemption of {amount} of chips, patron {patron}"
        )
    held = eur(result["balance_cents"])
    if operation == "front-money-deposit":
        return f"Front money: {amount} in cash deposited by patron {patron} (his deposit now {held}).", (
            f"the front money deposit of {amount}, patron {patron}"
        )
    return f"Front money: {amount} in cash paid back to patron {patron} (his deposit now {held}).", (
        f"the front money withdrawal of {amount}, patron {patron}"
    )


@require_POST
@cage_only
def chips_movement(request, operation: str):
    """Sell (``purchase``: a cash buy-in at the cage) or redeem (``redemption``) value chips at
    the cashier's window, or take a patron's front money (``front-money-deposit``: cash left
    at the cage for his play) or pay it back (``front-money-withdrawal``). At the AML identity
    threshold the service refuses (409); the page then asks for the patron's identity and,
    once it is recorded, makes the same movement."""
    movement = MOVEMENTS.get(operation)
    if movement is None:
        return redirect("workstations:cage")
    form = movement.form
    user = request.user.get_username()
    patron = (request.POST.get("patron") or "").strip()[:20]
    key = _posted_key(request)
    with_identity = bool(request.POST.get("identity_name") or request.POST.get("identity_document"))
    try:
        cents = typed_amounts.amount_cents(request.POST.get("amount"))
        if with_identity:
            patron_identity_record(
                patron=patron,
                name=request.POST.get("identity_name", ""),
                document=request.POST.get("identity_document", ""),
                actor=user,
            )
        with replays_noted() as replayed:
            result = movement.service(patron=patron, amount_cents=cents, actor=user, idempotency_key=key)
    except IdentityRequired as exc:
        if not exc.recordable:  # the shared anonymous patron: no identity form, register him
            return _page(request, status=exc.status, failed=_failed(request, form, exc))
        identity = {
            "operation": operation,
            "noun": movement.noun,
            "verb": movement.verb,
            "patron": patron,
            "amount_cents": cents,
            "typed": typed_amounts.typed(cents),  # sent again as typed, unambiguous
            "why": exc.message,
            "key": key or _key(),
        }
        return _page(request, status=409, identity=identity)
    except DomainError as exc:
        if with_identity and request.POST.get("amount"):
            # The identity prompt again, with the name and document as typed and the field at fault.
            failed = _failed(request, "identity", exc)
            identity = {
                "operation": operation,
                "noun": movement.noun,
                "verb": movement.verb,
                "patron": patron,
                "typed": request.POST.get("amount", ""),
                "amount_text": request.POST.get("amount", ""),
                "why": "",
                "key": failed["key"],
                "values": failed["values"],
                "error": failed["error"],
            }
            return _page(request, status=exc.status, identity=identity)
        return _page(request, status=exc.status, failed=_failed(request, form, exc))
    message, again = _movement_words(operation, result)
    _done(request, message, key=key, replayed=replayed, again=again)
    _aml_notices(request, result, key=key, replayed=replayed)
    return redirect("workstations:cage")


@require_POST
@cage_only
def patron_register(request):
    """Register a patron with the identity the AML rules ask for (name, identity document); the
    page then shows him found, ready for a sale."""
    key = _posted_key(request)
    try:
        with replays_noted() as replayed:
            result = patron_register_identified(
                name=request.POST.get("name", ""),
                document=request.POST.get("document", ""),
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "register", exc))
    name = request.POST.get("name", "").strip()
    _done(
        request,
        f"Patron {result['patron']} registered: {name}, identity document on file.",
        key=key,
        replayed=replayed,
        again=f"patron {result['patron']} was registered",
    )
    return redirect(f"{reverse('workstations:cage')}?{urlencode({'q': result['patron']})}#patrons")


@require_POST
@cage_only
def patron_pin(request):
    """The patron chooses his PIN at the cage, his identity document shown (``patron_pin_set``:
    the number read off the document must be the one on file). He types it himself; the page
    never shows it again, nor keeps it in a refused form."""
    key = _posted_key(request)
    code = request.POST.get("patron", "").strip()
    try:
        with replays_noted() as replayed:
            patron_pin_set(
                patron=code,
                pin=request.POST.get("pin", ""),
                document=request.POST.get("document", ""),
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "pin", exc))
    _done(request, f"PIN of patron {code} set.", key=key, replayed=replayed, again=f"the PIN of {code} was set")
    return redirect(f"{reverse('workstations:cage')}?{urlencode({'q': code})}#patrons")


@require_POST
@cage_only
def patron_pin_reset(request):
    """Ask for a patron's PIN to be cleared (forgotten, or locked by wrong PINs): a cage
    supervisor other than the one asking confirms from his own login (``approvals`` act
    ``patron_pin_reset``); the patron then chooses a new one, his document shown."""
    key = _posted_key(request)
    code = request.POST.get("patron", "").strip()
    try:
        with replays_noted() as replayed:
            approval_request(
                kind="patron_pin_reset",
                payload={"patron": code},
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "pin_reset", exc))
    _done(
        request,
        f"PIN reset of patron {code} asked: a cage supervisor confirms it from his own login; then the patron "
        "chooses a new PIN, his document shown.",
        key=key,
        replayed=replayed,
        again=f"the PIN reset of {code} was already asked",
    )
    return redirect(f"{reverse('workstations:cage')}?{urlencode({'q': code})}#patrons")


@require_POST
@cage_only
def patron_self_limit(request):
    """The patron changes his own maximum bet (sheet 002), confirmed with his PIN, which he types
    himself: a lower limit is in force at once, a higher one from the next weekly reset (Friday
    00:00 at GMT-5), once a week (``self_limit_set``)."""
    key = _posted_key(request)
    code = request.POST.get("patron", "").strip()
    try:
        cents = typed_amounts.amount_cents(request.POST.get("amount"))
        with replays_noted() as replayed:
            result = self_limit_set(
                patron=code,
                max_bet_cents=cents,
                pin=request.POST.get("pin", ""),
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "self_limit", exc))
    if result.get("pending_max_bet_cents") is not None:
        said = (
            f"Self-limit of patron {code}: {eur(result['pending_max_bet_cents'])} from the weekly reset "
            f"({local(result['pending_from'])}); {eur(result['max_bet_cents'])} until then."
        )
    else:
        said = f"Self-limit of patron {code}: {eur(result['max_bet_cents'])}, in force now."
    _done(request, said, key=key, replayed=replayed, again=f"the self-limit of {code} was changed")
    return redirect(f"{reverse('workstations:cage')}?{urlencode({'q': code})}#patrons")


@require_POST
@cage_only
def issue(request, kind: str, serial: str):
    """Ask to issue a slip to a runner: the same approval as the API's (``approvals`` act
    ``slip_issue``), so the slip stays requested until the runner signs that he carries it;
    the chips of a fill then leave the window for "in transit"."""
    runner = request.POST.get("runner", "")
    key = _posted_key(request)
    try:
        with replays_noted() as replayed:
            result = approval_request(
                kind="slip_issue",
                payload={"kind": kind, "serial": serial, "runner": runner},
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        failed = _failed(request, f"issue-{kind}-{serial}", exc)
        messages.error(request, f"{kind.capitalize()} {serial} not issued. {_words(failed['error'])}")
        return _page(request, status=exc.status, failed=failed)
    if result.get("approval", {}).get("state") == "pending":
        message = (
            f"{kind.capitalize()} {serial} prepared: waiting for the runner {runner} to confirm he carries it; "
            "it is issued when he does."
        )
    else:
        message = (
            f"{result['kind'].capitalize()} {result['serial']} issued to {runner} "
            f"for table {result['table']}: {eur(result['amount_cents'])}."
        )
    _done(request, message, key=key, replayed=replayed, again=f"the {kind} {serial} was already prepared")
    return redirect("workstations:cage")


@require_POST
@cage_only
def credit_receive(request, serial: str):
    """Receive a credit the runner brought from a table: the cashier counts the chips by
    denomination and the count must be the slip's (``slip_accept``); they go into her drawer."""
    key = _posted_key(request)
    prefix = f"count-{serial}"
    try:
        counted = typed_amounts.count(request.POST, prefix, chip_denominations(), field="count")
        with replays_noted() as replayed:
            result = slip_accept(
                kind="credit", serial=serial, count=counted, actor=request.user.get_username(), idempotency_key=key
            )
    except DomainError as exc:
        failed = _failed(request, f"receive-credit-{serial}", exc)
        if failed["error"]["field"] != "count":  # not about the count typed: said at the top
            messages.error(request, f"Credit {serial} not received. {_words(failed['error'])}")
        return _page(request, status=exc.status, failed=failed)
    _done(
        request,
        f"Credit {result['serial']} from table {result['table']} received and counted: "
        f"{eur(result['amount_cents'])} of chips into your drawer.",
        key=key,
        replayed=replayed,
        again=f"credit {serial} was already received",
    )
    return redirect("workstations:cage")


def _total(count: dict) -> int:
    return sum(int(d) * n for d, n in count.items())


def _words(error: dict) -> str:
    return f"{error['label']}: {error['message']}" if error.get("label") else error["message"]


def _ask_with_reason(request, *, kind: str, payload: dict, form: str, failed_with: dict, words: dict, back: str):
    """Ask for approvals act ``kind`` about ``payload`` with the reason typed in the form (blank:
    400 on ``reason``, ``words["missing"]``). A refusal about the reason shows under the form
    ``form``; any other one at the top, after ``words["refused"]``. Done: ``words["asked"]``
    (``words["again"]`` when the same form was already sent) and back to ``back``."""
    key = _posted_key(request)
    reason = (request.POST.get("reason") or "").strip()
    try:
        if not reason:
            raise InvalidInput(words["missing"], field="reason")
        with replays_noted() as replayed:
            approval_request(
                kind=kind, payload=payload | {"reason": reason}, actor=request.user.get_username(), idempotency_key=key
            )
    except DomainError as exc:
        failed = _failed(request, form, exc) | failed_with
        if failed["error"]["field"] != "reason":  # not about what was typed: said at the top
            messages.error(request, f"{words['refused']} {_words(failed['error'])}")
            failed["error"] = None
        return _page(request, status=exc.status, failed=failed)
    _done(request, words["asked"], key=key, replayed=replayed, again=words["again"])
    return redirect(back)


@require_POST
@cage_only
def reverse_line(request, event: int):
    """Ask for the reversal of a line of the cashier's window: a cage supervisor approves it from
    his own login (``approvals`` act ``cage_transaction_reverse``)."""
    return _ask_with_reason(
        request,
        kind="cage_transaction_reverse",
        payload={"event": event},
        form=f"reverse-{event}",
        failed_with={"event": event},
        words={
            "missing": "say why the line is wrong",
            "refused": "Reversal not asked.",
            "asked": "Reversal asked: a cage supervisor approves it from his own login; "
            "the line is reversed when he does.",
            "again": "the reversal was already asked",
        },
        back=reverse("workstations:cage"),
    )


@require_POST
@cage_only
def marker_void(request, serial: str):
    """Ask for the void of a marker issued in error, with its reason: a cage supervisor other
    than the one asking signs it from his own login (``approvals`` act ``marker_void``); the
    marker's issue is reversed when he does."""
    return _ask_with_reason(
        request,
        kind="marker_void",
        payload={"serial": serial},
        form=f"void-{serial}",
        failed_with={"serial": serial},
        words={
            "missing": "say why the marker was issued in error",
            "refused": f"Void of marker {serial} not asked.",
            "asked": f"Void of marker {serial} asked: a cage supervisor other than you signs it from his own "
            "login; the marker is voided when he does.",
            "again": f"the void of marker {serial} was already asked",
        },
        back=f"{reverse('workstations:cage')}#markers",
    )


MARKER_PAYMENT_WORDS = {"cash": "in cash", "chips": "in value chips", "front_money": "from his front money"}


@require_POST
@cage_only
def marker_payment(request, serial: str):
    """Take a payment on a marker owed at the cage (``credit.marker_pay``), in cash, in the
    patron's value chips or from his front money; cash and chips enter the cashier's own
    window. The last payment settles the marker. A refusal shows the row's form again."""
    key = _posted_key(request)
    method = request.POST.get("method", "")
    form = f"pay-{serial}"
    try:
        cents = typed_amounts.amount_cents(request.POST.get("amount"))
        with replays_noted() as replayed:
            result = marker_pay(
                serial=serial, amount_cents=cents, method=method, actor=request.user.get_username(), idempotency_key=key
            )
    except DomainError as exc:
        failed = _failed(request, form, exc) | {"pay": serial}
        return _page(request, status=exc.status, failed=failed)
    how = MARKER_PAYMENT_WORDS.get(method, method)
    owed = result["outstanding_cents"]
    _done(
        request,
        f"Marker {serial} of patron {result['patron']}: {eur(cents)} paid {how}; "
        + (f"{eur(owed)} still owed." if owed else "the marker is settled."),
        key=key,
        replayed=replayed,
        again=f"the payment of {eur(cents)} on marker {serial}",
    )
    _aml_notices(request, result, key=key, replayed=replayed)
    return redirect(f"{reverse('workstations:cage')}#markers")


@require_POST
@supervisor_only
def credit_line(request):
    """Approve a patron's credit line, change its limit, or close it to new markers (limit 0):
    a cage supervisor's act (``credit.credit_line_set``), recorded in his name."""
    key = _posted_key(request)
    patron = (request.POST.get("patron") or "").strip()[:20]
    try:
        cents = typed_amounts.amount_cents(request.POST.get("limit"), field="limit", zero=True)
        with replays_noted() as replayed:
            result = credit_line_set(
                patron=patron, limit_cents=cents, actor=request.user.get_username(), idempotency_key=key
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "credit_line", exc))
    before = "none" if result["before"] is None else eur(result["before"])
    _done(
        request,
        f"Credit line of patron {result['patron']}: {eur(result['after'])} (before: {before}); "
        f"{eur(result['outstanding_cents'])} owed on his markers.",
        key=key,
        replayed=replayed,
        again=f"the credit line of patron {result['patron']} at {eur(result['after'])}",
    )
    return redirect(f"{reverse('workstations:cage')}#patrons")


@require_POST
@cage_only
def transfer(request):
    """Ask for a top-up of the cashier's own window from the main bank (``direction`` ``in``) or
    the return of its surplus (``out``), counted by denomination: a cage supervisor other than
    her counts it with her and signs from his own login (``approvals`` act
    ``cage_window_transfer``); the drawer and the main bank move when he does. More than the
    giving side holds is refused at once (400 on the count), the form kept."""
    key = _posted_key(request)
    direction = request.POST.get("direction", "")
    try:
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        chips = typed_amounts.count(request.POST, "chips", chip_denominations())
        with replays_noted() as replayed:
            approval_request(
                kind="cage_window_transfer",
                payload={"cash": cash, "chips": chips, "direction": direction},
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "transfer", exc))
    what = "Top-up from the main bank" if direction == "in" else "Return to the main bank"
    _done(
        request,
        f"{what} asked: cash {eur(_total(cash))}, chips {eur(_total(chips))}. A cage supervisor counts it "
        "with you and signs from his own login; your drawer moves when he does.",
        key=key,
        replayed=replayed,
        again=f"the {what.lower()} was already asked",
    )
    return redirect("workstations:cage")


def _transfer_words(result: dict, decision: str, user: str) -> str:
    """What the decision on a transfer between the main bank and a window did, for the signer."""
    if decision == "confirm" and "moved_cents" in result:
        way = "moved from the main bank into" if result["direction"] == "in" else "returned to the main bank from"
        return (
            f"Signed: {eur(result['moved_cents'])} (cash {eur(result['cash_cents'])}, chips "
            f"{eur(result['chips_cents'])}) {way} window {result['window']} of {result['cashier']}."
        )
    if decision == "confirm":
        return "Signed."
    if result["approval"]["maker"] == user:
        return "Transfer withdrawn: nothing moves."
    return "Transfer refused: nothing moves."


@require_POST
@cage_only
def paper_line(request):
    """A chip sale or redemption written on an outage's cage form, asked as a later entry
    (``approvals`` act ``paper_cage_enter``): it is recorded through the cashier's own window,
    with the paper's time, once a cage supervisor approves it from his own login."""
    key = _posted_key(request)
    try:
        payload = {
            "outage": (request.POST.get("outage") or "").strip(),
            "form": (request.POST.get("form") or "").strip(),
            "occurred_at": local_moment(request.POST.get("occurred_at"), "occurred_at").isoformat(),
            "transaction": request.POST.get("transaction") or "",
            "patron": (request.POST.get("patron") or "").strip()[:20],
            "amount_cents": typed_amounts.amount_cents(request.POST.get("amount")),
        }
        with replays_noted() as replayed:
            asked = approval_request(
                kind="paper_cage_enter", payload=payload, actor=request.user.get_username(), idempotency_key=key
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "paper", exc))
    what = cage_selectors.PAPER_TRANSACTIONS.get(payload["transaction"], "Line").lower()
    state = asked.get("approval", asked).get("state")
    message = (
        f"The {what} of {eur(payload['amount_cents'])}, patron {payload['patron']}, on form {payload['form']} "
        "is asked as a later entry: a cage supervisor approves it from his own login."
    )
    if state != "pending":
        message = f"The {what} of {eur(payload['amount_cents'])} on form {payload['form']} is entered."
    _done(request, message, key=key, replayed=replayed, again=f"the {what} on form {payload['form']}")
    return redirect(reverse("workstations:cage") + "#paper-title")


@require_POST
@supervisor_only
def paper_complete(request):
    """Mark an outage's cage form entered: the number of lines written on the paper, checked
    against the lines entered (``cashier.services.outage.paper_form_complete``)."""
    key = _posted_key(request)
    lines = (request.POST.get("lines") or "").strip()
    form = (request.POST.get("form") or "").strip()
    try:
        if not (lines.isascii() and lines.isdigit()):
            raise InvalidInput("the number of lines written on the form", field="lines")
        with replays_noted() as replayed:
            paper_form_complete(
                outage=(request.POST.get("outage") or "").strip(),
                form=form,
                lines=int(lines),
                actor=request.user.get_username(),
                idempotency_key=key,
            )
    except DomainError as exc:
        return _page(request, status=exc.status, failed=_failed(request, "paper_complete", exc))
    _done(
        request,
        f"Form {form} entered: its {lines} lines are in the ledger.",
        key=key,
        replayed=replayed,
        again=f"form {form}",
    )
    return redirect("workstations:cage")


@require_POST
@cage_only
def decide(request, approval: str, decision: str):
    """Sign (``confirm``) or refuse (``reject``) an approval from one's own login: a cage
    supervisor a reversal another user asked, the incoming cashier a window handed over to him;
    the maker withdraws his own request with ``reject``."""
    if decision not in ("confirm", "reject"):
        raise Http404("an approval is confirmed or rejected")
    key = _posted_key(request)
    user = request.user.get_username()
    try:
        with replays_noted() as replayed:
            if decision == "confirm":
                result = approval_confirm(approval=approval, actor=user, idempotency_key=key)
            else:
                result = approval_reject(
                    approval=approval, actor=user, reason=request.POST.get("reason", ""), idempotency_key=key
                )
    except DomainError as exc:
        messages.error(request, f"Not {'approved' if decision == 'confirm' else 'rejected'}. {_words(_refusal(exc))}")
        return _page(request, status=exc.status)
    kind = result.get("approval", {}).get("kind")
    if kind == "cage_window_transfer":
        message = _transfer_words(result, decision, user)
    elif kind == "cage_shift_close":
        if decision == "confirm" and "counted_cents" in result:
            handed = any(
                each.get("slot") == "incoming" and each.get("by") == user for each in result["approval"]["signatures"]
            )
            message = (
                f"Signed: window {result['window'] or 'of the cage'} of {result['approval']['maker']} closed and "
                f"handed over to you, counted {eur(result['counted_cents'])}. Open your window with the count."
                if handed
                else f"Verified: window {result['window'] or 'of the cage'} of {result['approval']['maker']} closed, "
                f"counted {eur(result['counted_cents'])}, {eur(result['variance_cents'])} against its book."
            )
        elif decision == "confirm":
            message = "Signed."
        elif result["approval"]["maker"] == user:
            message = "Closing withdrawn: the window stays open."
        else:
            message = "Handover refused: the window stays open."
    elif kind == "cage_shift_open":
        maker = result["approval"]["maker"]
        if decision == "confirm" and "counted_cents" in result:
            message = (
                f"Verified: window {result['window']} of {maker} opened, counted {eur(result['counted_cents'])}, "
                f"{eur(result['handover_variance_cents'])} against the count handed over."
            )
        elif decision == "confirm":
            message = "Signed."
        else:
            message = "Opening withdrawn." if maker == user else f"Opening count refused: {maker} counts again."
    elif kind == "marker_void" and decision == "confirm" and result.get("approved_by"):
        message = (
            f"Approved: marker {result['serial']} of patron {result['patron']}, {eur(result['amount_cents'])}, "
            f"is voided ({result['reason']}); asked by {result['voided_by']}, signed by {result['approved_by']}."
        )
    elif kind == "marker_void" and decision != "confirm":
        message = (
            "Void withdrawn: the marker stands."
            if result["approval"]["maker"] == user
            else ("Void refused: the marker stands.")
        )
    elif kind == "paper_cage_enter" and decision == "confirm" and "line" in result:
        what = cage_selectors.PAPER_TRANSACTIONS.get(result["transaction"], "Line")
        message = (
            f"Approved: {what.lower()} of {eur(result['amount_cents'])}, patron {result['patron']}, "
            f"entered as line {result['line']} of form {result['form']}, at its paper time "
            f"{local(result['occurred_at'])}; entered by {result['entered_by']}, approved by {result['approved_by']}."
        )
    elif kind == "paper_cage_enter" and decision != "confirm":
        message = (
            "Withdrawn: the paper line is not entered."
            if result["approval"]["maker"] == user
            else ("Refused: the paper line is not entered.")
        )
    elif kind == "patron_pin_reset" and decision == "confirm" and result.get("reset"):
        message = (
            f"Approved: the PIN of patron {result['patron']} is cleared; he chooses a new one, his document shown."
        )
    elif decision == "confirm" and "amount_cents" in result:
        what = {"ChipsPurchaseReversed": "sale", "ForeignExchangeReversed": "foreign exchange"}.get(
            result["type"], "redemption"
        )
        message = (
            f"Approved: the {what} of {eur(result['amount_cents'])}, patron {result['patron']}, "
            f"is reversed in window {result['window']}."
        )
    else:
        message = "Rejected: the line stands." if decision != "confirm" else "Signed."
    _done(request, message, key=key, replayed=replayed, again="this approval was already decided")
    return redirect("workstations:cage")


@require_safe
@cage_only
def shift(request, opened_event: int):
    return render(request, "workstations/cage_shift.html", {"report": cage_selectors.shift_report(opened_event)})

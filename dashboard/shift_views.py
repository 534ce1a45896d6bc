"""The pit boss's forms: open and close a table, change its limits, request a fill or a credit
and accept or refuse it, reverse a coup, rate a patron (by hand, or timed from a start to a
stop), sign the approvals waiting for him.

Each form posts to a view that calls the same service as the API (``approvals``, ``games``,
``cashier``), as the logged-in user: a second signature is asked through ``approvals`` and
given by the signer from his own session (the approvals page), never typed. A success
redirects (post/redirect/get: a reload never repeats an act) with a message saying what
happened; a refusal (``DomainError``) renders the same page again with what was typed and the
field at fault named, nothing written, with the refusal's status (400, 403, 404, 409).
"""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from approvals.services import approval_confirm, approval_reject, approval_request
from cashier.services import credit, slips
from core import typed_amounts
from core.ids import is_code
from games.catalog import spec
from games.models import Table
from games.services.ratings import patron_rating_record, patron_rating_start, patron_rating_stop
from games.services.table_rules import table_rules_change
from ledger.errors import DomainError, InvalidInput, StateConflict
from staff.roles import TABLE_CREATORS, Role, RoleRequired, has_role, role_names
from staff.selectors import users_with

from . import forms, shift_selectors
from .alerts import eur
from .table_reads import coup_audit
from .views import _table_context, roles_required

# Who signs from the approvals page: the pit boss, the dealer confirming a count, the cage
# supervisor a large opener or a large fill.
SIGNERS = (Role.PIT_BOSS, Role.DEALER, Role.CAGE_SUPERVISOR)

# The forms' own words for the field a service names.
FIELD_LABELS = {
    "code": "Table",
    "new_code": "New table code",
    "table": "Table",
    "game": "Game",
    "dealer": "Dealer",
    "pit_boss": "Pit boss",
    "opener": "Opener count",
    "opener_cents": "Opener count",
    "closer": "Closer count",
    "variance_reason": "Explanation of the difference",
    "rules": "Limits",
    "kind": "Fill or credit",
    "denominations": "Chips by denomination",
    "serial": "Slip",
    "count": "Chips counted",
    "confirmation": "VOID",
    "reason": "Reason",
    "approver": "Second signature",
    "approval": "Approval",
    "patron": "Patron",
    "average_bet_cents": "Average bet",
    "buy_in_cents": "Buy-in",
    "minutes": "Time played",
    "time_in": "Time in",
    "round_id": "Coup",
    "method": "Paid in",
}


def field_label(field: str | None) -> str:
    if not field:
        return ""
    if field.endswith("_cents") and field not in FIELD_LABELS:
        field = field.removesuffix("_cents")
    return FIELD_LABELS.get(field) or field.replace("_", " ").capitalize()


def _guard(roles: tuple[str, ...], what: str):
    """A form's view, behind ``views.roles_required``: 403 saying ``what`` is for ``roles``."""
    return roles_required(roles, f"{what} is for the {role_names(roles, ', ')}")


pit_boss_only = _guard((Role.PIT_BOSS,), "this form")
signers_only = _guard(SIGNERS, "the approvals page")


def _refused(exc: DomainError, form: str, labels: dict | None = None) -> dict:
    """A refusal as the page shows it: ``{"form", "field", "label", "message", "status"}``
    (``labels``: the form's own words for its fields, before ``FIELD_LABELS``)."""
    field = None if isinstance(exc, RoleRequired) else exc.field
    if field and field.startswith("rules.") and field.removeprefix("rules.") in (labels or {}):
        field = field.removeprefix("rules.")  # a table option the form shows as a field of its own
    label = (labels or {}).get(field) or field_label(field)
    return {"form": form, "field": field, "label": label, "message": exc.message, "status": exc.status}


def _typed(request) -> dict:
    return {key: value for key, value in request.POST.items() if key != "csrfmiddlewaretoken"}


def _actor(request) -> str:
    return request.user.get_username()


def _pending_note(result: dict) -> str | None:
    approval = result.get("approval") or {}
    if approval.get("state") != "pending":
        return None
    wanted = "; ".join(
        w["user"] or " or ".join(r.replace("_", " ") for r in w["roles"]) for w in approval["waiting_for"]
    )
    return f"waiting for {wanted} to sign from his own login"


# --- opening a table ------------------------------------------------------------------------


# A table is made on its first opening (``games.services.tables.table_open``). From this page a
# pit boss opens one of the tables already on the floor; only a person who may also set the floor
# up (``staff.roles.TABLE_CREATORS``, beside the pit boss's role) opens a new one, named on
# purpose (the act refuses it to anyone else too: ``approvals.acts``).
NEW_TABLE = "new"


def _typed_code(typed: dict) -> str:
    """The table the open form names: the chosen closed table, or the new table's code."""
    code = (typed.get("code") or "").strip()
    return (typed.get("new_code") or "").strip() if code == NEW_TABLE else code


def _table_to_open(request, typed: dict) -> tuple[str, str]:
    """``(code, game)`` of the table the open form names: a closed table of the floor (its own
    game), or, for a table creator, a new table with the game he chose. ``RoleRequired`` (a new
    table without the role), ``InvalidInput`` (no table chosen, a code the floor does not have, a
    new code that exists), ``StateConflict`` (the table is open already)."""
    code = _typed_code(typed)
    if (typed.get("code") or "").strip() == NEW_TABLE:
        if not has_role(request.user, *TABLE_CREATORS):
            raise RoleRequired("a new table is set up by an administrator: choose one of the closed tables")
        if not code:
            raise InvalidInput("type the new table's code", field="new_code")
        if shift_selectors.table_exists(code):
            raise InvalidInput(f"table {code} exists already: choose it among the closed tables", field="new_code")
        return code, typed.get("game", "")
    if not code:
        raise InvalidInput("choose the table to open", field="code")
    table = shift_selectors.table_or_none(code)
    if table is None:
        raise InvalidInput(f"there is no table {code} on the floor: choose one of the closed tables", field="code")
    if table.state == Table.State.OPEN:
        raise StateConflict(f"table {code} is already open", field="table")
    return table.code, table.game


def _open_page(request, *, typed: dict | None = None, refused: dict | None = None, opener: dict | None = None):
    typed = typed or {"code": request.GET.get("table", "")}
    code = _typed_code(typed)
    context = {
        # The table's assigned dealer, chosen unless the pit boss names another (who is then
        # assigned to it by the opening).
        "table_dealer": shift_selectors.table_dealer(code) if is_code(code) else None,
        "choices": shift_selectors.table_choices(),
        "may_create": has_role(request.user, *TABLE_CREATORS),
        "new_table": NEW_TABLE,
        "denominations": shift_selectors.denominations(),
        "typed": typed,
        "refused": refused,
        # The last closer beside his count, read before he signs (SHIFTS.md: the opener is
        # checked against the previous closer, a difference reported at once, in writing).
        "check": shift_selectors.opener_check(code, opener) if is_code(code) else None,
        "pending": [
            a for a in shift_selectors.approvals_for(_actor(request))["asked"] if a["kind"] == "table_open_counted"
        ],
    }
    return render(request, "dashboard/open.html", context, status=refused["status"] if refused else 200)


@require_http_methods(["GET", "HEAD", "POST"])
@pit_boss_only
def table_open(request):
    """GET: the form (``?table=R1``: with R1's last closer). POST ``code``: a closed table of
    the floor, or ``new`` with ``new_code`` and ``game`` for one of ``TABLE_CREATORS``
    (``_table_to_open``). POST ``compare``: the count beside
    the last closer, nothing signed. POST: the opener counted by chip denomination, signed by
    this pit boss, with the written explanation of a difference with the last closer
    (``variance_reason``); the named dealer (none named: the table's assigned dealer) confirms
    it from his own login (``approvals`` act ``table_open_counted``, which assigns him to the
    table)."""
    if request.method != "POST":
        return _open_page(request)
    typed = _typed(request)
    code = _typed_code(typed)
    opener = None
    try:
        code, game = _table_to_open(request, typed)
        opener = typed_amounts.count(request.POST, "opener", shift_selectors.denominations())
        if not opener:
            raise InvalidInput("count the chips of the tray, by denomination", field="opener")
        if "compare" in request.POST:
            return _open_page(request, typed=typed, opener=opener)
        explanation = (typed.get("variance_reason") or "").strip()
        result = approval_request(
            kind="table_open_counted",
            payload={
                "code": code,
                "game": game,
                "opener": opener,
                "dealer": typed.get("dealer", ""),
                "pit_boss": _actor(request),
                **({"variance_reason": explanation} if explanation else {}),
            },
            actor=_actor(request),
        )
    except DomainError as exc:
        return _open_page(request, typed=typed, refused=_refused(exc, "open"), opener=opener)
    waiting = _pending_note(result)
    if waiting:
        messages.success(request, f"Opening of table {code} signed by you, {waiting}.")
        return redirect("dashboard:open")
    messages.success(request, f"Table {code} opened with {eur(result['opener_cents'])}.")
    return redirect("dashboard:table", code=code)


# --- the table page's forms -----------------------------------------------------------------


def _table_page(
    request, code: str, *, typed: dict | None = None, refused: dict | None = None, close_check: dict | None = None
):
    context = _table_context(code) | shift_selectors.table_page(code, _actor(request))
    context |= {"typed": typed or {}, "refused": refused, "close_check": close_check}
    return render(request, "dashboard/table.html", context, status=refused["status"] if refused else 200)


def _act(request, code: str, form: str, run, success, labels: dict | None = None, section: str = "") -> object:
    """Run ``run()`` (a service call); on success a message and back to the table page (its
    ``section``, by default the ``form``'s), on a refusal the page again with what was typed."""
    try:
        result = run()
    except DomainError as exc:
        return _table_page(request, code, typed=_typed(request), refused=_refused(exc, form, labels))
    messages.success(request, success(result))
    return redirect(reverse("dashboard:table", kwargs={"code": code}) + f"#{section or form}")


@require_POST
@pit_boss_only
def limits_change(request, code: str):
    """New limits within the game's rule set (``table_rules_change``: recorded as
    ``TableRulesChanged`` with before and after)."""
    table = shift_selectors.table_of(code)
    fields = shift_selectors.limit_fields(table)
    labels = {f["option"]: f["label"] for f in fields} | {"caps": "Most in a round"}

    def run():
        rules = {}
        for field in fields:
            text = (request.POST.get(field["option"]) or "").strip()
            if text:
                cents = typed_amounts.amount_cents(text, field=field["option"])
                if cents != field["cents"]:
                    rules[field["option"]] = cents
        if rules and spec(table.game).most_in_a_round is not None:  # limits per round (classic stud)
            in_force = {f["option"]: f["cents"] for f in fields}
            rules = forms.stud_limits(in_force, rules, shift_selectors.STUD_ROUNDS)
        if not rules:
            raise InvalidInput("type the limits to change (they are already in force)", field="rules")
        return table_rules_change(code=code, rules=rules, actor=_actor(request))

    def said(result):
        before, after = (shift_selectors.limits_in_money(table.game, result[k]) for k in ("before", "after"))
        changed = ", ".join(
            f"{labels[o]} {eur(before.get(o))} → {eur(after.get(o))}" for o in labels if before.get(o) != after.get(o)
        )
        return f"Limits of {code} changed and recorded: {changed}."

    return _act(request, code, "limits", run, said, labels)


@require_POST
@pit_boss_only
def slip_request(request, code: str):
    """A fill or a credit for the table, by chip denomination (``approvals`` act ``slip_request``:
    a large fill waits for a cage supervisor)."""

    def run():
        count = typed_amounts.count(request.POST, "slip", shift_selectors.denominations(), field="denominations")
        kind = request.POST.get("kind", "")
        return approval_request(
            kind="slip_request",
            payload={"kind": kind, "table": code, "denominations": count},
            actor=_actor(request),
        )

    def said(result):
        waiting = _pending_note(result)
        if waiting:
            return f"The fill is asked, {waiting}."
        return (
            f"{result['kind'].capitalize()} {result['serial']} of {eur(result['amount_cents'])} requested: "
            "the cage prepares it and gives it to a runner."
        )

    return _act(request, code, "slips", run, said)


@require_POST
@pit_boss_only
def slip_accept(request, code: str, kind: str, serial: str):
    """Count and accept the slip the runner brought: this pit boss's own count, the slip's piece
    for piece, and his login are the table's signature (``slip_accept``: never the requester,
    the issuer or the runner)."""

    def run():
        count = typed_amounts.count(request.POST, f"accept-{serial}", shift_selectors.denominations(), field="count")
        return slips.slip_accept(kind=kind, serial=serial, count=count, actor=_actor(request))

    return _act(
        request,
        code,
        f"accept-{serial}",
        run,
        lambda r: (
            f"{r['kind'].capitalize()} {r['serial']} of {eur(r['amount_cents'])} accepted at table {code}: "
            + ("the chips are in the tray." if r["kind"] == "fill" else "the chips have left the tray for the cage.")
        ),
        section="slips",
    )


@require_POST
@pit_boss_only
def slip_count_ask(request, code: str, kind: str, serial: str):
    """The runner is at the table: ask the table's dealer (the one assigned to it) to count the
    chips and accept the slip from his own login (``approvals`` act ``slip_accept``, SHIFTS.md:
    counted by the dealer and accepted at the table)."""

    def said(result):
        waiting = _pending_note(result)
        return f"{kind.capitalize()} {serial}: {waiting}." if waiting else f"{kind.capitalize()} {serial} accepted."

    return _act(
        request,
        code,
        "slips",
        lambda: approval_request(kind="slip_accept", payload={"kind": kind, "serial": serial}, actor=_actor(request)),
        said,
    )


@require_POST
@pit_boss_only
def slip_refuse(request, code: str, kind: str, serial: str):
    """Refuse a slip not yet accepted: void it with VOID typed, a reason and a second
    supervisor's signature (``approvals`` act ``slip_void``)."""

    def run():
        return approval_request(
            kind="slip_void",
            payload={
                "kind": kind,
                "serial": serial,
                "confirmation": request.POST.get("confirmation", ""),
                "reason": (request.POST.get("reason") or "").strip(),
                "approver": request.POST.get("approver", ""),
            },
            actor=_actor(request),
        )

    def said(result):
        waiting = _pending_note(result)
        return f"Voiding {kind} {serial}: {waiting}." if waiting else f"{kind.capitalize()} {serial} voided."

    return _act(request, code, f"void-{serial}", run, said, section="slips")


@require_POST
@pit_boss_only
def table_close(request, code: str):
    """Close the table with its closer counted by chip denomination, signed by this pit boss;
    the table's dealer confirms from his own login (``approvals`` act ``table_close_counted``:
    another dealer named is refused, naming the table's). The drop box stays locked on the
    table for the drop team. POST ``compare``: the count beside the tray by the book, nothing
    signed (the count made first, the book read after)."""

    if "compare" in request.POST:
        try:
            closer = typed_amounts.count(request.POST, "closer", shift_selectors.denominations())
            if not closer:
                raise InvalidInput("count the chips of the tray, by denomination", field="closer")
        except DomainError as exc:
            return _table_page(request, code, typed=_typed(request), refused=_refused(exc, "close"))
        page = _table_page(request, code, typed=_typed(request), close_check=shift_selectors.closer_check(code, closer))
        return page

    def run():
        closer = typed_amounts.count(request.POST, "closer", shift_selectors.denominations())
        if not closer:
            raise InvalidInput("count the chips of the tray, by denomination", field="closer")
        return approval_request(
            kind="table_close_counted",
            payload={
                "code": code,
                "closer": closer,
                "dealer": request.POST.get("dealer", ""),
                "pit_boss": _actor(request),
            },
            actor=_actor(request),
        )

    def said(result):
        waiting = _pending_note(result)
        if waiting:
            return f"Closing of table {code} signed by you, {waiting}."
        return f"Table {code} closed with {eur(result['closer_cents'])}."

    return _act(request, code, "close", run, said)


def _rating_amounts(request) -> tuple[int, int]:
    """The average bet and the buy-in (blank: none) a rating form typed, in cents."""
    average = typed_amounts.amount_cents(request.POST.get("average_bet"), field="average_bet_cents")
    buy_in_text = (request.POST.get("buy_in") or "").strip()
    buy_in = typed_amounts.amount_cents(buy_in_text, field="buy_in_cents") if buy_in_text else 0
    return average, buy_in


@require_POST
@pit_boss_only
def rating_record(request, code: str):
    """Rate a patron by hand (no card read him): time in, minutes played, average bet, buy-in
    (``games.services.ratings.patron_rating_record``)."""

    def run():
        average, buy_in = _rating_amounts(request)
        return patron_rating_record(
            table=code,
            patron=(request.POST.get("patron") or "").strip(),
            time_in=forms.local_time(request.POST.get("time_in"), field="time_in"),
            minutes=forms.whole_number(request.POST.get("minutes"), field="minutes"),
            average_bet_cents=average,
            buy_in_cents=buy_in,
            actor=_actor(request),
        )

    return _act(
        request,
        code,
        "rating",
        run,
        lambda r: (
            f"Rating recorded for {shift_selectors.patron_label(r['patron'])}: {r['minutes']} min, "
            f"average bet {eur(r['average_bet_cents'])}."
        ),
    )


def _key(request) -> str | None:
    """The form's idempotency key (hidden ``idempotency_key``): sent twice, recorded once."""
    return (request.POST.get("idempotency_key") or "").strip()[:100] or None


@require_POST
@pit_boss_only
def marker_issue(request, code: str):
    """The pit boss issues a marker to a patron at this table, against his credit line, for value
    chips from the tray (``cashier.services.credit.marker_issue``): the marker goes into the
    table's drop, where it is later transferred to the cage or paid here."""

    def run():
        return credit.marker_issue(
            patron=(request.POST.get("patron") or "").strip(),
            table=code,
            amount_cents=typed_amounts.amount_cents(request.POST.get("amount"), field="amount_cents"),
            actor=_actor(request),
            idempotency_key=_key(request),
        )

    def said(r: dict) -> str:
        return (
            f"Marker {r['serial']} issued to {shift_selectors.patron_label(r['patron'])}: {eur(r['amount_cents'])} "
            f"in chips from the tray, the marker into the drop box; {eur(r['remaining_credit_cents'])} of credit left."
        )

    return _act(request, code, "marker-issue", run, said, {"amount_cents": "Amount"})


@require_POST
@pit_boss_only
def marker_payment(request, code: str):
    """A patron pays a marker at this table, in chips (into the tray) or cash (into the drop
    box), recorded by the pit boss (``cashier.services.credit.marker_pay_at_table``); part of
    what is owed, or all of it."""

    def run():
        return credit.marker_pay_at_table(
            serial=(request.POST.get("serial") or "").strip(),
            table=code,
            amount_cents=typed_amounts.amount_cents(request.POST.get("amount"), field="amount_cents"),
            method=request.POST.get("method", ""),
            actor=_actor(request),
            idempotency_key=_key(request),
        )

    def said(r: dict) -> str:
        owed = "paid in full" if r["state"] == "paid" else f"{eur(r['outstanding_cents'])} still owed"
        return (
            f"Marker {r['serial']} of {shift_selectors.patron_label(r['patron'])}: "
            f"{eur(r['paid_cents'])} paid in all, {owed}."
        )

    return _act(request, code, "marker-payment", run, said, {"serial": "Marker", "amount_cents": "Amount"})


@require_POST
@pit_boss_only
def front_money_draw(request, code: str):
    """A patron draws his front money in chips at this table (``credit.front_money_draw``): his
    deposit at the cage is reduced, the chips come off the tray."""

    def run():
        return credit.front_money_draw(
            patron=(request.POST.get("patron") or "").strip(),
            table=code,
            amount_cents=typed_amounts.amount_cents(request.POST.get("amount"), field="amount_cents"),
            actor=_actor(request),
            idempotency_key=_key(request),
        )

    return _act(
        request,
        code,
        "front-money",
        run,
        lambda r: (
            f"Front money drawn by {shift_selectors.patron_label(r['patron'])}: {eur(r['amount_cents'])} "
            f"in chips from the tray; {eur(r['balance_cents'])} left at the cage."
        ),
        {"amount_cents": "Amount"},
    )


@require_POST
@pit_boss_only
def rating_start(request, code: str):
    """The patron sits down: start timing his rating (``patron_rating_start``)."""
    return _act(
        request,
        code,
        "timed",
        lambda: patron_rating_start(
            table=code, patron=(request.POST.get("patron") or "").strip(), actor=_actor(request)
        ),
        lambda r: f"Rating started for {shift_selectors.patron_label(r['patron'])}: stop it when he leaves.",
    )


@require_POST
@pit_boss_only
def rating_stop(request, code: str):
    """The patron leaves: his rating is recorded with the time measured since it started and the
    average bet (and buy-in) the pit boss saw (``patron_rating_stop``)."""

    def run():
        average, buy_in = _rating_amounts(request)
        return patron_rating_stop(
            table=code,
            patron=(request.POST.get("patron") or "").strip(),
            average_bet_cents=average,
            buy_in_cents=buy_in,
            actor=_actor(request),
        )

    return _act(
        request,
        code,
        "timed",
        run,
        lambda r: (
            f"Rating recorded for {shift_selectors.patron_label(r['patron'])}: {r['minutes']} min timed, "
            f"average bet {eur(r['average_bet_cents'])}."
        ),
    )


# --- a coup's correction --------------------------------------------------------------------


@require_POST
@pit_boss_only
def coup_reversal(request, round_id: str):
    """Ask to reverse a settled coup (a correction as reversing entries, ``round_reverse``): a
    reason and the second supervisor who signs it from his approvals page."""
    try:
        result = approval_request(
            kind="round_reverse",
            payload={
                "round_id": round_id,
                "reason": (request.POST.get("reason") or "").strip(),
                "approver": request.POST.get("approver", ""),
            },
            actor=_actor(request),
        )
    except DomainError as exc:
        context = {
            "audit": coup_audit(round_id),
            "approvers": [u for u in users_with(Role.PIT_BOSS) if u != _actor(request)],
            "typed": _typed(request),
            "refused": _refused(exc, "reversal"),
        }
        return render(request, "dashboard/audit.html", context, status=exc.status)
    waiting = _pending_note(result)
    messages.success(request, f"Reversal of the coup asked, {waiting}." if waiting else "Coup reversed.")
    return redirect("dashboard:coup-audit", round_id=round_id)


# --- the approvals page ---------------------------------------------------------------------


def _approvals_page(request, refused: dict | None = None):
    context = {
        "queue": shift_selectors.approvals_for(_actor(request)),
        "denominations": shift_selectors.denominations(),  # a fill's count beside its Approve button
        "refused": refused,
        "typed": _typed(request),
    }
    return render(request, "dashboard/approvals.html", context, status=refused["status"] if refused else 200)


@require_http_methods(["GET", "HEAD"])
@signers_only
def approvals(request):
    """What waits for this person's signature (the pit boss: corrections, voids, large fills,
    counts; the dealer: the openers and closers he counted), and what he asked."""
    return _approvals_page(request)


@require_POST
@signers_only
def approval_decide(request, approval: str, decision: str):
    """Approve (``approval_confirm``: the last signature runs the act) or refuse
    (``approval_reject``, with a reason) as the logged-in user."""
    try:
        if decision == "approve":
            # A fill's acceptance: the dealer's own count, typed beside the Approve button.
            prefix = shift_selectors.count_prefix(approval)
            typed = any(key.startswith(f"{prefix}-") for key in request.POST)
            denominations = shift_selectors.denominations()
            count = typed_amounts.count(request.POST, prefix, denominations, field="count") if typed else None
            result = approval_confirm(approval=approval, actor=_actor(request), count=count)
        else:
            result = approval_reject(
                approval=approval, actor=_actor(request), reason=(request.POST.get("reason") or "").strip()
            )
    except DomainError as exc:
        return _approvals_page(request, _refused(exc, f"approval-{approval}"))
    summary = result["approval"]
    what = shift_selectors.approval_words_of(summary["id"])
    if summary["state"] == "confirmed":
        variance = result.get("variance_cents")
        # An opener or closer that differs from the last closer or the book is reported at once.
        differs = f" The count differs by {eur(variance)}: reported as a variance." if variance else ""
        messages.success(request, f"Approved and done: {what}.{differs}")
    elif summary["state"] == "rejected":
        messages.success(request, f"Refused: {what}.")
    elif summary["state"] == "withdrawn":
        messages.success(request, f"Withdrawn: {what}.")
    else:
        messages.success(request, f"Signed: {what}; {_pending_note(result)}.")
    return redirect("dashboard:approvals")

"""The count room's page: the drop team's and the count team's shift in a browser.

For a gaming day (``?day=YYYY-MM-DD``, default the current one) the tables' drop boxes and
the forms of the shift (SHIFTS.md, "Drop and count team"), each calling the same service as
the API, as the logged-in user:

- remove a drop box: ``approvals`` act ``drop_box_remove``, the user one of the two removers
  (he names the other, who confirms from his own login on this page);
- count it by banknote: act ``drop_count``, the user the first counter (the second confirms);
- the verifier's blind recount: ``drop_custody.drop_recount`` (the page says only whether it
  agrees);
- sign the master game report: ``drop_custody.master_game_sign``;
- count a tip box into the tronc: act ``tips_count`` (each other counter and the manager
  confirm);
- confirm or refuse what waits for the user's signature, withdraw his own request.

A refusal (``DomainError``: 400, 403, 404, 409) renders the page again with the service's
message beside the form and what was typed kept, at the refusal's status; nothing is written.
Each form carries an idempotency key (the API's ``Idempotency-Key``): a form sent twice counts
once. Post/redirect/get after a success."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from approvals.services import approval_confirm, approval_reject, approval_request
from cashier.services.count_room import parse_gaming_day
from cashier.services.drop_custody import drop_recount, master_game_sign
from core import typed_amounts
from core.denominations import cash_denominations, chip_denominations
from ledger.commands import replays_noted
from ledger.errors import DomainError, IdempotencyKeyReused, InvalidInput
from ledger.gaming_day import current_gaming_day
from staff.roles import RoleRequired

from . import count_room_selectors
from .access import COUNT_ROOM_ROLES, roles_required
from .templatetags.workstation_tags import eur

count_room_only = roles_required(*COUNT_ROOM_ROLES, place="count room")

FORMS = ("remove", "count", "recount", "sign", "tips")

# The form's own words for a refusal's field (the service names it as the API does).
FIELD_LABELS = {
    "table": "Table",
    "gaming_day": "Gaming day",
    "removers": "Second remover",
    "counters": "Counters",
    "cash": "Cash count",
    "chips": "Value chips",
    "box": "Tip box",
    "manager": "Manager",
    "approval": "Approval",
}


def _key() -> str:
    return f"count-room-{uuid.uuid4()}"


def _posted_key(request) -> str | None:
    return (request.POST.get("idempotency_key") or "").strip() or None


def _me(request) -> str:
    return request.user.get_username()


def _refusal(exc: DomainError) -> dict:
    """``{"field", "label", "message"}`` for the page: a 403 names no field (it is about who)."""
    field = getattr(exc, "field", None)
    if isinstance(exc, IdempotencyKeyReused):
        return {
            "field": None,
            "label": "",
            "message": "this form was already sent and recorded with other values; check it and send it again",
        }
    if isinstance(exc, RoleRequired) or not field:
        return {"field": None, "label": "", "message": exc.message}
    return {
        "field": field,
        "label": FIELD_LABELS.get(field, field.replace("_", " ").capitalize()),
        "message": exc.message,
    }


def _day_of(request, source) -> tuple[object, dict | None]:
    """The gaming day asked (``day`` in ``source``; none: the current one) and the refusal of
    a malformed one (``None`` when it is good)."""
    text = (source.get("day") or source.get("gaming_day") or "").strip()
    if not text:
        return current_gaming_day(), None
    try:
        return parse_gaming_day(text, field="gaming_day"), None
    except InvalidInput as exc:
        return current_gaming_day(), _refusal(exc)


def _page(
    request,
    *,
    day=None,
    status: int = 200,
    failed: dict | None = None,
    error: dict | None = None,
    refused: dict | None = None,
):
    """The page for the logged-in user on ``day``; ``failed``: ``{"form", "values", "error"}``,
    the refused form shown again with what was typed."""
    if day is None:
        day, error = _day_of(request, request.GET)
        status = 400 if error else status
    room = count_room_selectors.count_room(_me(request), day)
    forms = {name: {"key": _key(), "values": {}, "error": None} for name in FORMS}
    if failed:
        forms[failed["form"]] = {"key": failed["key"], "values": failed["values"], "error": failed["error"]}
    for row in room["approvals"]["to_sign"] + room["approvals"]["asked"]:
        row["key"] = _key()
    # The refusal above everything too: the form may not be on this person's page at all.
    refused = refused or (failed["error"] if failed else None)
    context = {"room": room, "forms": forms, "day_error": error, "me": _me(request), "refused": refused}
    with timezone.override(ZoneInfo(settings.CASINO_TIMEZONE)):  # the page names the casino's zone
        return render(request, "workstations/count_room.html", context, status=status)


def _back(day) -> str:
    return f"{reverse('workstations:count-room')}?{urlencode({'day': day.isoformat()})}"


def _refused(request, form: str, day, exc: DomainError):
    values = {k: v for k, v in request.POST.items() if k not in ("csrfmiddlewaretoken", "idempotency_key")}
    key = _posted_key(request)
    if isinstance(exc, IdempotencyKeyReused) or key is None:
        key = _key()
    failed = {"form": form, "key": key, "values": values, "error": _refusal(exc)}
    return _page(request, day=day, status=exc.status, failed=failed)


def _done(request, message: str, *, key: str | None, replayed: set[str]) -> None:
    if key is not None and key in replayed:
        messages.info(request, "Already recorded: the form was sent more than once; it counts once.")
    else:
        messages.success(request, message)


def _posted_day(request):
    """The form's gaming day: refused by the service when malformed or out of reach (400/409)."""
    text = (request.POST.get("gaming_day") or "").strip()
    return text or current_gaming_day().isoformat()


def _shown_day(text: str):
    try:
        return parse_gaming_day(text)
    except InvalidInput:
        return current_gaming_day()


def _name(request, field: str) -> str:
    return (request.POST.get(field) or "").strip()


def _waiting(result: dict) -> str:
    names = [
        s["user"] or " or ".join(r.replace("_", " ") for r in s["roles"]) for s in result["approval"]["waiting_for"]
    ]
    return " and ".join(names)


@require_safe
@count_room_only
def count_room(request):
    return _page(request)


@require_POST
@count_room_only
def remove(request):
    """Ask to record a drop box removed by the user and the second remover he names; the
    removal is recorded when that one confirms from his own login."""
    day, key, me = _posted_day(request), _posted_key(request), _me(request)
    table, other = _name(request, "table"), _name(request, "second_remover")
    try:
        if not other:
            raise InvalidInput("name the second person who removed the box with you", field="removers")
        with replays_noted() as replayed:
            result = approval_request(
                kind="drop_box_remove",
                payload={"table": table, "gaming_day": day, "removers": [me, other]},
                actor=me,
                idempotency_key=key,
            )
    except DomainError as exc:
        return _refused(request, "remove", _shown_day(day), exc)
    _done(
        request,
        f"Asked: the drop box of table {table} (gaming day {day}) removed by you and {other}. "
        f"It is recorded when {_waiting(result)} confirms from his own login.",
        key=key,
        replayed=replayed,
    )
    return redirect(_back(_shown_day(day)))


@require_POST
@count_room_only
def count(request):
    """Ask to record a drop box's count by banknote, counted by the user and the second counter
    he names; recorded when that one confirms from his own login."""
    day, key, me = _posted_day(request), _posted_key(request), _me(request)
    table, other = _name(request, "table"), _name(request, "second_counter")
    try:
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        if not other:
            raise InvalidInput("name the second counter who counted the box with you", field="counters")
        with replays_noted() as replayed:
            result = approval_request(
                kind="drop_count",
                payload={"table": table, "gaming_day": day, "cash": cash, "counters": [me, other]},
                actor=me,
                idempotency_key=key,
            )
    except DomainError as exc:
        return _refused(request, "count", _shown_day(day), exc)
    total = sum(int(d) * n for d, n in cash.items())
    _done(
        request,
        f"Asked: the count of table {table}'s drop box, {eur(total)}, counted by you and {other}. "
        f"It is recorded when {_waiting(result)} confirms from his own login.",
        key=key,
        replayed=replayed,
    )
    return redirect(_back(_shown_day(day)))


@require_POST
@count_room_only
def recount(request):
    """The verifier's blind recount: the page says only whether it agrees with the count."""
    day, key = _posted_day(request), _posted_key(request)
    table = _name(request, "table")
    try:
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        with replays_noted() as replayed:
            result = drop_recount(table=table, gaming_day=day, cash=cash, actor=_me(request), idempotency_key=key)
    except DomainError as exc:
        return _refused(request, "recount", _shown_day(day), exc)
    if result["agrees"]:
        words = f"Your recount of table {table}'s drop box agrees with its count: the count is verified."
    else:
        words = (
            f"Your recount of table {table}'s drop box does not agree with its count: a variance is recorded "
            "for investigation; the count stands."
        )
    _done(request, words, key=key, replayed=replayed)
    return redirect(_back(_shown_day(day)))


@require_POST
@count_room_only
def sign(request):
    """The user signs the master game report of the gaming day as it stands."""
    day, key = _posted_day(request), _posted_key(request)
    try:
        with replays_noted() as replayed:
            master_game_sign(gaming_day=day, actor=_me(request), idempotency_key=key)
    except DomainError as exc:
        return _refused(request, "sign", _shown_day(day), exc)
    _done(request, f"You signed the master game report of gaming day {day}.", key=key, replayed=replayed)
    return redirect(_back(_shown_day(day)))


def _tip_box(value: str) -> dict:
    """``"table:R1"`` → ``{"table": "R1"}``, ``"dealer:dealer7"`` → ``{"dealer": "dealer7"}``."""
    kind, _, code = value.partition(":")
    if kind not in ("table", "dealer") or not code:
        raise InvalidInput("choose the tip box: a table's or a dealer's", field="box")
    return {kind: code}


@require_POST
@count_room_only
def tips(request):
    """Ask to record a tip box counted by denomination into the tronc by the counters named (the
    user one of them, or the manager); recorded when every other one has confirmed."""
    day, key, me = _posted_day(request), _posted_key(request), _me(request)
    counters = [name for name in (_name(request, f"counter_{n}") for n in (1, 2, 3)) if name]
    manager = _name(request, "manager")
    try:
        box = _tip_box(_name(request, "box"))
        chips = typed_amounts.count(request.POST, "chips", chip_denominations())
        cash = typed_amounts.count(request.POST, "cash", cash_denominations())
        if not manager:
            raise InvalidInput(
                "name the manager (a pit boss or cage supervisor) who watched the count", field="manager"
            )
        with replays_noted() as replayed:
            result = approval_request(
                kind="tips_count",
                payload={
                    "box": box,
                    "gaming_day": day,
                    "chips": chips,
                    "cash": cash,
                    "counters": counters,
                    "manager": manager,
                },
                actor=me,
                idempotency_key=key,
            )
    except DomainError as exc:
        return _refused(request, "tips", _shown_day(day), exc)
    total = sum(int(d) * n for d, n in (chips | {}).items()) + sum(int(d) * n for d, n in cash.items())
    ((kind, code),) = box.items()
    _done(
        request,
        f"Asked: the tip box of {kind} {code}, {eur(total)}, counted by {', '.join(counters)}, manager {manager}. "
        f"It is entered in the tips book when {_waiting(result)} confirm from their own logins.",
        key=key,
        replayed=replayed,
    )
    return redirect(_back(_shown_day(day)))


def _signed_words(result: dict, me: str) -> str:
    """What the user's confirmation did."""
    approval = result["approval"]
    if approval["state"] == "pending":
        return f"Signed. Still waiting for {_waiting(result)}."
    kind = approval["kind"]
    if kind == "drop_box_remove":
        return (
            f"Signed: the drop box of table {result['table']} (gaming day {result['gaming_day']}) is recorded removed."
        )
    if kind == "drop_count":
        return (
            f"Signed: the drop box of table {result['table']} (gaming day {result['gaming_day']}) is recorded "
            f"counted, {eur(result['counted_cents'])}."
        )
    if kind == "tips_count":
        ((box_kind, code),) = result["box"].items()
        return f"Signed: the tip box of {box_kind} {code}, {eur(result['total_cents'])}, is entered in the tips book."
    return "Signed."


@require_POST
@count_room_only
def decide(request, approval: str, decision: str):
    """Confirm (sign from one's own login) or refuse an approval waiting for the user; the
    maker's ``refuse`` withdraws his own request."""
    if decision not in ("confirm", "refuse"):
        raise Http404("an approval is confirmed or refused")
    key, me = _posted_key(request), _me(request)
    day = _shown_day(_posted_day(request))
    try:
        with replays_noted() as replayed:
            if decision == "confirm":
                result = approval_confirm(approval=approval, actor=me, idempotency_key=key)
            else:
                reason = _name(request, "reason") or "refused"
                result = approval_reject(approval=approval, actor=me, reason=reason, idempotency_key=key)
    except DomainError as exc:
        return _page(request, day=day, status=exc.status, refused=_refusal(exc))
    if decision == "confirm":
        words = _signed_words(result, me)
    elif result["approval"]["maker"] == me:
        words = "Withdrawn: nothing is recorded."
    else:
        words = "Refused: nothing is recorded; the one who asked sees it."
    _done(request, words, key=key, replayed=replayed)
    return redirect(_back(day))

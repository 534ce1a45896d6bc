"""Cage shifts (issue #7): each cashier shift opens and closes with a count by denomination.

The count is cash (banknotes) and value chips, by denomination. The cage's expected
accountability is the ledger's: the balances of ``cage:cash`` and ``cage:chips`` (every chip
sale, redemption, fill, credit and drop count posts there). A close compares the count with
the book and hands the cage over to the next shift's cashier, who opens by counting again;
a difference between the two counts is a handover variance. Counts are recorded, not
posted: the cage's books move only with money (a cage over/short adjustment is a
supervisor's decision, not a count's). Stream: ``cageshift/<cage code>``.
"""

from core.denominations import cash_denominations, chip_denominations, count_total
from ledger import accounts, store
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import NewEvent
from staff.roles import Role, has_role, require_distinct, require_role

CAGE_ROLES = (Role.CASHIER, Role.CAGE_SUPERVISOR)


def shift_stream(code: str) -> str:
    return f"cageshift/{code}"


def last_shift_event(code: str = "main") -> Event | None:
    return Event.objects.filter(stream=shift_stream(code)).order_by("-version").first()


def require_open_shift(code: str = "main", actor: str | None = None) -> Event:
    """The open shift's ``CageShiftOpened`` event; ``StateConflict`` (409, field ``shift``) when
    no cashier shift of cage ``code`` is open. Cash and chips cross the cage counter only inside
    a shift, so that each movement belongs to a count (issue 24). Call it under the writer lock.

    With ``actor``: the shift is its cashier's bank, counted in by him and answered for by him
    at the close. A cage has one shift open at a time, so another cashier or cage supervisor
    gets ``StateConflict`` (409, field ``shift``) naming the shift's cashier. (Actors without a
    cage role reach the counter only as the system's own steps, never through the API.)"""
    last = last_shift_event(code)
    if last is None or last.type != "CageShiftOpened":
        raise StateConflict(
            f"no cashier shift is open at cage {code}: open a shift with its count first", field="shift"
        )
    if actor is not None and actor != last.actor and has_role(actor, *CAGE_ROLES):
        raise StateConflict(
            f"the cage's shift is {last.actor}'s: only {last.actor} sells, redeems and issues in it; "
            f"{actor} opens his own shift once {last.actor} has closed it (a cage supervisor may close it)",
            field="shift",
        )
    return last


def require_shift_closer(opened: Event, actor: str) -> bool:
    """Who may close the shift ``opened`` (its ``CageShiftOpened``): its own cashier, or a cage
    supervisor (then True: recorded as ``closed_by_supervisor``). Anyone else:
    ``StateConflict`` (409, field ``shift``) naming the shift's cashier."""
    if actor == opened.actor:
        return False
    if has_role(actor, Role.CAGE_SUPERVISOR):
        return True
    raise StateConflict(
        f"the cage's shift is {opened.actor}'s: only {opened.actor} or a cage supervisor closes it",
        field="shift",
    )


def _validated(cash: object, chips: object) -> dict:
    """The counts, checked (``InvalidInput`` naming ``cash`` or ``chips``) and normalised."""
    cash_lines, cash_total = count_total(cash, cash_denominations(), field="cash")
    chip_lines, chip_total = count_total(chips, chip_denominations(), field="chips")
    return {
        "cash": cash_lines,
        "chips": chip_lines,
        "counted_cash_cents": cash_total,
        "counted_chips_cents": chip_total,
    }


def _against_the_book(counts: dict) -> dict:
    """The counts with the book (read under the writer lock) and the variance = count − book."""
    expected_cash, expected_chips = store.balance(accounts.CAGE_CASH), store.balance(accounts.CAGE_CHIPS)
    counted = counts["counted_cash_cents"] + counts["counted_chips_cents"]
    return counts | {
        "expected_cash_cents": expected_cash,
        "expected_chips_cents": expected_chips,
        "variance_cents": counted - expected_cash - expected_chips,
    }


def cage_shift_open(
    *, cash: dict, chips: dict, actor: str, code: str = "main", idempotency_key: str | None = None
) -> dict:
    """Open a cage shift with its count: ``cash`` and ``chips`` as ``{"<cents>": pieces}``.

    The actor (cashier or cage supervisor) must be the one the last shift handed over to, if it
    named one. Returns ``{"cage", "event", "counted_cents", "expected_cents", "variance_cents",
    "handover_variance_cents"}`` (variance: count − book; handover: count − the last close's
    count). Raises ``InvalidInput`` (bad count), ``RoleRequired`` (403), ``StateConflict``
    (a shift is already open).
    """
    require_role(actor, *CAGE_ROLES, step="opening a cage shift")
    counts = _validated(cash, chips)
    request = {"op": "cage_shift_open", "cage": code, "cash": counts["cash"], "chips": counts["chips"]}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        data = _against_the_book(counts)
        last = last_shift_event(code)
        if last is not None and last.type == "CageShiftOpened":
            raise StateConflict(f"a shift of cage {code} is already open (by {last.actor})", field="cage")
        handover = None
        if last is not None:
            if last.data.get("handover_to") and last.data["handover_to"] != actor:
                raise StateConflict(f"the last shift was handed over to {last.data['handover_to']}", field="cage")
            previous = last.data["counted_cash_cents"] + last.data["counted_chips_cents"]
            handover = data["counted_cash_cents"] + data["counted_chips_cents"] - previous
        data |= {"cage": code, "handover_variance_cents": handover}
        (event,) = cmd.append(
            stream=shift_stream(code),
            expected_version=last.version if last else 0,
            events=[NewEvent("CageShiftOpened", data)],
        )
        return cmd.finish(_result(code, event))


def cage_shift_close(
    *,
    cash: dict,
    chips: dict,
    actor: str,
    handover_to: str | None = None,
    variance_reason: str | None = None,
    code: str = "main",
    idempotency_key: str | None = None,
) -> dict:
    """Close the open cage shift with its count, handing over to ``handover_to`` (a cashier or
    cage supervisor other than the actor), or to nobody at the end of the day.
    ``variance_reason`` (up to 500 characters) is the cashier's explanation of a count that
    differs from the book; it is kept on the ``CageShiftClosed`` event when given.

    Only the shift's own cashier closes it, or a cage supervisor (recorded as
    ``closed_by_supervisor``): the closing count answers for the opener's bank.

    Same result shape as ``cage_shift_open``. Raises ``InvalidInput`` (bad count),
    ``RoleRequired`` (403), ``StateConflict`` (no open shift; field ``shift``: another
    cashier's shift).
    """
    require_role(actor, *CAGE_ROLES, step="closing a cage shift")
    if handover_to is not None:
        if not isinstance(handover_to, str) or not handover_to:
            raise InvalidInput("handover_to names the next shift's cashier", field="handover_to")
        require_role(handover_to, *CAGE_ROLES, step="taking over the cage")
        require_distinct("handing over the cage", handover_to, [("closing cashier", actor)])
    if variance_reason is not None and (not isinstance(variance_reason, str) or len(variance_reason) > 500):
        raise InvalidInput("the variance reason is a text of up to 500 characters", field="variance_reason")
    reason = (variance_reason or "").strip()
    counts = _validated(cash, chips)
    request = {"op": "cage_shift_close", "cage": code, "cash": counts["cash"], "chips": counts["chips"]}
    request["handover_to"] = handover_to
    if reason:
        request["variance_reason"] = reason
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        data = _against_the_book(counts)
        last = last_shift_event(code)
        if last is None or last.type != "CageShiftOpened":
            raise StateConflict(f"cage {code} has no open shift", field="cage")
        by_supervisor = require_shift_closer(last, actor)
        data |= {"cage": code, "handover_to": handover_to, "opened_by": last.actor, "opened_event": last.position}
        if by_supervisor:
            data["closed_by_supervisor"] = True
        if reason:
            data["variance_reason"] = reason
        (event,) = cmd.append(
            stream=shift_stream(code), expected_version=last.version, events=[NewEvent("CageShiftClosed", data)]
        )
        return cmd.finish(_result(code, event))


def _result(code: str, event: Event) -> dict:
    data = event.data
    return {
        "cage": code,
        "event": event.position,
        "counted_cents": data["counted_cash_cents"] + data["counted_chips_cents"],
        "expected_cents": data["expected_cash_cents"] + data["expected_chips_cents"],
        "variance_cents": data["variance_cents"],
        "handover_variance_cents": data.get("handover_variance_cents"),
    }

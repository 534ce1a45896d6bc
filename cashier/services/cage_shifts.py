"""Cashier windows (cage shifts): each cashier works her own window, opened and closed with a
count by denomination, beside the other cashiers' windows at the same cage.

A window is an imprest bank: opening it moves the counted cash and value chips out of the
cage's main bank into the window's drawer (``cage:window:<n>:cash`` / ``:chips``); every chip
sale, redemption, fill issued and credit received at the window moves its drawer; closing it
counts the drawer and moves the count back to the main bank, the difference between count and
drawer (the variance) going to ``cage:over_short``. ``cage:cash`` and ``cage:chips`` stay the
cage's whole book (main bank + windows): the drawers are subsidiary accounts against the contra
``cage:windows:cash`` / ``:chips`` (docs/chart_of_accounts.md, "Windows and chips in transit").

Each cashier has at most one window open per cage; only she sells, redeems and issues in it;
she or a cage supervisor closes it. Window numbers are sequential per cage (1, 2, ...), taken
under the ledger writer lock. Stream: ``cageshift/<cage code>`` (every window's opening and
closing, in order). A shift opened before windows existed (no ``window`` in its event) is the
cage's single shift of old: its movements post to the cage's book only.

A window handed over (SHIFTS.md: "count, sign with the incoming cashier") closes only when the
incoming cashier confirms it from his own session: the close is the ``approvals`` act
``cage_shift_close``, and the service refuses a ``handover_to`` passed any other way. When he
then opens his window, his count is compared with the count handed over to him
(``handover_variance_cents``); a difference needs its reason.
"""

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from basis.money import format_cents
from core.denominations import cash_denominations, chip_denominations, count_total
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.event_seals import sealed_events
from ledger.models import Event
from ledger.store import Leg, NewEvent
from staff.roles import (
    Role,
    has_role,
    require_distinct,
    require_role,
    require_second_signature,
    require_signed_in_person,
)

CAGE_ROLES = (Role.CASHIER, Role.CAGE_SUPERVISOR)


def shift_stream(code: str) -> str:
    return f"cageshift/{code}"


def last_shift_event(code: str = "main") -> Event | None:
    return Event.objects.filter(stream=shift_stream(code)).order_by("-version").first()


def open_windows(code: str = "main") -> dict[str, Event]:
    """The windows open at cage ``code``: ``{cashier: her CageShiftOpened event}``, oldest first."""
    opened: dict[int, Event] = {}
    # The application's events only: a CageShiftOpened INSERTed around it opens no window.
    for event in sealed_events(Event.objects.filter(stream=shift_stream(code)).order_by("version")):
        if event.type == "CageShiftOpened":
            opened[event.position] = event
        else:
            opened.pop(event.data.get("opened_event"), None)
    return {event.actor: event for event in opened.values()}


def window_of(opened: Event | None) -> str | None:
    """The window number of a ``CageShiftOpened`` event (None: a shift of the single-shift cage)."""
    return None if opened is None else opened.data.get("window")


def window_book(window: str) -> dict:
    """``{"cash_cents", "chips_cents"}``: what window ``window``'s drawer holds by the ledger."""
    return {
        "cash_cents": store.balance(accounts.window_cash(window)),
        "chips_cents": store.balance(accounts.window_chips(window)),
    }


def foreign_currencies() -> list[str]:
    """The currencies the cage buys (``CASINO_FOREIGN_CURRENCIES``), ISO 4217 codes."""
    return list(settings.CASINO_FOREIGN_CURRENCIES)


def window_foreign_book(window: str) -> dict[str, int]:
    """``{currency: hundredths}``: the foreign banknotes window ``window``'s drawer holds by the
    ledger, each currency the cage buys (zero included; ``cashier.services.foreign_exchange``)."""
    return {code: store.balance(accounts.window_foreign(window, code), code) for code in foreign_currencies()}


def _foreign_counts(foreign: object) -> dict[str, int]:
    """``{currency: hundredths counted}`` checked: currencies the cage buys, whole non-negative
    amounts (``InvalidInput``, field ``foreign``)."""
    if foreign is None:
        return {}
    if not isinstance(foreign, dict):
        raise InvalidInput("the foreign banknotes are counted as {currency: hundredths}", field="foreign")
    accepted = foreign_currencies()
    counts = {}
    for code, cents in foreign.items():
        if code not in accepted:
            raise InvalidInput(f"the cage buys {', '.join(accepted)}, not {str(code)[:10]!r}", field="foreign")
        if type(cents) is not int or cents < 0:
            raise InvalidInput(f"the {code} count is a whole non-negative number of hundredths", field="foreign")
        counts[code] = cents
    return dict(sorted(counts.items()))


def _foreign_close(window: str, counted: dict[str, int]) -> tuple[dict, list[Leg]]:
    """The foreign banknotes of ``window`` at its close: ``({currency: {"counted_cents",
    "expected_cents", "variance_cents"}}, legs)``. The drawer goes back to the main bank as
    counted (``cage:foreign:<CUR>``), the variance to ``cage:over_short:<CUR>``, in the
    currency. A currency the drawer holds but the count leaves out: ``InvalidInput``."""
    held = window_foreign_book(window)
    missing = [code for code, cents in held.items() if cents and code not in counted]
    if missing:
        what = ", ".join(format_cents(held[code], code) for code in missing)
        raise InvalidInput(f"the window holds {what} in foreign banknotes: count them too", field="foreign")
    lines: dict = {}
    legs: list[Leg] = []
    for code, count in counted.items():
        book = held.get(code, 0)
        lines[code] = {"counted_cents": count, "expected_cents": book, "variance_cents": count - book}
        legs += [
            Leg(accounts.window_foreign(window, code), -book, code),
            Leg(accounts.cage_foreign(code), count, code),
            Leg(accounts.foreign_over_short(code), book - count, code),
        ]
    return lines, [leg for leg in legs if leg.amount_cents]


def main_bank() -> dict:
    """``{"cash_cents", "chips_cents"}``: the cage's book outside the open windows."""
    return {
        "cash_cents": store.balance(accounts.CAGE_CASH) + store.balance(accounts.CAGE_WINDOWS_CASH),
        "chips_cents": store.balance(accounts.CAGE_CHIPS) + store.balance(accounts.CAGE_WINDOWS_CHIPS),
    }


def require_open_shift(code: str = "main", actor: str | None = None) -> Event | None:
    """The ``CageShiftOpened`` event of ``actor``'s open window, which a movement he makes goes
    through. Call it under the writer lock. Cash and chips cross the cage counter only while a
    window is open, so that each movement belongs to a count.

    Raises ``StateConflict`` (409, field ``shift``) when no window is open at cage ``code``, or
    when ``actor`` (a cashier or cage supervisor) has none open: each works her own window, counted
    in by her and answered for by her at the close. ``None`` for an actor without a cage role
    (the system's own steps, never through the API): his movements go through the main bank."""
    windows = open_windows(code)
    if not windows:
        raise StateConflict(
            f"no cashier window is open at cage {code}: open a window with its count first", field="shift"
        )
    if actor is None or not has_role(actor, *CAGE_ROLES):
        return None
    mine = windows.get(actor)
    if mine is None:
        others = ", ".join(sorted(windows))
        raise StateConflict(
            f"{actor} has no window open (open: {others}'s): open your own window with its count first; "
            "only a window's cashier sells, redeems and issues in it",
            field="shift",
        )
    if closing_asked(actor) is not None:
        raise StateConflict(
            f"{actor}'s window is counted out and its closing waits for a signature: nothing crosses the "
            "counter until it closes; withdraw the closing to serve again, then count it anew",
            field="shift",
        )
    return mine


# How an approval ends, in the approvals' own event words (``approvals.services``): read here from
# the ledger, the cage's services sitting below the approvals app.
APPROVAL_ENDS = ("ApprovalConfirmed", "ApprovalRejected", "ApprovalWithdrawn", "ApprovalExpired")


def closing_asked(cashier: str) -> Event | None:
    """The ``ApprovalRequested`` of a close of ``cashier``'s window still waiting for its signature
    (the ``approvals`` act ``cage_shift_close``, whose payload carries the drawer as counted), or
    None. While it waits the drawer is frozen: a sale would leave the count behind it."""
    asked = Event.objects.filter(
        type="ApprovalRequested", data__payload__cashier=cashier, data__payload__has_key="drawer_as_counted"
    ).order_by("-position")[:5]
    now = timezone.now()
    for event in asked:
        expires = event.data.get("expires_at")
        if not isinstance(expires, str) or datetime.fromisoformat(expires) <= now:
            continue
        if not Event.objects.filter(stream=event.stream, type__in=APPROVAL_ENDS).exists():
            return event
    return None


def require_shift_closer(opened: Event, actor: str) -> bool:
    """Who may close the window ``opened`` (its ``CageShiftOpened``): its own cashier, or a cage
    supervisor (then True: recorded as ``closed_by_supervisor``). Anyone else:
    ``StateConflict`` (409, field ``shift``) naming the window's cashier."""
    if actor == opened.actor:
        return False
    if has_role(actor, Role.CAGE_SUPERVISOR):
        return True
    raise StateConflict(
        f"the window is {opened.actor}'s: only {opened.actor} or a cage supervisor closes it", field="shift"
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


def _against(counts: dict, book: dict) -> dict:
    """The counts with the book they answer for and the variance = count − book (cents)."""
    counted = counts["counted_cash_cents"] + counts["counted_chips_cents"]
    return counts | {
        "expected_cash_cents": book["cash_cents"],
        "expected_chips_cents": book["chips_cents"],
        "variance_cents": counted - book["cash_cents"] - book["chips_cents"],
    }


def _window_number(code: str) -> str:
    """The next window number of cage ``code`` (under the writer lock: never taken twice)."""
    n = Event.objects.filter(stream=shift_stream(code), type="CageShiftOpened").count() + 1
    return str(n) if code == "main" else f"{code}-{n}"


def handover_waiting(cashier: str, code: str = "main") -> Event | None:
    """The ``CageShiftClosed`` of the window last handed over to ``cashier`` at cage ``code``
    that she has not taken up yet (no opening of hers after it), or None. Her next opening is
    counted against it."""
    stream = Event.objects.filter(stream=shift_stream(code))
    closed = stream.filter(type="CageShiftClosed", data__handover_to=cashier).order_by("-version").first()
    if closed is None or stream.filter(type="CageShiftOpened", actor=cashier, version__gt=closed.version).exists():
        return None
    return closed


def _reason(variance_reason: object) -> str:
    if variance_reason is not None and (not isinstance(variance_reason, str) or len(variance_reason) > 500):
        raise InvalidInput("the variance reason is a text of up to 500 characters", field="variance_reason")
    return (variance_reason or "").strip()


def opening_variance(cashier: str, cash: object, chips: object, variance_reason: object, code: str = "main") -> dict:
    """How ``cashier``'s imprest count compares with the count handed over to her: ``{"handed":
    the ``CageShiftClosed`` or None, "counted_cents", "variance_cents" (count − handed over, None
    without a handover), "sides": {"cash_cents", "chips_cents"} (each side's difference, kept on
    the opening for the auditor; None without a handover), "verified": whether a cage
    supervisor must verify it (more than ``CASINO_VARIANCE_THRESHOLD_CENTS`` either way;
    SHIFTS.md, the cashier's step 1)}``. Raises ``InvalidInput`` (a bad count; a difference
    without ``variance_reason``: field ``variance_reason``)."""
    reason = _reason(variance_reason)
    counts = _validated(cash, chips)
    counted = counts["counted_cash_cents"] + counts["counted_chips_cents"]
    handed = handover_waiting(cashier, code)
    if handed is None:
        return {"handed": None, "counted_cents": counted, "variance_cents": None, "sides": None, "verified": False}
    handed_cents = handed.data["counted_cash_cents"] + handed.data["counted_chips_cents"]
    if counted != handed_cents and not reason:
        raise InvalidInput(
            f"the count ({format_cents(counted)}) differs by {format_cents(counted - handed_cents)} "
            f"from the {format_cents(handed_cents)} {handed.data.get('opened_by') or handed.actor} "
            "handed over to you: give the reason for the difference",
            field="variance_reason",
        )
    sides = {side: counts[f"counted_{side}"] - handed.data[f"counted_{side}"] for side in ("cash_cents", "chips_cents")}
    return {
        "handed": handed,
        "counted_cents": counted,
        "variance_cents": counted - handed_cents,
        "sides": sides,
        "verified": abs(counted - handed_cents) > settings.CASINO_VARIANCE_THRESHOLD_CENTS,
    }


def closing_variance(cashier: str, cash: object, chips: object, code: str = "main") -> dict:
    """How a closing count of ``cashier``'s open window compares with its book: ``{"variance_cents":
    count − book (house currency; None when she has no window open), "verified": whether a cage
    supervisor must verify it (more than ``CASINO_VARIANCE_THRESHOLD_CENTS`` either way; SHIFTS.md,
    the cashier's step 6 as step 1: a variance is explained and verified)}``. Raises
    ``InvalidInput`` (a bad count)."""
    counts = _validated(cash, chips)
    window = window_of(open_windows(code).get(cashier))
    if window is None:
        return {"variance_cents": None, "verified": False}
    variance = _against(counts, window_book(window))["variance_cents"]
    return {"variance_cents": variance, "verified": abs(variance) > settings.CASINO_VARIANCE_THRESHOLD_CENTS}


def cage_shift_open(
    *,
    cash: dict,
    chips: dict,
    actor: str,
    variance_reason: str | None = None,
    approver: str | None = None,
    code: str = "main",
    idempotency_key: str | None = None,
) -> dict:
    """Open the actor's window with its imprest counted: ``cash`` and ``chips`` as
    ``{"<cents>": pieces}``, moved out of the cage's main bank into the window's drawer.

    A window was handed over to the actor (``handover_waiting``: she confirmed its close as the
    incoming cashier): her count is compared with the count handed over,
    ``handover_variance_cents`` = count − handed over (cents), the event naming that close
    (``handover_event``); a difference needs ``variance_reason`` (up to 500 characters, kept on
    the event), and one over ``CASINO_VARIANCE_THRESHOLD_CENTS`` a cage supervisor's
    verification (``approver``, not the actor: given only through the ``approvals`` act
    ``cage_shift_open`` he confirmed himself; kept as ``variance_verified_by``). Without a
    handover ``handover_variance_cents`` is None.

    Returns ``{"cage", "window", "event", "counted_cents", "expected_cents", "variance_cents",
    "handover_variance_cents", "handover_event"}`` (cents; the imprest is what was counted:
    variance 0). Raises ``InvalidInput`` (bad count; a handover variance without its reason:
    field ``variance_reason``), ``RoleRequired`` (403; a variance over the threshold without a
    cage supervisor's verification), ``StateConflict`` (the actor's window is
    already open: field ``shift``), ``InsufficientChips`` (the main bank holds less than counted:
    field ``cash`` or ``chips``).
    """
    require_role(actor, *CAGE_ROLES, step="opening a cashier window")
    reason = _reason(variance_reason)
    counts = _validated(cash, chips)
    request = {"op": "cage_shift_open", "cage": code, "cash": counts["cash"], "chips": counts["chips"]}
    if reason:
        request["variance_reason"] = reason
    if approver:
        request["approver"] = approver
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        mine = open_windows(code).get(actor)
        if mine is not None:
            raise StateConflict(
                f"{actor}'s window is already open: close it with its count before opening another", field="shift"
            )
        bank = main_bank()
        for field, side, what in (("cash", "cash_cents", "cash"), ("chips", "chips_cents", "value chips")):
            if counts[f"counted_{side}"] > bank[side]:
                raise InsufficientChips(
                    f"the main bank holds {format_cents(bank[side])} of {what}, less than the "
                    f"{format_cents(counts[f'counted_{side}'])} counted into the window",
                    field=field,
                )
        window = _window_number(code)
        imprest = {"cash_cents": counts["counted_cash_cents"], "chips_cents": counts["counted_chips_cents"]}
        data = _against(counts, imprest) | {"cage": code, "window": window, "handover_variance_cents": None}
        # SHIFTS.md: the imprest is counted with the outgoing cashier; a difference between what
        # she handed over and what the incoming counts is explained, never silent, and verified
        # by a cage supervisor over the threshold.
        compared = opening_variance(actor, cash, chips, reason, code)
        handed = compared["handed"]
        if handed is not None:
            if compared["verified"]:
                require_second_signature(
                    f"an opening count {format_cents(compared['variance_cents'])} off the count handed over",
                    approver,
                    actor,
                    Role.CAGE_SUPERVISOR,
                )
                data["variance_verified_by"] = approver
            data |= {
                "handover_event": handed.position,
                "handover_from": handed.data.get("opened_by") or handed.actor,
                "handover_counted_cents": compared["counted_cents"] - compared["variance_cents"],
                "handover_variance_cents": compared["variance_cents"],
                "handover_variance_cash_cents": compared["sides"]["cash_cents"],
                "handover_variance_chips_cents": compared["sides"]["chips_cents"],
            }
        if reason:
            data["variance_reason"] = reason
        legs = posting_rules.window_share(window, cash=imprest["cash_cents"], chips=imprest["chips_cents"])
        last = last_shift_event(code)
        (event,) = cmd.append(
            stream=shift_stream(code),
            expected_version=last.version if last else 0,
            events=[NewEvent("CageShiftOpened", data, legs)],
        )
        return cmd.finish(_result(code, event))


def window_cashier(actor: str, cashier: str | None = None, code: str = "main") -> str:
    """Whose window a close by ``actor`` naming ``cashier`` is about: ``cashier``, by default
    the actor's own, or (a cage supervisor without a window of his own) the only one open."""
    if cashier is not None:
        return cashier
    windows = open_windows(code)
    if actor not in windows and len(windows) == 1 and has_role(actor, Role.CAGE_SUPERVISOR):
        return next(iter(windows))
    return actor


def _window_to_close(code: str, actor: str, cashier: str | None) -> Event:
    """The open window ``cashier``'s (default: ``window_cashier``)."""
    windows = open_windows(code)
    if cashier is None:
        cashier = window_cashier(actor, None, code)
    opened = windows.get(cashier)
    if opened is None:
        raise StateConflict(f"{cashier} has no window open at cage {code}", field="shift")
    return opened


def cage_shift_close(
    *,
    cash: dict,
    chips: dict,
    actor: str,
    handover_to: str | None = None,
    variance_reason: str | None = None,
    cashier: str | None = None,
    foreign: dict | None = None,
    code: str = "main",
    drawer_as_counted: dict | None = None,
    approver: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Close ``cashier``'s window (default: the actor's own) with its drawer counted: the count
    goes back to the main bank, the variance (count − drawer, per side) to ``cage:over_short``.
    ``handover_to`` (a cashier or cage supervisor other than the actor and the window's
    cashier) is the incoming cashier who counted with her and signed the close from his own
    session: only the ``approvals`` act ``cage_shift_close`` passes him, once he confirmed.
    Without it (nobody: the end of the day) the cashier closes alone. ``variance_reason`` (up
    to 500 characters) is kept on the ``CageShiftClosed`` event when given. ``foreign``: the
    foreign banknotes counted, ``{currency: hundredths}``, each currency the drawer holds
    (``_foreign_close``: its variance to that currency's over/short; the event's ``foreign``
    says count, book and variance per currency; ``variance_cents`` stays the house currency's).

    ``drawer_as_counted`` (``{"cash_cents", "chips_cents"}``, the drawer's book when the count was
    made: the close signed later by the incoming cashier carries it) refuses the close (409,
    field ``shift``) when the drawer moved since, a sale made while the signature waited: the
    count no longer answers for it, the drawer is counted again.

    A count more than ``CASINO_VARIANCE_THRESHOLD_CENTS`` off the window's book is verified by a
    cage supervisor other than the closer (``approver``, given only through the ``approvals`` act
    ``cage_shift_close``, recorded as ``variance_verified_by``); an incoming cage supervisor who
    counted with her verifies it by signing the handover. ``RoleRequired`` (403) without it.

    Only the window's own cashier closes it, or a cage supervisor (``closed_by_supervisor``).
    Same result shape as ``cage_shift_open``. Raises ``InvalidInput`` (bad count; a
    ``handover_to`` the incoming cashier did not confirm himself: field ``handover_to``),
    ``RoleRequired`` (403), ``StateConflict`` (no such window open, or another cashier's: field
    ``shift``; the incoming cashier's own window already open: field ``handover_to``);
    ``InvalidInput`` (field ``foreign``) for a bad foreign count or a currency the
    drawer holds left out of it.
    """
    require_role(actor, *CAGE_ROLES, step="closing a cashier window")
    foreign_counted = _foreign_counts(foreign)
    if handover_to is not None:
        if not isinstance(handover_to, str) or not handover_to:
            raise InvalidInput("handover_to names the next shift's cashier", field="handover_to")
        require_role(handover_to, *CAGE_ROLES, step="taking over the cage")
        require_distinct("handing over the cage", handover_to, [("closing cashier", actor)])
        require_signed_in_person(
            handover_to,
            field="handover_to",
            message=f"the incoming cashier confirms the handover from his own session: ask {handover_to} "
            "to sign it (an approval; POST /api/cage/shifts/close with handover_to asks for it); "
            "a name chosen by someone else is not his signature",
        )
    reason = _reason(variance_reason)
    if cashier is not None and not isinstance(cashier, str):
        raise InvalidInput("name the cashier whose window closes", field="cashier")
    counts = _validated(cash, chips)
    request = {"op": "cage_shift_close", "cage": code, "cash": counts["cash"], "chips": counts["chips"]}
    request |= {"handover_to": handover_to, "cashier": cashier}
    if foreign_counted:
        request["foreign"] = foreign_counted
    if reason:
        request["variance_reason"] = reason
    if approver:
        request["approver"] = approver
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        last = _window_to_close(code, actor, cashier)
        by_supervisor = require_shift_closer(last, actor)
        if handover_to is not None:
            require_distinct("handing over the cage", handover_to, [("window's cashier", last.actor)])
            if open_windows(code).get(handover_to) is not None:
                # Her opening is counted against what is handed over to her: one already open
                # was counted against nothing, and the handover would be compared with nothing.
                raise StateConflict(
                    f"{handover_to}'s own window is already open: a window is handed over to a cashier "
                    "before she opens hers, or closed at the end of the day",
                    field="handover_to",
                )
        window = window_of(last)
        legs: list[Leg] = []
        if window is None and foreign_counted:
            raise InvalidInput("foreign banknotes are counted at a cashier window's close", field="foreign")
        if window is None:  # the single shift of old: its book is the cage's, counts are recorded
            data = _against(
                counts,
                {"cash_cents": store.balance(accounts.CAGE_CASH), "chips_cents": store.balance(accounts.CAGE_CHIPS)},
            )
        else:
            book = window_book(window)
            _unmoved_since_counted(book, drawer_as_counted)
            data = _against(counts, book) | {"window": window}
            # The drawer goes back to the main bank as counted; what the count lacks (or has in
            # excess) is the window's variance, to over/short: the cage's book then holds the count.
            if abs(data["variance_cents"]) > settings.CASINO_VARIANCE_THRESHOLD_CENTS:
                verifier = approver
                if verifier is None and handover_to is not None and has_role(handover_to, Role.CAGE_SUPERVISOR):
                    verifier = handover_to
                require_second_signature(
                    f"a closing count {format_cents(data['variance_cents'])} off the window's book",
                    verifier,
                    actor,
                    Role.CAGE_SUPERVISOR,
                )
                data["variance_verified_by"] = verifier
            legs = posting_rules.window_share(window, cash=-book["cash_cents"], chips=-book["chips_cents"])
            for control, side in ((accounts.CAGE_CASH, "cash_cents"), (accounts.CAGE_CHIPS, "chips_cents")):
                legs += posting_rules.stock(control, accounts.CAGE_OVER_SHORT, counts[f"counted_{side}"] - book[side])
            foreign_lines, foreign_legs = _foreign_close(window, foreign_counted)
            legs += foreign_legs
            if foreign_lines:
                data["foreign"] = foreign_lines
        data |= {"cage": code, "handover_to": handover_to, "opened_by": last.actor, "opened_event": last.position}
        if by_supervisor:
            data["closed_by_supervisor"] = True
        if reason:
            data["variance_reason"] = reason
        (event,) = cmd.append(
            stream=shift_stream(code),
            expected_version=last_shift_event(code).version,
            events=[NewEvent("CageShiftClosed", data, legs)],
        )
        return cmd.finish(_result(code, event) | {"opened_event": last.position})


def _unmoved_since_counted(book: dict, counted_against: dict | None) -> None:
    """409 (``shift``) when the drawer's book is no longer the one the count was made against."""
    if not isinstance(counted_against, dict):
        return
    moved = []
    for side in ("cash", "chips"):
        then, now = counted_against.get(f"{side}_cents"), book[f"{side}_cents"]
        if then != now:
            moved.append(
                f"{side} {format_cents(then) if type(then) is int else 'unknown'} then, {format_cents(now)} now"
            )
    if moved:
        raise StateConflict(
            f"the drawer moved since it was counted ({'; '.join(moved)}): count it again and ask anew",
            field="shift",
        )


def _result(code: str, event: Event) -> dict:
    data = event.data
    return {
        "cage": code,
        "window": data.get("window"),
        "event": event.position,
        "counted_cents": data["counted_cash_cents"] + data["counted_chips_cents"],
        "expected_cents": data["expected_cash_cents"] + data["expected_chips_cents"],
        "variance_cents": data["variance_cents"],
        "handover_variance_cents": data.get("handover_variance_cents"),
        "handover_event": data.get("handover_event"),
    }

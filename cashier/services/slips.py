"""Fill and credit slips: chips between the cage and a table, step by step.

``requested`` (pit boss, at the table) → ``issued`` (cashier or cage supervisor, who names
the runner) → ``delivered`` (a fill: accepted at the table by a pit boss or dealer; a credit:
received at the cage, counted piece for piece by a cashier); or ``voided``
(reason, two signatures). Each step is an event on ``slip/<kind>/<serial>``. The chips move
as they do (docs/chart_of_accounts.md, "Windows and chips in transit"):

- fill issued:      cage:chips −X, chips:in_transit +X (out of the issuing window's drawer)
- fill delivered:   chips:in_transit −X, table:<T>:tray +X
- fill voided once issued: chips:in_transit −X, cage:chips +X (back to the main bank)
- credit delivered (received and counted at the cage): table:<T>:tray −X, cage:chips +X
  (into the receiving cashier's window's drawer)

A fill issued before chips in transit existed (its ``FillIssued`` without ``in_transit``)
moves at delivery by DESIGN.md's first rule: cage:chips −X, table:<T>:tray +X.

Segregation of duties: the issuer is not the requester; the runner (role runner) is neither
the requester nor the issuer; the acceptor is none of the requester, the issuer and the runner
(each step by a different user). A mistaken
delivered slip is reversed by ``FillReversed`` / ``CreditReversed``, which names the
delivery it corrects and needs a pit boss's or cage supervisor's approval; nothing is edited.

Serial numbers: ``YYYY-NNNNNN``, one series per kind (fills and credits each have their
own book), sequential within the calendar year of the request's gaming day; allocated
under the ledger writer lock, so two requests never take the same number and a refused
request leaves no gap.
"""

from django.conf import settings
from django.db.models import Max
from django_fsm import TransitionNotAllowed

from basis.money import format_cents
from core.ceilings import check_ceiling
from core.denominations import chip_denominations, count_total
from games.models import Table
from ledger import accounts, later_entries, posting_rules, store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, NotFound, StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import Leg, NewEvent
from staff.roles import Role, require_distinct, require_role, require_second_signature

from ..models import Cage, Slip
from .cage_shifts import require_open_shift, window_book, window_of

EVENT_PREFIX = {Slip.Kind.FILL: "Fill", Slip.Kind.CREDIT: "Credit"}
APPROVERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR)


def slip_legs(kind: str, table: str, amount: int) -> list[Leg]:
    """DESIGN.md: fill: cage:chips −X, table:tray +X · credit: the reverse."""
    sign = 1 if kind == Slip.Kind.FILL else -1
    return [Leg(accounts.CAGE_CHIPS, -sign * amount), Leg(accounts.table_tray(table), sign * amount)]


def _kind(kind: object) -> str:
    if kind not in Slip.Kind.values:
        raise InvalidInput(f"unknown slip kind {kind!r}; one of {', '.join(Slip.Kind.values)}", field="kind")
    return kind


def _slip_for_update(kind: str, serial: object) -> Slip:
    slip = (
        Slip.objects.select_for_update().select_related("table").filter(kind=kind, serial=serial).first()
        if isinstance(serial, str)
        else None
    )
    if slip is None:
        raise NotFound(f"no {kind} slip {serial!r}", field="serial")
    _as_recorded(slip)
    return slip


# A slip's step → its state (``cashier.replay`` names the same).
_STATES = {
    "Requested": Slip.State.REQUESTED,
    "Issued": Slip.State.ISSUED,
    "Delivered": Slip.State.DELIVERED,
    "Voided": Slip.State.VOIDED,
    "Reversed": Slip.State.REVERSED,
}


def _recorded(slip: Slip) -> dict | None:
    """What the slip's row must hold, folded from its sealed events (``slip/<kind>/<serial>``);
    None when no sealed request opens it."""
    rows = (
        Event.objects.filter(stream=slip.stream)
        .order_by("version")
        .values_list(*SEAL_FIELDS, "type", "actor", "version", "data")
    )
    made = None
    for event_type, actor, version, data in sealed_rows(rows):
        step = event_type.removeprefix("Fill").removeprefix("Credit")
        if step == "Requested":
            made = {
                "table": data["table"],
                "amount_cents": data["amount_cents"],
                "denominations": data["denominations"],
                "requested_by": actor,
            }
        if made is None:
            continue
        if step == "Issued":
            made |= {"issued_by": data["issued_by"], "runner": data["runner"]}
        made |= {"state": _STATES.get(step, made.get("state")), "version": version}
    return made


def _as_recorded(slip: Slip) -> None:
    """``StateConflict`` (409, field ``serial``) when the slip's row differs from its sealed events:
    its amount, count, table, requester, issuer, runner, state or version changed with raw SQL
    (a 50,000 EUR fill written down to 10 EUR, under the large-fill signature) moves nothing.
    The figures of every step come from the row only once it is what the ledger recorded."""
    made = _recorded(slip)
    if made is None:
        differing = ["(no event)"]
    else:
        row = {
            "table": slip.table.code,
            "amount_cents": slip.amount_cents,
            "denominations": slip.denominations,
            "requested_by": slip.requested_by,
            "issued_by": slip.issued_by,
            "runner": slip.runner,
            "state": slip.state,
            "version": slip.version,
        }
        differing = [name for name, value in made.items() if row[name] != value]
    if differing:
        raise StateConflict(
            f"{slip.kind} slip {slip.serial}'s row differs from its ledger events ({', '.join(differing)}): "
            "it was changed outside the application, nothing moves by it (see ledger replay-check)",
            field="serial",
        )


def recorded_slip(kind: object, serial: object) -> Slip | None:
    """The slip ``kind`` ``serial`` (its table read with it) as its sealed events recorded it, for
    those who address a request by it (whose table's dealer counts it, the count he must match);
    None when there is no such slip. ``StateConflict`` (409, field ``serial``) when its row was
    changed outside the application (``_as_recorded``): nobody is asked to sign by such a row."""
    if not isinstance(kind, str) or not isinstance(serial, str | int) or isinstance(serial, bool):
        return None
    slip = Slip.objects.select_related("table").filter(kind=kind, serial=str(serial)).first()
    if slip is not None:
        _as_recorded(slip)
    return slip


def _transition(slip: Slip, step: str) -> None:
    try:
        getattr(slip, step)()
    except TransitionNotAllowed:
        raise StateConflict(
            f"{slip.kind} slip {slip.serial} is {slip.state}; it cannot be {step}d", field="serial"
        ) from None


def _append(cmd, slip: Slip, event_type: str, data: dict, legs: list[Leg] = (), causation: str = "") -> Event:
    (event,) = cmd.append(
        stream=slip.stream,
        expected_version=slip.version,
        correlation_id=slip.stream,
        causation_id=causation,
        events=[NewEvent(event_type, {"slip": slip.serial, "kind": slip.kind, "table": slip.table.code, **data}, legs)],
    )
    slip.version = event.version
    slip.save()
    return event


def _result(slip: Slip, event: Event) -> dict:
    return {
        "serial": slip.serial,
        "kind": slip.kind,
        "table": slip.table.code,
        "state": slip.state,
        "amount_cents": slip.amount_cents,
        "denominations": slip.denominations,
        "event": event.position,
    }


def _check_tray_covers(table: Table, amount: int) -> None:
    tray = store.balance(accounts.table_tray(table.code), table.currency)
    if tray < amount:
        raise InsufficientChips(
            f"{format_cents(amount)} is more than the tray of {table.code} holds ({format_cents(tray)})",
            field="denominations",
        )


def _check_cage_covers(amount: int, window: str | None = None) -> None:
    held = window_book(window)["chips_cents"] if window else store.balance(accounts.CAGE_CHIPS)
    if held < amount:
        where = f"window {window}" if window else "the cage"
        raise InsufficientChips(
            f"{where} holds {format_cents(held)} of chips, less than {format_cents(amount)}", field="denominations"
        )


def _issued(slip: Slip) -> Event | None:
    return Event.objects.filter(stream=slip.stream, type=f"{EVENT_PREFIX[slip.kind]}Issued").first()


def slip_request(
    *,
    kind: str,
    table: str,
    denominations: dict,
    actor: str,
    approver: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """A pit boss requests a fill or a credit for ``table`` (open), counted by chip denomination.

    A fill of more than ``CASINO_LARGE_FILL_CENTS`` needs a cage supervisor's second signature
    (``approver``, another user, given through an approval he confirmed: ``approvals``),
    recorded as ``approved_by`` on the request's event.
    Returns ``{"serial", "kind", "table", "state", "amount_cents", "denominations", "event"}``
    (cents). Raises ``InvalidInput`` (bad kind or count, unknown denomination, an empty slip),
    ``InsufficientChips`` (a credit larger than the tray), ``RoleRequired`` (403: not a pit
    boss; a large fill without its second signature), ``NotFound`` (table), ``StateConflict``
    (table closed).
    """
    kind = _kind(kind)
    counted, amount = count_total(denominations, chip_denominations(), field="denominations")
    if amount <= 0:
        raise InvalidInput("a slip moves at least one chip", field="denominations")
    check_ceiling(kind, amount, field="denominations")
    require_role(actor, Role.PIT_BOSS, step=f"requesting a {kind}")
    large = kind == Slip.Kind.FILL and amount > settings.CASINO_LARGE_FILL_CENTS
    if large:
        require_second_signature(
            f"a fill over {settings.CASINO_LARGE_FILL_CENTS} cents", approver, actor, Role.CAGE_SUPERVISOR
        )
    approval = {"approved_by": approver} if large else {}
    request = {"op": "slip_request", "kind": kind, "table": table, "denominations": counted, **approval}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = Table.objects.filter(code=table).first() if isinstance(table, str) else None
        if found is None:
            raise NotFound(f"no table {table!r}", field="table")
        if found.state != Table.State.OPEN:
            raise StateConflict(f"table {table} is closed", field="table")
        if kind == Slip.Kind.CREDIT:
            _check_tray_covers(found, amount)
        # A slip entered later from an outage's paper form belongs to the day of its paper time.
        entry = later_entries.active()
        day = current_gaming_day(entry.occurred_at if entry is not None else None)
        number = (Slip.objects.filter(kind=kind, year=day.year).aggregate(n=Max("number"))["n"] or 0) + 1
        slip = Slip.objects.create(
            kind=kind,
            serial=f"{day.year}-{number:06d}",
            year=day.year,
            number=number,
            table=found,
            denominations=counted,
            amount_cents=amount,
            requested_by=actor,
            gaming_day=day,
        )
        event = _append(
            cmd, slip, f"{EVENT_PREFIX[kind]}Requested", {"amount_cents": amount, "denominations": counted, **approval}
        )
        return cmd.finish(_result(slip, event))


def slip_issue(*, kind: str, serial: str, runner: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The cage issues the slip (for a fill: prepares the chips) and hands it to ``runner``.

    Same result shape as ``slip_request``. Raises ``RoleRequired`` (403: the actor is not a
    cashier or cage supervisor, the runner not a runner, or a segregation clash),
    ``StateConflict`` (not requested; cage closed; no cashier shift open, or the open shift is
    another cashier's: field ``shift``), ``InsufficientChips`` (cage short of chips for a
    fill), ``NotFound``. Runs only through the runner's signature (``approvals`` act
    ``slip_issue``) from the API and the cage page.
    """
    kind = _kind(kind)
    require_role(actor, Role.CASHIER, Role.CAGE_SUPERVISOR, step=f"issuing a {kind}")
    if not isinstance(runner, str) or not runner:
        raise InvalidInput("name the runner who carries the slip", field="runner")
    require_role(runner, Role.RUNNER, step=f"carrying a {kind}")
    request = {"op": "slip_issue", "kind": kind, "serial": serial, "runner": runner}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        slip = _slip_for_update(kind, serial)
        require_distinct(f"issuing {kind} {serial}", actor, [("requester", slip.requested_by)])
        require_distinct(f"carrying {kind} {serial}", runner, [("requester", slip.requested_by), ("issuer", actor)])
        cage = Cage.objects.filter(code="main").first()
        if cage is None or cage.state != Cage.State.OPEN:
            raise StateConflict("the cage is closed", field="cage")
        window = window_of(require_open_shift(cage.code, actor))
        data = {"issued_by": actor, "runner": runner}
        legs: list[Leg] = []
        if window is not None:
            data["window"] = window
        if kind == Slip.Kind.FILL:
            _check_cage_covers(slip.amount_cents, window)
            # The chips leave the cage (and the issuing window's drawer) with the runner.
            legs = [Leg(accounts.CAGE_CHIPS, -slip.amount_cents), Leg(accounts.CHIPS_IN_TRANSIT, slip.amount_cents)]
            if window is not None:
                legs += posting_rules.window_share(window, chips=-slip.amount_cents)
            data |= {"amount_cents": slip.amount_cents, "in_transit": True}
        _transition(slip, "issue")
        slip.issued_by, slip.runner = actor, runner
        event = _append(cmd, slip, f"{EVENT_PREFIX[kind]}Issued", data, legs)
        return cmd.finish(_result(slip, event))


def slip_accept(
    *, kind: str, serial: str, actor: str, count: dict | None = None, idempotency_key: str | None = None
) -> dict:
    """The slip's last step; the chips move. Whoever takes the chips counts them first
    (``count``: ``{"<cents>": pieces}``), and the count must be the slip's, piece for piece.

    A fill is counted by the dealer and accepted at the table (a pit boss or the table's
    dealer): in transit → tray. A credit is received at the cage (SHIFTS.md, the cashier's
    "receive credits (count and certify)"): the receiving cashier or cage supervisor counts the
    chips the runner brought; the chips go tray → the receiving window's drawer.

    Appends ``FillDelivered`` / ``CreditDelivered`` with ``amount_cents``, ``counted`` (the
    count) and the postings. Same result shape as ``slip_request``. Raises ``RoleRequired``
    (403: a fill accepted by anyone but a pit boss or dealer, a credit received by anyone but
    the cage; the requester, the issuer or the runner accepting a fill; the requester or the
    runner receiving a credit), ``InvalidInput`` (no count, or a count that is not the slip's:
    field ``count``; nothing is written), ``StateConflict`` (not issued; table closed; the
    receiving cashier's window not open), ``InsufficientChips`` (a credit larger than the
    tray, a fill the cage cannot cover).
    """
    kind = _kind(kind)
    if kind == Slip.Kind.CREDIT:
        require_role(actor, Role.CASHIER, Role.CAGE_SUPERVISOR, step="receiving a credit (it is counted at the cage)")
    else:
        require_role(actor, Role.PIT_BOSS, Role.DEALER, step=f"accepting a {kind}")
    counted, _ = count_total(count if count is not None else {}, chip_denominations(), field="count")
    request = {"op": "slip_accept", "kind": kind, "serial": serial, "count": counted}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        slip = _slip_for_update(kind, serial)
        if kind == Slip.Kind.CREDIT:
            # The cashier who prepared the slip may count it in: the runner and the pit stand apart.
            require_distinct(
                f"receiving credit {serial}", actor, [("requester", slip.requested_by), ("runner", slip.runner)]
            )
        else:
            require_distinct(
                f"accepting {kind} {serial}",
                actor,
                [("requester", slip.requested_by), ("issuer", slip.issued_by), ("runner", slip.runner)],
            )
        table = Table.objects.get(pk=slip.table_id)
        if slip.state == Slip.State.ISSUED and table.state != Table.State.OPEN:
            raise StateConflict(f"table {table.code} is closed", field="table")
        _transition(slip, "deliver")
        _check_count_is_the_slips(slip, counted)
        issued = _issued(slip)
        in_transit = issued is not None and bool(issued.data.get("in_transit"))
        window = None
        if kind == Slip.Kind.CREDIT:
            _check_tray_covers(table, slip.amount_cents)
            window = window_of(require_open_shift("main", actor))
            legs = slip_legs(kind, table.code, slip.amount_cents)
            if window is not None:
                legs += posting_rules.window_share(window, chips=slip.amount_cents)
        elif in_transit:
            legs = [
                Leg(accounts.CHIPS_IN_TRANSIT, -slip.amount_cents),
                Leg(accounts.table_tray(table.code), slip.amount_cents),
            ]
        else:
            _check_cage_covers(slip.amount_cents)
            legs = slip_legs(kind, table.code, slip.amount_cents)
        slip.accepted_by = actor
        event = _append(
            cmd,
            slip,
            f"{EVENT_PREFIX[kind]}Delivered",
            {
                "amount_cents": slip.amount_cents,
                "denominations": slip.denominations,
                "requested_by": slip.requested_by,
                "issued_by": slip.issued_by,
                "runner": slip.runner,
                "accepted_by": actor,
                "counted": counted,
                **({"window": window} if window else {}),
            },
            legs,
        )
        return cmd.finish(_result(slip, event))


def _check_count_is_the_slips(slip: Slip, counted: dict) -> None:
    """The count of the chips taken in (normalised by ``count_total``: the dealer's of a fill,
    the cage's of a credit) must be the slip's, denomination by denomination: a difference is
    not posted (they are counted again, or the slip is voided), so the book never holds chips
    nobody counted."""
    if not counted:
        raise InvalidInput("count the chips the runner brought, by denomination", field="count")
    if counted != slip.denominations:
        total = sum(int(d) * n for d, n in counted.items())
        raise InvalidInput(
            f"the count ({format_cents(total)}) is not the slip's ({format_cents(slip.amount_cents)}, "
            "by denomination): count again; a slip that is wrong is voided by the pit",
            field="count",
        )


def _signatures(actor: str, approver: object, reason: object, step: str) -> str:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput(f"{step} needs a reason", field="reason")
    if not isinstance(approver, str) or not approver:
        raise InvalidInput(f"{step} needs a second signature (a pit boss or cage supervisor)", field="approver")
    require_role(actor, Role.PIT_BOSS, Role.CASHIER, Role.CAGE_SUPERVISOR, step=step)
    require_role(approver, *APPROVERS, step=f"approving: {step}")
    require_distinct(f"approving: {step}", approver, [("signer", actor)])
    return reason.strip()


VOID = "VOID"


def slip_void(
    *,
    kind: str,
    serial: str,
    reason: str,
    approver: str,
    actor: str,
    confirmation: object = None,
    idempotency_key: str | None = None,
) -> dict:
    """Void a slip that was requested or issued (no chips moved): SHIFTS.md's "VOID", a reason
    and two signatures. ``confirmation``: the word VOID, typed by the one who asks (a void is
    never one click away).

    The slip stays listed (state ``voided``). Raises ``InvalidInput`` (no VOID typed: field
    ``confirmation``; no reason, no approver), ``RoleRequired`` (403), ``StateConflict``
    (delivered: reverse it instead), ``NotFound``.
    """
    kind = _kind(kind)
    if not isinstance(confirmation, str) or confirmation.strip() != VOID:
        raise InvalidInput(f"type {VOID}, in capitals, to confirm the void", field="confirmation")
    why = _signatures(actor, approver, reason, f"voiding a {kind}")
    request = {"op": "slip_void", "kind": kind, "serial": serial, "reason": why, "approver": approver}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        slip = _slip_for_update(kind, serial)
        was_issued = slip.state == Slip.State.ISSUED
        _transition(slip, "void")
        slip.void_reason, slip.voided_by, slip.void_approved_by = why, actor, approver
        issued = _issued(slip) if was_issued else None
        legs: list[Leg] = []
        if issued is not None and issued.data.get("in_transit"):
            # The runner brings the chips back: into the main bank (the window may be closed).
            legs = [Leg(accounts.CHIPS_IN_TRANSIT, -slip.amount_cents), Leg(accounts.CAGE_CHIPS, slip.amount_cents)]
        event = _append(cmd, slip, f"{EVENT_PREFIX[kind]}Voided", {"reason": why, "approved_by": approver}, legs)
        return cmd.finish(_result(slip, event))


def slip_reverse(
    *, kind: str, serial: str, reason: str, approver: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """Reverse a delivered slip (storno): the postings of its delivery, the other way round.

    Appends ``FillReversed`` / ``CreditReversed`` with ``reverses`` = the position of the
    delivery event (also its ``causation_id``); the delivery stays in the ledger. A reversed
    fill gives the cage its chips back and takes them off the tray. Raises ``InvalidInput``,
    ``RoleRequired`` (403: approver not a pit boss or cage supervisor, or the signer),
    ``StateConflict`` (not delivered, already reversed, or delivered on a closed gaming day),
    ``InsufficientChips`` (the tray or the cage no longer holds the chips to give back),
    ``NotFound``.
    """
    kind = _kind(kind)
    why = _signatures(actor, approver, reason, f"reversing a {kind}")
    request = {"op": "slip_reverse", "kind": kind, "serial": serial, "reason": why, "approver": approver}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        slip = _slip_for_update(kind, serial)
        _transition(slip, "reverse")
        table = Table.objects.get(pk=slip.table_id)
        if kind == Slip.Kind.FILL:
            _check_tray_covers(table, slip.amount_cents)
        else:
            _check_cage_covers(slip.amount_cents)
        delivered = Event.objects.get(stream=slip.stream, type=f"{EVENT_PREFIX[kind]}Delivered")
        refuse_if_closed(
            delivered.gaming_day, what=f"the {kind} {slip.serial} delivered that day stands", field="serial"
        )
        slip.reversed_by, slip.reversal_approved_by = actor, approver
        legs = [
            Leg(leg.account, -leg.amount_cents, leg.currency) for leg in slip_legs(kind, table.code, slip.amount_cents)
        ]
        event = _append(
            cmd,
            slip,
            f"{EVENT_PREFIX[kind]}Reversed",
            {"amount_cents": slip.amount_cents, "reverses": delivered.position, "reason": why, "approved_by": approver},
            legs,
            causation=str(delivered.position),
        )
        return cmd.finish(_result(slip, event) | {"reverses": delivered.position})

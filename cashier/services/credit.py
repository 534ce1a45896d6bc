"""Casino credit and front money (docs/credit_and_front_money.md).

- A cage supervisor approves a patron's credit line (``CreditLineApproved``: before/after).
- A marker is issued against the remaining credit (the line less the markers outstanding), at
  the cage by a cashier or at a table by a pit boss, numbered in sequence per year
  (``YYYY-NNNNNN``); a table's marker goes in its drop box and is transferred to the cage
  (``MarkerTransferred``); the cage takes payments, in cash, chips or front money, until it is
  paid (``MarkerPaid``).
  A pit boss also takes a payment at his table, in chips or cash, into the table's book
  (``MarkerPaidAtTable``). A marker issued in error is voided (``MarkerVoided``): its reason,
  asked at the cage and signed by a cage supervisor from his own login (``approvals`` act
  ``marker_void``); the issue is reversed, the receivable and the chips, before any payment.
- Front money is cash a patron leaves at the cage (``FrontMoneyDeposited``) and takes back
  (``FrontMoneyWithdrawn``), or pays a marker with, or draws in chips at a table
  (``FrontMoneyDrawn``: the deposit reduced, the chips off the table's tray).

Posting rules: ``ledger.posting_rules.marker_*`` and ``front_money_*``. Streams
``credit/<patron>``, ``marker/<serial>``, ``frontmoney/<patron>``.
"""

from __future__ import annotations

from django.db.models import Max
from django.utils import timezone
from django_fsm import TransitionNotAllowed

from basis.money import format_cents
from core.ceilings import check_ceiling
from games.models import Table
from ledger import accounts, posting_rules, store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, NotFound, StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import Leg, NewEvent
from patrons.models import Patron
from patrons.selectors import patron_get
from patrons.services import aml
from staff.roles import Role, require_role, require_second_signature, require_signed_in_person

from ..credit_models import CreditLine, Marker
from .cage import _holds, _open_cage
from .cage_shifts import open_windows

CREDIT_APPROVERS = (Role.CAGE_SUPERVISOR,)
CAGE_DESK = (Role.CASHIER, Role.CAGE_SUPERVISOR)
TABLE_ISSUERS = (Role.PIT_BOSS,)
PAYMENT_METHODS = ("cash", "chips", "front_money")
TABLE_PAYMENT_METHODS = ("chips", "cash")  # front money is the cage's: drawn at a table, it buys chips
VOID_APPROVERS = (Role.CAGE_SUPERVISOR,)
MAX_CREDIT_CENTS = 100_000_000_000  # 1 billion: above is junk, not credit


def _cents(value: object, field: str, *, zero: bool = False) -> int:
    if type(value) is not int or value < (0 if zero else 1) or value > MAX_CREDIT_CENTS:
        what = "a non-negative" if zero else "a positive"
        raise InvalidInput(f"must be {what} whole number of cents, at most {MAX_CREDIT_CENTS}", field=field)
    return value


def _identified(code: str) -> Patron:
    patron = patron_get(code)
    if patron.kind != Patron.Kind.IDENTIFIED:
        raise InvalidInput("credit and front money are for identified patrons only", field="patron")
    return patron


def markers_outstanding_cents(patron: str) -> int:
    """What ``patron`` owes on his markers, in cents, from the ledger (``−patron:<P>:credit``)."""
    return -store.balance(accounts.patron_credit(patron))


def front_money_cents(patron: str) -> int:
    """The front money ``patron`` has at the cage, in cents, from the ledger."""
    return store.balance(accounts.patron_deposit(patron))


def approved_limit_cents(patron: str) -> int | None:
    """The limit of ``patron``'s credit line as the latest ``CreditLineApproved`` that is the
    application's says (``ledger.event_seals.sealed_rows``), in cents; None when none is."""
    rows = (
        Event.objects.filter(stream=f"credit/{patron}", type="CreditLineApproved")
        .order_by("-position")
        .values_list(*SEAL_FIELDS, "data")[:5]
    )
    data = next((data for (data,) in sealed_rows(rows)), None)
    return data.get("after") if isinstance(data, dict) else None


def credit_standing(patron: str) -> dict:
    """What a pit boss or a cashier checks before a marker or a front money draw, in cents, from
    the ledger: ``{"limit_cents"`` (the approved credit line, None: none), ``"owed_cents"`` (on
    his markers), ``"available_cents"`` (limit − owed, never below 0; None without a line),
    ``"front_money_cents"}``."""
    limit = approved_limit_cents(patron)
    owed = markers_outstanding_cents(patron)
    return {
        "limit_cents": limit,
        "owed_cents": owed,
        "available_cents": None if limit is None else max(limit - owed, 0),
        "front_money_cents": front_money_cents(patron),
    }


def credit_line_set(*, patron: str, limit_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """Approve (or change) ``patron``'s credit line to ``limit_cents`` (0 closes it to new markers).

    Returns ``{"patron", "before", "after", "outstanding_cents", "event"}`` (before: the limit
    before, or None). Raises ``RoleRequired`` (403) unless ``actor`` is a cage supervisor,
    ``InvalidInput`` (400: bad amount, unknown or anonymous patron), ``StateConflict`` (409:
    the limit is already that)."""
    require_role(actor, *CREDIT_APPROVERS, step="approving a credit line")
    limit = _cents(limit_cents, "limit_cents", zero=True)
    request = {"op": "credit_line_set", "patron": patron, "limit_cents": limit}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _identified(patron)
        line = CreditLine.objects.select_for_update().filter(patron=who).first()
        before = line.limit_cents if line else None
        if before == limit:
            raise StateConflict(f"the credit line of {who.code} is already {format_cents(limit)}", field="limit_cents")
        stream = f"credit/{who.code}"
        data = {"patron": who.code, "limit_cents": limit, "before": before, "after": limit}
        (event,) = cmd.append(
            stream=stream,
            expected_version=line.version if line else 0,
            events=[NewEvent("CreditLineApproved", data)],
        )
        line = line or CreditLine(patron=who)
        line.limit_cents, line.approved_by, line.approved_at = limit, actor, event.recorded_at
        line.version = event.version
        line.save()
        outstanding = markers_outstanding_cents(who.code)
        return cmd.finish(
            {
                "patron": who.code,
                "before": before,
                "after": limit,
                "outstanding_cents": outstanding,
                "event": event.position,
            }
        )


def marker_issue(
    *, patron: str, amount_cents: int, actor: str, table: str | None = None, idempotency_key: str | None = None
) -> dict:
    """Issue a marker of ``amount_cents`` to ``patron`` for value chips, at the cage (``table``
    None: a cashier or cage supervisor) or at ``table`` (a pit boss; the marker goes in its drop).

    Returns ``{"serial", "patron", "amount_cents", "table", "remaining_credit_cents", "event"}``.
    Raises ``RoleRequired`` (403), ``InvalidInput`` (400: bad amount or patron, above the
    buy-in ceiling), ``NotFound`` (404: no such table), ``StateConflict`` (409: no credit line,
    the amount over the remaining credit, the table or the cage closed; field ``shift``: at
    the cage, no cashier shift open or another cashier's, as for a chip sale),
    ``InsufficientChips`` (400: the cage lacks the chips)."""
    require_role(actor, *(TABLE_ISSUERS if table else CAGE_DESK), step="issuing a marker")
    amount = _cents(amount_cents, "amount_cents")
    check_ceiling("buy_in" if table else "chips_purchase", amount, field="amount_cents")
    request = {"op": "marker_issue", "patron": patron, "amount_cents": amount, "table": table}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _identified(patron)
        line = CreditLine.objects.select_for_update().filter(patron=who).first()
        limit = approved_limit_cents(who.code)
        if line is None or limit is None:
            raise StateConflict(f"{who.code} has no credit line", field="patron")
        if line.limit_cents != limit:
            # The row is what the pages read; the authority is the cage supervisor's sealed approval.
            raise StateConflict(
                f"the credit line of {who.code} differs from its ledger events: {format_cents(limit)} approved, "
                f"{format_cents(line.limit_cents)} on its row",
                field="patron",
            )
        remaining = limit - markers_outstanding_cents(who.code)
        if amount > remaining:
            raise StateConflict(
                f"a marker of {format_cents(amount)} is over the remaining credit of {format_cents(max(remaining, 0))}",
                field="amount_cents",
            )
        if table:
            found = Table.objects.filter(code=table).first()
            if found is None:
                raise NotFound(f"no such table: {table}", field="table")
            if found.state != Table.State.OPEN:
                raise StateConflict(f"table {table} is not open", field="table")
        else:
            _, window = _open_cage(actor=actor)  # the chips leave the cashier's own window
            if _holds(window, "chips_cents") < amount:
                raise InsufficientChips("the window has not enough chips; request a chip fill", field="amount_cents")
        now, day = timezone.now(), current_gaming_day()
        year = now.year
        number = (Marker.objects.filter(year=year).aggregate(n=Max("number"))["n"] or 0) + 1
        serial = f"{year}-{number:06d}"
        data = {"serial": serial, "patron": who.code, "amount_cents": amount, "table": table or None}
        legs = posting_rules.marker_issued(who.code, amount, table=table)
        if not table and window is not None:
            legs += posting_rules.window_share(window, chips=-amount)
            data["window"] = window
        (event,) = cmd.append(
            stream=f"marker/{serial}", expected_version=0, events=[NewEvent("MarkerIssued", data, legs)]
        )
        Marker.objects.create(
            serial=serial,
            year=year,
            number=number,
            patron=who,
            amount_cents=amount,
            table_code=table or "",
            state=Marker.State.AT_TABLE if table else Marker.State.AT_CAGE,
            issued_by=actor,
            issued_at=event.recorded_at,
            gaming_day=day,
            version=event.version,
        )
        return cmd.finish({**data, "remaining_credit_cents": remaining - amount, "event": event.position})


def _marker(serial: str) -> Marker:
    marker = Marker.objects.select_for_update().filter(serial=serial).first() if isinstance(serial, str) else None
    if marker is None:
        raise NotFound(f"no marker {serial}", field="serial")
    return marker


def marker_transfer(*, serial: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The cage receives a marker issued at a table: it leaves the table's drop for the cage.

    Returns ``{"serial", "table", "amount_cents", "event"}``. Raises ``RoleRequired`` (403:
    not a cashier or cage supervisor), ``NotFound`` (404), ``StateConflict`` (409: already at
    the cage or paid)."""
    require_role(actor, *CAGE_DESK, step="receiving a marker at the cage")
    with ledger_command(
        actor=actor, request={"op": "marker_transfer", "serial": serial}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        marker = _marker(serial)
        try:
            marker.transfer()
        except TransitionNotAllowed:
            raise StateConflict(f"marker {serial} is not at a table ({marker.state})", field="serial") from None
        data = {
            "serial": serial,
            "patron": marker.patron.code,
            "table": marker.table_code,
            "amount_cents": marker.amount_cents,
        }
        # What is still owed moves: a part paid at the table already left the drop.
        legs = posting_rules.marker_transferred(marker.table_code, marker.outstanding_cents)
        if marker.paid_cents:
            data["outstanding_cents"] = marker.outstanding_cents
        (event,) = cmd.append(
            stream=marker.stream, expected_version=marker.version, events=[NewEvent("MarkerTransferred", data, legs)]
        )
        marker.version = event.version
        marker.save()
        return cmd.finish(
            {"serial": serial, "table": marker.table_code, "amount_cents": marker.amount_cents, "event": event.position}
        )


@aml.records_refusals
def marker_pay(*, serial: str, amount_cents: int, method: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A payment on a marker at the cage, in ``method`` ``cash``, ``chips`` (the patron's value
    chips) or ``front_money`` (his deposit). The last payment makes it ``paid``. A payment in
    cash is cash in for the AML rules (``patrons.services.aml.screen_cash``).

    Returns ``{"serial", "patron", "paid_cents", "outstanding_cents", "state", "event", "aml"}``
    (``aml``: the AML decisions the payment brought, ``aml.decisions_result``).
    Raises ``RoleRequired`` (403: not a cashier or cage supervisor), ``InvalidInput`` (400:
    bad amount or method, more than owed), ``InsufficientChips`` (400: the patron lacks the
    chips or the front money), ``NotFound`` (404), ``StateConflict`` (409: still at its
    table, already paid, the cage closed; field ``shift``: no cashier shift open or another
    cashier's, as for a chip redemption), ``aml.IdentityRequired`` (409: cash in at the AML
    identity threshold without an identity on file)."""
    require_role(actor, *CAGE_DESK, step="taking a marker payment")
    amount = _cents(amount_cents, "amount_cents")
    if method not in PAYMENT_METHODS:
        raise InvalidInput(f"method is one of {', '.join(PAYMENT_METHODS)}", field="method")
    request = {"op": "marker_pay", "serial": serial, "amount_cents": amount, "method": method}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        marker = _marker(serial)
        if marker.state == Marker.State.AT_TABLE:
            raise StateConflict(
                f"marker {serial} is still at table {marker.table_code}: transfer it first", field="serial"
            )
        if marker.state == Marker.State.PAID:
            raise StateConflict(f"marker {serial} is paid", field="serial")
        if amount > marker.outstanding_cents:
            raise InvalidInput(
                f"marker {serial} has {format_cents(marker.outstanding_cents)} outstanding", field="amount_cents"
            )
        _, window = _open_cage(actor=actor)  # the payment enters the cashier's own window
        code = marker.patron.code
        source = {"chips": accounts.patron_chips(code), "front_money": accounts.patron_deposit(code)}.get(method)
        if source and store.balance(source) < amount:
            raise InsufficientChips(
                f"{code} has not {format_cents(amount)} of {method.replace('_', ' ')}", field="amount_cents"
            )
        data = {"serial": serial, "patron": code, "amount_cents": amount, "method": method}
        legs = posting_rules.marker_paid(code, amount, method=method)
        if window is not None and method != "front_money":  # front money stays the patron's, off the drawer
            legs += posting_rules.window_share(window, **{"cash" if method == "cash" else "chips": amount})
            data["window"] = window
        return _record_payment(cmd, marker, "MarkerPaid", data, legs)


def _record_payment(cmd, marker: Marker, event_type: str, data: dict, legs: list[Leg]) -> dict:
    """Book ``data["amount_cents"]`` paid on ``marker`` (settled by the last payment): appends
    ``event_type`` with ``data`` plus the paid and outstanding cents, screens a cash payment as
    cash in (AML) and finishes ``cmd`` with the payment's result (``marker_pay``'s shape, plus
    ``table`` and ``method`` for a payment at a table)."""
    marker.paid_cents += data["amount_cents"]
    if marker.paid_cents == marker.amount_cents:
        marker.settle()
    data = data | {"paid_cents": marker.paid_cents, "outstanding_cents": marker.outstanding_cents}
    (event,) = cmd.append(
        stream=marker.stream, expected_version=marker.version, events=[NewEvent(event_type, data, legs)]
    )
    decisions = aml.screen_cash(cmd, patron=marker.patron, event=event) if data["method"] == "cash" else []
    marker.version = event.version
    marker.save()
    at_table = {"table": data["table"], "method": data["method"]} if "table" in data else {}
    return cmd.finish(
        {
            "serial": data["serial"],
            "patron": data["patron"],
            **at_table,
            "paid_cents": marker.paid_cents,
            "outstanding_cents": marker.outstanding_cents,
            "state": marker.state,
            "event": event.position,
            "aml": aml.decisions_result(decisions),
        }
    )


def _front_money(patron: str, amount_cents: int, actor: str, *, withdraw: bool, idempotency_key: str | None) -> dict:
    require_role(actor, *CAGE_DESK, step="front money")
    amount = _cents(amount_cents, "amount_cents")
    check_ceiling("chips_redeem" if withdraw else "chips_purchase", amount, field="amount_cents")
    op = "front_money_withdraw" if withdraw else "front_money_deposit"
    with ledger_command(
        actor=actor, request={"op": op, "patron": patron, "amount_cents": amount}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _identified(patron)
        _, window = _open_cage(actor=actor)  # the cash crosses the cashier's own window
        held = front_money_cents(who.code)
        if withdraw and amount > held:
            raise InsufficientChips(f"{who.code} has {format_cents(held)} of front money", field="amount_cents")
        if withdraw and _holds(window, "cash_cents") < amount:
            raise InsufficientChips("the window has not enough cash", field="amount_cents")
        rule = posting_rules.front_money_withdrawal if withdraw else posting_rules.front_money_deposit
        after = held - amount if withdraw else held + amount
        data = {"patron": who.code, "amount_cents": amount, "balance_cents": after}
        legs = rule(who.code, amount)
        if window is not None:
            legs += posting_rules.window_share(window, cash=-amount if withdraw else amount)
            data["window"] = window
        stream = f"frontmoney/{who.code}"
        (event,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            events=[NewEvent("FrontMoneyWithdrawn" if withdraw else "FrontMoneyDeposited", data, legs)],
        )
        decisions = aml.screen_cash(cmd, patron=who, event=event)
        return cmd.finish({**data, "event": event.position, "aml": aml.decisions_result(decisions)})


@aml.records_refusals
def front_money_deposit(*, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """A patron leaves ``amount_cents`` of cash at the cage (safekeeping): cash in for the AML
    rules. Returns ``{"patron", "amount_cents", "balance_cents", "event", "aml"}`` (``aml``: the
    AML decisions it brought, ``aml.decisions_result``). Raises ``RoleRequired`` (403: not a
    cashier or cage supervisor), ``InvalidInput`` (400), ``StateConflict`` (409: the cage closed;
    field ``shift``: no cashier shift open or another cashier's, as for a chip sale),
    ``aml.IdentityRequired`` (409: at the AML identity threshold without an identity on file)."""
    return _front_money(patron, amount_cents, actor, withdraw=False, idempotency_key=idempotency_key)


@aml.records_refusals
def front_money_withdraw(*, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """A patron takes ``amount_cents`` of his front money back in cash (cash out for the AML
    rules); as the deposit, and ``InsufficientChips`` (400) for more than he has there or than
    the cage's cash."""
    return _front_money(patron, amount_cents, actor, withdraw=True, idempotency_key=idempotency_key)


def _open_table(code: object) -> Table:
    found = Table.objects.filter(code=code).first() if isinstance(code, str) else None
    if found is None:
        raise NotFound(f"no such table: {code}", field="table")
    if found.state != Table.State.OPEN:
        raise StateConflict(f"table {code} is not open", field="table")
    return found


@aml.records_refusals
def marker_pay_at_table(
    *, serial: str, table: str, amount_cents: int, method: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """A payment on a marker taken at open table ``table`` by its pit boss, in ``method``
    ``chips`` (the patron's value chips, into the tray) or ``cash`` (into the drop box), while
    the marker is still in that table's drop (issued there, not yet transferred to the cage).
    The last payment makes it ``paid``; a payment in cash is cash in for the AML rules, as at
    the cage.

    Returns ``{"serial", "patron", "table", "method", "paid_cents", "outstanding_cents",
    "state", "event", "aml"}``. Raises ``RoleRequired`` (403: not a pit boss), ``InvalidInput``
    (400: bad amount or method, more than is outstanding), ``InsufficientChips`` (400: the
    patron holds fewer chips), ``NotFound`` (404: no such marker or table), ``StateConflict``
    (409: paid, voided, at the cage or in another table's drop, the table not open),
    ``aml.IdentityRequired`` (409)."""
    require_role(actor, *TABLE_ISSUERS, step="taking a marker payment at a table")
    amount = _cents(amount_cents, "amount_cents")
    if method not in TABLE_PAYMENT_METHODS:
        raise InvalidInput(f"at a table, method is one of {', '.join(TABLE_PAYMENT_METHODS)}", field="method")
    request = {"op": "marker_pay_at_table", "serial": serial, "table": table, "amount_cents": amount, "method": method}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        marker = _marker(serial)
        if marker.state in (Marker.State.PAID, Marker.State.VOIDED):
            raise StateConflict(f"marker {serial} is {marker.state}", field="serial")
        _open_table(table)
        # Paid where it is: in this table's drop. A marker at the cage (or in another table's
        # drop) is paid there, so the table's count (drop + credits − fills + closer − opener)
        # never takes a debt collected for play.
        if marker.state == Marker.State.AT_CAGE:
            raise StateConflict(f"marker {serial} is at the cage: it is paid there", field="serial")
        if marker.table_code != table:
            raise StateConflict(
                f"marker {serial} is in the drop of table {marker.table_code}: it is paid there", field="serial"
            )
        if amount > marker.outstanding_cents:
            raise InvalidInput(
                f"marker {serial} has {format_cents(marker.outstanding_cents)} outstanding", field="amount_cents"
            )
        code = marker.patron.code
        if method == "chips" and store.balance(accounts.patron_chips(code)) < amount:
            raise InsufficientChips(f"{code} has not {format_cents(amount)} of chips", field="amount_cents")
        data = {"serial": serial, "patron": code, "table": table, "amount_cents": amount, "method": method}
        legs = posting_rules.marker_paid_at_table(code, amount, table=table, method=method)
        return _record_payment(cmd, marker, "MarkerPaidAtTable", data, legs)


def _void_legs(marker: Marker) -> tuple[list[Leg], str | None]:
    """The issue's legs turned round (and the transfer's, for a table's marker now at the cage):
    the receivable back where it came from, the chips back where they were taken. With the
    window whose drawer gave the chips (a marker issued at the cage), which must still be open."""
    events = Event.objects.filter(stream=marker.stream, type__in=["MarkerIssued", "MarkerTransferred"])
    legs: list[Leg] = []
    window = None
    for event in events.order_by("version").prefetch_related("postings"):
        window = window or event.data.get("window")
        legs += [Leg(p.account, -p.amount_cents, p.currency) for p in event.postings.all()]
    if window is not None and window not in {w.data.get("window") for w in open_windows().values()}:
        raise StateConflict(
            f"marker {marker.serial} was issued at window {window}, which is closed: its chips cannot go back",
            field="serial",
        )
    return legs, window


def marker_void(*, serial: str, reason: str, approver: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Void marker ``serial`` issued in error (``MarkerVoided``): with ``reason``, asked by a
    cashier or cage supervisor (``actor``) and signed by another cage supervisor (``approver``)
    from his own login (``approvals`` act ``marker_void``). The issue is reversed exactly: the
    receivable (patron:credit +X against where the marker is held) and the value chips the patron
    had for it (they go back to the tray or the cage window they came from).

    Returns ``{"serial", "patron", "amount_cents", "reason", "voided_by", "approved_by",
    "event"}``. Raises ``InvalidInput`` (400: no reason), ``RoleRequired`` (403: the roles, or
    the approver being the actor), ``NotFound`` (404), ``StateConflict`` (409: voided or paid,
    or payments already taken on it; its window closed; its gaming day closed),
    ``InsufficientChips`` (400: the patron no longer holds the chips it gave him)."""
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 500:
        raise InvalidInput("a void needs its reason (up to 500 characters)", field="reason")
    require_role(actor, *CAGE_DESK, step="voiding a marker")
    require_second_signature("voiding a marker", approver, actor, *VOID_APPROVERS)
    require_signed_in_person(
        approver, field="approver", message="a marker's void is signed by the cage supervisor from his own login"
    )
    why = reason.strip()
    request = {"op": "marker_void", "serial": serial, "reason": why, "approver": approver}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        marker = _marker(serial)
        if marker.state in (Marker.State.PAID, Marker.State.VOIDED):
            raise StateConflict(f"marker {serial} is {marker.state}: it cannot be voided", field="serial")
        if marker.paid_cents:
            raise StateConflict(
                f"marker {serial} has {format_cents(marker.paid_cents)} paid on it: it was no error", field="serial"
            )
        refuse_if_closed(marker.gaming_day, what="its markers stand", field="serial")
        legs, window = _void_legs(marker)
        chips = accounts.patron_chips(marker.patron.code)
        if store.balance(chips) < marker.amount_cents:
            raise InsufficientChips(
                f"{marker.patron.code} holds {format_cents(store.balance(chips))}, less than the "
                f"{format_cents(marker.amount_cents)} of chips the marker gave him",
                field="serial",
            )
        in_drop = marker.state == Marker.State.AT_TABLE  # still in its table's drop box, not yet counted
        marker.void()
        data = {
            "serial": serial,
            "patron": marker.patron.code,
            "amount_cents": marker.amount_cents,
            "table": marker.table_code or None,
            "in_drop": in_drop,
            "reason": why,
            "voided_by": actor,
            "approved_by": approver,
        }
        if window is not None:
            data["window"] = window
        (event,) = cmd.append(
            stream=marker.stream, expected_version=marker.version, events=[NewEvent("MarkerVoided", data, legs)]
        )
        marker.void_reason, marker.voided_by, marker.void_approved_by = why, actor, approver
        marker.voided_at, marker.version = event.recorded_at, event.version
        marker.save()
        return cmd.finish(
            {
                "serial": serial,
                "patron": marker.patron.code,
                "amount_cents": marker.amount_cents,
                "reason": why,
                "voided_by": actor,
                "approved_by": approver,
                "event": event.position,
            }
        )


def front_money_draw(
    *, patron: str, table: str, amount_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """A patron draws ``amount_cents`` of his front money at open table ``table``, recorded by
    its pit boss (``FrontMoneyDrawn``): his deposit is reduced and the table hands him value
    chips off its tray (``posting_rules.front_money_drawn_at_table``). The same identity check
    as a withdrawal at the cage: an identified patron's own deposit.

    Returns ``{"patron", "table", "amount_cents", "balance_cents", "event"}`` (balance: the
    front money left). Raises ``RoleRequired`` (403: not a pit boss), ``InvalidInput`` (400:
    bad amount, unknown or anonymous patron, over the redemption ceiling),
    ``InsufficientChips`` (400: more than his front money), ``NotFound`` (404: no such
    table), ``StateConflict`` (409: the table not open)."""
    require_role(actor, *TABLE_ISSUERS, step="drawing front money at a table")
    amount = _cents(amount_cents, "amount_cents")
    check_ceiling("chips_redeem", amount, field="amount_cents")
    request = {"op": "front_money_draw", "patron": patron, "table": table, "amount_cents": amount}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _identified(patron)
        _open_table(table)
        stream = f"frontmoney/{who.code}"
        version = store.stream_version(stream)  # read before the balance: a draw beside it is a conflict
        held = front_money_cents(who.code)
        if amount > held:
            raise InsufficientChips(f"{who.code} has {format_cents(held)} of front money", field="amount_cents")
        data = {"patron": who.code, "table": table, "amount_cents": amount, "balance_cents": held - amount}
        legs = posting_rules.front_money_drawn_at_table(who.code, amount, table=table)
        (event,) = cmd.append(stream=stream, expected_version=version, events=[NewEvent("FrontMoneyDrawn", data, legs)])
        return cmd.finish({**data, "event": event.position})

"""Correcting a window's chip sale, redemption or foreign exchange: a reversing event, approved
by a cage supervisor from his own session (``approvals`` act ``cage_transaction_reverse``).

The ledger is never edited: ``ChipsPurchaseReversed`` / ``ChipsRedemptionReversed`` /
``ForeignExchangeReversed`` names the transaction it corrects (``reverses``: its position, also
the causation) and posts its legs the other way round, through the same window's drawer (for
an exchange, the foreign banknotes go back to the patron too). The reversed line stays in the
window's list.
"""

from collections import defaultdict

from basis.money import format_cents
from ledger import store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, NotFound, StateConflict
from ledger.models import Event
from ledger.store import Leg, NewEvent
from staff.roles import Role, has_role, require_role, require_second_signature

from ..models import Cage
from .cage_shifts import CAGE_ROLES, open_windows

REVERSIBLE = {
    "ChipsPurchased": "ChipsPurchaseReversed",
    "ChipsRedeemed": "ChipsRedemptionReversed",
    "ForeignCurrencyExchanged": "ForeignExchangeReversed",
}
# What a reversed foreign exchange repeats of it: the banknotes given back, at which rate.
FOREIGN_FIELDS = ("currency", "foreign_cents", "rate", "paid_in")
REVERSALS = tuple(REVERSIBLE.values())


def reversal_of(position: int) -> Event | None:
    """The event reversing the cage transaction at ``position``, if any."""
    return Event.objects.filter(type__in=REVERSALS, causation_id=str(position)).first()


def _transaction(position: object) -> Event:
    if type(position) is not int or position <= 0:
        raise InvalidInput("name the transaction by its ledger position", field="event")
    found = Event.objects.filter(position=position, type__in=list(REVERSIBLE)).first()
    if found is None:
        raise NotFound(f"no chip sale, redemption or foreign exchange at position {position}", field="event")
    return found


def _covered(legs: list[Leg]) -> None:
    """Each holder the reversal takes from (the patron's chips, the window's drawer) holds it,
    net of what the same reversal gives it back (an exchange paid in cash moves the patron's
    chips in and out: nothing net)."""
    net: dict[tuple[str, str], int] = defaultdict(int)
    for leg in legs:
        net[(leg.account, leg.currency)] += leg.amount_cents
    for (account, currency), amount in net.items():
        holder = account.startswith("patron:") or account.startswith("cage:window:")
        held = store.balance(account, currency) if holder and amount < 0 else 0
        if holder and amount < 0 and held < -amount:
            who = "the patron" if account.startswith("patron:") else "the window"
            raise InsufficientChips(
                f"{who} holds {format_cents(held, currency)}, less than the "
                f"{format_cents(-amount, currency)} the reversal gives back",
                field="event",
            )


def cage_transaction_reverse(
    *, event: int, reason: str, approver: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """Reverse the chip sale, redemption or foreign exchange at ledger position ``event`` (storno), made at a window
    still open, with ``reason`` and a cage supervisor's second signature (``approver``, not the
    actor: given only through an approval he confirmed himself).

    Returns ``{"event", "reverses", "type", "patron", "amount_cents", "window"}`` (cents).
    Raises ``InvalidInput`` (no reason, bad position), ``NotFound``, ``RoleRequired`` (403),
    ``StateConflict`` (already reversed, its window closed, its gaming day closed: field
    ``event``), ``InsufficientChips`` (the patron or the drawer no longer holds what goes back).
    """
    if not isinstance(reason, str) or not reason.strip() or len(reason) > 500:
        raise InvalidInput("a reversal needs its reason (up to 500 characters)", field="reason")
    require_role(actor, *CAGE_ROLES, step="reversing a cage transaction")
    require_second_signature("reversing a cage transaction", approver, actor, Role.CAGE_SUPERVISOR)
    why = reason.strip()
    request = {"op": "cage_transaction_reverse", "event": event, "reason": why, "approver": approver}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        original = _transaction(event)
        window = original.data.get("window")
        if reversal_of(original.position) is not None:
            raise StateConflict("this transaction is already reversed", field="event")
        cage = original.stream.removeprefix("cage/")
        owners = {w.data.get("window"): cashier for cashier, w in open_windows(cage).items()}
        if window is None or window not in owners:
            raise StateConflict("its window is closed: only a line of an open window is reversed here", field="event")
        if actor != owners[window] and not has_role(actor, Role.CAGE_SUPERVISOR):
            # Her drawer answers for it: another cashier does not correct it in her place.
            raise StateConflict(
                f"this line is of window {window}, {owners[window]}'s: she asks for its reversal, or a cage supervisor",
                field="event",
            )
        refuse_if_closed(original.gaming_day, what="its transactions stand", field="event")
        legs = [Leg(p.account, -p.amount_cents, p.currency) for p in original.postings.all()]
        _covered(legs)
        reversal_type = REVERSIBLE[original.type]
        data = {
            "patron": original.data["patron"],
            "amount_cents": original.data["amount_cents"],
            "window": window,
            "reverses": original.position,
            "transaction": original.data.get("transaction", ""),
            "reason": why,
            "approved_by": approver,
        }
        data |= {field: original.data[field] for field in FOREIGN_FIELDS if field in original.data}
        (appended,) = cmd.append(
            stream=original.stream,
            expected_version=store.stream_version(original.stream),
            correlation_id=original.correlation_id,
            causation_id=str(original.position),
            events=[NewEvent(reversal_type, data, legs)],
        )
        # The cage row mirrors its stream's version: the next sale appends with it.
        Cage.objects.filter(code=cage).update(version=appended.version)
        return cmd.finish(
            {
                "event": appended.position,
                "reverses": original.position,
                "type": reversal_type,
                "patron": data["patron"],
                "amount_cents": data["amount_cents"],
                "window": window,
            }
        )

"""Cage commands: open with a counted float, sell chips for cash, redeem chips for cash.

Posting rules are DESIGN.md's, line for line:
- chip purchase: external:cash −X, cage:cash +X; cage:chips −X, patron +X
- redemption:    patron −X, cage:chips +X; cage:cash −X, external:cash +X

made at the cashier's own window: its drawer moves too (``posting_rules.window_share``: the
window's cash +X and chips −X for a sale), and the drawer, not the whole cage, must cover it.
"""

import uuid

from django_fsm import TransitionNotAllowed

from basis.money import format_cents
from core.ceilings import check_ceiling
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.store import Leg, NewEvent
from patrons.selectors import patron_get
from patrons.services import aml

from ..models import Cage
from ..selectors import cage_get
from .cage_shifts import require_open_shift, window_book, window_of


def _positive_cents(value: object, field: str) -> int:
    if type(value) is not int or value <= 0:
        raise InvalidInput("must be a positive whole number of cents", field=field)
    return value


def _open_cage(code: str = "main", actor: str | None = None) -> tuple[Cage, str | None]:
    """The cage (locked) and the actor's open window number (None: the main bank, for the
    system's own steps). ``StateConflict`` when the cage is closed or he has no window open."""
    cage = Cage.objects.select_for_update().get(pk=cage_get(code).pk)
    if cage.state != Cage.State.OPEN:
        raise StateConflict(f"the cage {code} is closed", field="cage")
    return cage, window_of(require_open_shift(code, actor))


def _holds(window: str | None, side: str) -> int:
    """What the window's drawer holds (``side``: ``cash_cents`` or ``chips_cents``), or the
    whole cage's book for a movement through the main bank."""
    if window is not None:
        return window_book(window)[side]
    return store.balance(accounts.CAGE_CASH if side == "cash_cents" else accounts.CAGE_CHIPS)


def cage_open(
    *, cash_cents: int, chips_cents: int, actor: str, code: str = "main", idempotency_key: str | None = None
) -> dict:
    """Open the cage with its counted float (cents). Returns ``{"cage", "event", "variance"}``.

    The first opening stocks the cage from ``house:bankroll``; later openings post any
    difference between the count and the book to ``cage:over_short``. Raises
    ``StateConflict`` (409) when it is already open, ``InvalidInput`` for bad counts.
    """
    for name, value in (("cash_cents", cash_cents), ("chips_cents", chips_cents)):
        if type(value) is not int or value < 0:
            raise InvalidInput("a count is a non-negative whole number of cents", field=name)
    request = {"op": "cage_open", "cage": code, "cash": cash_cents, "chips": chips_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        cage = Cage.objects.select_for_update().get(pk=cage_get(code).pk)
        try:
            cage.open()
        except TransitionNotAllowed:
            raise StateConflict(f"the cage {code} is already open", field="cage") from None
        first = store.stream_version(cage.stream) == 0
        contra = accounts.HOUSE_BANKROLL if first else accounts.CAGE_OVER_SHORT
        legs: list[Leg] = []
        variance = {}
        for account, counted in ((accounts.CAGE_CASH, cash_cents), (accounts.CAGE_CHIPS, chips_cents)):
            diff = counted - store.balance(account)
            variance[account] = diff
            legs += posting_rules.stock(account, contra, diff)
        (event,) = cmd.append(
            stream=cage.stream,
            expected_version=cage.version,
            events=[
                NewEvent(
                    "CageOpened",
                    {
                        "cage": code,
                        "counted_cash_cents": cash_cents,
                        "counted_chips_cents": chips_cents,
                        "variance_cents": variance,
                        "stocked": first,
                    },
                    legs,
                )
            ],
        )
        cage.version = event.version
        cage.save()
        return cmd.finish({"cage": code, "event": event.position, "variance": variance})


@aml.records_refusals
def chips_purchase(*, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """Sell ``amount_cents`` of value chips to ``patron`` for cash at the cage.

    Returns ``{"transaction", "event", "patron", "amount_cents", "chips_cents", "aml"}``
    (chips_cents: the patron's chips after; aml: the AML decisions the sale brought,
    ``aml.decisions_result``). Raises ``InvalidInput`` (bad amount or patron),
    ``StateConflict`` (cage closed, or no window open, or the actor has none of his own open:
    field ``shift``),
    ``InsufficientChips`` (the actor's window has not enough chips),
    ``aml.IdentityRequired`` (409: AML identity threshold, ``patrons.services.aml``).
    """
    amount = _positive_cents(amount_cents, "amount_cents")
    check_ceiling("chips_purchase", amount, field="amount_cents")
    request = {"op": "chips_purchase", "patron": patron, "amount_cents": amount_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = patron_get(patron)
        cage, window = _open_cage(actor=actor)
        if _holds(window, "chips_cents") < amount:
            where = f"window {window}" if window else "the cage"
            raise InsufficientChips(
                f"{where} holds {format_cents(_holds(window, 'chips_cents'))} of chips, not enough for this sale",
                field="amount_cents",
            )
        return _cage_exchange(cmd, cage, window, who, "ChipsPurchased", amount)


@aml.records_refusals
def chips_redeem(*, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """Redeem ``amount_cents`` of the patron's value chips for cash at the cage.

    Same result shape as ``chips_purchase``. Raises ``InsufficientChips`` (field
    ``amount_cents``) when the patron holds less, or his window has less cash; the check and the
    posting happen under the ledger writer lock, so two redemptions at once cannot both pass
    (case C13). ``StateConflict`` (cage closed, no window open or none of the actor's own).
    ``aml.IdentityRequired`` (409) under the AML identity threshold.
    """
    amount = _positive_cents(amount_cents, "amount_cents")
    check_ceiling("chips_redeem", amount, field="amount_cents")
    request = {"op": "chips_redeem", "patron": patron, "amount_cents": amount_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = patron_get(patron)
        cage, window = _open_cage(actor=actor)
        held = store.balance(who.chips_account)
        if held < amount:
            raise InsufficientChips(
                f"patron {who.code} holds {format_cents(held)} of chips, "
                f"less than the {format_cents(amount)} to redeem",
                field="amount_cents",
            )
        if _holds(window, "cash_cents") < amount:
            where = f"window {window}" if window else "the cage"
            raise InsufficientChips(
                f"{where} holds {format_cents(_holds(window, 'cash_cents'))} of cash, not enough for this redemption",
                field="amount_cents",
            )
        return _cage_exchange(cmd, cage, window, who, "ChipsRedeemed", amount)


def _cage_exchange(cmd, cage: Cage, window: str | None, who, event_type: str, amount: int) -> dict:
    """Append a patron's cash-for-chips exchange at ``window`` (None: the main bank), screen it
    for AML and give the exchange's result."""
    sale = event_type == "ChipsPurchased"
    legs = (posting_rules.chip_purchase if sale else posting_rules.redemption)(who.chips_account, amount)
    data = {"patron": who.code, "amount_cents": amount}
    if window is not None:
        sign = 1 if sale else -1
        legs += posting_rules.window_share(window, cash=sign * amount, chips=-sign * amount)
        data["window"] = window
    txn = str(uuid.uuid4())
    (event,) = cmd.append(
        stream=cage.stream,
        expected_version=cage.version,
        correlation_id=txn,
        events=[NewEvent(event_type, data | {"transaction": txn}, legs)],
    )
    decisions = aml.screen_cash(cmd, patron=who, event=event)
    cage.version = event.version
    cage.save()
    return cmd.finish(
        {
            "transaction": txn,
            "event": event.position,
            "patron": who.code,
            "amount_cents": amount,
            "chips_cents": store.balance(who.chips_account),
            "aml": aml.decisions_result(decisions),
        }
    )

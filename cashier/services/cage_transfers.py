"""Cash and chips moved between the cage's main bank and a cashier's open window mid-shift: a
window that runs short of chips (or cash) is topped up from the main bank, and a window holding
more than it needs returns the surplus, each counted by denomination and signed by a cage
supervisor other than the cashier from his own session (``approvals`` act ``cage_window_transfer``).

The cage's whole book (``cage:cash``, ``cage:chips``) does not move: only the window's drawer and
the main bank's contra (``cage:windows:cash`` / ``:chips``, ``posting_rules.window_share``), so the
window's reconciliation counts the top-up in its movements and the main bank gives it up.
Stream: ``cagebank/<cage code>`` (the main bank's transfers with the windows, in order), apart
from ``cageshift/<code>`` whose readers take each of its events for a window's opening or closing.
"""

from basis.money import format_cents
from core.denominations import cash_denominations, chip_denominations, count_total
from ledger import posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput
from ledger.store import NewEvent
from staff.roles import Role, require_role, require_second_signature, require_signed_in_person

from .cage_shifts import CAGE_ROLES, main_bank, require_open_shift, window_book, window_of

# direction → (the event, its words for a refusal)
DIRECTIONS = {
    "in": ("CageWindowReplenished", "from the main bank to the window"),
    "out": ("CageWindowReturned", "from the window back to the main bank"),
}
TRANSFERS = tuple(event for event, _ in DIRECTIONS.values())


def bank_stream(code: str) -> str:
    return f"cagebank/{code}"


def _counts(cash: object, chips: object) -> dict:
    cash_lines, cash_total = count_total(cash, cash_denominations(), field="cash")
    chip_lines, chip_total = count_total(chips, chip_denominations(), field="chips")
    if cash_total + chip_total == 0:
        raise InvalidInput("count the cash or the chips that move: nothing was counted", field="chips")
    return {"cash": cash_lines, "chips": chip_lines, "cash_cents": cash_total, "chips_cents": chip_total}


def cage_window_transfer(
    *,
    cash: dict,
    chips: dict,
    direction: str,
    approver: str,
    actor: str,
    code: str = "main",
    idempotency_key: str | None = None,
) -> dict:
    """Move the counted ``cash`` and ``chips`` (``{"<cents>": pieces}``) between the main bank of
    cage ``code`` and the actor's open window: ``direction`` ``"in"`` (main bank → window: a
    top-up, ``CageWindowReplenished``) or ``"out"`` (window → main bank: a surplus returned,
    ``CageWindowReturned``). ``approver``: a cage supervisor other than the actor who confirmed
    it from his own session (only the ``approvals`` act ``cage_window_transfer`` passes him).

    Returns ``{"cage", "window", "event", "direction", "cashier", "approved_by", "cash_cents",
    "chips_cents", "moved_cents", "window_book", "main_bank"}`` (cents; the two books after the
    move). Raises ``InvalidInput`` (a bad or empty count: field ``cash`` / ``chips``; a bad
    direction; an approver who did not sign himself: field ``approver``), ``RoleRequired``
    (403: not a cage role, no second signature, the actor's own), ``StateConflict`` (409, field
    ``shift``: no window of the actor's open), ``InsufficientChips`` (400, field ``cash`` or
    ``chips``: the side that gives holds less than counted).
    """
    require_role(actor, *CAGE_ROLES, step="moving cash or chips between the main bank and a window")
    if direction not in DIRECTIONS:
        raise InvalidInput('"in" (from the main bank to the window) or "out" (back to it)', field="direction")
    event_type, way = DIRECTIONS[direction]
    step = f"moving cash and chips {way}"
    require_second_signature(step, approver, actor, Role.CAGE_SUPERVISOR)
    require_signed_in_person(
        approver,
        field="approver",
        message="a cage supervisor signs the transfer from his own session (an approval; "
        "POST /api/cage/windows/transfers asks for it); a name chosen by someone else is not his signature",
    )
    counts = _counts(cash, chips)
    request = {"op": "cage_window_transfer", "cage": code, "direction": direction, "approver": approver}
    request |= {"cash": counts["cash"], "chips": counts["chips"]}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        opened = require_open_shift(code, actor)
        window = window_of(opened)
        if window is None:
            raise InvalidInput("only a cashier's own window is topped up or returns to the main bank", field="shift")
        source = main_bank() if direction == "in" else window_book(window)
        giver = "the main bank" if direction == "in" else f"window {window}"
        for field, side, what in (("cash", "cash_cents", "cash"), ("chips", "chips_cents", "value chips")):
            if counts[side] > source[side]:
                raise InsufficientChips(
                    f"{giver} holds {format_cents(source[side])} of {what}, less than the "
                    f"{format_cents(counts[side])} counted to move {way}",
                    field=field,
                )
        sign = 1 if direction == "in" else -1
        legs = posting_rules.window_share(window, cash=sign * counts["cash_cents"], chips=sign * counts["chips_cents"])
        data = counts | {"cage": code, "window": window, "opened_event": opened.position, "approved_by": approver}
        stream = bank_stream(code)
        (event,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            events=[NewEvent(event_type, data, legs)],
        )
        return cmd.finish(
            {
                "cage": code,
                "window": window,
                "event": event.position,
                "direction": direction,
                "cashier": actor,
                "approved_by": approver,
                "cash_cents": counts["cash_cents"],
                "chips_cents": counts["chips_cents"],
                "moved_cents": counts["cash_cents"] + counts["chips_cents"],
                "window_book": window_book(window),
                "main_bank": main_bank(),
            }
        )

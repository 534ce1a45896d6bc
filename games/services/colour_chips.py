"""English roulette colour chips and the change inverse (RULES.md §Roulette).

A seated patron buys chips of a colour of his own at one table, choosing the value of one
chip; they are valid only at that table. When he leaves, the dealer changes what is left
back into value chips (the change inverse). At most ``max_colours`` (8) colours per table.
"""

import uuid

from basis.money import format_cents
from games.models import Table
from games.rules.roulette_table import COLOURS
from games.selectors import roulette_rules, table_for_update
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.store import MAX_CENTS, NewEvent
from patrons.selectors import patron_get

from ..models import ColourStack


def colour_chips_buy(
    *,
    table: str,
    patron: str,
    chips: int,
    actor: str,
    unit_value_cents: int | None = None,
    colour: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Sell ``chips`` colour chips at ``table`` to ``patron`` for his value chips.

    A patron's first purchase at the table picks his colour (the first free one unless
    ``colour`` is given) and the ``unit_value_cents`` of one chip; later purchases add chips
    of the same colour and value. Returns ``{"transaction", "event", "table", "patron",
    "colour", "unit_value_cents", "chips", "amount_cents", "colour_cents"}``.
    Raises ``InvalidInput`` (a ninth colour, a colour taken, bad counts),
    ``InsufficientChips``, ``StateConflict`` (table closed).
    """
    if type(chips) is not int or chips <= 0:
        raise InvalidInput("the number of colour chips must be a positive integer", field="chips")
    if unit_value_cents is not None and (type(unit_value_cents) is not int or not 0 < unit_value_cents <= MAX_CENTS):
        raise InvalidInput("the unit value is a positive whole number of cents", field="unit_value_cents")
    request = {
        "op": "colour_chips_buy",
        "table": table,
        "patron": patron,
        "chips": chips,
        "unit": unit_value_cents,
        "colour": colour,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        the_table = table_for_update(table)
        who = patron_get(patron)
        if the_table.state != Table.State.OPEN:
            raise StateConflict(f"table {table} is closed", field="table")
        rules = roulette_rules(the_table)
        active = {s.colour: s for s in the_table.colour_stacks.filter(state=ColourStack.State.ACTIVE)}
        stack = next((s for s in active.values() if s.patron_id == who.pk), None)
        if stack is None:
            stack = _new_stack(the_table, who, active, rules.max_colours, colour, unit_value_cents)
        elif colour not in (None, stack.colour) or unit_value_cents not in (None, stack.unit_value_cents):
            raise InvalidInput(
                f"{who.code} already plays {stack.colour} at {format_cents(stack.unit_value_cents, the_table.currency)}"
                f" a chip at {table}",
                field="colour" if colour not in (None, stack.colour) else "unit_value_cents",
            )
        amount = chips * stack.unit_value_cents
        held = store.balance(who.chips_account, the_table.currency)
        if held < amount:
            raise InsufficientChips(
                f"{who.code} holds {format_cents(held, the_table.currency)} of value chips, "
                f"less than the {format_cents(amount, the_table.currency)} these colour chips cost",
                field="chips",
            )
        txn = str(uuid.uuid4())
        colour_account = accounts.patron_colour(who.code, table)
        (event,) = cmd.append(
            stream=the_table.stream,
            expected_version=the_table.version,
            correlation_id=txn,
            events=[
                NewEvent(
                    "ColourChipsBought",
                    {
                        "table": table,
                        "patron": who.code,
                        "colour": stack.colour,
                        "unit_value_cents": stack.unit_value_cents,
                        "chips": chips,
                        "amount_cents": amount,
                        "transaction": txn,
                    },
                    posting_rules.colour_chips_bought(table, who.chips_account, colour_account, amount),
                )
            ],
        )
        the_table.version = event.version
        the_table.save()
        return cmd.finish(
            {
                "transaction": txn,
                "event": event.position,
                "table": table,
                "patron": who.code,
                "colour": stack.colour,
                "unit_value_cents": stack.unit_value_cents,
                "chips": chips,
                "amount_cents": amount,
                "colour_cents": store.balance(colour_account, the_table.currency),
            }
        )


def _new_stack(table, patron, active: dict, max_colours: int, colour: str | None, unit: int | None) -> ColourStack:
    if unit is None:
        raise InvalidInput("choose the value of one colour chip at the first purchase", field="unit_value_cents")
    palette = COLOURS[:max_colours]
    if len(active) >= max_colours:
        raise InvalidInput(f"all {max_colours} colours of table {table.code} are in play", field="colour")
    if colour is None:
        colour = next(c for c in palette if c not in active)
    elif colour not in palette:
        raise InvalidInput(f"colour must be one of {', '.join(palette)}", field="colour")
    elif colour in active:
        raise InvalidInput(f"{colour} is already in play at {table.code}", field="colour")
    return ColourStack.objects.create(table=table, patron=patron, colour=colour, unit_value_cents=unit)


def colour_chips_change_inverse(*, table: str, patron: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Change all of ``patron``'s colour chips at ``table`` back into value chips; frees his colour.

    Returns ``{"transaction", "event", "table", "patron", "colour", "amount_cents", "chips_cents"}``.
    Raises ``InvalidInput`` (no colour at this table), ``StateConflict`` (during a coup in which
    he has colour chips on the layout: they are settled first).
    """
    request = {"op": "colour_chips_change_inverse", "table": table, "patron": patron}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        the_table = table_for_update(table)
        who = patron_get(patron)
        stack = the_table.colour_stacks.select_for_update().filter(patron=who, state=ColourStack.State.ACTIVE).first()
        if stack is None:
            raise InvalidInput(f"{who.code} has no colour chips at table {table}", field="patron")
        colour_account = accounts.patron_colour(who.code, table)
        if store.balance(accounts.table_layout(table), the_table.currency) and _has_colour_on_layout(the_table, who):
            raise StateConflict("his colour chips are on the layout: settle the coup first", field="patron")
        amount = store.balance(colour_account, the_table.currency)
        stack.change_back()
        stack.save()
        txn = str(uuid.uuid4())
        (event,) = cmd.append(
            stream=the_table.stream,
            expected_version=the_table.version,
            correlation_id=txn,
            events=[
                NewEvent(
                    "ColourChipsChangedBack",
                    {
                        "table": table,
                        "patron": who.code,
                        "colour": stack.colour,
                        "amount_cents": amount,
                        "transaction": txn,
                    },
                    posting_rules.change_inverse(table, who.chips_account, colour_account, amount),
                )
            ],
        )
        the_table.version = event.version
        the_table.save()
        return cmd.finish(
            {
                "transaction": txn,
                "event": event.position,
                "table": table,
                "patron": who.code,
                "colour": stack.colour,
                "amount_cents": amount,
                "chips_cents": store.balance(who.chips_account, the_table.currency),
            }
        )


def _has_colour_on_layout(table: Table, patron) -> bool:
    from games.models import Bet, Round

    return Bet.objects.filter(
        round__table=table,
        round__state__in=Round.IN_PLAY,
        patron=patron,
        chips=Bet.Chips.COLOUR,
        state=Bet.State.PLACED,
    ).exists()

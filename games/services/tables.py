"""Table commands: open with a rule set and a counted opener, close, cash buy-in."""

import uuid

from django_fsm import TransitionNotAllowed

from cashier.models import ColourStack
from cashier.selectors import patron_get
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.store import NewEvent

from ..models import Table
from ..rules.baccarat import BaccaratRules
from ..rules.blackjack_table import BlackjackTableRules
from ..rules.errors import RuleError
from ..rules.prison import PrisonOnClose
from ..rules.roulette import InvalidBet
from ..rules.roulette_table import RouletteTableRules
from ..rules.stud_table import CaribbeanTableRules, ClassicStudTableRules
from ..rules.tq_table import TrenteQuaranteTableRules
from ..selectors import round_in_play, table_for_update
from . import prison


def _validated_rules(game: str, options: dict | None) -> dict:
    if game not in Table.Game.values:
        raise InvalidInput(f"unknown game {game!r}; one of {', '.join(Table.Game.values)}", field="game")
    if options is not None and not isinstance(options, dict):
        raise InvalidInput("rules must be an object of table options", field="rules")
    try:
        if game == Table.Game.BLACKJACK:
            return BlackjackTableRules.from_dict(options).to_dict()
        if game == Table.Game.TRENTE_QUARANTE:
            return TrenteQuaranteTableRules.from_dict(options).to_dict()
        if game == Table.Game.BACCARAT:
            return BaccaratRules.from_dict(options).to_dict()
        if game == Table.Game.CARIBBEAN_STUD:
            return CaribbeanTableRules.from_dict(options).to_dict()
        if game == Table.Game.CLASSIC_STUD:
            return ClassicStudTableRules.from_dict(options).to_dict()
        rules = RouletteTableRules.from_dict(options)
    except (InvalidBet, RuleError) as exc:
        raise InvalidInput(exc.message, field=exc.field) from exc
    return rules.to_dict()


def table_open(
    *,
    code: str,
    game: str,
    opener_cents: int,
    actor: str,
    rules: dict | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Open table ``code`` (created on first use) with ``rules`` and the counted opener (cents).

    The first opening stocks the tray from ``house:bankroll``; later ones record the
    difference between the count and the book as a variance (reconciled by the cage).
    Returns ``{"table", "event", "rules", "opener_cents", "variance_cents"}``. Raises
    ``InvalidInput`` (bad game, option or count), ``StateConflict`` (already open).
    """
    if not isinstance(code, str) or not code.isalnum() or not 1 <= len(code) <= 20:
        raise InvalidInput("a table code is 1 to 20 letters or digits", field="code")
    if type(opener_cents) is not int or opener_cents < 0:
        raise InvalidInput("the opener is a non-negative whole number of cents", field="opener_cents")
    rule_set = _validated_rules(game, rules)
    request = {"op": "table_open", "table": code, "game": game, "rules": rule_set, "opener": opener_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        Table.objects.get_or_create(code=code, defaults={"game": game})
        table = table_for_update(code)
        if table.game != game:
            raise InvalidInput(f"table {code} is a {table.game} table", field="game")
        try:
            table.open()
        except TransitionNotAllowed:
            raise StateConflict(f"table {code} is already open", field="table") from None
        book = store.balance(accounts.table_tray(code), table.currency)
        first = table.version == 0
        variance = 0 if first else opener_cents - book
        legs = (
            posting_rules.stock(accounts.table_tray(code), accounts.HOUSE_BANKROLL, opener_cents - book)
            if first
            else []
        )
        table.rules = rule_set
        (event,) = cmd.append(
            stream=table.stream,
            expected_version=table.version,
            events=[
                NewEvent(
                    "TableOpened",
                    {
                        "table": code,
                        "game": game,
                        "rules": rule_set,
                        "opener_cents": opener_cents,
                        "book_tray_cents": book,
                        "variance_cents": variance,
                    },
                    legs,
                )
            ],
        )
        table.version = event.version
        table.save()
        return cmd.finish(
            {
                "table": code,
                "event": event.position,
                "rules": rule_set,
                "opener_cents": opener_cents,
                "variance_cents": variance,
            }
        )


def table_close(*, code: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Close table ``code``. Returns ``{"table", "event", "closer_cents"}`` (the tray by the book).

    Refused with ``StateConflict`` (409) while a coup is in play or colour chips are
    outstanding (they must be changed back first: DESIGN.md §State machines).
    """
    with ledger_command(
        actor=actor, request={"op": "table_close", "table": code}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        table = table_for_update(code)
        if table.state != Table.State.OPEN:
            raise StateConflict(f"table {code} is not open", field="table")
        if round_in_play(table):
            raise StateConflict(f"table {code} has a coup in play", field="table")
        outstanding = list(table.colour_stacks.filter(state=ColourStack.State.ACTIVE).select_related("patron"))
        if outstanding:
            names = ", ".join(f"{s.colour} ({s.patron.code})" for s in outstanding)
            raise StateConflict(f"colour chips outstanding at {code}: {names}; change them back first", field="table")
        table.close()
        # Bets still in prison are resolved by the table option prison_on_close (RULES.md).
        released = prison.close_prison(table, PrisonOnClose(table.rules.get("prison_on_close", "half_returned")))
        closer = store.balance(accounts.table_tray(code), table.currency) + sum(
            leg.amount_cents for event in released for leg in event.postings if leg.account == accounts.table_tray(code)
        )
        saved = cmd.append(
            stream=table.stream,
            expected_version=table.version,
            events=[*released, NewEvent("TableClosed", {"table": code, "closer_cents": closer})],
        )
        event = saved[-1]
        table.version = event.version
        table.save()
        return cmd.finish({"table": code, "event": event.position, "closer_cents": closer})


def table_buy_in(*, code: str, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """Cash buy-in at table ``code``: the cash goes to the drop box, chips from the tray.

    Returns ``{"transaction", "event", "table", "patron", "amount_cents", "chips_cents"}``.
    Raises ``InvalidInput``, ``StateConflict`` (table closed), ``InsufficientChips`` (tray short).
    """
    if type(amount_cents) is not int or amount_cents <= 0:
        raise InvalidInput("must be a positive whole number of cents", field="amount_cents")
    request = {"op": "table_buy_in", "table": code, "patron": patron, "amount_cents": amount_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        table = table_for_update(code)
        who = patron_get(patron)
        if table.state != Table.State.OPEN:
            raise StateConflict(f"table {code} is closed", field="table")
        if store.balance(accounts.table_tray(code), table.currency) < amount_cents:
            raise InsufficientChips(f"the tray of {code} is short of chips: request a fill", field="amount_cents")
        txn = str(uuid.uuid4())
        (event,) = cmd.append(
            stream=table.stream,
            expected_version=table.version,
            correlation_id=txn,
            events=[
                NewEvent(
                    "CashBuyIn",
                    {"table": code, "patron": who.code, "amount_cents": amount_cents, "transaction": txn},
                    posting_rules.table_buy_in(code, who.chips_account, amount_cents),
                )
            ],
        )
        table.version = event.version
        table.save()
        return cmd.finish(
            {
                "transaction": txn,
                "event": event.position,
                "table": code,
                "patron": who.code,
                "amount_cents": amount_cents,
                "chips_cents": store.balance(who.chips_account, table.currency),
            }
        )

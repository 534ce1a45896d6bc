"""Table commands: open with a rule set and a counted opener, close, cash buy-in."""

import uuid

from django.conf import settings
from django_fsm import TransitionNotAllowed

from basis.errors import RuleError
from basis.money import format_cents
from core.ceilings import check_ceiling
from core.denominations import chip_denominations, count_total
from core.ids import is_code
from games.models import ColourStack
from ledger import accounts, posting_rules, store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services import aml
from staff.roles import Role, require_distinct, require_role, require_second_signature

from ..catalog import GAMES, spec
from ..models import Table
from ..rules.prison import PrisonOnClose
from ..rules.roulette import InvalidBet
from ..selectors import round_in_play, table_for_update
from ..table_record import rules_as_recorded
from ..theory import bets_without_edge
from . import prison
from .table_limits import check_within_approved_range


def _validated_rules(game: str, options: dict | None) -> dict:
    """``options`` as the game's rule set (``to_dict()``, defaults filled in), its limits within
    the house's approved range (``table_limits``); ``InvalidInput`` naming the option at fault."""
    rules = _game_rules(game, options)
    check_within_approved_range(game, rules)
    return rules


def _game_rules(game: str, options: dict | None) -> dict:
    if game not in GAMES:
        raise InvalidInput(f"unknown game {game!r}; one of {', '.join(GAMES)}", field="game")
    if options is not None and not isinstance(options, dict):
        raise InvalidInput("rules must be an object of table options", field="rules")
    try:
        rules = spec(game).rules.from_dict(options)
    except (InvalidBet, RuleError) as exc:
        raise InvalidInput(exc.message, field=exc.field) from exc
    return rules.to_dict()


def rules_without_edge(game: str, rules: dict | None) -> list[tuple[str, str]]:
    """``[(bet, edge as a percentage to 4 places)]``: the bets on which ``rules`` (a rule set of
    ``game``) give the house no edge (``games.theory.bets_without_edge``); ``[]`` for
    rules the game refuses (its own validation says why)."""
    try:
        found = bets_without_edge(game, _game_rules(game, rules))
    except (InvalidInput, RuleError, ValueError):
        return []
    return [(bet, _edge_text(edge)) for bet, edge in found]


def _edge_text(edge) -> str:
    return f"{float(edge) * 100:.4f} %"


def newly_without_edge(game: str, rules: dict | None, before: dict | None = None) -> list[tuple[str, str]]:
    """``rules_without_edge`` of ``rules``, less the bets that had no edge under ``before``
    already (the rule set in force, confirmed by two when it was chosen) at an edge no lower: a
    change of limits at such a table asks nobody again, one lowering that edge further does."""
    try:
        found = bets_without_edge(game, _game_rules(game, rules))
        if before is None or not found:
            return [(bet, _edge_text(edge)) for bet, edge in found]
        known = dict(bets_without_edge(game, _game_rules(game, before)))
    except (InvalidInput, RuleError, ValueError):
        return []
    # A bet two logins let go without an edge asks again when the change makes it worse still.
    return [(bet, _edge_text(edge)) for bet, edge in found if bet not in known or edge < known[bet]]


def require_edge_signature(game: str, rules: dict, approver: object, actor: str, *, before: dict | None = None) -> dict:
    """A rule set on which the house has no edge on some bet (its exact edge ≤ 0: the players
    have the advantage) is a decision for two: ``approver``, a pit boss or a cage supervisor
    other than ``actor``, must have confirmed it (``approvals``). ``before``: the rule set in
    force, for a change (only bets it did not already leave without an edge ask). Returns what
    the event records (``{"edge_approved_by", "without_edge"}``, or ``{}`` when nobody needs to
    confirm); raises ``RoleRequired`` (403) without that signature."""
    found = newly_without_edge(game, rules, before)
    if not found:
        return {}
    bets = ", ".join(f"{bet} {edge}" for bet, edge in found)
    require_second_signature(
        f"a rule set giving the house no edge ({bets})", approver, actor, Role.PIT_BOSS, Role.CAGE_SUPERVISOR
    )
    return {"edge_approved_by": approver, "without_edge": {bet: edge for bet, edge in found}}


def table_open(
    *,
    code: str,
    game: str,
    actor: str,
    opener_cents: int | None = None,
    opener: dict | None = None,
    dealer: str | None = None,
    pit_boss: str | None = None,
    rules: dict | None = None,
    approver: str | None = None,
    edge_approver: str | None = None,
    variance_reason: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Open table ``code`` (created on first use) with ``rules`` and the counted opener (cents).
    ``rules`` None: the game's defaults on a new table; on a table opened before, the rules it
    closed with (as its sealed events recorded them).

    The opener is either a total (``opener_cents``) or, the inventory path, a count
    by chip denomination ``opener={"<cents>": pieces}`` confirmed by a ``dealer`` and a
    ``pit_boss`` (two distinct users holding those roles). The plain total is for in-process
    set-up (the demo, tests' fixtures): no endpoint takes it, the API opens a table only with a
    counted opener (``approvals`` act ``table_open_counted``, SHIFTS.md: signed by dealer and
    supervisor). The first opening stocks the tray
    from ``house:bankroll``; later ones record the difference between the count and the
    previous closer (the last ``TableClosed``; the book tray before any) as a variance,
    reported by ``cashier.reports``; a counted opener also books the tray to the count
    (tray ± difference against ``cage:over_short``), a plain total does not. An opener of more
    than ``CASINO_LARGE_OPENER_CENTS`` needs a cage supervisor's second signature (``approver``,
    another user: given through an approval he confirmed, ``approvals``); it is recorded as
    ``approved_by``. A counted opener that differs from the previous closer needs a written
    ``variance_reason`` (SHIFTS.md: a difference is reported at once, in writing), recorded in
    ``TableOpened`` for the auditor's exception log. A rule set giving the house no edge on
    some bet needs a pit boss's or cage supervisor's second signature (``edge_approver``,
    ``require_edge_signature``), recorded as ``edge_approved_by``.
    Returns ``{"table", "event", "rules", "opener_cents", "variance_cents"}``. Raises
    ``InvalidInput`` (bad game, option or count, unknown denomination, a counted opener off the
    last closer without ``variance_reason``), ``RoleRequired``
    (403: a confirmation without its role, or one user confirming twice; a large opener without
    its second signature), ``StateConflict``
    (already open, or the gaming day is closed).
    """
    if not is_code(code):  # ASCII: "R１" would be a look-alike of R1
        raise InvalidInput("a table code is 1 to 20 ASCII letters or digits", field="code")
    denominations = _counted_tray(opener, opener_cents, "opener", dealer=dealer, pit_boss=pit_boss)
    if denominations is not None:
        opener_cents = sum(int(d) * n for d, n in denominations.items())
    if type(opener_cents) is not int or opener_cents < 0:
        raise InvalidInput("the opener is a non-negative whole number of cents", field="opener_cents")
    large = opener_cents > settings.CASINO_LARGE_OPENER_CENTS
    if large:
        require_second_signature(
            f"an opener over {format_cents(settings.CASINO_LARGE_OPENER_CENTS)}", approver, actor, Role.CAGE_SUPERVISOR
        )
    rule_set = _validated_rules(game, rules)
    edge_approval = require_edge_signature(game, rule_set, edge_approver, actor)
    check_ceiling("opener", opener_cents, field="opener" if denominations is not None else "opener_cents")
    request = {"op": "table_open", "table": code, "game": game, "rules": rule_set, "opener": opener_cents}
    if denominations is not None:
        request |= {"denominations": denominations, "dealer": dealer, "pit_boss": pit_boss}
    approval = ({"approved_by": approver} if large else {}) | edge_approval
    request |= approval
    if variance_reason is not None:
        if not isinstance(variance_reason, str) or len(variance_reason) > 500:
            raise InvalidInput("an explanation is at most 500 characters", field="variance_reason")
        variance_reason = variance_reason.strip() or None
        request |= {"variance_reason": variance_reason}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        Table.objects.get_or_create(code=code, defaults={"game": game})
        table = table_for_update(code, rules_checked=False)  # the opening sets them anew
        if rules is None and table.version > 0:
            # Reopened with no rules given: the limits and options it closed with stand (a pit
            # boss who meant others changes them), as its sealed events recorded them.
            rules_as_recorded(table)
            rule_set = table.rules
            approval = ({"approved_by": approver} if large else {}) | require_edge_signature(
                game, rule_set, edge_approver, actor
            )
        if table.game != game:
            raise InvalidInput(f"table {code} is a {table.game} table", field="game")
        refuse_if_closed(current_gaming_day(), what=f"table {code} cannot open on it", field="table")
        try:
            table.open()
        except TransitionNotAllowed:
            raise StateConflict(f"table {code} is already open", field="table") from None
        book = store.balance(accounts.table_tray(code), table.currency)
        first = table.version == 0
        variance = 0 if first else opener_cents - _previous_closer(table, book)
        if variance and denominations is not None and not variance_reason:
            raise InvalidInput(
                f"the opener differs from the last closer by {format_cents(variance)}: "
                "write what explains the difference",
                field="variance_reason",
            )
        if first:
            legs = posting_rules.stock(accounts.table_tray(code), accounts.HOUSE_BANKROLL, opener_cents - book)
        elif denominations is not None:
            # A counted opener is the truth of the tray: the book follows it, the difference
            # going to over/short, so one day's variance never leaks into the next day's win.
            legs = posting_rules.stock(accounts.table_tray(code), accounts.CAGE_OVER_SHORT, opener_cents - book)
        else:
            legs = []
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
                        **_count_data(denominations, dealer, pit_boss),
                        **approval,
                        **({"variance_reason": variance_reason} if variance and variance_reason else {}),
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


def table_close(
    *,
    code: str,
    actor: str,
    closer: dict | None = None,
    dealer: str | None = None,
    pit_boss: str | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Close table ``code``. Returns ``{"table", "event", "closer_cents", "book_tray_cents",
    "variance_cents"}`` in cents.

    Without ``closer`` the closer is the tray by the book. With ``closer={"<cents>": pieces}``
    (the inventory path, confirmed by a ``dealer`` and a ``pit_boss``, two distinct
    users with those roles) the closer is the count, ``variance_cents`` = count − book is
    posted (tray against ``cage:over_short``), and the count is the next session's opener.
    Refused with ``StateConflict`` (409) while a coup is in play or colour chips are
    outstanding (DESIGN.md §State machines); ``InvalidInput`` for a bad count,
    ``RoleRequired`` (403) for a bad confirmation.
    """
    denominations = _counted_tray(closer, None, "closer", dealer=dealer, pit_boss=pit_boss)
    if denominations is not None:
        check_ceiling("closer", sum(int(d) * n for d, n in denominations.items()), field="closer")
    request = {"op": "table_close", "table": code}
    if denominations is not None:
        request |= {"denominations": denominations, "dealer": dealer, "pit_boss": pit_boss}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
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
        book = store.balance(accounts.table_tray(code), table.currency) + sum(
            leg.amount_cents for event in released for leg in event.postings if leg.account == accounts.table_tray(code)
        )
        closer = book if denominations is None else sum(int(d) * n for d, n in denominations.items())
        data = {"table": code, "closer_cents": closer}
        legs = []
        if denominations is not None:
            data |= {"book_tray_cents": book, "variance_cents": closer - book}
            data |= _count_data(denominations, dealer, pit_boss)
            # The count is the truth of the tray (see table_open): book it, variance to over/short.
            legs = posting_rules.stock(accounts.table_tray(code), accounts.CAGE_OVER_SHORT, closer - book)
        saved = cmd.append(
            stream=table.stream,
            expected_version=table.version,
            events=[*released, NewEvent("TableClosed", data, legs)],
        )
        event = saved[-1]
        table.version = event.version
        table.save()
        return cmd.finish(
            {
                "table": code,
                "event": event.position,
                "closer_cents": closer,
                "book_tray_cents": book,
                "variance_cents": closer - book,
            }
        )


def _counted_tray(
    count: dict | None, total: int | None, field: str, *, dealer: str | None, pit_boss: str | None
) -> dict | None:
    """Validate an opener or closer counted by chip denomination and its two confirmations.

    Returns the normalised count (``None`` when the count is a plain total). Raises
    ``InvalidInput`` (bad count; a count and a different total), ``RoleRequired`` (403).
    """
    if count is None:
        if dealer is not None or pit_boss is not None:
            raise InvalidInput(f"confirmations go with a {field} counted by denomination", field=field)
        return None
    denominations, counted = count_total(count, chip_denominations(), field=field)
    if total is not None and total != counted:
        raise InvalidInput(
            f"the {field} count totals {format_cents(counted)}, not {format_cents(total)}", field=f"{field}_cents"
        )
    for who, role in ((dealer, Role.DEALER), (pit_boss, Role.PIT_BOSS)):
        if not isinstance(who, str) or not who:
            raise InvalidInput(f"the {field} count needs the {role.value}'s confirmation", field=role.value)
        require_role(who, role, step=f"confirming the {field}")
    require_distinct(f"confirming the {field}", pit_boss, [("dealer", dealer)])
    return denominations


def _count_data(denominations: dict | None, dealer: str | None, pit_boss: str | None) -> dict:
    if denominations is None:
        return {}
    return {"denominations": denominations, "dealer": dealer, "pit_boss": pit_boss}


def _previous_closer(table: Table, book: int) -> int:
    """The closer of the table's last session (what its tray should hold), else the book."""
    last = Event.objects.filter(stream=table.stream, type="TableClosed").order_by("-position").first()
    return last.data.get("closer_cents", book) if last is not None else book


@aml.records_refusals
def table_buy_in(*, code: str, patron: str, amount_cents: int, actor: str, idempotency_key: str | None = None) -> dict:
    """Cash buy-in at table ``code``: the cash goes to the drop box, chips from the tray.

    Returns ``{"transaction", "event", "table", "patron", "amount_cents", "chips_cents", "aml"}``
    (``aml``: the AML decisions the buy-in brought, ``aml.decisions_result``).
    Raises ``InvalidInput``, ``StateConflict`` (table closed), ``InsufficientChips`` (tray short),
    ``aml.IdentityRequired`` (409: cash in over the AML identity threshold, ``patrons.services.aml``).
    """
    if type(amount_cents) is not int or amount_cents <= 0:
        raise InvalidInput("must be a positive whole number of cents", field="amount_cents")
    check_ceiling("buy_in", amount_cents, field="amount_cents")
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
        decisions = aml.screen_cash(cmd, patron=who, event=event, table=code)
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
                "aml": aml.decisions_result(decisions),
            }
        )

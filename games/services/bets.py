"""Placing bets on an English roulette coup (RULES.md §Roulette).

A bet is a position on the layout (``{"type", "numbers" | "which" | "chance"}``) or an
announced bet (``{"name", "number"?}``) that is expanded into its component bets, each
placed, limited and settled on its own. Stakes come from the patron's value chips or from
his colour chips at this table.
"""

import uuid
from dataclasses import dataclass

from basis.errors import RuleError
from basis.money import format_cents
from core import rawsql
from games.models import ColourStack
from ledger import accounts, posting_rules, store
from ledger.commands import ledger_command
from ledger.errors import BetRefused, ChipsRefused, InvalidInput
from ledger.store import NewEvent
from patrons.models import Patron
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..catalog import spec
from ..models import Bet, Round
from ..rules.roulette import InvalidBet, RouletteBet, expand_announced, make_bet
from ..rules.roulette_table import RouletteTableRules
from ..selectors import BetPlacementReads, bet_placement_reads, roulette_rules
from .bet_keys import bet_key
from .card_table import betting_open
from .refusals import refused

_CHIPS = frozenset(Bet.Chips.values)  # ``Chips.values`` builds its list again on every call


def _components(
    rules: RouletteTableRules, stake_cents: int, bet: dict | None, announce: dict | None
) -> list[tuple[RouletteBet, int]]:
    """``[(position, stake_cents)]`` for a single bet or an announced bet (stake = one chip)."""
    if (bet is None) == (announce is None):
        raise InvalidInput("give either a bet or an announced bet", field="bet")
    if type(stake_cents) is not int or stake_cents <= 0:
        raise InvalidInput("the stake must be a positive whole number of cents", field="stake_cents")
    try:
        if bet is not None:
            if not isinstance(bet, dict) or set(bet) - {"type", "numbers", "which", "chance"}:
                raise InvalidInput("a bet is {type, numbers | which | chance}", field="bet")
            return [
                (
                    make_bet(
                        bet.get("type"), numbers=bet.get("numbers"), which=bet.get("which"), chance=bet.get("chance")
                    ),
                    stake_cents,
                )
            ]
        if not isinstance(announce, dict) or set(announce) - {"name", "number", "neighbours"}:
            raise InvalidInput("an announced bet is {name, number?, neighbours?}", field="announce")
        if "neighbours" in announce and announce.get("name") != "voisins":
            raise InvalidInput("neighbours only go with the announce 'voisins'", field="announce.neighbours")
        expanded = expand_announced(
            announce.get("name"),
            chip_cents=stake_cents,
            number=announce.get("number"),
            neighbours=announce.get("neighbours", rules.neighbours),
            options=rules.options_on,
        )
        return [(position, chips * stake_cents) for position, chips in expanded]
    except InvalidBet as exc:
        prefix = "bet" if bet is not None else "announce"
        field = exc.field if exc.field in ("stake_cents", "announce") else f"{prefix}.{exc.field}"
        raise InvalidInput(exc.message, field=field) from exc


def _colour_stack(table_id: int, patron: Patron) -> ColourStack:
    stack = patron.colour_stacks.filter(state=ColourStack.State.ACTIVE, table_id=table_id).first()
    if stack is None:
        elsewhere = patron.colour_stacks.filter(state=ColourStack.State.ACTIVE).select_related("table").first()
        where = f"; his colour chips belong to table {elsewhere.table.code}" if elsewhere else ""
        raise InvalidInput(f"{patron.code} has no colour chips at this table{where}", field="chips")
    return stack


def bet_place(
    *,
    round_id: str,
    patron: str,
    stake_cents: int,
    actor: str,
    bet: dict | None = None,
    announce: dict | None = None,
    chips: str = Bet.Chips.VALUE,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Place a bet (or an announced bet, ``stake_cents`` = one chip) on a coup in betting.

    Returns ``{"round", "patron", "bets": [{"bet", "position", "stake_cents"}], "total_cents",
    "version"}``, plus ``"adjusted_from_cents"`` (the stake asked) when the table's chips
    lowered it (``off_chips = adjust``). Raises ``InvalidInput`` (field at fault:
    ``bet.numbers``, ``stake_cents``, ``chips``, …), ``BetRefused`` (recorded for the floor: a
    table limit, ``chip_increment`` on ``stake_cents``, ``lone_even_chance`` on ``bet`` under
    the table option ``even_chances = with_other_bets``, the self-limit),
    ``ChipsRefused`` (an ``InsufficientChips``, recorded: ``stake_cents`` more than he holds),
    ``BettingClosedRefused`` (a 409 ``StateConflict``, recorded: betting is closed, "rien ne va
    plus", or the table is closed), ``VersionConflict`` (409).
    """
    if chips not in _CHIPS:
        raise InvalidInput("chips is 'value' or 'colour'", field="chips")
    request = {
        "op": "bet_place",
        "round": str(round_id),
        "patron": patron,
        "stake": stake_cents,
        "bet": bet,
        "announce": announce,
        "chips": chips,
        "expected_version": expected_version,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=bet_key(round_id, idempotency_key)) as cmd:
        if cmd.replayed:
            return cmd.result
        reads = bet_placement_reads(round_id, patron)
        coup = reads.coup
        table = coup.table
        if not spec(table.game).layout_bets:
            raise InvalidInput(f"table {table.code} is a {table.game} table: use its own bet endpoint", field="round")
        betting_open_check(coup, patron=patron, stake_cents=stake_cents)
        placement = bet_check(
            reads,
            rules=roulette_rules(table),
            patron=patron,
            stake_cents=stake_cents,
            bet=bet,
            announce=announce,
            chips=chips,
        )
        placed, events, who, total = placement.rows, placement.events, placement.patron, placement.total_cents
        expected = coup.version if expected_version is None else expected_version
        coup.version = expected + len(events)  # what the append makes it, or it raises
        # The bets and the round's version go in the append's own round trip.
        cmd.append(
            stream=coup.stream,
            expected_version=expected,
            correlation_id=str(coup.id),
            events=events,
            also=[rawsql.insert(placed), rawsql.update(coup, ["version"])],
            tip=reads.tip,
        )
        return cmd.finish(
            {
                "round": str(coup.id),
                "patron": who.code,
                "version": coup.version,
                "total_cents": total,
                "bets": [{"bet": str(b.id), "position": b.position, "stake_cents": b.stake_cents} for b in placed],
                **({"adjusted_from_cents": placement.adjusted_from_cents} if placement.adjusted_from_cents else {}),
            }
        )


@dataclass
class Placement:
    """One placement checked and built, not yet appended (``bet_check``)."""

    patron: Patron
    source: str  # the account the stake leaves: his value chips or his colour chips here
    rows: list[Bet]
    events: list[NewEvent]
    total_cents: int
    adjusted_from_cents: int | None = None  # the stake asked, when off_chips = adjust lowered it


def betting_open_check(coup: Round, *, patron: str | None = None, stake_cents: object = None) -> None:
    """``StateConflict`` (409, field ``round``) unless the coup takes bets; with ``patron``
    (code, as sent) a ``BettingClosedRefused`` the floor records (``card_table.betting_open``)."""
    betting_open(
        coup,
        f"betting is closed on coup {coup.number} of {coup.table.code} (rien ne va plus)",
        patron=patron,
        stake_cents=stake_cents,
    )


def bet_check(
    reads: BetPlacementReads,
    *,
    rules: RouletteTableRules,
    patron: str,
    stake_cents: int,
    bet: dict | None = None,
    announce: dict | None = None,
    chips: str = Bet.Chips.VALUE,
    spent: dict[str, int] | None = None,
) -> Placement:
    """Every check of one roulette placement on ``reads.coup`` (betting open checked by the
    caller), and its rows and ``BetPlaced`` events, without writing anything: the single
    placement (``bet_place``) and the batch (``bet_batch_place``) share it.

    ``spent``: cents earlier placements of the same command took from each source account
    (the batch's own running balance). Order: the position's shape (400), the even-chance
    variant against the patron's bets already on the coup (``reads.placed``, the batch's earlier
    ones included), the table's limits on the stake asked, then its chip increments on a
    value-chip stake (refused, or lowered and the limits checked again). Raises
    ``InvalidInput`` (field at fault), ``BetRefused`` (a table limit, the chips, the variant or
    the self-limit, to be recorded) or ``ChipsRefused`` (recorded too: fewer chips than the
    stake, or no colour chips of his at the table).
    """
    if chips not in _CHIPS:
        raise InvalidInput("chips is 'value' or 'colour'", field="chips")
    spent = spent or {}
    coup = reads.coup
    table = coup.table
    who = reads.patron or patron_get(patron)  # patron_get raises the "no patron" 400
    components = _components(rules, stake_cents, bet, announce)
    colour = chips == Bet.Chips.COLOUR
    refuse = {"table": table.code, "round_id": coup.id, "patron": who.code}
    try:
        stack = _colour_stack(table.pk, who) if colour else None
    except InvalidInput as exc:  # no colour chips of his at this table: refused for want of chips
        raise ChipsRefused(exc.message, stake_cents=stake_cents, field="chips", **refuse) from exc
    source = accounts.patron_colour(who.code, table.code) if colour else who.chips_account
    others = [make_bet(**position) for position, _ in reads.placed]
    for position, stake in components:
        try:
            rules.check_even_chance_company(position, others=others)
        except InvalidBet as exc:
            raise refused(exc, stake_cents=stake, **refuse) from exc
    already = _staked_by_position(reads.placed)
    _check_limits(rules, components, stack, already, refuse)
    asked, asked_by_position = stake_cents, {_key(p): s for p, s in components}
    if not colour:  # a colour chip's value is the patron's own: the table's chips are value chips
        try:
            stake_cents = rules.chips.stake(stake_cents)
        except RuleError as exc:
            raise refused(exc, stake_cents=stake_cents, **refuse) from exc
        if stake_cents != asked:  # adjusted down: the table's minimum again, on what is taken
            components = _components(rules, stake_cents, bet, announce)
            _check_limits(rules, components, stack, already, refuse)
    adjusted = {} if stake_cents == asked else {"adjusted_from_cents": asked}
    total = sum(stake for _, stake in components)
    # responsible gaming: his own maximum, every game
    check_self_limit(who.code, total, table=table.code, round_id=coup.id, limit_cents=reads.self_limit_cents)
    held = int((store.balance(source, table.currency) if colour else reads.chips_cents) - spent.get(source, 0))
    if held < total:
        currency = table.currency
        raise ChipsRefused(
            f"{who.code} holds {format_cents(held, currency)} of {chips} chips, "
            f"less than the {format_cents(total, currency)} staked",
            stake_cents=total,
            **refuse,
        )

    group = uuid.uuid4() if announce is not None else None
    name = announce.get("name") if announce is not None else ""
    placed, events = [], []
    for position, stake in components:
        row = Bet(
            round=coup,
            patron=who,
            position=position.to_dict(),
            stake_cents=stake,
            chips=chips,
            announce=name,
            announce_group=group,
        )
        placed.append(row)
        events.append(
            NewEvent(
                "BetPlaced",
                {
                    "bet": str(row.id),
                    "round": str(coup.id),
                    "table": table.code,
                    "patron": who.code,
                    "position": row.position,
                    "stake_cents": stake,
                    "chips": chips,
                    "colour": stack.colour if stack else None,
                    "announce": name or None,
                    "announce_group": str(group) if group else None,
                    # voisins are named by the number in their middle
                    **({"announce_number": announce.get("number")} if name == "voisins" else {}),
                    # off_chips = adjust: the stake asked, of which only stake_cents is taken
                    **({"adjusted_from_cents": asked_by_position[_key(position)]} if adjusted else {}),
                },
                posting_rules.bet_placed(source, table.code, stake),
            )
        )
    return Placement(who, source, placed, events, total, adjusted.get("adjusted_from_cents"))


def _check_limits(
    rules: RouletteTableRules,
    components: list[tuple[RouletteBet, int]],
    stack: ColourStack | None,
    already: dict[tuple, int],
    refuse: dict,
) -> None:
    """Each component within the table's limits, counting what the patron already has on its
    position (and the earlier components); a colour-chip stake in whole colour chips."""
    already = dict(already)
    for position, stake in components:
        if stack and stake % stack.unit_value_cents:
            # well formed, but no pile of his colour chips makes it: refused, as the table's chips
            unit = format_cents(stack.unit_value_cents, stack.table.currency)
            message = f"a stake in colour chips is a whole number of {stack.colour} chips of {unit}"
            raise BetRefused(message, kind="chip_increment", stake_cents=stake, **refuse)
        try:
            rules.check_stake(
                position, stake, colour_chips=stack is not None, already_cents=already.get(_key(position), 0)
            )
        except InvalidBet as exc:
            raise refused(exc, stake_cents=stake, **refuse) from exc
        already[_key(position)] = already.get(_key(position), 0) + stake


def _key(position: RouletteBet) -> tuple:
    return (position.type.value, position.numbers)


def _staked_by_position(placed: list[tuple[dict, int]]) -> dict[tuple, int]:
    """What the patron already has on each position this coup (limits are per position)."""
    staked: dict[tuple, int] = {}
    for position, stake_cents in placed:
        key = (position["type"], tuple(position["numbers"]))
        staked[key] = staked.get(key, 0) + stake_cents
    return staked

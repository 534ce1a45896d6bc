"""Black jack coups through the ledger (RULES.md §Black jack).

The pure engine (``games.rules.blackjack.BlackjackCoup``) decides; this module feeds it the
bets, the cards and the seated players' decisions, and writes what it says:

- bets: ``BetPlaced`` (patron −s, layout +s), one per bettor and box;
- cards: ``CardDealt`` from the shoe's committed order (or reported by a card-reading shoe);
- decisions: ``PlayerDecided`` / ``FollowDecided`` / ``InsuranceDecided`` / ``EvenMoneyDecided``,
  each with the call that made it, and a posting for any stake it adds (double, split,
  insurance): patron −x, layout +x;
- immediate payments (blackjack against 2–9, even money, immediate payouts) as they happen,
  and every other line at the end, as ``BetSettled`` with DESIGN.md's postings.

The coup is not stored: each command rebuilds it by replaying the round's events through the
engine (deterministic), applies the new input and appends the records.
"""

from collections import defaultdict

from ledger import accounts, posting_rules, store
from ledger.commands import Command, ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict, VersionConflict
from ledger.models import Event
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..models import Bet, Round, Shoe, Table
from ..rules import blackjack as bj
from ..rules.blackjack_table import BlackjackTableRules
from ..rules.errors import RuleError
from ..selectors import round_for_update
from .outcomes import bet_resolved
from .refusals import refused
from .shoes import active_shoe, draw_reported, save_after_coup

DECISIONS = {"hit", "stand", "double", "split", "insurance", "even_money", "follow"}
DECISION_EVENTS = {
    bj.Decided: "PlayerDecided",
    bj.FollowDecided: "FollowDecided",
    bj.InsuranceDecided: "InsuranceDecided",
    bj.EvenMoneyDecided: "EvenMoneyDecided",
}


def _check_beside_own_box(table: Table, coup: Round, who, box: int, seated: bool) -> None:
    """Sheet 004: a seated player bets on his own box and the boxes beside it (table option
    ``beside_own_box``); 400 on ``box`` otherwise."""
    mine = [b.position for b in coup.bets.all() if b.patron_id == who.pk]
    own = next((p["box"] for p in mine if p.get("seated")), None)
    try:
        table_rules(table).check_beside_own_box(box, seated=seated, own_box=own, other_boxes=[p["box"] for p in mine])
    except RuleError as exc:
        raise _rule_error(exc) from exc


def table_rules(table: Table) -> BlackjackTableRules:
    return BlackjackTableRules.from_dict(table.rules)


def _blackjack_round(round_id) -> Round:
    coup = round_for_update(round_id)
    if coup.table.game != Table.Game.BLACKJACK:
        raise InvalidInput(f"table {coup.table.code} is not a black jack table", field="round")
    return coup


def _rule_error(exc: RuleError, prefix: str = "") -> InvalidInput:
    return InvalidInput(exc.message, field=f"{prefix}{exc.field}")


# --- bets ------------------------------------------------------------------------------


def blackjack_bet_place(
    *,
    round_id: str,
    patron: str,
    box: int,
    stake_cents: int,
    actor: str,
    seated: bool = False,
    idempotency_key: str | None = None,
) -> dict:
    """Bet ``stake_cents`` on ``box`` (1–7), as its seated player or behind it.

    Returns ``{"round", "bet", "box", "patron", "seated", "stake_cents", "version"}``. Raises
    ``InvalidInput`` (box, a second seated player, a fourth bet, limits), ``InsufficientChips``,
    ``StateConflict`` (betting closed).
    """
    request = {
        "op": "blackjack_bet_place",
        "round": str(round_id),
        "patron": patron,
        "box": box,
        "stake": stake_cents,
        "seated": seated,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _blackjack_round(round_id)
        table = coup.table
        if coup.state != Round.State.BETTING:
            raise StateConflict(f"betting is closed on coup {coup.number} of {table.code}", field="round")
        who = patron_get(patron)
        try:
            box_bet = bj.BoxBet(box=box, bettor=who.code, stake_cents=stake_cents, seated=seated)
        except RuleError as exc:
            raise _rule_error(exc) from exc
        on_box = [b for b in coup.bets.select_related("patron") if b.position["box"] == box]
        if len(on_box) >= bj.MAX_BETS_PER_BOX:
            raise InvalidInput(f"box {box} already has {bj.MAX_BETS_PER_BOX} bets", field="box")
        if any(b.patron_id == who.pk for b in on_box):
            raise InvalidInput(f"{who.code} already bets on box {box}", field="box")
        if seated and any(b.position["seated"] for b in on_box):
            raise InvalidInput(f"box {box} already has its seated player", field="seated")
        if not seated and not any(b.position["seated"] for b in on_box):
            # Only the seated player decides: a bet behind an empty box could never be played.
            raise InvalidInput(f"box {box} has no seated player to bet behind", field="seated")
        _check_beside_own_box(table, coup, who, box, seated)
        try:
            table_rules(table).check_stake(stake_cents, box_total_cents=sum(b.stake_cents for b in on_box))
        except RuleError as exc:
            raise refused(exc, table=table.code, round_id=coup.id, patron=who.code, stake_cents=stake_cents) from exc
        check_self_limit(who.code, stake_cents, table=table.code, round_id=coup.id)
        if store.balance(who.chips_account, table.currency) < stake_cents:
            raise InsufficientChips(f"{who.code} holds less than {stake_cents} cents of chips", field="stake_cents")
        bet = Bet.objects.create(
            round=coup,
            patron=who,
            stake_cents=stake_cents,
            position={"game": "blackjack", "box": box, "seated": seated},
        )
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            events=[
                NewEvent(
                    "BetPlaced",
                    {
                        "bet": str(bet.id),
                        "round": str(coup.id),
                        "table": table.code,
                        "patron": who.code,
                        "position": bet.position,
                        "stake_cents": stake_cents,
                        "chips": "value",
                        "box": box,
                        "seated": seated,
                        "box_bet": box_bet.box,
                    },
                    posting_rules.bet_placed(who.chips_account, table.code, stake_cents),
                )
            ],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(
            {
                "round": str(coup.id),
                "bet": str(bet.id),
                "box": box,
                "patron": who.code,
                "seated": seated,
                "stake_cents": stake_cents,
                "version": coup.version,
            }
        )


# --- replay and drive ------------------------------------------------------------------


def _replay(coup: Round, rules: BlackjackTableRules) -> bj.BlackjackCoup:
    """The engine's coup as the round's events left it."""
    bets = [
        bj.BoxBet(box=b.position["box"], bettor=b.patron.code, stake_cents=b.stake_cents, seated=b.position["seated"])
        for b in coup.bets.select_related("patron").order_by("placed_at")
    ]
    if not bets:
        raise StateConflict("no bet on this coup: void it instead", field="round")
    game = bj.BlackjackCoup(rules.game, bets)
    for event_type, data in (
        Event.objects.filter(stream=coup.stream, type__in=["CardDealt", *DECISION_EVENTS.values()])
        .order_by("version")
        .values_list("type", "data")
    ):
        if event_type == "CardDealt":
            game.deal(data["card"])
        elif "call" in data:
            _call(game, data["call"])
    return game


def _call(game: bj.BlackjackCoup, call: dict) -> list:
    """Apply a stored decision: ``{"method": "double", "args": {"box": 1, "bettor": "P00001", …}}``."""
    return getattr(game, call["method"])(**call["args"])


def _record_events(records: list, coup: Round, rules: BlackjackTableRules, call: dict | None = None) -> list[NewEvent]:
    """One event per engine record; a stake it adds is posted on it (patron −x, layout +x), and
    each line it pays at once follows it as a ``BetSettled``. The decision's call rides on its
    record, so a replay can make the same call."""
    table = coup.table.code
    events = []
    for record in records:
        data = {**bj.to_data(record), "round": str(coup.id), "table": table}
        event_type = DECISION_EVENTS.get(type(record)) or data["type"]
        data.pop("type")
        legs = []
        bettor = getattr(record, "bettor", None)
        added = getattr(record, "stake_added_cents", 0) or getattr(record, "amount_cents", 0)
        if bettor and added:
            legs += posting_rules.bet_placed(accounts.patron_chips(bettor), table, added)
            data["patron"] = bettor
        if call is not None and event_type in DECISION_EVENTS.values():
            data["call"], call = call, None
        events.append(NewEvent(event_type, data, legs))
        events += [_line_event(line, coup, rules) for line in getattr(record, "lines", ()) or ()]
    return events


def _line_event(line: bj.BetSettlement, coup: Round, rules: BlackjackTableRules) -> NewEvent:
    """One settlement line (a bettor's hand, or his insurance) as ``BetSettled`` with DESIGN.md's postings."""
    table = coup.table.code
    bet = next(
        b for b in coup.bets.select_related("patron") if b.position["box"] == line.box and b.patron.code == line.bettor
    )
    return NewEvent(
        "BetSettled",
        {
            "bet": str(bet.id),
            "round": str(coup.id),
            "table": table,
            "patron": line.bettor,
            "box": line.box,
            "hand_index": line.hand_index,
            "outcome": str(line.outcome),
            "stake_cents": line.stake_cents,
            "return_cents": line.return_cents,
            "winnings_cents": line.winnings_cents,
            "house_cents": line.house_cents,
            # RULES.md: 3:2 on odd cents rounds down; the fraction not paid is recorded
            "unpaid_fraction_cents": str(line.unpaid_fraction),
            "paid_at_once": line.paid_at_once,
            "house_edge": str(rules.edge()),
            "position": bet.position,
            "chips": "value",
        },
        posting_rules.bet_settled(
            table=table,
            patron_account=accounts.patron_chips(line.bettor),
            house_account=accounts.table_tray(table),
            stake=line.stake_cents,
            returned=line.return_cents - line.winnings_cents,
            winnings=line.winnings_cents,
        ),
    )


def _drive(
    cmd: Command, coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules, events: list, shoe: Shoe | None
) -> None:
    """Deal from the shoe while the engine wants cards; settle when it is over; append."""
    while game.next_draw() is not None and shoe is not None and shoe.mode == Shoe.Mode.SHUFFLED:
        index = len(shoe.drawn)
        card = shoe.order[index]
        shoe.drawn = [*shoe.drawn, card]
        events += _deal(game, card, index, shoe, coup, rules)
    if game.state == "settled":
        events += _settlement_events(coup, game, rules)
    saved = cmd.append(stream=coup.stream, expected_version=coup.version, correlation_id=str(coup.id), events=events)
    coup.version = saved[-1].version
    if game.state == "settled":
        coup.settle()
        coup.result = {"dealer": list(game.dealer_cards)}
    coup.save()
    if shoe is not None:
        save_after_coup(cmd, shoe)


def _deal(
    game: bj.BlackjackCoup, card: str, index: int, shoe: Shoe, coup: Round, rules: BlackjackTableRules
) -> list[NewEvent]:
    target = game.next_draw()
    try:
        records = game.deal(card)
    except RuleError as exc:
        raise _rule_error(exc) from exc
    dealt, rest = records[0], records[1:]
    data = {
        "round": str(coup.id),
        "table": coup.table.code,
        "shoe": str(shoe.id),
        "index": index,
        "card": card,
        "to": bj.to_data(target),
        "total": dealt.total,
        "soft": dealt.soft,
    }
    return [NewEvent("CardDealt", data), *_record_events(rest, coup, rules)]


def _settlement_events(coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules) -> list[NewEvent]:
    table = coup.table.code
    bets = {(b.position["box"], b.patron.code): b for b in coup.bets.select_related("patron")}
    staked, returned = defaultdict(int), defaultdict(int)
    events = []
    for line in game.settle():
        bet = bets[(line.box, line.bettor)]
        staked[bet.pk] += line.stake_cents
        returned[bet.pk] += line.return_cents
        if not line.paid_at_once:  # those were written when they were paid
            events.append(_line_event(line, coup, rules))
    for bet in bets.values():
        net = returned[bet.pk] - staked[bet.pk]
        getattr(bet, "win" if net > 0 else "lose" if net < 0 else "push")()
        bet.return_cents = returned[bet.pk]
        bet.save()
        events.append(bet_resolved(bet, coup, staked[bet.pk]))
    total_staked, total_returned = sum(staked.values()), sum(returned.values())
    events.append(
        NewEvent(
            "RoundSettled",
            {
                "round": str(coup.id),
                "table": table,
                "dealer": list(game.dealer_cards),
                "bets": len(bets),
                "staked_cents": total_staked,
                "returned_cents": total_returned,
                "house_win_cents": total_staked - total_returned,
            },
        )
    )
    return events


def _summary(coup: Round, game: bj.BlackjackCoup) -> dict:
    awaiting = game.awaiting()
    return {
        "round": str(coup.id),
        "table": coup.table.code,
        "state": coup.state,
        "version": coup.version,
        "engine_state": game.state,
        "dealer": list(game.dealer_cards),
        "awaiting": bj.to_data(awaiting) if awaiting else None,
        "needs_card": bj.to_data(game.next_draw()) if game.next_draw() else None,
        "hands": [bj.to_data(h) for h in game.hands()],
    }


# --- commands ----------------------------------------------------------------------------


def blackjack_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Start dealing a coup whose betting is closed: cards come from the shoe until a decision
    is awaited (or, with a card-reading shoe, until the next card must be reported)."""
    with ledger_command(
        actor=actor, request={"op": "blackjack_deal", "round": str(round_id)}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _blackjack_round(round_id)
        shoe = active_shoe(coup.table)
        if shoe is None or shoe.state != Shoe.State.IN_PLAY:
            raise StateConflict(f"no shoe in play at {coup.table.code}", field="shoe")
        if coup.state != Round.State.CLOSED_FOR_BETS:
            raise StateConflict(f"coup {coup.number} is {coup.state}: close the bets first", field="round")
        rules = table_rules(coup.table)
        game = _replay(coup, rules)
        coup.deal()
        _drive(
            cmd,
            coup,
            game,
            rules,
            [NewEvent("DealingStarted", {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id)})],
            shoe,
        )
        return cmd.finish(_summary(coup, game))


def blackjack_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card-reading shoe reports the next card of the coup. Refused (400, field ``card``) when
    the shoe cannot contain it or no card is due."""
    with ledger_command(
        actor=actor,
        request={"op": "blackjack_card", "round": str(round_id), "card": card},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _blackjack_round(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}", field="round")
        shoe = active_shoe(coup.table)
        if shoe is None or shoe.mode != Shoe.Mode.READER:
            raise StateConflict("cards are reported only by a card-reading shoe", field="shoe")
        rules = table_rules(coup.table)
        game = _replay(coup, rules)
        if game.next_draw() is None:
            raise StateConflict("no card is due: a decision is awaited", field="card")
        index = len(shoe.drawn)
        draw_reported(shoe, card)
        _drive(cmd, coup, game, rules, _deal(game, card, index, shoe, coup, rules), shoe)
        return cmd.finish(_summary(coup, game))


def blackjack_decide(
    *,
    round_id: str,
    patron: str,
    box: int,
    action: str,
    actor: str,
    hand_index: int | None = None,
    amount_cents: int | None = None,
    accept: bool | None = None,
    follow: bool | None = None,
    follows: str | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """A player's decision: ``hit``, ``stand``, ``double``, ``split`` (the seated player),
    ``insurance`` (``amount_cents``, 0 declines), ``even_money`` (``accept``), ``follow`` (a
    bettor behind: ``follows`` = "double"|"split", ``follow`` true/false).

    Returns the coup summary (state, dealer cards, hands, the decision awaited). Raises
    ``InvalidInput`` naming the field (not seated at that box, a stood hand, a double outside
    the allowed totals, a non-pair split, insurance over half the stake, …),
    ``InsufficientChips`` for a stake he cannot cover, ``StateConflict`` (settled coup),
    ``VersionConflict``.
    """
    if action not in DECISIONS:
        raise InvalidInput(f"action is one of {', '.join(sorted(DECISIONS))}", field="action")
    if action == "follow" and follows not in ("double", "split"):
        raise InvalidInput("say which decision is followed: 'double' or 'split'", field="follows")
    if action == "follow" and type(follow) is not bool:
        raise InvalidInput("follow is true or false", field="follow")
    request = {
        "op": "blackjack_decide",
        "round": str(round_id),
        "patron": patron,
        "box": box,
        "action": action,
        "hand_index": hand_index,
        "amount": amount_cents,
        "accept": accept,
        "follow": follow,
        "follows": follows,
        "expected_version": expected_version,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _blackjack_round(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} of {coup.table.code} is {coup.state}", field="round")
        if expected_version is not None and expected_version != coup.version:
            raise VersionConflict(
                f"round is at version {coup.version}, not {expected_version}", field="expected_version"
            )
        who = patron_get(patron)
        rules = table_rules(coup.table)
        game = _replay(coup, rules)
        args: dict = {"box": box, "bettor": who.code}
        if action in ("hit", "stand", "double", "split"):
            args["hand_index"] = hand_index
        elif action == "insurance":
            args["amount_cents"] = amount_cents
        elif action == "even_money":
            args["accept"] = accept
        else:
            args.update(action=follows, follow=follow)
        call = {"method": action, "args": args}
        try:
            records = _call(game, call)
        except RuleError as exc:
            raise _rule_error(exc) from exc
        _check_stakes_covered(records, coup.table.currency)
        _drive(cmd, coup, game, rules, _record_events(records, coup, rules, call), active_shoe(coup.table))
        return cmd.finish(_summary(coup, game))


def _check_stakes_covered(records: list, currency: str) -> None:
    added: dict[str, int] = defaultdict(int)
    for record in records:
        bettor = getattr(record, "bettor", None)
        amount = getattr(record, "stake_added_cents", 0) or getattr(record, "amount_cents", 0)
        if bettor and amount:
            added[bettor] += amount
    for bettor, amount in added.items():
        if store.balance(accounts.patron_chips(bettor), currency) < amount:
            raise InsufficientChips(
                f"{bettor} holds less than the {amount} cents this decision stakes", field="amount_cents"
            )

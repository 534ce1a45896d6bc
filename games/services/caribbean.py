"""Caribbean stud coups through the ledger (RULES.md §Caribbean-style stud).

Each coup is dealt from a fresh 52-card deck (a one-deck ``Shoe``): shuffled by the backend
with its order committed and revealed when the coup ends, or reported card by card by the
dealer's terminal, which then cannot report a card twice. Postings (DESIGN.md): ante and
raise patron −s, layout +s; each settled line (ante, raise) layout → patron / tray.
The coup is rebuilt from the round's events for every command, like black jack.
"""

import random
import secrets

from ledger import accounts, posting_rules, store
from ledger.commands import Command, ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..models import Bet, Round, Shoe, Table
from ..rules import caribbean_stud as cs
from ..rules.errors import RuleError
from ..rules.house_edges import settled_line_edge
from ..rules.shoe import ShoeOrder, commitment
from ..rules.stud_table import CaribbeanTableRules
from ..selectors import round_for_update
from .outcomes import bet_resolved
from .refusals import refused
from .shoes import draw_reported


def _round(round_id) -> Round:
    coup = round_for_update(round_id)
    if coup.table.game != Table.Game.CARIBBEAN_STUD:
        raise InvalidInput(f"table {coup.table.code} is not a Caribbean stud table", field="round")
    return coup


def _rules(table: Table) -> CaribbeanTableRules:
    return CaribbeanTableRules.from_dict(table.rules)


def _invalid(exc: RuleError) -> InvalidInput:
    return InvalidInput(exc.message, field=exc.field)


def caribbean_ante(
    *, round_id: str, patron: str, box: int, ante_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Post ``patron``'s ante on ``box`` (1–7, one player a box). The raise will be
    ``raise_multiple`` × the ante, so he must hold both. Returns ``{"round", "bet", "box",
    "patron", "ante_cents", "version"}``."""
    request = {"op": "caribbean_ante", "round": str(round_id), "patron": patron, "box": box, "ante": ante_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        if coup.state != Round.State.BETTING:
            raise StateConflict(f"betting is closed on coup {coup.number}", field="round")
        who = patron_get(patron)
        rules = _rules(coup.table)
        try:
            cs.CaribbeanAnte(box=box, player=who.code, ante_cents=ante_cents)
            # A taken box refuses the ante whatever its size: checked before the table's
            # limits, so it is not recorded as a refusal over a limit (the floor counts those).
            if any(b.position["box"] == box for b in coup.bets.all()):
                raise InvalidInput(f"box {box} already has an ante", field="box")
            rules.game.check_ante(ante_cents)
        except RuleError as exc:
            raise refused(
                exc, table=coup.table.code, round_id=coup.id, patron=who.code, stake_cents=ante_cents
            ) from exc
        check_self_limit(who.code, ante_cents, table=coup.table.code, round_id=coup.id)
        needed = ante_cents + rules.game.raise_cents(ante_cents)
        if store.balance(who.chips_account, coup.table.currency) < needed:
            raise InsufficientChips(
                f"{who.code} needs {needed} cents to cover the ante and a raise", field="ante_cents"
            )
        bet = Bet.objects.create(
            round=coup, patron=who, stake_cents=ante_cents, position={"game": "caribbean_stud", "box": box}
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
                        "table": coup.table.code,
                        "patron": who.code,
                        "position": bet.position,
                        "stake_cents": ante_cents,
                        "chips": "value",
                        "box": box,
                    },
                    posting_rules.bet_placed(who.chips_account, coup.table.code, ante_cents),
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
                "ante_cents": ante_cents,
                "version": coup.version,
            }
        )


def _coup_deck(coup: Round) -> Shoe | None:
    return Shoe.objects.filter(table=coup.table, state=Shoe.State.IN_PLAY).first()


def _replay(coup: Round, rules: CaribbeanTableRules) -> cs.CaribbeanCoup:
    antes = [
        cs.CaribbeanAnte(box=b.position["box"], player=b.patron.code, ante_cents=b.stake_cents)
        for b in coup.bets.select_related("patron").order_by("placed_at")
    ]
    if not antes:
        raise StateConflict("no ante on this coup: void it instead", field="round")
    game = cs.CaribbeanCoup(rules.game, antes)
    for event_type, data in (
        Event.objects.filter(stream=coup.stream, type__in=["CardDealt", "BoxDecided"])
        .order_by("version")
        .values_list("type", "data")
    ):
        if event_type == "CardDealt":
            game.deal(data["card"])
        elif data["action"] == "raise":
            game.raise_(data["box"])
        else:
            game.fold(data["box"])
    return game


def _records(records: list, coup: Round, deck: Shoe, index: int | None = None) -> list[NewEvent]:
    table = coup.table.code
    events = []
    for record in records:
        data = {"round": str(coup.id), "table": table}
        if isinstance(record, cs.CardDealt):
            data.update(shoe=str(deck.id), index=index, box=record.box, card=record.card, face=record.face)
            events.append(NewEvent("CardDealt", data))
        elif isinstance(record, cs.DealerShows):
            events.append(NewEvent("DealerShows", {**data, "card": record.card}))
        elif isinstance(record, cs.BoxDecided):
            data.update(box=record.box, patron=record.player, action=record.action, raise_cents=record.raise_cents)
            legs = (
                posting_rules.bet_placed(accounts.patron_chips(record.player), table, record.raise_cents)
                if (record.raise_cents)
                else []
            )
            events.append(NewEvent("BoxDecided", data, legs))
        elif isinstance(record, cs.DealerRevealed):
            data.update(cards=list(record.cards), category=record.category, qualifies=record.qualifies)
            events.append(NewEvent("DealerRevealed", data))
    return events


def _settle(coup: Round, game: cs.CaribbeanCoup, dealer: list[str]) -> list[NewEvent]:
    table = coup.table.code
    bets = {b.position["box"]: b for b in coup.bets.select_related("patron")}
    events, staked_total, returned_total = [], 0, 0
    for box in game.settle():
        bet = bets[box.box]
        staked = returned = 0
        for line in box.result.lines:
            staked += line.stake_cents
            returned += line.return_cents
            events.append(
                NewEvent(
                    "BetSettled",
                    {
                        "bet": str(bet.id),
                        "round": str(coup.id),
                        "table": table,
                        "patron": box.player,
                        "box": box.box,
                        "line": line.bet,
                        "outcome": line.outcome,
                        "hand": box.result.player_category,
                        "dealer_qualifies": box.result.dealer_qualifies,
                        "stake_cents": line.stake_cents,
                        "return_cents": line.return_cents,
                        "winnings_cents": line.winnings_cents,
                        "house_cents": line.house_cents,
                        "capped_cents": line.capped_cents,
                        "unpaid_fraction_cents": str(line.unpaid_fraction),
                        "house_edge": settled_line_edge("caribbean_stud", coup.table.rules, line.bet),
                        "position": bet.position,
                        "chips": "value",
                    },
                    posting_rules.bet_settled(
                        table=table,
                        patron_account=accounts.patron_chips(box.player),
                        house_account=accounts.table_tray(table),
                        stake=line.stake_cents,
                        returned=line.return_cents - line.winnings_cents,
                        winnings=line.winnings_cents,
                    ),
                )
            )
        net = returned - staked
        getattr(bet, "win" if net > 0 else "lose" if net < 0 else "push")()
        bet.return_cents = returned
        bet.save()
        events.append(bet_resolved(bet, coup, staked))
        staked_total += staked
        returned_total += returned
    events.append(
        NewEvent(
            "RoundSettled",
            {
                "round": str(coup.id),
                "table": table,
                "bets": len(bets),
                "dealer": dealer,
                "staked_cents": staked_total,
                "returned_cents": returned_total,
                "house_win_cents": staked_total - returned_total,
            },
        )
    )
    return events


def _finish(cmd: Command, coup: Round, game: cs.CaribbeanCoup, deck: Shoe, events: list[NewEvent]) -> None:
    dealer = next((e.data["cards"] for e in events if e.type == "DealerRevealed"), [])
    if game.state == "settled":
        events += _settle(coup, game, dealer)
    saved = cmd.append(stream=coup.stream, expected_version=coup.version, correlation_id=str(coup.id), events=events)
    coup.version = saved[-1].version
    if game.state == "settled":
        coup.settle()
        coup.result = {"dealer": dealer}
        deck.close()  # the coup's deck is spent: reveal its order
        reveal = {"shoe": str(deck.id), "table": coup.table.code, "cards_drawn": len(deck.drawn)}
        if deck.mode == Shoe.Mode.SHUFFLED:
            reveal.update(order=deck.order, salt=deck.salt, commitment=deck.commitment)
        (event,) = cmd.append(
            stream=deck.stream, expected_version=deck.version, events=[NewEvent("ShoeClosed", reveal)]
        )
        deck.version = event.version
    deck.save()
    coup.save()


def caribbean_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal the coup from a fresh deck (bets closed). Shuffled: all 5 cards each and the dealer's,
    his last card shown; reported: then the terminal reports each card (``caribbean_report_card``)."""
    with ledger_command(
        actor=actor, request={"op": "caribbean_deal", "round": str(round_id)}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        if coup.state != Round.State.CLOSED_FOR_BETS:
            raise StateConflict(f"coup {coup.number} is {coup.state}: close the bets first", field="round")
        rules = _rules(coup.table)
        game = _replay(coup, rules)
        shuffled = rules.card_source == "shuffled"
        deck = Shoe(table=coup.table, mode=Shoe.Mode.SHUFFLED if shuffled else Shoe.Mode.READER, decks=1)
        data = {"shoe": str(deck.id), "table": coup.table.code, "mode": deck.mode, "decks": 1, "round": str(coup.id)}
        if shuffled:
            order = ShoeOrder.shuffle(1, random.SystemRandom())
            deck.order, deck.salt = list(order.cards), secrets.token_hex(16)
            deck.commitment = commitment(order, deck.salt)
            deck.cut_position = 52
            data["commitment"] = deck.commitment
        deck.shuffle()
        deck.start()
        deck.save()
        (shuffled_event,) = cmd.append(stream=deck.stream, expected_version=0, events=[NewEvent("ShoeShuffled", data)])
        deck.version = shuffled_event.version
        coup.deal()
        events = [NewEvent("DealingStarted", {"round": str(coup.id), "table": coup.table.code, "shoe": str(deck.id)})]
        while shuffled and game.next_draw() is not None:
            index = len(deck.drawn)
            card = deck.order[index]
            deck.drawn = [*deck.drawn, card]
            events += _records(game.deal(card), coup, deck, index)
        _finish(cmd, coup, game, deck, events)
        return cmd.finish(_summary(coup, game))


def caribbean_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card; one already dealt from this deck is refused."""
    with ledger_command(
        actor=actor,
        request={"op": "caribbean_card", "round": str(round_id), "card": card},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        deck = _coup_deck(coup)
        if coup.state != Round.State.DEALING or deck is None or deck.mode != Shoe.Mode.READER:
            raise StateConflict("no reported card is due on this coup", field="card")
        rules = _rules(coup.table)
        game = _replay(coup, rules)
        if game.next_draw() is None:
            raise StateConflict("every card is out: the players decide", field="card")
        index = len(deck.drawn)
        draw_reported(deck, card)
        try:
            records = game.deal(card)
        except RuleError as exc:
            raise _invalid(exc) from exc
        _finish(cmd, coup, game, deck, _records(records, coup, deck, index))
        return cmd.finish(_summary(coup, game))


def caribbean_decide(
    *, round_id: str, patron: str, box: int, action: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """``fold`` (the ante is lost) or ``raise`` (``raise_multiple`` × the ante, taken now). The last
    decision turns the dealer's cards and settles the coup."""
    if action not in ("fold", "raise"):
        raise InvalidInput("action is 'fold' or 'raise'", field="action")
    request = {"op": "caribbean_decide", "round": str(round_id), "patron": patron, "box": box, "action": action}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}", field="round")
        who = patron_get(patron)
        rules = _rules(coup.table)
        game = _replay(coup, rules)
        bet = next((b for b in coup.bets.select_related("patron") if b.position["box"] == box), None)
        if bet is None or bet.patron_id != who.pk:
            raise InvalidInput(f"{who.code} has no ante on box {box}", field="box")
        try:
            records = game.raise_(box) if action == "raise" else game.fold(box)
        except RuleError as exc:
            raise _invalid(exc) from exc
        raise_cents = rules.game.raise_cents(bet.stake_cents) if action == "raise" else 0
        if raise_cents and store.balance(who.chips_account, coup.table.currency) < raise_cents:
            raise InsufficientChips(f"{who.code} cannot cover the raise of {raise_cents} cents", field="action")
        _finish(cmd, coup, game, _coup_deck(coup), _records(records, coup, None))
        return cmd.finish(_summary(coup, game))


def _summary(coup: Round, game: cs.CaribbeanCoup) -> dict:
    return {
        "round": str(coup.id),
        "table": coup.table.code,
        "state": coup.state,
        "version": coup.version,
        "engine_state": game.state,
        "dealer_up": game.dealer_up,
        "undecided": list(game.undecided()),
        "next_card_to": game.next_draw(),
    }

"""Punto banco coups through the ledger (RULES.md §Baccarat).

Bets on player, banker or tie (limits with ``below_minimum``); the coup is dealt from the
table's 8-deck shoe (shuffled and committed, or reported by a card-reading shoe) by the
engine's third-card rule; every card is a ``CardDealt``; each bet settles as ``BetSettled``.
A winning banker bet is paid 1:1 and the commission is taken back as its own postings
(patron −c, tray +c: DESIGN.md), the fraction of a cent not paid being recorded.
With ``reshuffle_every_coup`` the shoe is closed (and revealed) after each coup.
"""

from ledger import accounts, posting_rules, store
from ledger.commands import Command, ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import Leg, NewEvent
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..models import Bet, Round, Shoe, Table
from ..rules import baccarat as bac
from ..rules.errors import RuleError
from ..selectors import round_for_update
from .outcomes import bet_resolved
from .refusals import refused
from .shoes import _close, active_shoe, draw_reported, save_after_coup


def _round(round_id) -> Round:
    coup = round_for_update(round_id)
    if coup.table.game != Table.Game.BACCARAT:
        raise InvalidInput(f"table {coup.table.code} is not a baccarat table", field="round")
    return coup


def baccarat_bet(
    *, round_id: str, patron: str, bet: str, stake_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Bet on ``player``, ``banker`` or ``tie``. Under the minimum the bet is refused or raised to
    it (table option ``below_minimum``). Returns ``{"round", "bet", "on", "patron", "stake_cents",
    "raised_from", "version"}``."""
    request = {"op": "baccarat_bet", "round": str(round_id), "patron": patron, "bet": bet, "stake": stake_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        if coup.state != Round.State.BETTING:
            raise StateConflict(f"betting is closed on coup {coup.number}", field="round")
        who = patron_get(patron)
        rules = bac.BaccaratRules.from_dict(coup.table.rules)
        try:
            on = bac.check_bet(bet)
            stake = bac.check_stake(rules, stake_cents)
        except RuleError as exc:
            raise refused(
                exc, table=coup.table.code, round_id=coup.id, patron=who.code, stake_cents=stake_cents
            ) from exc
        check_self_limit(who.code, stake, table=coup.table.code, round_id=coup.id)
        if store.balance(who.chips_account, coup.table.currency) < stake:
            raise InsufficientChips(f"{who.code} holds less than {stake} cents of chips", field="stake_cents")
        row = Bet.objects.create(round=coup, patron=who, stake_cents=stake, position={"game": "baccarat", "bet": on})
        data = {
            "bet": str(row.id),
            "round": str(coup.id),
            "table": coup.table.code,
            "patron": who.code,
            "position": row.position,
            "stake_cents": stake,
            "chips": "value",
        }
        if stake != stake_cents:
            data["raised_from_cents"] = stake_cents  # below_minimum = raise
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            events=[NewEvent("BetPlaced", data, posting_rules.bet_placed(who.chips_account, coup.table.code, stake))],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(
            {
                "round": str(coup.id),
                "bet": str(row.id),
                "on": on,
                "patron": who.code,
                "stake_cents": stake,
                "raised_from": stake_cents if stake != stake_cents else None,
                "version": coup.version,
            }
        )


def _cards_of(coup: Round) -> list[str]:
    return list(
        Event.objects.filter(stream=coup.stream, type="CardDealt")
        .order_by("version")
        .values_list("data__card", flat=True)
    )


def _settle(cmd: Command, coup: Round, shoe: Shoe, result: bac.BaccaratCoup, events: list[NewEvent]) -> None:
    table = coup.table.code
    rules = bac.BaccaratRules.from_dict(coup.table.rules)
    outcome = bac.to_data(result)
    outcome.pop("type")
    events.append(NewEvent("CoupResult", {"round": str(coup.id), "table": table, "shoe": str(shoe.id), **outcome}))
    staked = returned = 0
    for bet in coup.bets.select_related("patron"):
        on = bet.position["bet"]
        line = bac.settle_bet(on, bet.stake_cents, result, rules)
        patron = bet.patron.chips_account
        legs = posting_rules.bet_settled(
            table=table,
            patron_account=patron,
            house_account=accounts.table_tray(table),
            stake=bet.stake_cents,
            returned=line.return_cents - line.winnings_cents,
            winnings=line.winnings_cents + line.commission_cents,
        )
        if line.commission_cents:  # the banker's commission, taken back as its own postings
            legs += [Leg(patron, -line.commission_cents), Leg(accounts.table_tray(table), line.commission_cents)]
        events.append(
            NewEvent(
                "BetSettled",
                {
                    "bet": str(bet.id),
                    "round": str(coup.id),
                    "table": table,
                    "patron": bet.patron.code,
                    "position": bet.position,
                    "outcome": str(line.outcome),
                    "stake_cents": bet.stake_cents,
                    "return_cents": line.return_cents,
                    "winnings_cents": line.winnings_cents,
                    "house_cents": line.house_cents,
                    "commission_cents": line.commission_cents,
                    "unpaid_fraction_cents": str(line.unpaid_fraction),
                    "house_edge": str(bac.house_edge(on, rules)),
                    "chips": "value",
                },
                legs,
            )
        )
        getattr(bet, {"won": "win", "lost": "lose", "pushed": "push"}[str(line.outcome)])()
        bet.return_cents = line.return_cents
        bet.save()
        events.append(bet_resolved(bet, coup, bet.stake_cents))
        staked += bet.stake_cents
        returned += line.return_cents
    events.append(
        NewEvent(
            "RoundSettled",
            {
                "round": str(coup.id),
                "table": table,
                "winner": result.winner,
                "staked_cents": staked,
                "returned_cents": returned,
                "house_win_cents": staked - returned,
            },
        )
    )
    saved = cmd.append(stream=coup.stream, expected_version=coup.version, correlation_id=str(coup.id), events=events)
    coup.version = saved[-1].version
    coup.settle()
    coup.result = {"winner": result.winner, "player": list(result.player_cards), "banker": list(result.banker_cards)}
    coup.save()
    if rules.reshuffle_every_coup:  # the online practice: a fresh shoe for every coup
        shoe.save()
        _close(cmd, shoe)
    else:
        save_after_coup(cmd, shoe)


def _card_event(coup: Round, shoe: Shoe, index: int, card: str) -> NewEvent:
    return NewEvent(
        "CardDealt",
        {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id), "index": index, "card": card},
    )


def baccarat_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal the coup (bets closed): from a shuffled shoe, the whole coup at once."""
    with ledger_command(
        actor=actor, request={"op": "baccarat_deal", "round": str(round_id)}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        shoe = active_shoe(coup.table)
        if shoe is None or shoe.state != Shoe.State.IN_PLAY:
            raise StateConflict(f"no shoe in play at {coup.table.code}", field="shoe")
        if coup.state != Round.State.CLOSED_FOR_BETS:
            raise StateConflict(f"coup {coup.number} is {coup.state}: close the bets first", field="round")
        coup.deal()
        events = [NewEvent("DealingStarted", {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id)})]
        if shoe.mode == Shoe.Mode.READER:
            saved = cmd.append(stream=coup.stream, expected_version=coup.version, events=events)
            coup.version = saved[-1].version
            coup.save()
            return cmd.finish(_summary(coup, []))
        start = len(shoe.drawn)
        result = bac.deal_coup(shoe.order[start:])
        cards = shoe.order[start : start + result.cards_used]
        shoe.drawn = [*shoe.drawn, *cards]
        events += [_card_event(coup, shoe, start + i, card) for i, card in enumerate(cards)]
        _settle(cmd, coup, shoe, result, events)
        return cmd.finish(_summary(coup, cards))


def baccarat_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card-reading shoe reports the next card; the coup settles when the third-card rule says
    no more cards are needed."""
    with ledger_command(
        actor=actor,
        request={"op": "baccarat_card", "round": str(round_id), "card": card},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        shoe = active_shoe(coup.table)
        if coup.state != Round.State.DEALING or shoe is None or shoe.mode != Shoe.Mode.READER:
            raise StateConflict("no reported card is due on this coup", field="card")
        cards = _cards_of(coup)
        index = len(shoe.drawn)
        draw_reported(shoe, card)
        cards.append(card)
        events = [_card_event(coup, shoe, index, card)]
        try:
            result = bac.deal_coup(cards)
        except RuleError as exc:
            if exc.field != "cards":
                raise InvalidInput(exc.message, field="card") from exc
            result = None  # the third-card rule wants more cards
        if result is None:
            saved = cmd.append(stream=coup.stream, expected_version=coup.version, events=events)
            coup.version = saved[-1].version
            coup.save()
            shoe.save()
        else:
            _settle(cmd, coup, shoe, result, events)
        return cmd.finish(_summary(coup, cards))


def _summary(coup: Round, cards: list[str]) -> dict:
    return {
        "round": str(coup.id),
        "table": coup.table.code,
        "state": coup.state,
        "version": coup.version,
        "cards": cards,
        "result": coup.result,
    }


def shoe_history(shoe_id: str) -> dict:
    """The bead plate and big road of a shoe (RULES.md §Baccarat: B / P / T marks)."""
    winners = list(
        Event.objects.filter(type="CoupResult", data__shoe=str(shoe_id))
        .order_by("position")
        .values_list("data__winner", flat=True)
    )
    return {
        "shoe": str(shoe_id),
        "coups": len(winners),
        "bead_plate": bac.bead_plate(winners),
        "big_road": bac.big_road(winners),
    }

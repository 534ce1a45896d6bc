"""Trente-et-quarante coups through the ledger (RULES.md §Trente-et-quarante, §Prison bets).

Bets on rouge, noir, couleur, inverse (1:1; no tie bet); no bet once the first card is laid
(betting is closed before the deal). The rows come from the table's 6-deck shoe. A refait
frees every stake (it goes back to the patron, who may bet it again: that is the move); an
après (31–31) sends every free bet to prison; bets already in prison are decided first by the
same coup, through the shared prison mechanism (``games.services.prison``).
"""

from ledger import accounts, posting_rules, store
from ledger.commands import Command, ledger_command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.models import Event
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..models import Bet, Round, Shoe, Table
from ..rules import trente_quarante as tq
from ..rules.errors import RuleError
from ..rules.house_edges import settled_line_edge
from ..rules.tq_table import TrenteQuaranteTableRules
from ..selectors import round_for_update
from . import prison
from .outcomes import bet_resolved
from .refusals import refused
from .shoes import active_shoe, draw_reported, save_after_coup

STATE = {"won": "win", "lost": "lose", "refait": "give_back"}


def _round(round_id) -> Round:
    coup = round_for_update(round_id)
    if coup.table.game != Table.Game.TRENTE_QUARANTE:
        raise InvalidInput(f"table {coup.table.code} is not a trente-et-quarante table", field="round")
    return coup


def tq_bet(
    *, round_id: str, patron: str, bet: str, stake_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Bet on ``rouge``, ``noir``, ``couleur`` or ``inverse`` (a ``tie`` is refused: 400 ``bet``)."""
    request = {"op": "tq_bet", "round": str(round_id), "patron": patron, "bet": bet, "stake": stake_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        if coup.state != Round.State.BETTING:
            raise StateConflict("the first card is laid: no new or increased bet", field="round")
        who = patron_get(patron)
        rules = TrenteQuaranteTableRules.from_dict(coup.table.rules)
        try:
            on = tq.check_bet(bet)
            rules.check_stake(stake_cents)
        except RuleError as exc:
            raise refused(
                exc, table=coup.table.code, round_id=coup.id, patron=who.code, stake_cents=stake_cents
            ) from exc
        check_self_limit(who.code, stake_cents, table=coup.table.code, round_id=coup.id)
        if store.balance(who.chips_account, coup.table.currency) < stake_cents:
            raise InsufficientChips(f"{who.code} holds less than {stake_cents} cents of chips", field="stake_cents")
        row = Bet.objects.create(
            round=coup, patron=who, stake_cents=stake_cents, position={"game": "trente_quarante", "bet": on}
        )
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            events=[
                NewEvent(
                    "BetPlaced",
                    {
                        "bet": str(row.id),
                        "round": str(coup.id),
                        "table": coup.table.code,
                        "patron": who.code,
                        "position": row.position,
                        "stake_cents": stake_cents,
                        "chips": "value",
                    },
                    posting_rules.bet_placed(who.chips_account, coup.table.code, stake_cents),
                )
            ],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(
            {
                "round": str(coup.id),
                "bet": str(row.id),
                "on": on,
                "patron": who.code,
                "stake_cents": stake_cents,
                "version": coup.version,
            }
        )


def _card_event(coup: Round, shoe: Shoe, index: int, card: str) -> NewEvent:
    return NewEvent(
        "CardDealt",
        {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id), "index": index, "card": card},
    )


def _settle(cmd: Command, coup: Round, shoe: Shoe, result: tq.TQCoup, events: list[NewEvent]) -> None:
    table = coup.table
    rules = TrenteQuaranteTableRules.from_dict(table.rules)
    double_prison = rules.prison.double_prison
    outcome = tq.to_data(result)
    outcome.pop("type")
    # The dealer's call (sheet 003), recorded with the coup as he says it (issue 28).
    outcome["announcement"] = tq.announcement(result)
    events.append(NewEvent("CoupResult", {"round": str(coup.id), "table": table.code, "shoe": str(shoe.id), **outcome}))
    for bet in prison.prisoners(table):  # earlier coups' prisoners first (RULES.md §Prison bets)
        step = tq.settle_bet(
            bet.position["bet"], bet.stake_cents, result, prison_level=bet.prison_level, double_prison=double_prison
        )
        events.append(prison.resolve(bet, coup, step.outcome.value, step.prison_level_after))
        bet.save()
    staked = returned = 0
    for bet in coup.bets.select_related("patron").filter(state=Bet.State.PLACED):
        line = tq.settle_bet(bet.position["bet"], bet.stake_cents, result, double_prison=double_prison)
        if line.outcome.value == "imprisoned":  # un après: the stake goes to prison
            events.append(prison.imprison(bet, coup, line.prison_level_after))
            bet.save()
            continue
        getattr(bet, STATE[line.outcome.value])()
        bet.return_cents = line.return_cents
        bet.save()
        events.append(
            NewEvent(
                "BetSettled",
                {
                    "bet": str(bet.id),
                    "round": str(coup.id),
                    "table": table.code,
                    "patron": bet.patron.code,
                    "position": bet.position,
                    "outcome": line.outcome.value,
                    "stake_cents": bet.stake_cents,
                    "return_cents": line.return_cents,
                    "winnings_cents": line.winnings_cents,
                    "house_cents": line.house_cents,
                    "house_edge": settled_line_edge("trente_quarante", table.rules),
                    "chips": "value",
                },
                posting_rules.bet_settled(
                    table=table.code,
                    patron_account=bet.patron.chips_account,
                    house_account=accounts.table_tray(table.code),
                    stake=bet.stake_cents,
                    returned=line.return_cents - line.winnings_cents,
                    winnings=line.winnings_cents,
                ),
            )
        )
        events.append(bet_resolved(bet, coup, bet.stake_cents))
        staked += bet.stake_cents
        returned += line.return_cents
    events.append(
        NewEvent(
            "RoundSettled",
            {
                "round": str(coup.id),
                "table": table.code,
                "result": result.result,
                "staked_cents": staked,
                "returned_cents": returned,
                "house_win_cents": staked - returned,
            },
        )
    )
    saved = cmd.append(stream=coup.stream, expected_version=coup.version, correlation_id=str(coup.id), events=events)
    coup.version = saved[-1].version
    coup.settle()
    coup.result = {
        "result": result.result,
        "noir": result.noir_points,
        "rouge": result.rouge_points,
        "couleur_inverse": result.couleur_inverse,
    }
    coup.save()
    save_after_coup(cmd, shoe)


def tq_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Lay the two rows (bets closed): from a shuffled shoe, the whole coup at once."""
    with ledger_command(
        actor=actor, request={"op": "tq_deal", "round": str(round_id)}, idempotency_key=idempotency_key
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
            return cmd.finish(_summary(coup))
        start = len(shoe.drawn)
        result = tq.deal_rows(shoe.order[start:])
        cards = shoe.order[start : start + result.cards_used]
        shoe.drawn = [*shoe.drawn, *cards]
        events += [_card_event(coup, shoe, start + i, card) for i, card in enumerate(cards)]
        _settle(cmd, coup, shoe, result, events)
        return cmd.finish(_summary(coup))


def tq_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card laid; the coup settles when both rows are done."""
    with ledger_command(
        actor=actor, request={"op": "tq_card", "round": str(round_id), "card": card}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = _round(round_id)
        shoe = active_shoe(coup.table)
        if coup.state != Round.State.DEALING or shoe is None or shoe.mode != Shoe.Mode.READER:
            raise StateConflict("no reported card is due on this coup", field="card")
        cards = list(
            Event.objects.filter(stream=coup.stream, type="CardDealt")
            .order_by("version")
            .values_list("data__card", flat=True)
        )
        index = len(shoe.drawn)
        draw_reported(shoe, card)
        cards.append(card)
        events = [_card_event(coup, shoe, index, card)]
        try:
            result = tq.deal_rows(cards)
        except RuleError as exc:
            if exc.field != "cards":
                raise InvalidInput(exc.message, field="card") from exc
            result = None
        if result is None:
            saved = cmd.append(stream=coup.stream, expected_version=coup.version, events=events)
            coup.version = saved[-1].version
            coup.save()
            shoe.save()
        else:
            _settle(cmd, coup, shoe, result, events)
        return cmd.finish(_summary(coup))


def _summary(coup: Round) -> dict:
    return {
        "round": str(coup.id),
        "table": coup.table.code,
        "state": coup.state,
        "version": coup.version,
        "result": coup.result,
    }

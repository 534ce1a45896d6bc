"""Withdrawing or moving a bet while betting is open (RULES.md §Trente-et-quarante: after a
refait "stakes are free to be taken back or moved"; at every game a bet may be picked up or
moved before betting closes). Each is an event. A bet in prison stays where it is: it can be
neither withdrawn nor moved (RULES.md §Prison bets) — refused with 409.
"""

from basis.errors import LimitRefused, RuleError
from core.ids import uuid_of
from ledger import accounts, posting_rules
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.store import NewEvent
from patrons.selectors import patron_get

from ..catalog import spec
from ..models import Bet, Round
from ..rules.roulette import make_bet
from ..selectors import roulette_rules


def _bet_for_update(bet_id, patron: str) -> Bet:
    try:
        key = uuid_of(bet_id)
    except ValueError:
        raise NotFound(f"no bet {bet_id}", field="bet") from None
    bet = Bet.objects.select_for_update().select_related("round__table", "patron").filter(pk=key).first()
    if bet is None:
        raise NotFound(f"no bet {bet_id}", field="bet")
    if bet.patron.code != patron_get(patron).code:
        raise InvalidInput(f"bet {bet_id} is not {patron}'s", field="patron")
    if bet.state == Bet.State.IMPRISONED:
        raise StateConflict("a bet in prison stays on the layout: it can be neither withdrawn nor moved", field="bet")
    if bet.state != Bet.State.PLACED or bet.round.state != Round.State.BETTING:
        raise StateConflict("only a bet on a coup still open for betting can be withdrawn or moved", field="bet")
    return bet


def _keep_even_chances_company(bet: Bet) -> None:
    """English roulette's second variant (option ``even_chances = with_other_bets``, sheet 000):
    a patron's even chances keep a bet of another kind beside them, so that one is withdrawn
    after them, not before: ``StateConflict`` (409, field ``bet``) otherwise."""
    table = bet.round.table
    if not spec(table.game).layout_bets:
        return
    rules = roulette_rules(table)
    others = bet.round.bets.filter(patron=bet.patron, state=Bet.State.PLACED).exclude(pk=bet.pk)
    left = [make_bet(**position) for position in others.values_list("position", flat=True)]
    for kept in left:
        try:
            rules.check_even_chance_company(kept, others=[b for b in left if b is not kept])
        except LimitRefused:
            raise StateConflict(
                "at this table the even chances are played only beside another bet: take them back first",
                field="bet",
            ) from None


def bet_withdraw(*, bet_id: str, patron: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Take a bet back before betting closes: layout −s, patron +s (``BetWithdrawn``). Under
    English roulette's second variant the last bet beside a patron's even chances is refused
    (409) while they stay."""
    with ledger_command(
        actor=actor,
        request={"op": "bet_withdraw", "bet": str(bet_id), "patron": patron},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        bet = _bet_for_update(bet_id, patron)
        _keep_even_chances_company(bet)
        coup, table = bet.round, bet.round.table.code
        source = (
            accounts.patron_colour(bet.patron.code, table)
            if bet.chips == Bet.Chips.COLOUR
            else (bet.patron.chips_account)
        )
        bet.give_back()
        bet.return_cents = bet.stake_cents
        bet.save()
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            events=[
                NewEvent(
                    "BetWithdrawn",
                    {
                        "bet": str(bet.id),
                        "round": str(coup.id),
                        "table": table,
                        "patron": bet.patron.code,
                        "stake_cents": bet.stake_cents,
                    },
                    posting_rules.bet_settled(
                        table=table,
                        patron_account=source,
                        house_account=accounts.table_tray(table),
                        stake=bet.stake_cents,
                        returned=bet.stake_cents,
                        winnings=0,
                    ),
                )
            ],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish({"bet": str(bet.id), "state": bet.state, "returned_cents": bet.stake_cents})


def bet_move(*, bet_id: str, patron: str, to: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Move a bet to another chance before betting closes (baccarat, trente-et-quarante): ``BetMoved``."""
    with ledger_command(
        actor=actor,
        request={"op": "bet_move", "bet": str(bet_id), "patron": patron, "to": to},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        bet = _bet_for_update(bet_id, patron)
        coup = bet.round
        check = spec(coup.table.game).move_bet
        if check is None:
            raise InvalidInput("at this game a bet is withdrawn and placed again, not moved", field="to")
        try:
            target = check(to)
        except RuleError as exc:
            raise InvalidInput(exc.message, field="to") from exc
        before = bet.position["bet"]
        bet.position = {**bet.position, "bet": target}
        bet.save()
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version,
            correlation_id=str(coup.id),
            events=[
                NewEvent(
                    "BetMoved",
                    {
                        "bet": str(bet.id),
                        "round": str(coup.id),
                        "table": coup.table.code,
                        "patron": bet.patron.code,
                        "from": before,
                        "to": target,
                        "position": bet.position,
                    },
                )
            ],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish({"bet": str(bet.id), "position": bet.position})

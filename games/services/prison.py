"""Prison bets, one mechanism for French roulette (``zero_rule = en_prison``) and
trente-et-quarante (un après): RULES.md §Prison bets.

An imprisoned stake leaves the layout for ``table:<T>:prison`` (layout −s, prison +s) and
stays with the table: it cannot be withdrawn or moved. The next coup of the table resolves it
with the game's own engine (``prison_level`` in, a released / lost / still-imprisoned step
out): released, prison −s, patron +s (the stake, no winnings); lost, prison −s, house +s;
still in prison, no posting (a level change is recorded). A table closes only through
``prison_on_close``: ``half_returned`` (the patron gets ⌊s/2⌋, the house the rest) or
``returned``.
"""

from collections.abc import Callable

from ledger import accounts
from ledger.store import Leg, NewEvent

from ..models import Bet, Round, Table
from ..rules.prison import PrisonOnClose


def _patron_account(bet: Bet, table: str) -> str:
    colour = bet.chips == Bet.Chips.COLOUR
    return accounts.patron_colour(bet.patron.code, table) if colour else bet.patron.chips_account


def _house_account(bet: Bet, table: str) -> str:
    colour = bet.chips == Bet.Chips.COLOUR
    return accounts.table_colour_issued(table) if colour else accounts.table_tray(table)


def imprison(bet: Bet, coup: Round, level: int = 1) -> NewEvent:
    """Move a free bet's stake from the layout to the prison (state ``imprisoned``)."""
    table = coup.table.code
    bet.imprison()
    bet.prison_level = level
    bet.return_cents = 0
    return NewEvent(
        "BetImprisoned",
        {
            "bet": str(bet.id),
            "round": str(coup.id),
            "table": table,
            "patron": bet.patron.code,
            "stake_cents": bet.stake_cents,
            "level": level,
        },
        [Leg(accounts.table_layout(table), -bet.stake_cents), Leg(accounts.table_prison(table), bet.stake_cents)],
    )


def prisoners(table: Table) -> list[Bet]:
    return list(
        Bet.objects.select_for_update()
        .select_related("patron")
        .in_prison()
        .filter(round__table=table)
        .order_by("placed_at")
    )


def resolve(bet: Bet, coup: Round, outcome: str, level_after: int) -> NewEvent:
    """Apply a prison step the game's engine computed: ``released`` / ``lost`` / ``imprisoned``."""
    table = coup.table.code
    data = {
        "bet": str(bet.id),
        "round": str(coup.id),
        "table": table,
        "patron": bet.patron.code,
        "stake_cents": bet.stake_cents,
        "level_before": bet.prison_level,
        "level": level_after,
    }
    prison = accounts.table_prison(table)
    if outcome == "released":
        bet.release()
        bet.prison_level, bet.return_cents = 0, bet.stake_cents
        legs = [Leg(prison, -bet.stake_cents), Leg(_patron_account(bet, table), bet.stake_cents)]
        return NewEvent("BetReleased", {**data, "return_cents": bet.stake_cents}, legs)
    if outcome == "lost":
        bet.lose_in_prison()
        bet.prison_level, bet.return_cents = 0, 0
        legs = [Leg(prison, -bet.stake_cents), Leg(_house_account(bet, table), bet.stake_cents)]
        return NewEvent("BetLostInPrison", {**data, "return_cents": 0}, legs)
    bet.prison_level = level_after
    return NewEvent("BetStaysInPrison", data)


def close_prison(table: Table, rule: PrisonOnClose) -> list[NewEvent]:
    """Resolve every bet still in prison as the table closes (table option ``prison_on_close``)."""
    events = []
    for bet in prisoners(table):
        returned = bet.stake_cents if rule == PrisonOnClose.RETURNED else bet.stake_cents // 2
        house = bet.stake_cents - returned
        bet.release()
        bet.prison_level, bet.return_cents = 0, returned
        legs = [Leg(accounts.table_prison(table.code), -bet.stake_cents)]
        legs += [Leg(_patron_account(bet, table.code), returned)] if returned else []
        legs += [Leg(_house_account(bet, table.code), house)] if house else []
        events.append(
            NewEvent(
                "BetReleasedOnClose",
                {
                    "bet": str(bet.id),
                    "table": table.code,
                    "patron": bet.patron.code,
                    "stake_cents": bet.stake_cents,
                    "return_cents": returned,
                    "prison_on_close": str(rule),
                },
                legs,
            )
        )
        bet.save()
    return events


ResolveFn = Callable[[Bet], tuple[str, int]]

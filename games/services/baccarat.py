"""Punto banco coups through the ledger (RULES.md §Baccarat).

Bets on player, banker or tie (limits with ``below_minimum``); the coup is dealt from the
table's 8-deck shoe (shuffled and committed, or reported by a card-reading shoe) by the
engine's third-card rule; every card is a ``CardDealt``; each bet settles as ``BetSettled``.
A winning banker bet is paid 1:1 and the commission is taken back as its own postings
(patron −c, tray +c: DESIGN.md), the fraction of a cent not paid being recorded.
With ``reshuffle_every_coup`` the shoe is closed (and revealed) after each coup.
"""

from core.ids import uuid_of
from ledger import accounts
from ledger.commands import Command
from ledger.errors import NotFound
from ledger.models import Event
from ledger.store import Leg, NewEvent
from patrons.selectors import patron_get

from ..catalog import spec
from ..catalog.baccarat import SPEC
from ..models import Round, Shoe
from ..rules import baccarat as bac
from . import card_table as ct
from .bet_keys import bet_key
from .shoes import close_shoe, save_after_coup

GAME = SPEC.code  # the game this module deals (games.catalog)


def baccarat_bet(
    *, round_id: str, patron: str, bet: str, stake_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Bet on ``player``, ``banker`` or ``tie``. Under the minimum the bet is refused or raised to
    it (table option ``below_minimum``); a stake the table's chips cannot make is refused (kind
    ``chip_increment``) or lowered to what they make (``off_chips = adjust``). Returns
    ``{"round", "bet", "on", "patron", "stake_cents", "raised_from", "adjusted_from_cents"?,
    "version"}``."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.betting_open(coup, patron=patron, stake_cents=stake_cents)
        who = patron_get(patron)
        rules = bac.BaccaratRules.from_dict(coup.table.rules)
        on, stake = ct.within_limits(
            coup, who, stake_cents, lambda: (bac.check_bet(bet), bac.check_stake(rules, stake_cents))
        )
        ct.covered(coup, who, stake)
        # below_minimum = raise takes more than asked; off_chips = adjust less (the chips make it)
        raised = {"raised_from_cents": stake_cents} if stake > stake_cents else ct.adjusted(stake_cents, stake)
        row = ct.place_bet(cmd, coup, who, stake, {"game": "baccarat", "bet": on}, **raised)
        raised_from = stake_cents if stake > stake_cents else None
        return ct.bet_summary(
            coup, row, {"on": on}, stake_cents=stake, raised_from=raised_from, **ct.adjusted(stake_cents, stake)
        )

    request = {"round": str(round_id), "patron": patron, "bet": bet, "stake": stake_cents}
    key = bet_key(round_id, idempotency_key)
    return ct.card_command("baccarat_bet", run, actor=actor, idempotency_key=key, **request)


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
        patron = bet.patron.code
        legs = ct.line_postings(
            coup,
            patron,
            stake=bet.stake_cents,
            returned=line.return_cents - line.winnings_cents,
            winnings=line.winnings_cents + line.commission_cents,
        )
        if line.commission_cents:  # the banker's commission, taken back as its own postings
            tray = accounts.table_tray(table)
            legs += [Leg(accounts.patron_chips(patron), -line.commission_cents), Leg(tray, line.commission_cents)]
        figures = ct.line_figures(
            line,
            commission_cents=line.commission_cents,
            unpaid_fraction_cents=str(line.unpaid_fraction),
            house_edge=str(bac.house_edge(on, rules)),
        )
        events.append(ct.settlement_line(coup, bet, patron, figures, legs))
        events.append(ct.resolve(bet, coup, bet.stake_cents, line.return_cents, str(line.outcome)))
        staked += bet.stake_cents
        returned += line.return_cents
    events.append(ct.round_settled(coup, staked, returned, winner=result.winner))
    cards = {"player": list(result.player_cards), "banker": list(result.banker_cards)}
    ct.close_coup(cmd, coup, events, {"winner": result.winner, **cards})
    if rules.reshuffle_every_coup:  # the online practice: a fresh shoe for every coup
        shoe.save()
        close_shoe(cmd, shoe)
    else:
        save_after_coup(cmd, shoe)


def baccarat_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal the coup (bets closed): from a shuffled shoe, the whole coup at once."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        cards = ct.deal_whole_coup(cmd, coup, bac.deal_coup, _settle)
        return ct.coup_summary(coup, cards=cards, result=coup.result)

    return ct.card_command("baccarat_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def baccarat_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card-reading shoe reports the next card; the coup settles when the third-card rule says
    no more cards are needed."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        cards = ct.report_to_whole_coup(cmd, coup, card, bac.deal_coup, _settle)
        return ct.coup_summary(coup, cards=cards, result=coup.result)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("baccarat_card", run, actor=actor, idempotency_key=idempotency_key, **request)


def shoe_history(shoe_id: str) -> dict:
    """The bead plate and big road of a punto banco shoe (RULES.md §Baccarat; sheet 002: B
    banker, J joueur, - tie): ``{"shoe", "coups", "bead_plate", "big_road"}``. Raises
    ``NotFound`` (404) for no such shoe, or a shoe of another game (these roads are punto
    banco's: trente-et-quarante's coups have no winner of player or banker)."""
    try:
        shoe = Shoe.objects.select_related("table").filter(pk=uuid_of(shoe_id)).first()
    except ValueError:
        shoe = None
    if shoe is None:
        raise NotFound(f"no shoe {shoe_id}")
    if shoe.table.game != SPEC.code:
        raise NotFound(
            f"shoe {shoe_id} is a shoe of table {shoe.table.code} ({spec(shoe.table.game).name}): "
            "the bead plate and big road are punto banco's"
        )
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


SPEC.provide(deal=baccarat_deal, report_card=baccarat_report_card, batch_bet=baccarat_bet)

"""Trente-et-quarante coups through the ledger (RULES.md §Trente-et-quarante, §Prison bets).

Bets on rouge, noir, couleur, inverse (1:1; no tie bet); no bet once the first card is laid
(betting is closed before the deal). The rows come from the table's 6-deck shoe. A refait
frees every stake (it goes back to the patron, who may bet it again: that is the move); an
après (31–31) sends every free bet to prison; bets already in prison are decided first by the
same coup, through the shared prison mechanism (``games.services.prison``).
"""

from ledger.commands import Command
from ledger.store import NewEvent
from patrons.selectors import patron_get

from ..catalog.trente_quarante import SPEC
from ..models import Bet, Round, Shoe
from ..rules import trente_quarante as tq
from ..rules.house_edges import tq_line_edge
from ..rules.tq_table import TrenteQuaranteTableRules
from . import card_table as ct
from . import prison
from .bet_keys import bet_key
from .shoes import save_after_coup

GAME = SPEC.code  # the game this module deals (games.catalog)


def tq_bet(
    *, round_id: str, patron: str, bet: str, stake_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Bet on ``rouge``, ``noir``, ``couleur`` or ``inverse`` (a ``tie`` is refused: 400 ``bet``)."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.betting_open(coup, "the first card is laid: no new or increased bet", patron=patron, stake_cents=stake_cents)
        who = patron_get(patron)
        rules = TrenteQuaranteTableRules.from_dict(coup.table.rules)
        on = ct.engine_step(lambda: tq.check_bet(bet))
        stake = ct.in_chip_increments(coup, who, stake_cents, rules.chips, rules.check_stake)
        ct.covered(coup, who, stake)
        lowered = ct.adjusted(stake_cents, stake)
        row = ct.place_bet(cmd, coup, who, stake, {"game": "trente_quarante", "bet": on}, **lowered)
        return ct.bet_summary(coup, row, {"on": on}, stake_cents=stake, **lowered)

    request = {"round": str(round_id), "patron": patron, "bet": bet, "stake": stake_cents}
    key = bet_key(round_id, idempotency_key)
    return ct.card_command("tq_bet", run, actor=actor, idempotency_key=key, **request)


def _settle(cmd: Command, coup: Round, shoe: Shoe, result: tq.TQCoup, events: list[NewEvent]) -> None:
    table = coup.table
    double_prison = TrenteQuaranteTableRules.from_dict(table.rules).prison.double_prison
    outcome = tq.to_data(result)
    outcome.pop("type")
    # The dealer's call (sheet 003), recorded with the coup as he says it.
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
        events.append(
            ct.settlement_line(
                coup,
                bet,
                bet.patron.code,
                ct.line_figures(line, house_edge=tq_line_edge(table.rules)),
            )
        )
        events.append(ct.resolve(bet, coup, bet.stake_cents, line.return_cents, line.outcome.value))
        staked += bet.stake_cents
        returned += line.return_cents
    events.append(ct.round_settled(coup, staked, returned, result=result.result))
    points = {"noir": result.noir_points, "rouge": result.rouge_points}
    ct.close_coup(cmd, coup, events, {"result": result.result, **points, "couleur_inverse": result.couleur_inverse})
    save_after_coup(cmd, shoe)


def tq_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Lay the two rows (bets closed): from a shuffled shoe, the whole coup at once."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.deal_whole_coup(cmd, coup, tq.deal_rows, _settle)
        return ct.coup_summary(coup, result=coup.result)

    return ct.card_command("tq_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def tq_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card laid; the coup settles when both rows are done."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.report_to_whole_coup(cmd, coup, card, tq.deal_rows, _settle)
        return ct.coup_summary(coup, result=coup.result)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("tq_card", run, actor=actor, idempotency_key=idempotency_key, **request)


SPEC.provide(deal=tq_deal, report_card=tq_report_card, batch_bet=tq_bet)

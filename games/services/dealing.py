"""One entry point per dealing step whatever the card game: the dealer's terminal and the
card-reading shoe call these, and they hand over to the table's game."""

from core.ids import uuid_of
from ledger.errors import InvalidInput

from ..models import Round, Table
from .baccarat import baccarat_deal, baccarat_report_card
from .blackjack import blackjack_deal, blackjack_report_card
from .caribbean import caribbean_deal, caribbean_report_card
from .classic_stud import classic_stud_deal, classic_stud_report_card
from .trente_quarante import tq_deal, tq_report_card

DEAL = {
    Table.Game.BLACKJACK: blackjack_deal,
    Table.Game.CARIBBEAN_STUD: caribbean_deal,
    Table.Game.BACCARAT: baccarat_deal,
    Table.Game.CLASSIC_STUD: classic_stud_deal,
    Table.Game.TRENTE_QUARANTE: tq_deal,
}
REPORT_CARD = {
    Table.Game.BLACKJACK: blackjack_report_card,
    Table.Game.CARIBBEAN_STUD: caribbean_report_card,
    Table.Game.BACCARAT: baccarat_report_card,
    Table.Game.CLASSIC_STUD: classic_stud_report_card,
    Table.Game.TRENTE_QUARANTE: tq_report_card,
}


def _game(round_id) -> str:
    try:
        key = uuid_of(round_id)
    except ValueError:  # a malformed id names no coup (400 below), not a server error
        return ""
    return Round.objects.filter(pk=key).values_list("table__game", flat=True).first() or ""


def deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal a card game's coup whose bets are closed (black jack, Caribbean stud)."""
    service = DEAL.get(_game(round_id))
    if service is None:
        raise InvalidInput("this coup is not dealt from cards here", field="round")
    return service(round_id=round_id, actor=actor, idempotency_key=idempotency_key)


def report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card reported by the table's card-reading shoe or dealer terminal."""
    service = REPORT_CARD.get(_game(round_id))
    if service is None:
        raise InvalidInput("this coup takes no reported card", field="round")
    return service(round_id=round_id, card=card, actor=actor, idempotency_key=idempotency_key)

"""One entry point per dealing step whatever the card game: the dealer's terminal and the
card-reading shoe call these, and they hand over to the table's game."""

from core.ids import uuid_of
from ledger.errors import InvalidInput

from ..catalog import UnknownGame, spec
from ..models import Round


def _service(round_id, name: str):
    """The dealing service ``name`` of the coup's game (``GameSpec.service``), or None."""
    try:
        return spec(_game(round_id)).service(name)
    except UnknownGame:  # no such coup: refused below as a coup not dealt here
        return None


def _game(round_id) -> str:
    try:
        key = uuid_of(round_id)
    except ValueError:  # a malformed id names no coup (400 below), not a server error
        return ""
    return Round.objects.filter(pk=key).values_list("table__game", flat=True).first() or ""


def deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal a card game's coup whose bets are closed, by its game's ``deal`` service (``games.catalog``)."""
    service = _service(round_id, "deal")
    if service is None:
        raise InvalidInput("this coup is not dealt from cards here", field="round")
    return service(round_id=round_id, actor=actor, idempotency_key=idempotency_key)


def report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card reported by the table's card-reading shoe or dealer terminal."""
    service = _service(round_id, "report_card")
    if service is None:
        raise InvalidInput("this coup takes no reported card", field="round")
    return service(round_id=round_id, card=card, actor=actor, idempotency_key=idempotency_key)

"""High card's coups through the ledger, built of the card tables' common mechanism
(``games.services.card_table``): a bet on ``player`` or ``house`` (patron −s, layout +s); the
deal from a fresh one-deck shoe, shuffled, or reported card by card by the dealer's terminal;
each bet settled as a ``BetSettled`` with DESIGN.md's postings and a ``BetResolved``."""

from games.models import Round, Shoe
from games.services import card_table as ct
from games.services.bet_keys import bet_key
from games.services.shoes import close_shoe
from ledger.commands import Command
from ledger.store import NewEvent
from patrons.selectors import patron_get

from . import rules as hc
from .spec import SPEC

GAME = SPEC.code


def high_card_bet(
    *, round_id: str, patron: str, bet: str, stake_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Bet ``stake_cents`` on ``player`` or ``house``. Returns ``{"round", "bet", "on", "patron",
    "stake_cents", "version"}``; a stake off the table's limits is a recorded ``BetRefused``."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.betting_open(coup, patron=patron, stake_cents=stake_cents)
        who = patron_get(patron)
        rules = hc.HighCardRules.from_dict(coup.table.rules)
        on = ct.within_limits(coup, who, stake_cents, lambda: rules.check_bet(bet, stake_cents))
        ct.covered(coup, who, stake_cents)
        row = ct.place_bet(cmd, coup, who, stake_cents, {"game": GAME, "bet": on})
        return ct.bet_summary(coup, row, {"on": on}, stake_cents=stake_cents)

    request = {"round": str(round_id), "patron": patron, "bet": bet, "stake": stake_cents}
    return ct.card_command(
        "high_card_bet", run, actor=actor, idempotency_key=bet_key(round_id, idempotency_key), **request
    )


def _coup_deck(coup: Round) -> Shoe | None:
    started = ct.coup_events(coup, ["DealingStarted"])
    return Shoe.objects.filter(pk=started[-1][1]["shoe"]).first() if started else None


def _to(coup: Round, deck: Shoe, cards: list[str]):
    """``deal(card, index)``: the next card to the player, then to the house."""

    def deal(card: str, index: int) -> list[NewEvent]:
        cards.append(card)
        return [ct.card_dealt(coup, deck, index, card, to=hc.SIDES[len(cards) - 1])]

    return deal


def _settle(coup: Round, player_card: str, house_card: str) -> list[NewEvent]:
    events, staked, returned = [], 0, 0
    for bet in coup.bets.select_related("patron").order_by("placed_at"):
        line = hc.settle(bet.position["bet"], bet.stake_cents, player_card, house_card)
        figures = ct.line_figures(line, house_edge=str(hc.EDGE))
        events.append(ct.settlement_line(coup, bet, bet.patron.code, figures))
        events.append(ct.resolve(bet, coup, bet.stake_cents, line.return_cents))
        staked += line.stake_cents
        returned += line.return_cents
    events.append(ct.round_settled(coup, staked, returned, winner=hc.winner(player_card, house_card)))
    return events


def _finish(cmd: Command, coup: Round, deck: Shoe, cards: list[str], events: list[NewEvent]) -> None:
    settled = len(cards) == 2
    if settled:
        events += _settle(coup, *cards)
    ct.close_coup(cmd, coup, events, {"player": cards[0], "house": cards[1]} if settled else None)
    ct.deck_done(cmd, deck, settled)


def high_card_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal the coup (bets closed) from a fresh deck: shuffled, both cards and the settlement
    at once; reported, the terminal then reports each card (``high_card_report_card``)."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        ct.bets_closed(coup)
        shuffled = hc.HighCardRules.from_dict(coup.table.rules).card_source == "shuffled"
        deck = ct.deck_for_coup(cmd, coup, shuffled=shuffled, cut_position=ct.DECK_CARDS if shuffled else 0)
        cards: list[str] = []
        events = ct.dealing_started(coup, deck)
        events += ct.deal_from_order(deck, lambda: len(cards) < 2, _to(coup, deck, cards))
        _finish(cmd, coup, deck, cards, events)
        return ct.coup_summary(coup, cards=cards, result=coup.result)

    return ct.card_command("high_card_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def high_card_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card: the player's, then the house's, which settles the coup."""

    def run(cmd: Command) -> dict:
        coup = ct.coup_for_update(round_id, GAME)
        deck = ct.reader_due(coup, _coup_deck(coup))
        cards = [data["card"] for _, data in ct.coup_events(coup, ["CardDealt"])]
        events = ct.reported(deck, card, len(cards) < 2, "both cards are dealt", _to(coup, deck, cards))
        _finish(cmd, coup, deck, cards, events)
        return ct.coup_summary(coup, cards=cards, result=coup.result)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("high_card_card", run, actor=actor, idempotency_key=idempotency_key, **request)


def void_deck(cmd: Command, coup: Round) -> None:
    """A voided coup's deck, once dealing started, is closed and revealed as a settled one's is."""
    deck = _coup_deck(coup)
    if deck is not None and deck.state == Shoe.State.IN_PLAY:
        close_shoe(cmd, deck, reason="coup voided", round=str(coup.id))


SPEC.provide(deal=high_card_deal, report_card=high_card_report_card, batch_bet=high_card_bet, after_void=void_deck)

"""Caribbean stud coups through the ledger (RULES.md §Caribbean-style stud).

Each coup is dealt from a fresh 52-card deck (a one-deck ``Shoe``): shuffled by the backend
with its order committed and revealed when the coup ends, or reported card by card by the
dealer's terminal, which then cannot report a card twice. Postings (DESIGN.md): ante and
raise patron −s, layout +s; each settled line (ante, raise) layout → patron / tray.
The coup is rebuilt from the round's events for every command, like black jack.
"""

from ledger.commands import Command
from ledger.errors import InsufficientChips, InvalidInput, StateConflict
from ledger.store import NewEvent
from patrons.selectors import patron_get

from ..models import Round, Shoe, Table
from ..rules import caribbean_stud as cs
from ..rules.house_edges import settled_line_edge
from ..rules.stud_table import CaribbeanTableRules
from . import card_table as ct


def _coup(round_id) -> Round:
    return ct.coup_for_update(round_id, Table.Game.CARIBBEAN_STUD)


def _rules(table: Table) -> CaribbeanTableRules:
    return CaribbeanTableRules.from_dict(table.rules)


def caribbean_ante(
    *, round_id: str, patron: str, box: int, ante_cents: int, actor: str, idempotency_key: str | None = None
) -> dict:
    """Post ``patron``'s ante on ``box`` (1–7, one player a box). The raise will be
    ``raise_multiple`` × the ante, so he must hold both. Returns ``{"round", "bet", "box",
    "patron", "ante_cents", "version"}``."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        ct.betting_open(coup)
        who = patron_get(patron)
        rules = _rules(coup.table)
        check = lambda ante: _check_ante(coup, who.code, box, ante, rules)  # noqa: E731
        ante = ct.in_chip_increments(coup, who, ante_cents, rules.chips, check, field="ante_cents")
        needed = ante + rules.game.raise_cents(ante)
        refusal = f"{who.code} needs {needed} cents to cover the ante and a raise"
        ct.covered(coup, who, ante, needed_cents=needed, refusal=refusal, field="ante_cents")
        lowered = ct.adjusted(ante_cents, ante)
        bet = ct.place_bet(cmd, coup, who, ante, {"game": "caribbean_stud", "box": box}, box=box, **lowered)
        return ct.bet_summary(coup, bet, {"box": box}, ante_cents=ante, **lowered)

    request = {"round": str(round_id), "patron": patron, "box": box, "ante": ante_cents}
    return ct.card_command("caribbean_ante", run, actor=actor, idempotency_key=idempotency_key, **request)


def _check_ante(coup: Round, player: str, box: int, ante_cents: int, rules: CaribbeanTableRules) -> None:
    cs.CaribbeanAnte(box=box, player=player, ante_cents=ante_cents)
    # A taken box refuses the ante whatever its size: checked before the table's limits, so it
    # is not recorded as a refusal over a limit (the floor counts those).
    if any(b.position["box"] == box for b in coup.bets.all()):
        raise InvalidInput(f"box {box} already has an ante", field="box")
    rules.game.check_ante(ante_cents)


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
    for event_type, data in ct.coup_events(coup, ["CardDealt", "BoxDecided"]):
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
            events.append(ct.card_dealt(coup, deck, index, record.card, box=record.box, face=record.face))
        elif isinstance(record, cs.DealerShows):
            events.append(NewEvent("DealerShows", {**data, "card": record.card}))
        elif isinstance(record, cs.BoxDecided):
            data.update(box=record.box, patron=record.player, action=record.action, raise_cents=record.raise_cents)
            events.append(NewEvent("BoxDecided", data, ct.stake_added(coup, record.player, record.raise_cents)))
        elif isinstance(record, cs.DealerRevealed):
            data.update(cards=list(record.cards), category=record.category, qualifies=record.qualifies)
            events.append(NewEvent("DealerRevealed", data))
    return events


def _settle(coup: Round, game: cs.CaribbeanCoup, dealer: list[str]) -> list[NewEvent]:
    bets = {b.position["box"]: b for b in coup.bets.select_related("patron")}
    events, staked_total, returned_total = [], 0, 0
    for box in game.settle():
        bet = bets[box.box]
        staked = returned = 0
        for line in box.result.lines:
            staked += line.stake_cents
            returned += line.return_cents
            figures = ct.line_figures(
                line,
                box=box.box,
                line=line.bet,
                hand=box.result.player_category,
                dealer_qualifies=box.result.dealer_qualifies,
                capped_cents=line.capped_cents,
                unpaid_fraction_cents=str(line.unpaid_fraction),
                house_edge=settled_line_edge("caribbean_stud", coup.table.rules, line.bet),
            )
            events.append(ct.settlement_line(coup, bet, box.player, figures))
        events.append(ct.resolve(bet, coup, staked, returned))
        staked_total += staked
        returned_total += returned
    events.append(ct.round_settled(coup, staked_total, returned_total, bets=len(bets), dealer=dealer))
    return events


def _finish(cmd: Command, coup: Round, game: cs.CaribbeanCoup, deck: Shoe, events: list[NewEvent]) -> None:
    dealer = next((e.data["cards"] for e in events if e.type == "DealerRevealed"), [])
    settled = game.state == "settled"
    if settled:
        events += _settle(coup, game, dealer)
    ct.close_coup(cmd, coup, events, {"dealer": dealer} if settled else None)
    ct.deck_done(cmd, deck, settled)  # the coup's deck is spent: its order is revealed


def caribbean_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Deal the coup from a fresh deck (bets closed). Shuffled: all 5 cards each and the dealer's,
    his last card shown; reported: then the terminal reports each card (``caribbean_report_card``)."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        ct.bets_closed(coup)
        rules = _rules(coup.table)
        game = _replay(coup, rules)
        shuffled = rules.card_source == "shuffled"
        cut = ct.DECK_CARDS if shuffled else 0  # the terminal's reported deck has no cut card
        deck = ct.deck_for_coup(cmd, coup, shuffled=shuffled, cut_position=cut)
        events = ct.dealing_started(coup, deck)
        events += ct.deal_from_order(
            deck, lambda: game.next_draw() is not None, lambda card, index: _records(game.deal(card), coup, deck, index)
        )
        _finish(cmd, coup, game, deck, events)
        return _summary(coup, game)

    return ct.card_command("caribbean_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def caribbean_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card; one already dealt from this deck is refused."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        deck = ct.reader_due(coup, _coup_deck(coup))
        game = _replay(coup, _rules(coup.table))
        events = ct.reported(
            deck,
            card,
            game.next_draw() is not None,
            "every card is out: the players decide",
            lambda card, index: _records(ct.engine_step(lambda: game.deal(card)), coup, deck, index),
        )
        _finish(cmd, coup, game, deck, events)
        return _summary(coup, game)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("caribbean_card", run, actor=actor, idempotency_key=idempotency_key, **request)


def caribbean_decide(
    *, round_id: str, patron: str, box: int, action: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """``fold`` (the ante is lost) or ``raise`` (``raise_multiple`` × the ante, taken now). The last
    decision turns the dealer's cards and settles the coup."""
    if action not in ("fold", "raise"):
        raise InvalidInput("action is 'fold' or 'raise'", field="action")

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}", field="round")
        who = patron_get(patron)
        rules = _rules(coup.table)
        game = _replay(coup, rules)
        bet = next((b for b in coup.bets.select_related("patron") if b.position["box"] == box), None)
        if bet is None or bet.patron_id != who.pk:
            raise InvalidInput(f"{who.code} has no ante on box {box}", field="box")
        records = ct.engine_step(lambda: game.raise_(box) if action == "raise" else game.fold(box))
        raise_cents = rules.game.raise_cents(bet.stake_cents) if action == "raise" else 0
        if raise_cents and ct.chips_held(coup, who.code) < raise_cents:
            raise InsufficientChips(f"{who.code} cannot cover the raise of {raise_cents} cents", field="action")
        _finish(cmd, coup, game, _coup_deck(coup), _records(records, coup, None))
        return _summary(coup, game)

    request = {"round": str(round_id), "patron": patron, "box": box, "action": action}
    return ct.card_command("caribbean_decide", run, actor=actor, idempotency_key=idempotency_key, **request)


def _summary(coup: Round, game: cs.CaribbeanCoup) -> dict:
    return ct.coup_summary(
        coup,
        engine_state=game.state,
        dealer_up=game.dealer_up,
        undecided=list(game.undecided()),
        next_card_to=game.next_draw(),
    )

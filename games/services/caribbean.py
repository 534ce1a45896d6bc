"""Caribbean stud coups through the ledger (RULES.md §Caribbean-style stud).

Each coup is dealt from a fresh 52-card deck (a one-deck ``Shoe``): shuffled by the backend
with its order committed and revealed when the coup ends, or reported card by card by the
dealer's terminal, which then cannot report a card twice. Postings (DESIGN.md): ante and
raise patron −s, layout +s; each settled line (ante, raise) layout → patron / tray.
The coup is rebuilt from the round's events for every command, like black jack.
"""

from basis.errors import RuleError
from basis.money import format_cents
from ledger.commands import Command
from ledger.errors import ChipsRefused, InvalidInput, StateConflict
from ledger.store import NewEvent
from patrons.selectors import patron_get

from ..catalog.caribbean_stud import SPEC
from ..models import Round, Shoe, Table
from ..rules import caribbean_stud as cs
from ..rules.house_edges import caribbean_line_edge
from ..rules.stud_table import CaribbeanTableRules
from . import card_table as ct
from .bet_keys import bet_key
from .blackjack_layout import on_layout_cents
from .shoes import close_shoe, draw_reported

GAME = SPEC.code  # the game this module deals (games.catalog)


def _coup(round_id) -> Round:
    return ct.coup_for_update(round_id, GAME)


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
        ct.betting_open(coup, patron=patron, stake_cents=ante_cents)
        who = patron_get(patron)
        rules = _rules(coup.table)
        check = lambda ante: _check_ante(coup, who.code, box, ante, rules)  # noqa: E731
        ante = ct.in_chip_increments(coup, who, ante_cents, rules.chips, check, field="ante_cents")
        needed = ante + rules.game.raise_cents(ante)
        refusal = f"{who.code} needs {format_cents(needed, coup.table.currency)} to cover the ante and a raise"
        ct.covered(coup, who, ante, needed_cents=needed, refusal=refusal, field="ante_cents")
        lowered = ct.adjusted(ante_cents, ante)
        bet = ct.place_bet(cmd, coup, who, ante, {"game": "caribbean_stud", "box": box}, box=box, **lowered)
        return ct.bet_summary(coup, bet, {"box": box}, ante_cents=ante, **lowered)

    request = {"round": str(round_id), "patron": patron, "box": box, "ante": ante_cents}
    key = bet_key(round_id, idempotency_key)
    return ct.card_command("caribbean_ante", run, actor=actor, idempotency_key=key, **request)


def _check_ante(coup: Round, player: str, box: int, ante_cents: int, rules: CaribbeanTableRules) -> None:
    cs.CaribbeanAnte(box=box, player=player, ante_cents=ante_cents)
    # A taken box refuses the ante whatever its size: checked before the table's limits, so it
    # is not recorded as a refusal over a limit (the floor counts those).
    if any(b.position["box"] == box for b in coup.bets.all()):
        raise InvalidInput(f"box {box} already has an ante", field="box")
    rules.game.check_ante(ante_cents)


def _coup_deck(coup: Round) -> Shoe | None:
    """The deck this coup is dealt from (its ``DealingStarted`` names it), once dealing started;
    not any deck in play at the table (each coup has its own; ``void_decks`` closes a voided one's)."""
    started = ct.coup_events(coup, ["DealingStarted"])
    return Shoe.objects.filter(pk=started[-1][1]["shoe"]).first() if started else None


def _changed_deck(coup: Round) -> Shoe | None:
    """The deck the coup's last ``DeckChanged`` made for it, while it is still unused."""
    changes = ct.coup_events(coup, ["DeckChanged"])
    if not changes:
        return None
    return Shoe.objects.filter(pk=changes[-1][1]["shoe"], state=Shoe.State.IN_PLAY, drawn=[]).first()


def void_decks(cmd: Command, coup: Round) -> list[str]:
    """Take a voided coup's decks out of play: the one it was being dealt from and one a deck
    change made for it, each closed and revealed (``ShoeClosed``, ``reason`` "coup voided",
    with the ``round``) as a settled coup's deck is, so the next coup has a fresh deck and the
    voided deck's commitment can be checked. Returns the ids of the decks closed."""
    named = [data["shoe"] for _, data in ct.coup_events(coup, ["DealingStarted", "DeckChanged"])]
    decks = {str(d.id): d for d in Shoe.objects.select_for_update().filter(pk__in=named, state=Shoe.State.IN_PLAY)}
    closed = []
    for key in dict.fromkeys(named):  # in the order the coup named them, each once
        if key in decks:
            close_shoe(cmd, decks[key], reason="coup voided", round=str(coup.id))
            closed.append(key)
    return closed


def _replay(coup: Round, rules: CaribbeanTableRules) -> cs.CaribbeanCoup:
    antes = [
        cs.CaribbeanAnte(box=b.position["box"], player=b.patron.code, ante_cents=b.stake_cents)
        for b in coup.bets.select_related("patron").order_by("placed_at")
    ]
    if not antes:
        raise StateConflict("no ante on this coup: void it instead", field="round")
    game = cs.CaribbeanCoup(rules.game, antes)
    for event_type, data in ct.coup_events(coup, ["CardDealt", "BoxDecided", "CardBurnt"]):
        if event_type == "CardDealt":
            game.deal(data["card"])
        elif event_type == "CardBurnt":
            game.burn(data["card"])
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
        elif isinstance(record, cs.CardBurnt):
            data.update(shoe=str(deck.id), card=record.card, box=record.box, reason="exposed by mistake")
            # off the deck: the shoe index it took (the replay counts it drawn); from a hand: its place there
            data.update(
                {"from": "deck", "index": index} if record.index is None else {"from": "hand", "place": record.index}
            )
            events.append(NewEvent("CardBurnt", data))
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
                house_edge=caribbean_line_edge(coup.table.rules, line.bet),
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
        # a deck changed at the patrons' request before the deal is this coup's; else a fresh one
        deck = _changed_deck(coup) or ct.deck_for_coup(cmd, coup, shuffled=shuffled, cut_position=cut)
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
            owed = format_cents(raise_cents, coup.table.currency)
            where = {"table": coup.table.code, "round_id": coup.id, "patron": who.code}
            raise ChipsRefused(
                f"{who.code} cannot cover the raise of {owed}", stake_cents=raise_cents, field="action", **where
            )
        _finish(cmd, coup, game, _coup_deck(coup), _records(records, coup, None))
        return _summary(coup, game)

    request = {"round": str(round_id), "patron": patron, "box": box, "action": action}
    return ct.card_command("caribbean_decide", run, actor=actor, idempotency_key=idempotency_key, **request)


def caribbean_burn_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Burn ``card``, exposed by mistake (sheet 001: "toute carte découverte par erreur sera
    immédiatement brûlée"); the coup goes on (``CaribbeanCoup.burn``). While the cards are
    reported, the exposed card coming off the deck is drawn and burnt and its receiver takes
    the next reported card. Once dealt, a card of a box that has not decided, or one of the
    dealer's hidden cards, is burnt and the next card of the deck takes its place: drawn at
    once from a shuffled deck's committed order, reported next from a card-reading shoe.
    Records ``CardBurnt`` (no postings: no money moves) and the replacement's ``CardDealt``.
    Returns the coup summary with ``burnt`` (the card). ``StateConflict`` (409, ``round``)
    unless the coup is being dealt or decided; ``InvalidInput`` (400, ``card``) for a card that
    cannot be burnt now."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}: a card is burnt while it is dealt", field="round")
        game = _replay(coup, _rules(coup.table))
        deck = _coup_deck(coup)
        try:
            records = game.burn(card)
        except RuleError as exc:
            if exc.field == "state":
                raise StateConflict(exc.message, field="round") from exc
            raise ct.invalid(exc) from exc
        index = None
        if records[0].index is None:  # off the deck: only a card-reading shoe is mid-deal
            if deck is None or deck.mode != Shoe.Mode.READER:
                raise StateConflict("no card is coming off the deck: the coup is dealt", field="round")
            index = len(deck.drawn)
            draw_reported(deck, card)
        events = _records(records, coup, deck, index)
        events += ct.deal_from_order(
            deck, lambda: game.next_draw() is not None, lambda c, i: _records(game.deal(c), coup, deck, i)
        )
        _finish(cmd, coup, game, deck, events)
        return {**_summary(coup, game), "burnt": events[0].data["card"]}

    request = {"round": str(round_id), "card": card}
    return ct.card_command("caribbean_burn", run, actor=actor, idempotency_key=idempotency_key, **request)


def caribbean_deck_change(
    *, round_id: str, actor: str, patron: str | None = None, idempotency_key: str | None = None
) -> dict:
    """Change the deck at the patrons' request (sheet 001: "elles peuvent aussi être changées en
    cours de partie à la demande des joueurs"), before the coup is dealt: a new one-deck shoe
    for this coup, shuffled with its order committed (``ShoeShuffled``) or read from a fresh
    pack, which the deal then uses. A deck already made for this coup by an earlier change is
    closed and revealed (``ShoeClosed``, no card drawn). Records ``DeckChanged`` on the coup
    (``patron``: who asked, optional). Returns the coup summary with ``shoe`` and
    ``commitment`` (None for a card-reading deck). ``StateConflict`` (409, ``round``) once the
    coup is dealt; ``InvalidInput`` (400, ``patron``) for an unknown patron."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state not in (Round.State.BETTING, Round.State.CLOSED_FOR_BETS):
            raise StateConflict(
                f"coup {coup.number} is {coup.state}: the deck is changed before the deal", field="round"
            )
        who = patron_get(patron) if patron is not None else None
        rules = _rules(coup.table)
        replaced = _changed_deck(coup)
        if replaced is not None:
            close_shoe(cmd, replaced, reason="deck changed at the patrons' request")
        shuffled = rules.card_source == "shuffled"
        deck = ct.deck_for_coup(cmd, coup, shuffled=shuffled, cut_position=ct.DECK_CARDS if shuffled else 0)
        deck.save()
        data = {
            "round": str(coup.id),
            "table": coup.table.code,
            "shoe": str(deck.id),
            "commitment": deck.commitment or None,
            "replaces": str(replaced.id) if replaced is not None else None,
            "requested_by": who.code if who is not None else None,
        }
        ct.close_coup(cmd, coup, [NewEvent("DeckChanged", data)], None)
        return {**ct.coup_summary(coup), "shoe": data["shoe"], "commitment": data["commitment"]}

    request = {"round": str(round_id), "patron": patron}
    return ct.card_command("caribbean_deck_change", run, actor=actor, idempotency_key=idempotency_key, **request)


def _summary(coup: Round, game: cs.CaribbeanCoup) -> dict:
    return ct.coup_summary(
        coup,
        engine_state=game.state,
        dealer_up=game.dealer_up,
        undecided=list(game.undecided()),
        next_card_to=game.next_draw(),
    )


# Each Caribbean coup has a deck of its own (sheet 001): a void spends it as settling would.
SPEC.provide(
    deal=caribbean_deal,
    report_card=caribbean_report_card,
    batch_bet=caribbean_ante,
    on_layout=on_layout_cents,
    after_void=void_decks,
)

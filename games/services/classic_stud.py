"""Classic five-card stud hands through the ledger (RULES.md §Classic five-card stud).

The pure engine (``games.rules.classic_stud.StudHand``) decides; this module feeds it the
seated players, the cards and the players' actions, and writes what it says. Players play
against each other; the house only rakes. Postings (DESIGN.md §Chart of accounts; the pot is
``table:<T>:layout``, "stakes in play on the current coup", so no new account is needed):

- sitting down (``BetPlaced``, one ``Bet`` per seat): the ante, patron −a, layout +a. The rest
  of the player's stack stays in his hands (``patron:<P>:chips``): nothing else is taken at
  the start of the hand, and every later action is checked against what he still holds;
- every bet, call and raise (``PlayerActed``): patron −x, layout +x;
- the end (``HandSettled``): each pot's rake, layout −r, tray +r, as its own ``RakeTaken``
  event (DESIGN.md: house rake to the tray as its own postings); then one ``BetSettled`` per
  seat, layout −(uncalled + won), patron +(uncalled + won). The layout is back to 0.

Cards: a fresh one-deck ``Shoe`` per hand. With the table option ``card_source: "shuffled"``
(the default) the backend shuffles it (``random.SystemRandom``), records the SHA-256
commitment of the order with a ``secrets`` salt at the deal, deals from it, and reveals the
order and the salt in the hand's final event (``RoundSettled``, and ``ShoeClosed`` on the
deck's stream, so ``shoe verify`` checks every ``CardDealt``). With ``"reported"`` the dealer's
terminal reports each card and one already dealt from this deck is refused (400, ``card``).

The hand is not stored: each command rebuilds it by replaying the round's events through the
engine (deterministic), applies the new input and appends the records. The coup follows the
generic round FSM: ``round_open`` → sit → ``round_close_bets`` → deal → actions/cards →
settled (or ``round_void``).
"""

from fractions import Fraction

from basis.errors import RuleError
from basis.money import format_cents
from core.ids import uuid_of
from ledger import accounts, posting_rules
from ledger.commands import Command
from ledger.errors import ChipsRefused, InvalidInput, NotFound, StateConflict
from ledger.store import NewEvent
from patrons.selectors import patron_get
from patrons.services.self_limit import check_self_limit

from ..catalog.classic_stud import SPEC
from ..models import Round, Shoe, Table
from ..rules import classic_stud as stud
from ..rules.stud_table import ClassicStudTableRules as StudTableRules
from . import card_table as ct
from .shoes import close_shoe, draw_reported, reveal

GAME = SPEC.code  # the game this module deals (games.catalog)
CARD_SOURCES = ("shuffled", "reported")
ACTIONS = ("check", "parole", "bet", "call", "raise", "fold")
# Engine records → event types. The engine's RoundOpened/RoundClosed are betting rounds: the
# coup's own RoundOpened and BettingClosed already mean something in the round stream.
RECORD_EVENTS = {
    stud.Acted: "PlayerActed",
    stud.RoundOpened: "BettingRoundOpened",
    stud.RoundClosed: "BettingRoundClosed",
    stud.Showdown: "HandsShown",
}
REPLAYED = ("BetPlaced", "DealingStarted", "CardDealt", "PlayerActed")


def table_rules(table: Table) -> StudTableRules:
    """The rule set the table opened with (the engine's options, ``card_source`` and the chip
    increments). Raises ``InvalidInput`` naming ``rules.<option>``."""
    return ct.engine_step(lambda: StudTableRules.from_dict(table.rules))


def _play_error(exc: RuleError) -> InvalidInput | StateConflict:
    """The engine's ``state`` refusals (no betting while cards are due, the hand is over) are
    conflicts with the hand as it stands (409); the others name the input at fault (400)."""
    if exc.field == "state":
        return StateConflict(exc.message, field="round")
    return ct.invalid(exc)


def _coup(round_id) -> Round:
    return ct.coup_for_update(round_id, GAME)


def _seats(events: list[tuple[str, dict]]) -> list[stud.StudSeat]:
    return [stud.StudSeat(d["seat"], d["patron"], d["stack_cents"]) for t, d in events if t == "BetPlaced"]


def _replay(coup: Round, rules: StudTableRules) -> stud.StudHand:
    """The engine's hand as the round's events left it (the coup has been dealt)."""
    events = ct.coup_events(coup, REPLAYED)
    hand = stud.StudHand(rules.game, _seats(events))
    for event_type, data in events:
        if event_type == "CardDealt":
            hand.deal(data["card"])
        elif event_type == "PlayerActed":
            hand.act(data["seat"], data["call"]["action"], data["call"]["amount_cents"])
    return hand


def _hand_deck(coup: Round) -> Shoe:
    """The one-deck shoe of this hand, locked (named by the round's ``DealingStarted``)."""
    started = next(d for t, d in ct.coup_events(coup, ["DealingStarted"]))
    return Shoe.objects.select_for_update().get(pk=started["shoe"])


# --- sitting down ----------------------------------------------------------------------------


def classic_stud_sit(
    *,
    round_id: str,
    patron: str,
    seat: int,
    stack_cents: int | None = None,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Seat ``patron`` at ``seat`` (1–7, seat 1 at the dealer's left) for this hand, with
    ``stack_cents`` of his value chips in play (table stakes; default: all he holds). With
    antes on, the ante is posted now (patron −a, layout +a); nothing else is taken.

    Returns ``{"round", "bet", "seat", "patron", "stack_cents", "ante_cents", "version"}``.
    Raises ``InvalidInput`` (``seat``: not 1–7 or taken; ``patron``: unknown or already seated;
    ``stack_cents``: under the base stake), ``ChipsRefused`` (an ``InsufficientChips`` the floor
    records: a stack he does not hold), ``BettingClosedRefused`` (a ``StateConflict``, recorded:
    the hand is dealt or betting is closed).
    """

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        table = coup.table
        ct.betting_open(
            coup,
            f"coup {coup.number} of {table.code} is {coup.state}: no one sits down now",
            patron=patron,
            stake_cents=stack_cents,
        )
        who = patron_get(patron)
        rules = table_rules(table).game
        held = ct.chips_held(coup, who.code)
        stack = min(held, stud.MAX_STACK_CENTS) if stack_cents is None else stack_cents
        where = {"stake_cents": stack, "table": table.code, "round_id": coup.id, "patron": who.code}
        try:
            stud.StudSeat(seat, who.code, stack)
        except RuleError as exc:
            if exc.field == "stack_cents" and stack_cents is None:
                raise ChipsRefused(f"{who.code} holds no chips to play with", field="stack_cents", **where) from exc
            raise ct.invalid(exc) from exc
        seated = list(coup.bets.select_related("patron"))
        if any(b.position["seat"] == seat for b in seated):
            raise InvalidInput(f"seat {seat} is taken", field="seat")
        if any(b.patron_id == who.pk for b in seated):
            raise InvalidInput(f"{who.code} already sits at this table", field="patron")
        if stack > held:
            money = table.currency
            message = f"{who.code} holds {format_cents(held, money)} of chips, not {format_cents(stack, money)}"
            raise ChipsRefused(message, field="stack_cents", **where)
        if stack < rules.base_stake_cents:
            message = f"a stack is at least the base stake of {format_cents(rules.base_stake_cents, table.currency)}"
            if stack_cents is not None:
                raise InvalidInput(message, field="stack_cents")
            raise ChipsRefused(message, field="stack_cents", **where)
        ante = rules.base_stake_cents if rules.ante else 0
        position = {"game": GAME, "seat": seat}
        bet = ct.place_bet(cmd, coup, who, ante, position, seat=seat, stack_cents=stack, ante=rules.ante)
        return ct.bet_summary(coup, bet, {"seat": seat}, stack_cents=stack, ante_cents=ante)

    request = {"round": str(round_id), "patron": patron, "seat": seat, "stack": stack_cents}
    return ct.card_command("classic_stud_sit", run, actor=actor, idempotency_key=idempotency_key, **request)


# --- records → events ------------------------------------------------------------------------


def _record_events(records: list, coup: Round, call: dict | None = None) -> list[NewEvent]:
    """One event per engine record (the settlement is written by ``_settlement_events``).
    What an action puts in is posted on its event: patron −x, layout +x."""
    events = []
    for record in records:
        event_type = RECORD_EVENTS.get(type(record))
        if event_type is None:  # HandSettled: written whole at the end
            continue
        data = stud.to_data(record)
        data.pop("type")
        if "round" in data:
            data["betting_round"] = data.pop("round")
        data.update(round=str(coup.id), table=coup.table.code)
        legs = []
        if isinstance(record, stud.Acted):
            data["patron"] = data.pop("player")
            data["call"] = call  # what was asked, so a replay makes the same call
            legs = ct.stake_added(coup, record.player, record.amount_cents)
        events.append(NewEvent(event_type, data, legs))
    return events


def _deal(hand: stud.StudHand, card: str, index: int, coup: Round, deck: Shoe) -> list[NewEvent]:
    """Give ``card``, the deck's ``index``-th, to the seat the engine names."""
    target = hand.next_draw()
    try:
        records = hand.deal(card)
    except RuleError as exc:
        raise _play_error(exc) from exc
    dealt = records[0]
    to = {"seat": dealt.seat, "patron": hand.seat(dealt.seat).player, "face": target[1]}
    return [ct.card_dealt(coup, deck, index, card, **to, betting_round=dealt.round), *_record_events(records[1:], coup)]


def _outcome(net: int) -> str:
    return "won" if net > 0 else "lost" if net < 0 else "pushed"


def _settlement_events(coup: Round, hand: stud.StudHand, deck: Shoe) -> list[NewEvent]:
    """The pots, the rake (layout → tray), one ``BetSettled`` and one ``BetResolved`` per seat
    (layout → patron), and ``RoundSettled`` with the deck revealed."""
    table = coup.table.code
    settled = hand.settle()
    bets = {b.position["seat"]: b for b in coup.bets.select_related("patron")}
    events = []
    for award in settled.pots:
        data = stud.to_data(award)
        data.pop("type")
        data["pot"] = data.pop("index")
        events.append(NewEvent("PotAwarded", {"round": str(coup.id), "table": table, **data}))
        if award.rake_cents:
            # DESIGN.md: the house's rake goes to the tray as its own postings. It leaves the
            # pot like a stake the house keeps: layout −r, tray +r (bet_settled, nothing returned).
            events.append(
                NewEvent(
                    "RakeTaken",
                    {
                        "round": str(coup.id),
                        "table": table,
                        "pot": award.index,
                        "pot_cents": award.amount_cents,
                        "rake_owed_cents": str(award.rake_owed),  # exact; the cents taken are rounded down
                        "rake_cents": award.rake_cents,
                    },
                    posting_rules.bet_settled(
                        table=table,
                        patron_account=accounts.table_tray(table),
                        house_account=accounts.table_tray(table),
                        stake=award.rake_cents,
                        returned=0,
                        winnings=0,
                    ),
                )
            )
    staked = returned = 0
    resolved = []
    # The house's take is the rake (RULES.md §Stud poker): its theory is the rake actually
    # taken, spread over what the players put in, so Σ stake × edge = the rake.
    put_in = sum(line.put_in_cents for line in settled.lines if line.seat is not None)
    rake_edge = str(Fraction(sum(award.rake_cents for award in settled.pots), put_in)) if put_in else "0"
    for line in settled.lines:
        if line.seat is None:  # the house's line: the rake, posted above
            continue
        bet = bets[line.seat]
        back = line.uncalled_cents + line.won_cents
        staked, returned = staked + line.put_in_cents, returned + back
        outcome = _outcome(line.net_cents)
        figures = {
            "seat": line.seat,
            "outcome": outcome,
            # stake = all he put in (the handle); return = what comes back to him: the
            # chips nobody matched and his shares of pots. return − stake = his net.
            "stake_cents": line.put_in_cents,
            "return_cents": back,
            "uncalled_cents": line.uncalled_cents,
            "won_cents": line.won_cents,
            "net_cents": line.net_cents,
            "house_edge": rake_edge,  # players against each other: the house only rakes
        }
        # The pot pays the player (another player's loss, not the house's): layout −x, patron +x.
        legs = ct.line_postings(coup, line.party, stake=back, returned=back, winnings=0) if back else []
        events.append(ct.settlement_line(coup, bet, line.party, figures, legs))
        resolved.append(ct.resolve(bet, coup, line.put_in_cents, back, outcome))
    events += resolved
    shown = {"bets": len(bets), "showdown": settled.showdown, "rake_cents": settled.rake_cents}  # house win = the rake
    events.append(ct.round_settled(coup, staked, returned, **shown, deck={**reveal(deck), "mode": deck.mode}))
    return events


def _result(hand: stud.StudHand) -> dict:
    """``Round.result`` of a settled hand: the hands shown and who won each pot."""
    settled = hand.settle()
    shown = next((r for r in hand.log if isinstance(r, stud.Showdown)), None)
    return {
        "showdown": settled.showdown,
        "hands": [
            {"seat": h.seat, "patron": h.player, "cards": list(h.cards), "category": h.category}
            for h in (shown.hands if shown else ())
        ],
        "pots": [
            {
                "pot": a.index,
                "amount_cents": a.amount_cents,
                "winners": list(a.winners),
                "shares": [list(s) for s in a.shares],
                "rake_cents": a.rake_cents,
            }
            for a in settled.pots
        ],
        "rake_cents": settled.rake_cents,
    }


def _drive(cmd: Command, coup: Round, hand: stud.StudHand, events: list, deck: Shoe) -> None:
    """Deal from a shuffled deck while the engine wants cards; settle when the hand is over; append."""
    events += ct.deal_from_order(
        deck, lambda: hand.next_draw() is not None, lambda card, index: _deal(hand, card, index, coup, deck)
    )
    over = hand.state == "settled"
    if over:
        events += _settlement_events(coup, hand, deck)
    ct.close_coup(cmd, coup, events, _result(hand) if over else None)
    ct.deck_done(cmd, deck, over, mode=deck.mode)  # the hand's deck is spent: its order is revealed


def _check_covered(records: list, coup: Round) -> None:
    """The stack is not taken at the start of the hand: what an action puts in must still be
    in the player's hands when he acts."""
    for record in records:
        if isinstance(record, stud.Acted) and record.amount_cents:
            check_self_limit(  # his own maximum bet, every game
                record.player, record.amount_cents, table=coup.table.code, round_id=coup.id
            )
            held = ct.chips_held(coup, record.player)
            if held < record.amount_cents:
                currency = coup.table.currency
                raise ChipsRefused(
                    f"{record.player} holds {format_cents(held, currency)} of chips, less than the "
                    f"{format_cents(record.amount_cents, currency)} this puts in",
                    stake_cents=record.amount_cents,
                    field="amount_cents",
                    table=coup.table.code,
                    round_id=coup.id,
                    patron=record.player,
                )


# --- the hand --------------------------------------------------------------------------------


def classic_stud_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Start the hand of a coup whose betting is closed, with 2–7 seated players. Shuffled
    deck: the cards are dealt at once up to the first decision; reported: the terminal reports
    each card (``classic_stud_report_card``). Returns the hand's summary (``classic_stud_hand``).
    Raises ``StateConflict`` (bets not closed, fewer than two players: void the coup)."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        ct.bets_closed(coup)
        table = coup.table
        rules = table_rules(table)
        seats = _seats(ct.coup_events(coup, ["BetPlaced"]))
        if len(seats) < 2:
            raise StateConflict(f"a hand needs 2 to 7 players, {len(seats)} seated: void the coup", field="round")
        hand = ct.engine_step(lambda: stud.StudHand(rules.game, seats))
        # A deck left in play by a voided hand is closed (and revealed) before the next one.
        for old in Shoe.objects.select_for_update().filter(table=table, state__in=[Shoe.State.IN_PLAY]):
            close_shoe(cmd, old, mode=old.mode)
        shuffled = rules.card_source == "shuffled"
        # no cut card: the hand never needs more than 35 cards
        deck = ct.deck_for_coup(cmd, coup, shuffled=shuffled, cut_position=ct.DECK_CARDS)
        players = [{"seat": s.seat, "patron": s.player, "stack_cents": s.stack_cents} for s in seats]
        started = ct.dealing_started(
            coup,
            deck,
            card_source=rules.card_source,
            commitment=deck.commitment or None,
            seats=players,
            rules=table.rules,
        )
        _drive(cmd, coup, hand, started, deck)
        return _summary(coup, hand, rules)

    return ct.card_command("classic_stud_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def classic_stud_act(
    *,
    round_id: str,
    seat: int,
    patron: str | None = None,
    action: str,
    amount_cents: int | None = None,
    actor: str,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """The player at ``seat`` checks (``check`` or ``parole``), bets ``amount_cents``, calls,
    raises to ``amount_cents`` (his new total for the betting round) or folds. ``patron``, when
    given, must be the player at that seat. A bet or raise is in the table's chip increments
    (refused, kind ``chip_increment``, or lowered with ``off_chips = adjust``).

    Returns the hand's summary. Raises ``InvalidInput`` naming the field (``seat``: nobody there
    or not his turn; ``action``: a check when a bet is pending, nothing to call, no raise
    allowed; ``amount_cents``: over the round's cap, over his stack, a raise of the wrong size;
    ``patron``), ``InsufficientChips``, ``StateConflict`` (cards are due, the hand is over —
    e.g. a fold after the showdown), ``VersionConflict``.
    """
    if action not in ACTIONS:
        raise InvalidInput(f"action is one of {', '.join(ACTIONS)}", field="action")

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state not in (Round.State.DEALING, Round.State.SETTLED):
            raise StateConflict(
                f"coup {coup.number} of {coup.table.code} is {coup.state}: no hand in play", field="round"
            )
        ct.at_version(coup, expected_version)
        rules = table_rules(coup.table)
        hand = _replay(coup, rules)
        try:
            hand.verify_act(seat, action, amount_cents)
        except RuleError as exc:
            raise _play_error(exc) from exc
        if patron is not None and patron_get(patron).code != hand.seat(seat).player:
            raise InvalidInput(f"{patron} is not the player at seat {seat}", field="patron")
        amount = _in_chips(coup, hand, seat, action, amount_cents, rules)
        call = {"action": action, "amount_cents": amount, **ct.adjusted(amount_cents, amount)}
        records = hand.act(seat, action, amount)
        _check_covered(records, coup)
        _drive(cmd, coup, hand, _record_events(records, coup, call), _hand_deck(coup))
        return _summary(coup, hand, rules)

    request = {"round": str(round_id), "seat": seat, "action": action, "amount": amount_cents, "patron": patron}
    request["expected_version"] = expected_version
    return ct.card_command("classic_stud_act", run, actor=actor, idempotency_key=idempotency_key, **request)


def _in_chips(coup: Round, hand: stud.StudHand, seat: int, action: str, amount_cents, rules: StudTableRules):
    """A bet or a raise in the table's chip increments (``games.rules.chips``): refused (kind
    ``chip_increment``, recorded) or lowered to what the chips make (``off_chips = adjust``),
    the lowered amount checked again by the engine. Other actions' amounts are the engine's."""
    if action not in ("bet", "raise") or amount_cents is None:
        return amount_cents
    who = patron_get(hand.seat(seat).player)
    amount = ct.within_limits(coup, who, amount_cents, lambda: rules.chips.stake(amount_cents), field="amount_cents")
    if amount != amount_cents:
        try:
            hand.verify_act(seat, action, amount)
        except RuleError as exc:
            raise _play_error(exc) from exc
    return amount


def classic_stud_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """The dealer's terminal reports the next card of the hand (``card_source: reported``).
    Refused: 400 ``card`` (not a card, or already dealt from this deck); 409 when no card is due
    or the table's cards are shuffled by the backend."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}: no card is due", field="round")
        rules = table_rules(coup.table)
        if rules.card_source != "reported":
            raise StateConflict("this table's cards are shuffled and dealt by the backend", field="card")
        hand = _replay(coup, rules)
        if hand.next_draw() is None:
            turn = hand.awaiting()
            raise StateConflict(f"no card is due: seat {turn.seat if turn else '?'} is to act", field="card")
        deck = _hand_deck(coup)
        index = len(deck.drawn)
        events = _deal(hand, card, index, coup, deck)
        draw_reported(deck, card)  # the engine refused a repeat already: this only counts
        _drive(cmd, coup, hand, events, deck)
        return _summary(coup, hand, rules)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("classic_stud_card", run, actor=actor, idempotency_key=idempotency_key, **request)


# --- reading ---------------------------------------------------------------------------------


def _summary(coup: Round, hand: stud.StudHand | None, rules: StudTableRules, seated: list | None = None) -> dict:
    """The hand as a dealer's terminal shows it: up cards only while the hand is in play (the
    hole and last cards are the players' secret; the ledger has them), the decision awaited,
    the next card due, the pots; the settlement and the hands shown once it is over."""
    summary = ct.coup_summary(coup, card_source=rules.card_source, engine_state=None, betting_round=None)
    summary.update(awaiting=None, needs_card=None, seats=[], pots=[], result=None)
    if hand is None:
        summary["seats"] = [
            {"seat": s.seat, "patron": s.player, "stack_cents": s.stack_cents}
            for s in sorted(seated or [], key=_seat_no)
        ]
        return summary
    turn, draw = hand.awaiting(), hand.next_draw()
    over = hand.state == "settled"
    summary.update(
        engine_state=hand.state,
        betting_round=hand.round,
        awaiting=None
        if turn is None
        else {
            "seat": turn.seat,
            "patron": turn.player,
            "actions": sorted(turn.actions),
            "level_cents": turn.level_cents,
            "to_call_cents": turn.to_call_cents,
            "min_total_cents": turn.min_total_cents,
            "max_total_cents": turn.max_total_cents,
            "cap_cents": turn.cap_cents,
        },
        needs_card=None if draw is None else {"seat": draw[0], "face": draw[1]},
        seats=[
            {
                "seat": s.seat,
                "patron": s.player,
                "stack_cents": s.stack_cents,
                "up_cards": list(s.up_cards),
                "cards_dealt": len(s.cards),
                "put_in_cents": s.put_in_cents,
                "round_total_cents": s.round_total_cents,
                "folded": s.folded,
                "all_in": s.all_in,
            }
            for s in hand.seats()
        ],
        pots=[{"pot": p.index, "amount_cents": p.amount_cents, "eligible": list(p.eligible)} for p in hand.pots()],
        result=_result(hand) if over else None,
    )
    return summary


def _seat_no(seat: stud.StudSeat) -> int:
    return seat.seat


def classic_stud_hand(*, round_id: str) -> dict:
    """Read the hand of a classic stud coup (no lock, no write): the summary the commands return.
    ``NotFound`` for an unknown round; ``InvalidInput`` (``round``) for another game's coup."""
    try:
        key = uuid_of(round_id)
    except ValueError:
        raise NotFound(f"no round {round_id}", field="round") from None
    coup = Round.objects.select_related("table").filter(pk=key).first()
    if coup is None:
        raise NotFound(f"no round {round_id}", field="round")
    if coup.table.game != GAME:
        raise InvalidInput(f"table {coup.table.code} is not a classic stud table", field="round")
    rules = table_rules(coup.table)
    events = ct.coup_events(coup, REPLAYED)
    if not any(t == "DealingStarted" for t, _ in events):
        return _summary(coup, None, rules, _seats(events))
    return _summary(coup, _replay(coup, rules), rules)


def on_layout_cents(coup: Round) -> dict[str, int]:
    """``{bet id: cents the seat still has on the layout}``: its ante and every chip its actions
    put in, less what its ``BetSettled`` returned. For ``round_void`` to give back a hand voided
    in the middle (the generic void returns only ``Bet.stake_cents``, the ante)."""
    bet_of = {b.position["seat"]: str(b.id) for b in coup.bets.all()}
    outstanding = dict.fromkeys(bet_of.values(), 0)
    for event_type, data in ct.coup_events(coup, ["BetPlaced", "PlayerActed", "BetSettled"]):
        if event_type == "BetPlaced":
            outstanding[data["bet"]] += data["stake_cents"]
        elif event_type == "PlayerActed":
            outstanding[bet_of[data["seat"]]] += data["amount_cents"]
        else:
            outstanding[data["bet"]] -= data["stake_cents"]
    return outstanding


SPEC.provide(deal=classic_stud_deal, report_card=classic_stud_report_card, on_layout=on_layout_cents)

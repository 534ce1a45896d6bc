"""A card table's mechanism, the same whatever the game (RULES.md §Black jack, §Baccarat,
§Trente-et-quarante, §Caribbean-style stud, §Classic five-card stud).

Every card game's command goes through here for what does not depend on its rules:

- the command itself (``card_command``): one ``ledger_command``, a retry answered from the first;
- the coup: locked and checked to be this game's (``coup_for_update``), in the state the step
  needs (``betting_open``, ``bets_closed``), its events read back in order (``coup_events``),
  appended to (``append``) and settled (``close_coup``); its summary's common part
  (``coup_summary``);
- bets: the table's limits, refused as a ``BetRefused`` the floor records (``within_limits``),
  the patron's own self-limit and the chips he holds (``covered``), the ``Bet`` row and its
  ``BetPlaced`` (patron −s, layout +s: ``place_bet``);
- the cards: the table's shoe in play (``shoe_in_play``), or a fresh one-deck shoe for the coup
  (``deck_for_coup``), dealt from its committed order (``deal_from_order``) or reported by a
  card-reading shoe (``reader_due``, ``shoes.draw_reported``), each card a ``CardDealt``;
  a whole coup dealt at once from the shoe or completed card by card (``deal_whole_coup``,
  ``report_to_whole_coup``: baccarat, trente-et-quarante);
- settlement: one ``BetSettled`` a line with DESIGN.md's postings (layout → patron / tray:
  ``settlement_line``), the bet's final state (``resolve``: ``BetResolved``) and the coup's
  totals (``round_settled``).

Each game's service keeps what its rules make different: its bets' positions, its engine's
records and decisions, and the lines its engine settles.
"""

import random
import secrets
from collections.abc import Callable
from typing import TypeVar

from basis.errors import RuleError
from basis.money import format_cents
from ledger import accounts, posting_rules, store
from ledger.commands import Command, ledger_command
from ledger.errors import BettingClosedRefused, ChipsRefused, InvalidInput, StateConflict, VersionConflict
from ledger.models import Event
from ledger.store import Leg, NewEvent
from patrons.models import Patron
from patrons.services.self_limit import check_self_limit

from ..bet_record import bets_as_recorded
from ..catalog import spec
from ..models import Bet, Round, Shoe
from ..rules.chips import ChipIncrements
from ..rules.shoe import ShoeOrder, commitment
from ..selectors import round_for_update
from .refusals import refused
from .shoes import active_shoe, check_sealed_shuffle, close_shoe, draw_reported

# A settled bet's outcome → its transition (``Bet``'s state machine).
TRANSITIONS = {"won": "win", "lost": "lose", "pushed": "push", "refait": "give_back"}
T = TypeVar("T")
DECK_CARDS = 52  # a one-deck shoe: Caribbean and classic stud deal each coup from a fresh deck


# --- the command and the coup ------------------------------------------------------------------


def card_command(
    op: str, run: Callable[[Command], dict], *, actor: str, idempotency_key: str | None, **request
) -> dict:
    """Run ``run(cmd)`` as one ledger command whose request is ``{"op": op, **request}``; its
    answer (a dict) is the command's, and a retry with the same key gets the first answer."""
    with ledger_command(actor=actor, request={"op": op, **request}, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        return cmd.finish(run(cmd))


def coup_for_update(round_id: object, game: str) -> Round:
    """The coup, locked; ``NotFound`` (404) for none, ``InvalidInput`` (``round``) for another game's."""
    coup = round_for_update(round_id)
    if coup.table.game != game:
        raise InvalidInput(f"table {coup.table.code} is not a {spec(game).in_a_sentence} table", field="round")
    return coup


def betting_open(
    coup: Round, refusal: str | None = None, *, patron: str | None = None, stake_cents: object = None
) -> None:
    """``StateConflict`` (409, ``round``) unless the coup takes bets; ``refusal`` says why not.

    With ``patron`` (code, as sent) the refusal is a bet's: a ``BettingClosedRefused`` the floor
    records (kind ``table_closed`` when the table is closed, else ``betting_closed``), with
    ``stake_cents`` (the stake asked, 0 when the request has none, as a stud seat). A request
    that is no bet at all (a patron nobody registered, a stake that is not a positive whole
    number of cents) gets the plain 409 and nothing is recorded: the exception log lists bets
    refused, not malformed requests. A coup settled or voided says so, not "betting closed"."""
    if coup.state == Round.State.BETTING:
        return
    message = refusal or f"betting is closed on coup {coup.number} of {coup.table.code}"
    if coup.state in (Round.State.SETTLED, Round.State.VOIDED):
        message = f"coup {coup.number} of {coup.table.code} is {coup.state}: it takes no more bets"
    if patron is None or not _a_bet(patron, stake_cents):
        raise StateConflict(message, field="round")
    table = coup.table
    kind = "betting_closed" if table.state == table.State.OPEN else "table_closed"
    if kind == "table_closed":
        message = f"table {table.code} is closed: {message}"
    where = {"table": table.code, "round_id": coup.id, "patron": patron}
    raise BettingClosedRefused(message, kind=kind, stake_cents=stake_cents or 0, **where)


def _a_bet(patron: object, stake_cents: object) -> bool:
    """Whether a refused request reads as a bet: a registered patron and, when it names one, a
    positive whole stake in cents."""
    if stake_cents is not None and (type(stake_cents) is not int or stake_cents <= 0):
        return False
    return isinstance(patron, str) and Patron.objects.filter(code=patron).exists()


def bets_closed(coup: Round) -> None:
    """``StateConflict`` (``round``) unless the coup's betting is closed and it is not dealt yet."""
    if coup.state != Round.State.CLOSED_FOR_BETS:
        raise StateConflict(f"coup {coup.number} is {coup.state}: close the bets first", field="round")


def at_version(coup: Round, expected_version: int | None) -> None:
    """``VersionConflict`` when the caller saw the coup at another version (``None``: any)."""
    if expected_version is not None and expected_version != coup.version:
        raise VersionConflict(f"round is at version {coup.version}, not {expected_version}", field="expected_version")


def coup_events(coup: Round, types: list[str] | tuple[str, ...]) -> list[tuple[str, dict]]:
    """``[(type, data)]`` of the coup's events of those ``types``, in the order they happened."""
    return list(
        Event.objects.filter(stream=coup.stream, type__in=types).order_by("version").values_list("type", "data")
    )


def append(cmd: Command, coup: Round, events: list[NewEvent], *, correlated: bool = True) -> None:
    """Append ``events`` to the coup's stream at its version, correlated by the coup's id
    (``correlated=False``: not, as a whole coup's start and its reported cards never were)."""
    saved = cmd.append(
        stream=coup.stream,
        expected_version=coup.version,
        correlation_id=str(coup.id) if correlated else "",
        events=events,
    )
    coup.version = saved[-1].version


def close_coup(cmd: Command, coup: Round, events: list[NewEvent], result: dict | None) -> None:
    """Append ``events``; with a ``result`` (``Round.result``) the coup is settled. Saves the coup.

    A settlement is paid from the coup's ``Bet`` rows: with the settled states the game has just
    saved and ``events``, they must be what the coup's sealed events make (``StateConflict``
    otherwise, nothing appended: ``games.bet_record``)."""
    if result is not None:
        bets_as_recorded(coup, events)
    append(cmd, coup, events)
    if result is not None:
        coup.settle()
        coup.result = result
    coup.save()


def coup_summary(coup: Round, **more) -> dict:
    """``{"round", "table", "state", "version", **more}``: what every card game's command answers."""
    return {"round": str(coup.id), "table": coup.table.code, "state": coup.state, "version": coup.version, **more}


def invalid(exc: RuleError) -> InvalidInput:
    """An engine's refusal of the input as a 400 naming its field."""
    return InvalidInput(exc.message, field=exc.field)


def engine_step(step: Callable[[], T]) -> T:
    """``step()``'s answer: the game's engine deciding on the input; its refusal is a 400 (``invalid``)."""
    try:
        return step()
    except RuleError as exc:
        raise invalid(exc) from exc


# --- bets ----------------------------------------------------------------------------------------


def within_limits(coup: Round, who: Patron, stake_cents: int, check: Callable[[], T], *, field: str | None = None) -> T:
    """``check()``'s answer; an engine's refusal is the client's 400, and a table limit's
    (``LimitRefused``) a ``BetRefused`` the floor records (``refusals``); ``field`` renames the
    refusal's field (default: the engine's)."""
    try:
        return check()
    except RuleError as exc:
        where = {"table": coup.table.code, "round_id": coup.id, "patron": who.code, "field": field}
        raise refused(exc, stake_cents=stake_cents, **where) from exc


def in_chip_increments(
    coup: Round,
    who: Patron,
    stake_cents: int,
    chips: ChipIncrements,
    limits: Callable[[int], object],
    *,
    field: str | None = None,
) -> int:
    """The stake to take for ``stake_cents`` asked (every game; ``games.rules.chips``): the
    table's ``limits(stake)`` on it, then its chip increments, which refuse it (kind
    ``chip_increment``, recorded) or with ``off_chips = adjust`` lower it to what the chips
    make; a lowered stake goes through ``limits`` again (its minimum). The difference is never
    taken: the caller posts only the stake returned and records the asked one beside it.
    ``field`` names the stake in the chips' refusal (default ``stake_cents``)."""
    within_limits(coup, who, stake_cents, lambda: limits(stake_cents))
    taken = within_limits(coup, who, stake_cents, lambda: chips.stake(stake_cents), field=field)
    if taken != stake_cents:
        within_limits(coup, who, taken, lambda: limits(taken))
    return taken


def adjusted(asked_cents: int, taken_cents: int) -> dict:
    """``{"adjusted_from_cents": asked}`` when the chips lowered the stake (for the event and
    the answer), else ``{}``."""
    return {"adjusted_from_cents": asked_cents} if taken_cents != asked_cents else {}


def chips_held(coup: Round, patron: str) -> int:
    """The value chips (cents) ``patron`` (code) holds in the table's currency."""
    return store.balance(accounts.patron_chips(patron), coup.table.currency)


def covered(
    coup: Round, who: Patron, stake_cents: int, *, needed_cents: int | None = None, refusal: str = "", field: str = ""
) -> None:
    """The patron's own self-limit takes ``stake_cents`` (``BetRefused`` otherwise), and he holds
    ``needed_cents`` (default the stake) of chips: else ``ChipsRefused`` (an
    ``InsufficientChips`` the floor records, kind ``insufficient_chips``; ``refusal`` says why,
    naming ``field``, by default ``stake_cents``; amounts in currency units)."""
    check_self_limit(who.code, stake_cents, table=coup.table.code, round_id=coup.id)
    needed = stake_cents if needed_cents is None else needed_cents
    held = chips_held(coup, who.code)
    if held < needed:
        currency = coup.table.currency
        message = refusal or (
            f"{who.code} holds {format_cents(held, currency)} of chips, "
            f"less than the {format_cents(needed, currency)} staked"
        )
        where = {"table": coup.table.code, "round_id": coup.id, "patron": who.code}
        raise ChipsRefused(message, stake_cents=stake_cents, field=field or "stake_cents", **where)


def place_bet(cmd: Command, coup: Round, who: Patron, stake_cents: int, position: dict, **data) -> Bet:
    """The ``Bet`` row and its ``BetPlaced`` (``data`` added to the event's): patron −s, layout +s
    (nothing posted for a bet of 0, a seat without an ante). Saves the coup at its new version."""
    bet = Bet.objects.create(round=coup, patron=who, stake_cents=stake_cents, position=position)
    placed = {
        "bet": str(bet.id),
        "round": str(coup.id),
        "table": coup.table.code,
        "patron": who.code,
        "position": bet.position,
        "stake_cents": stake_cents,
        "chips": "value",
        **data,
    }
    legs = posting_rules.bet_placed(who.chips_account, coup.table.code, stake_cents) if stake_cents else []
    append(cmd, coup, [NewEvent("BetPlaced", placed, legs)])
    coup.save()
    return bet


def bet_summary(coup: Round, bet: Bet, spot: dict, **amounts) -> dict:
    """``{"round", "bet", **spot, "patron", **amounts, "version"}``: what a bet command answers."""
    return {
        "round": str(coup.id),
        "bet": str(bet.id),
        **spot,
        "patron": bet.patron.code,
        **amounts,
        "version": coup.version,
    }


def stake_added(coup: Round, patron: str, cents: int) -> list[Leg]:
    """The postings of a stake an engine's record adds to a bet (double, split, insurance, raise,
    a stud bet): patron −x, layout +x; none for 0."""
    return posting_rules.bet_placed(accounts.patron_chips(patron), coup.table.code, cents) if cents else []


# --- the cards -----------------------------------------------------------------------------------


def shoe_in_play(coup: Round) -> Shoe:
    """The table's shoe in play; ``StateConflict`` (``shoe``) when there is none."""
    shoe = active_shoe(coup.table)
    if shoe is None or shoe.state != Shoe.State.IN_PLAY:
        raise StateConflict(f"no shoe in play at {coup.table.code}", field="shoe")
    return shoe


def reported(shoe: Shoe, card: str, due: bool, refusal: str, deal: Callable[[str, int], list]) -> list[NewEvent]:
    """A card-reading ``shoe`` reports ``card``: ``StateConflict`` (``card``, ``refusal``) when
    none is ``due``, ``InvalidInput`` (``card``) for one the shoe cannot still contain; else it is
    drawn and ``deal(card, index)`` gives it to the game and says what it records."""
    if not due:
        raise StateConflict(refusal, field="card")
    index = len(shoe.drawn)
    draw_reported(shoe, card)
    return deal(card, index)


def reader_due(coup: Round, shoe: Shoe | None) -> Shoe:
    """``shoe`` when the coup is being dealt from a card-reading shoe; ``StateConflict``
    (``card``) otherwise: no reported card is due."""
    if coup.state != Round.State.DEALING or shoe is None or shoe.mode != Shoe.Mode.READER:
        raise StateConflict("no reported card is due on this coup", field="card")
    return shoe


def deck_for_coup(cmd: Command, coup: Round, *, shuffled: bool, cut_position: int) -> Shoe:
    """A fresh one-deck shoe for the coup (``ShoeShuffled`` on its stream): shuffled by the
    backend, its order committed, or ``reader`` (the dealer's terminal reports each card)."""
    deck = Shoe(table=coup.table, mode=Shoe.Mode.SHUFFLED if shuffled else Shoe.Mode.READER, decks=1)
    data = {"shoe": str(deck.id), "table": coup.table.code, "mode": deck.mode, "decks": 1, "round": str(coup.id)}
    if shuffled:
        order = ShoeOrder.shuffle(1, random.SystemRandom())
        deck.order, deck.salt = list(order.cards), secrets.token_hex(16)
        deck.commitment = commitment(order, deck.salt)
        data["commitment"] = deck.commitment
    deck.cut_position = cut_position
    deck.shuffle()
    deck.start()
    deck.save()
    (event,) = cmd.append(stream=deck.stream, expected_version=0, events=[NewEvent("ShoeShuffled", data)])
    deck.version = event.version
    return deck


def deck_done(cmd: Command, deck: Shoe, spent: bool, **reveal) -> None:
    """Save the coup's one-deck shoe; once the coup is over (``spent``) it is closed and its order
    revealed (``ShoeClosed``, with ``reveal``)."""
    if spent:
        close_shoe(cmd, deck, **reveal)
    else:
        deck.save()


def dealing_started(coup: Round, shoe: Shoe, **data) -> list[NewEvent]:
    """The coup goes to ``dealing``: its ``DealingStarted`` (naming the shoe, with ``data``)."""
    coup.deal()
    return [NewEvent("DealingStarted", {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id), **data})]


def card_dealt(coup: Round, shoe: Shoe, index: int, card: str, **data) -> NewEvent:
    """``CardDealt``: ``card``, the ``index``-th drawn from ``shoe`` (with ``data``: to whom)."""
    return NewEvent(
        "CardDealt",
        {"round": str(coup.id), "table": coup.table.code, "shoe": str(shoe.id), "index": index, "card": card, **data},
    )


def deal_from_order(
    shoe: Shoe | None, wants_card: Callable[[], bool], deal: Callable[[str, int], list[NewEvent]]
) -> list[NewEvent]:
    """Draw from a shuffled shoe's committed order while ``wants_card()``; ``deal(card, index)``
    gives each to the game and says what it records. A card-reading shoe draws nothing here; a
    shuffled one whose row strays from its sealed shuffle is refused (``check_sealed_shuffle``)."""
    events = []
    while shoe is not None and shoe.mode == Shoe.Mode.SHUFFLED and wants_card():
        check_sealed_shuffle(shoe)
        index = len(shoe.drawn)
        card = shoe.order[index]
        shoe.drawn = [*shoe.drawn, card]
        events += deal(card, index)
    return events


def deal_whole_coup(cmd: Command, coup: Round, play: Callable, settle: Callable) -> list[str]:
    """Deal a coup whose bets are closed from the table's shoe, the whole coup at once:
    ``play(cards)`` takes what it needs from the shoe's order (``cards_used``) and
    ``settle(cmd, coup, shoe, result, events)`` settles it. From a card-reading shoe the coup
    only starts: its cards are reported (``report_to_whole_coup``). Returns the cards dealt."""
    shoe = shoe_in_play(coup)
    check_sealed_shuffle(shoe)
    bets_closed(coup)
    events = dealing_started(coup, shoe)
    if shoe.mode == Shoe.Mode.READER:
        append(cmd, coup, events, correlated=False)
        coup.save()
        return []
    start = len(shoe.drawn)
    result = play(shoe.order[start:])
    cards = shoe.order[start : start + result.cards_used]
    shoe.drawn = [*shoe.drawn, *cards]
    events += [card_dealt(coup, shoe, start + i, card) for i, card in enumerate(cards)]
    settle(cmd, coup, shoe, result, events)
    return cards


def report_to_whole_coup(cmd: Command, coup: Round, card: str, play: Callable, settle: Callable) -> list[str]:
    """A card-reading shoe reports the coup's next card; once ``play(cards)`` has all it needs
    (it refuses with field ``cards`` until then) the coup is settled as ``deal_whole_coup``
    does. Returns the coup's cards so far."""
    shoe = reader_due(coup, active_shoe(coup.table))
    cards = [data["card"] for _, data in coup_events(coup, ["CardDealt"])]
    index = len(shoe.drawn)
    draw_reported(shoe, card)
    cards.append(card)
    events = [card_dealt(coup, shoe, index, card)]
    try:
        result = play(cards)
    except RuleError as exc:
        if exc.field != "cards":
            raise InvalidInput(exc.message, field="card") from exc
        result = None  # the coup wants more cards
    if result is None:
        append(cmd, coup, events, correlated=False)
        coup.save()
        shoe.save()
    else:
        settle(cmd, coup, shoe, result, events)
    return cards


# --- settlement ----------------------------------------------------------------------------------


def line_figures(line: object, /, **more) -> dict:
    """What every settled line reports: its outcome, stake, return, winnings and the house's part
    (cents), read from the engine's line (``more`` replaces or adds)."""
    return {
        "outcome": str(line.outcome),
        "stake_cents": line.stake_cents,
        "return_cents": line.return_cents,
        "winnings_cents": line.winnings_cents,
        "house_cents": line.house_cents,
        **more,
    }


def line_postings(coup: Round, patron: str, *, stake: int, returned: int, winnings: int) -> list[Leg]:
    """DESIGN.md's postings of a settled line: the layout's ``stake`` goes ``returned`` to the
    patron's chips and the rest to the tray; ``winnings`` from the tray to the patron."""
    table = coup.table.code
    house = accounts.table_tray(table)
    return posting_rules.bet_settled(
        table=table,
        patron_account=accounts.patron_chips(patron),
        house_account=house,
        stake=stake,
        returned=returned,
        winnings=winnings,
    )


def settlement_line(coup: Round, bet: Bet, patron: str, figures: dict, legs: list[Leg] | None = None) -> NewEvent:
    """One ``BetSettled`` of ``bet`` for ``patron`` (code) with ``figures`` (``stake_cents``,
    ``return_cents``, ``winnings_cents``…); its postings are ``legs``, by default the line's
    (``line_postings``: what is returned of the stake, and the winnings)."""
    if legs is None:
        won = figures["winnings_cents"]
        legs = line_postings(
            coup, patron, stake=figures["stake_cents"], returned=figures["return_cents"] - won, winnings=won
        )
    data = {"bet": str(bet.id), "round": str(coup.id), "table": coup.table.code, "patron": patron}
    return NewEvent("BetSettled", {**data, "position": bet.position, **figures, "chips": "value"}, legs)


def resolve(bet: Bet, coup: Round, staked: int, returned: int, outcome: str | None = None) -> NewEvent:
    """The bet's final state (by ``outcome``, else by its net: won, lost or pushed) and what came
    back to it (cents); saves it and returns its ``BetResolved``.

    One bet can be settled in several lines (hands, ante and raise, pots); ``BetResolved``
    records the bet's final state and the totals, so the replay-check can rebuild the ``Bet``
    row from events alone."""
    net = returned - staked
    getattr(bet, TRANSITIONS[outcome or ("won" if net > 0 else "lost" if net < 0 else "pushed")])()
    bet.return_cents = returned
    bet.save()
    resolved = {"bet": str(bet.id), "round": str(coup.id), "patron": bet.patron.code, "state": bet.state}
    return NewEvent("BetResolved", {**resolved, "staked_cents": staked, "return_cents": bet.return_cents})


def round_settled(coup: Round, staked: int, returned: int, **data) -> NewEvent:
    """``RoundSettled``: the coup's stakes and returns (cents) and the house's win, with ``data``."""
    totals = {"staked_cents": staked, "returned_cents": returned, "house_win_cents": staked - returned}
    return NewEvent("RoundSettled", {"round": str(coup.id), "table": coup.table.code, **data, **totals})

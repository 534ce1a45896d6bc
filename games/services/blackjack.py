"""Black jack coups through the ledger (RULES.md §Black jack).

The pure engine (``games.rules.blackjack.BlackjackCoup``) decides; this module feeds it the
bets, the cards and the seated players' decisions, and writes what it says:

- bets: ``BetPlaced`` (patron −s, layout +s), one per bettor and box;
- cards: ``CardDealt`` from the shoe's committed order (or reported by a card-reading shoe);
- decisions: ``PlayerDecided`` / ``FollowDecided`` / ``InsuranceDecided`` / ``EvenMoneyDecided``,
  each with the call that made it, and a posting for any stake it adds (double, split,
  insurance): patron −x, layout +x;
- immediate payments (blackjack against 2–9, even money, immediate payouts) as they happen,
  and every other line at the end, as ``BetSettled`` with DESIGN.md's postings.

The coup is not stored: each command rebuilds it by replaying the round's events through the
engine (deterministic), applies the new input and appends the records.
"""

from collections import defaultdict

from basis.money import format_cents
from ledger.commands import Command
from ledger.errors import ChipsRefused, InvalidInput, StateConflict
from ledger.store import NewEvent
from patrons.selectors import patron_get

from ..catalog.blackjack import SPEC
from ..models import Round, Shoe, Table
from ..rules import blackjack as bj
from ..rules import blackjack_theory as theory
from ..rules.blackjack_table import BlackjackTableRules
from . import card_table as ct
from .bet_keys import bet_key
from .blackjack_layout import on_layout_cents
from .shoes import active_shoe, save_after_coup

GAME = SPEC.code  # the game this module deals (games.catalog)

DECISIONS = {"hit", "stand", "double", "split", "insurance", "even_money", "follow"}
DECISION_EVENTS = {
    bj.Decided: "PlayerDecided",
    bj.FollowDecided: "FollowDecided",
    bj.InsuranceDecided: "InsuranceDecided",
    bj.EvenMoneyDecided: "EvenMoneyDecided",
}


def _check_beside_own_box(table: Table, coup: Round, who, box: int, seated: bool) -> None:
    """Sheet 004: a seated player bets on his own box and the boxes beside it (table option
    ``beside_own_box``); 400 on ``box`` otherwise."""
    mine = [b.position for b in coup.bets.all() if b.patron_id == who.pk]
    own = next((p["box"] for p in mine if p.get("seated")), None)
    ct.engine_step(
        lambda: table_rules(table).check_beside_own_box(
            box, seated=seated, own_box=own, other_boxes=[p["box"] for p in mine]
        )
    )


def table_rules(table: Table) -> BlackjackTableRules:
    rules = table.rules
    if rules and "behind_may_follow" not in rules:
        # A rule set recorded before the option existed: its bettors behind were asked to follow,
        # so the coups it deals (and replays) go on as they were dealt until the table reopens.
        rules = {**rules, "behind_may_follow": True}
    return BlackjackTableRules.from_dict(rules)


def _coup(round_id) -> Round:
    return ct.coup_for_update(round_id, GAME)


# --- bets ------------------------------------------------------------------------------


def blackjack_bet_place(
    *,
    round_id: str,
    patron: str,
    box: int,
    stake_cents: int,
    actor: str,
    seated: bool = False,
    idempotency_key: str | None = None,
) -> dict:
    """Bet ``stake_cents`` on ``box`` (1–7), as its seated player or behind it.

    Returns ``{"round", "bet", "box", "patron", "seated", "stake_cents", "version"}``. Raises
    ``InvalidInput`` (box, a second seated player, a fourth bet, limits), ``InsufficientChips``,
    ``StateConflict`` (betting closed).
    """

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        table = coup.table
        ct.betting_open(
            coup, f"betting is closed on coup {coup.number} of {table.code}", patron=patron, stake_cents=stake_cents
        )
        who = patron_get(patron)
        box_bet = ct.engine_step(lambda: bj.BoxBet(box=box, bettor=who.code, stake_cents=stake_cents, seated=seated))
        on_box = [b for b in coup.bets.select_related("patron") if b.position["box"] == box]
        if len(on_box) >= bj.MAX_BETS_PER_BOX:
            raise InvalidInput(f"box {box} already has {bj.MAX_BETS_PER_BOX} bets", field="box")
        if any(b.patron_id == who.pk for b in on_box):
            raise InvalidInput(f"{who.code} already bets on box {box}", field="box")
        if seated and any(b.position["seated"] for b in on_box):
            raise InvalidInput(f"box {box} already has its seated player", field="seated")
        if not seated and not any(b.position["seated"] for b in on_box):
            # Only the seated player decides: a bet behind an empty box could never be played.
            raise InvalidInput(f"box {box} has no seated player to bet behind", field="seated")
        rules = table_rules(table)
        if not seated and rules.behind_only_when_full:
            # Sheet 000: "Si la table est complète, il est possible de jouer debout et de miser sur
            # la case d'un (ou plusieurs) joueur assis": every box has its seated player first.
            taken = {b.position["box"] for b in coup.bets.all() if b.position["seated"]}
            if len(taken) < len(bj.BOXES):
                raise InvalidInput(
                    f"bets behind only when the table is full: {len(taken)} of {len(bj.BOXES)} boxes have a seated"
                    " player (table option behind_only_when_full)",
                    field="seated",
                )
        _check_beside_own_box(table, coup, who, box, seated)
        on_box_cents = sum(b.stake_cents for b in on_box)
        stake = ct.in_chip_increments(
            coup, who, stake_cents, rules.chips, lambda s: rules.check_stake(s, box_total_cents=on_box_cents)
        )
        ct.covered(coup, who, stake)
        position = {"game": "blackjack", "box": box, "seated": seated}
        lowered = ct.adjusted(stake_cents, stake)
        bet = ct.place_bet(cmd, coup, who, stake, position, box=box, seated=seated, box_bet=box_bet.box, **lowered)
        return ct.bet_summary(coup, bet, {"box": box}, seated=seated, stake_cents=stake, **lowered)

    request = {"round": str(round_id), "patron": patron, "box": box, "stake": stake_cents, "seated": seated}
    key = bet_key(round_id, idempotency_key)
    return ct.card_command("blackjack_bet_place", run, actor=actor, idempotency_key=key, **request)


# --- replay and drive ------------------------------------------------------------------


def _replay(coup: Round, rules: BlackjackTableRules) -> bj.BlackjackCoup:
    """The engine's coup as the round's events left it."""
    bets = [
        bj.BoxBet(box=b.position["box"], bettor=b.patron.code, stake_cents=b.stake_cents, seated=b.position["seated"])
        for b in coup.bets.select_related("patron").order_by("placed_at")
    ]
    if not bets:
        raise StateConflict("no bet on this coup: void it instead", field="round")
    game = bj.BlackjackCoup(rules.game, bets)
    for event_type, data in ct.coup_events(coup, ["CardDealt", *DECISION_EVENTS.values()]):
        if event_type == "CardDealt":
            game.deal(data["card"])
        elif "call" in data:
            _call(game, data["call"])
    return game


def _call(game: bj.BlackjackCoup, call: dict) -> list:
    """Apply a stored decision: ``{"method": "double", "args": {"box": 1, "bettor": "P00001", …}}``."""
    return getattr(game, call["method"])(**call["args"])


def _record_events(
    records: list, coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules, call: dict | None = None
) -> list[NewEvent]:
    """One event per engine record; a stake it adds is posted on it (patron −x, layout +x), and
    each line it pays at once follows it as a ``BetSettled``. The decision's call rides on its
    record, so a replay can make the same call."""
    events = []
    for record in records:
        data = {**bj.to_data(record), "round": str(coup.id), "table": coup.table.code}
        event_type = DECISION_EVENTS.get(type(record)) or data["type"]
        data.pop("type")
        legs = []
        bettor = getattr(record, "bettor", None)
        added = getattr(record, "stake_added_cents", 0) or getattr(record, "amount_cents", 0)
        if bettor and added:
            legs += ct.stake_added(coup, bettor, added)
            data["patron"] = bettor
        if call is not None and event_type in DECISION_EVENTS.values():
            data["call"], call = call, None
        events.append(NewEvent(event_type, data, legs))
        events += [_line_event(line, coup, game, rules) for line in getattr(record, "lines", ()) or ()]
    return events


def _line_event(line: bj.BetSettlement, coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules) -> NewEvent:
    """One settlement line (a bettor's hand, or his insurance) as ``BetSettled`` with DESIGN.md's postings.

    Its ``house_edge`` is the rate on the line's stake that makes stake × rate the line's
    theoretical win (``games.rules.blackjack_theory``: the table's edge on the initial stake
    only, insurance and even money at their own edge); ``edge_per_initial_bet`` is the rule
    set's edge it derives from."""
    bet = next(
        b for b in coup.bets.select_related("patron") if b.position["box"] == line.box and b.patron.code == line.bettor
    )
    dealer = game.dealer_cards
    rate = theory.line_edge(
        line,
        edge=rules.edge(),
        initial_stake_cents=bet.stake_cents,
        decks=rules.game.decks,
        up_card=dealer[0] if dealer else None,
    )
    figures = ct.line_figures(
        line,
        box=line.box,
        hand_index=line.hand_index,
        # RULES.md: 3:2 on odd cents rounds down; the fraction not paid is recorded
        unpaid_fraction_cents=str(line.unpaid_fraction),
        paid_at_once=line.paid_at_once,
        house_edge=str(rate),
        edge_per_initial_bet=str(rules.edge()),
    )
    return ct.settlement_line(coup, bet, line.bettor, figures)


def _drive(
    cmd: Command, coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules, events: list, shoe: Shoe | None
) -> None:
    """Deal from the shoe while the engine wants cards; settle when it is over; append."""
    events += ct.deal_from_order(
        shoe, lambda: game.next_draw() is not None, lambda card, index: _deal(game, card, index, shoe, coup, rules)
    )
    settled = game.state == "settled"
    if settled:
        events += _settlement_events(coup, game, rules)
    ct.close_coup(cmd, coup, events, {"dealer": list(game.dealer_cards)} if settled else None)
    if shoe is not None:
        save_after_coup(cmd, shoe)


def _deal(
    game: bj.BlackjackCoup, card: str, index: int, shoe: Shoe, coup: Round, rules: BlackjackTableRules
) -> list[NewEvent]:
    target = game.next_draw()
    # With a hole card (sheet 004's option) the dealer's second card of the deal lies face down:
    # marked so, every reader withholds it (and the total it makes) until the coup is over.
    hole = rules.game.hole_card and target == bj.DEALER and len(game.dealer_cards) == 1
    records = ct.engine_step(lambda: game.deal(card))
    dealt, rest = records[0], records[1:]
    face = {"face": "hole"} if hole else {}
    dealt_event = ct.card_dealt(
        coup, shoe, index, card, to=bj.to_data(target), total=dealt.total, soft=dealt.soft, **face
    )
    return [dealt_event, *_record_events(rest, coup, game, rules)]


def _settlement_events(coup: Round, game: bj.BlackjackCoup, rules: BlackjackTableRules) -> list[NewEvent]:
    bets = {(b.position["box"], b.patron.code): b for b in coup.bets.select_related("patron")}
    staked, returned = defaultdict(int), defaultdict(int)
    events = []
    for line in game.settle():
        bet = bets[(line.box, line.bettor)]
        staked[bet.pk] += line.stake_cents
        returned[bet.pk] += line.return_cents
        if not line.paid_at_once:  # those were written when they were paid
            events.append(_line_event(line, coup, game, rules))
    events += [ct.resolve(bet, coup, staked[bet.pk], returned[bet.pk]) for bet in bets.values()]
    dealer = list(game.dealer_cards)
    events.append(ct.round_settled(coup, sum(staked.values()), sum(returned.values()), dealer=dealer, bets=len(bets)))
    return events


def _summary(coup: Round, game: bj.BlackjackCoup) -> dict:
    """The coup as the dealing commands answer it. The dealer's hole card (sheet 004's option)
    reads ``None`` while the coup is in play, as every other reader shows it (``ledger.withheld``):
    the answer is also kept as the command's idempotency record."""
    awaiting, draw = game.awaiting(), game.next_draw()
    dealer = list(game.dealer_cards)
    if game.rules.hole_card and len(dealer) > 1 and coup.state in Round.IN_PLAY:
        dealer[1] = None
    return ct.coup_summary(
        coup,
        engine_state=game.state,
        dealer=dealer,
        awaiting=bj.to_data(awaiting) if awaiting else None,
        needs_card=bj.to_data(draw) if draw else None,
        hands=[bj.to_data(h) for h in game.hands()],
    )


# --- commands ----------------------------------------------------------------------------


def blackjack_deal(*, round_id: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Start dealing a coup whose betting is closed: cards come from the shoe until a decision
    is awaited (or, with a card-reading shoe, until the next card must be reported)."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        shoe = ct.shoe_in_play(coup)
        ct.bets_closed(coup)
        rules = table_rules(coup.table)
        game = _replay(coup, rules)
        _drive(cmd, coup, game, rules, ct.dealing_started(coup, shoe), shoe)
        return _summary(coup, game)

    return ct.card_command("blackjack_deal", run, actor=actor, idempotency_key=idempotency_key, round=str(round_id))


def blackjack_report_card(*, round_id: str, card: str, actor: str, idempotency_key: str | None = None) -> dict:
    """A card-reading shoe reports the next card of the coup. Refused (400, field ``card``) when
    the shoe cannot contain it or no card is due."""

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} is {coup.state}", field="round")
        shoe = active_shoe(coup.table)
        if shoe is None or shoe.mode != Shoe.Mode.READER:
            raise StateConflict("cards are reported only by a card-reading shoe", field="shoe")
        rules = table_rules(coup.table)
        game = _replay(coup, rules)
        events = ct.reported(
            shoe,
            card,
            game.next_draw() is not None,
            "no card is due: a decision is awaited",
            lambda card, index: _deal(game, card, index, shoe, coup, rules),
        )
        _drive(cmd, coup, game, rules, events, shoe)
        return _summary(coup, game)

    request = {"round": str(round_id), "card": card}
    return ct.card_command("blackjack_card", run, actor=actor, idempotency_key=idempotency_key, **request)


def blackjack_decide(
    *,
    round_id: str,
    box: int,
    hand_index: int | None = None,
    patron: str,
    action: str,
    amount_cents: int | None = None,
    accept: bool | None = None,
    follow: bool | None = None,
    follows: str | None = None,
    actor: str,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """A player's decision: ``hit``, ``stand``, ``double``, ``split`` (the seated player),
    ``insurance`` (``amount_cents``, 0 declines; in the table's chip increments: refused, kind
    ``chip_increment``, or lowered with ``off_chips = adjust``), ``even_money`` (``accept``),
    ``follow`` (a bettor behind: ``follows`` = "double"|"split", ``follow`` true/false).

    Returns the coup summary (state, dealer cards, hands, the decision awaited). Raises
    ``InvalidInput`` naming the field (not seated at that box, a stood hand, a double outside
    the allowed totals, a non-pair split, insurance over half the stake, …),
    ``InsufficientChips`` for a stake he cannot cover, ``StateConflict`` (settled coup),
    ``VersionConflict``.
    """
    if action not in DECISIONS:
        raise InvalidInput(f"action is one of {', '.join(sorted(DECISIONS))}", field="action")
    if action == "follow" and follows not in ("double", "split"):
        raise InvalidInput("say which decision is followed: 'double' or 'split'", field="follows")
    if action == "follow" and type(follow) is not bool:
        raise InvalidInput("follow is true or false", field="follow")
    args: dict = {"box": box}
    if action in ("hit", "stand", "double", "split"):
        args["hand_index"] = hand_index
    elif action == "insurance":
        args["amount_cents"] = amount_cents
    elif action == "even_money":
        args["accept"] = accept
    else:
        args.update(action=follows, follow=follow)

    def run(cmd: Command) -> dict:
        coup = _coup(round_id)
        if coup.state != Round.State.DEALING:
            raise StateConflict(f"coup {coup.number} of {coup.table.code} is {coup.state}", field="round")
        ct.at_version(coup, expected_version)
        rules = table_rules(coup.table)
        who = patron_get(patron)
        given, lowered = dict(args), {}
        if action == "insurance" and type(amount_cents) is int and amount_cents > 0:
            # an insurance stake is chips too (the table's increments; adjust lowers it)
            chips = rules.chips
            given["amount_cents"] = ct.within_limits(
                coup, who, amount_cents, lambda: chips.stake(amount_cents), field="amount_cents"
            )
            lowered = ct.adjusted(amount_cents, given["amount_cents"])
        call = {"method": action, "args": {"box": box, "bettor": who.code, **given}, **lowered}
        game = _replay(coup, rules)
        records = ct.engine_step(lambda: _call(game, call))
        _check_stakes_covered(records, coup)
        _drive(cmd, coup, game, rules, _record_events(records, coup, game, rules, call), active_shoe(coup.table))
        return _summary(coup, game)

    request = {"round": str(round_id), "patron": patron, "box": box, "action": action, "hand_index": hand_index}
    request.update(amount=amount_cents, accept=accept, follow=follow, follows=follows)
    request["expected_version"] = expected_version
    return ct.card_command("blackjack_decide", run, actor=actor, idempotency_key=idempotency_key, **request)


def _check_stakes_covered(records: list, coup: Round) -> None:
    added: dict[str, int] = defaultdict(int)
    for record in records:
        bettor = getattr(record, "bettor", None)
        amount = getattr(record, "stake_added_cents", 0) or getattr(record, "amount_cents", 0)
        if bettor and amount:
            added[bettor] += amount
    for bettor, amount in added.items():
        if ct.chips_held(coup, bettor) < amount:
            where = {"table": coup.table.code, "round_id": coup.id, "patron": bettor}
            raise ChipsRefused(
                f"{bettor} holds less than the {format_cents(amount, coup.table.currency)} this decision stakes",
                stake_cents=amount,
                field="amount_cents",
                **where,
            )


SPEC.provide(
    deal=blackjack_deal, report_card=blackjack_report_card, batch_bet=blackjack_bet_place, on_layout=on_layout_cents
)

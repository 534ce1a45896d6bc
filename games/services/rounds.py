"""The life of a coup: open for bets, rien ne va plus, record the number, settle; or void.

Settlement is one append of many events (``ResultRecorded``, one ``BetSettled`` per bet,
``RoundSettled``): it happens whole or not at all.
"""

import json
from functools import lru_cache

from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast
from django_fsm import TransitionNotAllowed

from core.ids import uuid_of
from ledger import accounts, posting_rules
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import NewEvent, collector_paused
from staff.roles import Role, require_second_signature

from ..bet_record import bets_as_recorded
from ..catalog import spec
from ..models import Bet, Round, Shoe, Table
from ..rules.roulette import Outcome, Settlement, house_edge, make_bet, settle
from ..selectors import roulette_rules, round_for_update, round_in_play, table_for_update
from . import prison
from .shoes import DRAW_EVENTS, active_shoe


def _summary(coup: Round) -> dict:
    return {
        "round": str(coup.id),
        "table": coup.table.code,
        "number": coup.number,
        "state": coup.state,
        "version": coup.version,
        "result": coup.result,
    }


def round_open(*, table: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Open the next coup at ``table`` for betting. Returns the round summary
    ``{"round", "table", "number", "state", "version", "result"}``. ``StateConflict`` (409)
    when the table is closed, a coup is still in play, or the gaming day is closed."""
    with ledger_command(
        actor=actor, request={"op": "round_open", "table": table}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        the_table = table_for_update(table)
        if the_table.state != Table.State.OPEN:
            raise StateConflict(f"table {table} is closed", field="table")
        if round_in_play(the_table):
            raise StateConflict(f"table {table} already has a coup in play", field="table")
        refuse_if_closed(current_gaming_day(), what=f"no coup is played at {table} on it", field="table")
        if spec(the_table.game).dealt_from_a_shoe:
            shoe = active_shoe(the_table)
            if shoe is None or shoe.state != Shoe.State.IN_PLAY:
                raise StateConflict(f"no shoe in play at {table}: start a new shoe", field="table")
        the_table.rounds_played += 1
        the_table.save()
        coup = Round.objects.create(table=the_table, number=the_table.rounds_played)
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=0,
            correlation_id=str(coup.id),
            events=[NewEvent("RoundOpened", {"round": str(coup.id), "table": table, "number": coup.number})],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(_summary(coup))


def _transition(coup: Round, method: str, what: str) -> None:
    try:
        getattr(coup, method)()
    except TransitionNotAllowed:
        raise StateConflict(
            f"coup {coup.number} of {coup.table.code} is {coup.state}: cannot {what}", field="round"
        ) from None


def round_close_bets(
    *, round_id: str, actor: str, expected_version: int | None = None, idempotency_key: str | None = None
) -> dict:
    """Rien ne va plus: no bet is accepted after this. Returns the round summary."""
    request = {"op": "round_close_bets", "round": str(round_id), "expected_version": expected_version}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = round_for_update(round_id)
        _transition(coup, "close_bets", "close betting")
        (event,) = cmd.append(
            stream=coup.stream,
            expected_version=coup.version if expected_version is None else expected_version,
            correlation_id=str(coup.id),
            events=[NewEvent("BettingClosed", {"round": str(coup.id), "table": coup.table.code})],
        )
        coup.version = event.version
        coup.save()
        return cmd.finish(_summary(coup))


_BET_TRANSITION = {Outcome.WON: "win", Outcome.LOST: "lose", Outcome.HALF_LOST: "lose_half"}
# The state a placed bet ends in for each outcome: the target of that transition from
# ``placed``, read from Bet's state machine once. The settled bets are plain rows (no model
# instance to run the transition on); every one of them is ``placed``, so each is allowed.
_SETTLED_STATE = {
    outcome: getattr(Bet, method)._django_fsm.get_transition(Bet.State.PLACED).target
    for outcome, method in _BET_TRANSITION.items()
}

# The exact edge of a position depends only on the position and the table's rules; computing
# it enumerates 37 results with fractions, which was a third of a 30,000-bet settlement.
# A live table has a few hundred distinct positions.
_house_edge = lru_cache(maxsize=4096)(house_edge)


def _save_bets(bets: list[Bet], fields: tuple[str, ...]) -> None:
    """Write the bets' ``fields`` as they are in memory (see ``_update_bets``)."""
    groups: dict[tuple, list] = {}
    for bet in bets:
        groups.setdefault(tuple(getattr(bet, name) for name in fields), []).append(bet.pk)
    _update_bets(fields, groups)


def _update_bets(fields: tuple[str, ...], groups: dict[tuple, list]) -> None:
    """One UPDATE per distinct tuple of ``fields`` values, by primary keys.

    ``bulk_update`` builds one CASE over every row per field; PostgreSQL evaluates it row by
    row, so its cost grows with the square of the bets (minutes for 30,000). A coup
    has few distinct (state, return) pairs: an update per pair is linear. On PostgreSQL the
    keys go as one array (``= ANY``): half the time of the ORM's ``IN`` of 5,000 parameters.
    """
    if connection.vendor == "postgresql":
        assignments = ", ".join(f"{Bet._meta.get_field(name).column} = %s" for name in fields)
        with connection.cursor() as cursor:
            for values, keys in groups.items():
                cursor.execute(
                    f"UPDATE {Bet._meta.db_table} SET {assignments} WHERE {Bet._meta.pk.column} = ANY(%s)",
                    [*values, keys],
                )
        return
    for values, keys in groups.items():
        for start in range(0, len(keys), 5_000):
            Bet.objects.filter(pk__in=keys[start : start + 5_000]).update(**dict(zip(fields, values, strict=True)))


def round_record_result(
    *, round_id: str, number: int, actor: str, expected_version: int | None = None, idempotency_key: str | None = None
) -> dict:
    """Record the winning number (0–36) and settle every bet of the coup by the table's rules.

    Returns the round summary plus ``{"staked_cents", "returned_cents", "house_win_cents",
    "bets_settled"}``. Raises ``InvalidInput`` (``number``), ``StateConflict`` (betting not
    closed yet, or already settled: a second settle gets 409 — case C19), ``VersionConflict``.
    """
    if type(number) is not int or not 0 <= number <= 36:
        raise InvalidInput("the winning number is a whole number from 0 to 36", field="number")
    request = {
        "op": "round_record_result",
        "round": str(round_id),
        "number": number,
        "expected_version": expected_version,
    }
    # Thousands of bets' events built and written: no garbage collections over them meanwhile.
    with collector_paused(), ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = round_for_update(round_id)
        if not spec(coup.table.game).layout_bets:
            raise InvalidInput(
                f"a winning number is for roulette; {spec(coup.table.game).in_a_sentence} coups are dealt",
                field="round",
            )
        _transition(coup, "deal", "record a result")
        # Paid from the rows below: each must be what its events placed (games.bet_record).
        bets_as_recorded(coup)
        table = coup.table
        rules = roulette_rules(table)
        coup.result = {"number": number}
        events = [NewEvent("ResultRecorded", {"round": str(coup.id), "table": table.code, "number": number})]
        # Bets in prison from earlier coups are decided by this number first (RULES.md §Prison bets).
        held = prison.prisoners(table)
        for bet in held:
            step = settle(
                make_bet(**bet.position),
                bet.stake_cents,
                number,
                zero_rule=rules.zero_rule,
                prison_level=bet.prison_level,
                double_prison=rules.double_prison,
            )
            events.append(prison.resolve(bet, coup, step.outcome.value, step.prison_level_after))
        # Plain rows, not model instances: building 30,000 Bets and their patrons was a third of
        # the games layer's share of a settlement. No row lock either (it was half of
        # this read): every command that changes a bet runs under the ledger writer lock, taken
        # first thing (ledger.commands), which the card games' settlements rely on too.
        # The position comes as its JSON text, parsed once per distinct position (decoding
        # 30,000 copies of the same few positions cost more than fetching the rows).
        placed = coup.bets.filter(state=Bet.State.PLACED).annotate(position_json=Cast("position", TextField()))
        bets = list(placed.values_list("id", "patron__code", "position_json", "stake_cents", "chips"))
        staked = returned = 0
        settled: dict[tuple, list] = {}  # (state, return_cents) -> keys of the bets
        to_prison: list[tuple[int, object, int]] = []  # (index in events, bet key, level)
        verdicts: dict = {}
        coup_text = (str(coup.id), table.code)
        for bet in bets:
            event, outcome = _settle_bet(bet, coup_text, number, rules, verdicts)
            if event is None:  # zero en prison: imprisoned below, in the same place of the batch
                to_prison.append((len(events), bet[0], outcome.prison_level_after))
                events.append(None)
                continue
            events.append(event)
            staked += outcome.stake_cents
            returned += outcome.return_cents
            settled.setdefault((_SETTLED_STATE[outcome.outcome], outcome.return_cents), []).append(bet[0])
        if to_prison:
            # Every even chance of the coup at worst, so one query, not one per bet.
            prisoners = Bet.objects.select_related("patron").in_bulk([key for _, key, _ in to_prison])
            for index, key, level in to_prison:
                events[index] = prison.imprison(prisoners[key], coup, level)
        _transition(coup, "settle", "settle")
        events.append(
            NewEvent(
                "RoundSettled",
                {
                    "round": str(coup.id),
                    "table": table.code,
                    "number": number,
                    "bets": len(bets),
                    "staked_cents": staked,
                    "returned_cents": returned,
                    "house_win_cents": staked - returned,
                },
            )
        )
        saved = cmd.append(
            stream=coup.stream,
            expected_version=coup.version if expected_version is None else expected_version,
            correlation_id=str(coup.id),
            events=events,
        )
        # The prisoners too in a few UPDATEs, not a save each: after a zero a whole coup's even
        # chances can be in prison.
        _save_bets(held, ("state", "return_cents", "prison_level"))
        _update_bets(("state", "return_cents"), settled)
        if to_prison:
            _save_bets(list(prisoners.values()), ("state", "return_cents", "prison_level"))
        coup.version = saved[-1].version
        coup.save()
        return cmd.finish(
            {
                **_summary(coup),
                "bets_settled": len(bets),
                "staked_cents": staked,
                "returned_cents": returned,
                "house_win_cents": staked - returned,
            }
        )


def _settle_bet(
    bet: tuple, coup_text: tuple[str, str], number: int, rules, verdicts: dict
) -> tuple[NewEvent | None, Settlement]:
    """Settle one bet, ``(id, patron code, position as JSON text, stake, chips)``, of the coup
    ``coup_text`` = ``(round id, table code)`` (as text once a coup, not once a bet): its
    ``BetSettled`` event and its settlement; no event when zero sends it to prison (the caller
    imprisons it).

    ``verdicts`` keeps the engine's answer per (position, stake) for the coup: thousands of
    bets share a few hundred of them, and parsing the position and settling it was most of
    the games layer's time per bet. The events of one position share its parsed
    ``position`` dict (event data is never changed once built); they are otherwise built
    exactly as before.
    """
    key, patron, position_json, stake, chips = bet
    round_id, table = coup_text
    verdict = verdicts.get((position_json, stake))
    if verdict is None:
        position = json.loads(position_json)
        on_layout = make_bet(**position)
        outcome = settle(on_layout, stake, number, zero_rule=rules.zero_rule, double_prison=rules.double_prison)
        verdict = verdicts[position_json, stake] = (
            position,
            outcome,
            str(on_layout.payout),
            # the exact edge of this bet under the table's rules: the rating's theoretical win
            str(_house_edge(on_layout, rules.zero_rule)),
            # RULES.md: winnings are rounded down to the cent; the fraction not paid is recorded.
            str(outcome.unpaid_fraction),
        )
    position, outcome, payout, edge, unpaid = verdict
    if outcome.outcome == Outcome.IMPRISONED:
        return None, outcome
    colour = chips == Bet.Chips.COLOUR
    patron_account = accounts.patron_colour(patron, table) if colour else accounts.patron_chips(patron)
    house_account = accounts.table_colour_issued(table) if colour else accounts.table_tray(table)
    kept_back = outcome.return_cents - outcome.winnings_cents  # the part of the stake that goes back
    event = NewEvent(
        "BetSettled",
        {
            "bet": str(key),
            "round": round_id,
            "table": table,
            "patron": patron,
            "position": position,
            "chips": chips,
            "number": number,
            "outcome": outcome.outcome.value,
            "stake_cents": stake,
            "return_cents": outcome.return_cents,
            "winnings_cents": outcome.winnings_cents,
            "house_cents": outcome.house_cents,
            "payout": payout,
            "house_edge": edge,
            "zero_rule": rules.zero_rule.value,
            "unpaid_fraction_cents": unpaid,
        },
        posting_rules.bet_settled(
            table=table,
            patron_account=patron_account,
            house_account=house_account,
            stake=stake,
            returned=kept_back,
            winnings=outcome.winnings_cents,
        ),
    )
    return event, outcome


def past_the_deal(coup: Round) -> bool:
    """Whether coup ``coup``'s outcome is under way, so that voiding it needs a second signature:
    at a card game once any card of it was drawn (a ``CardDealt`` or ``CardBurnt`` on its stream),
    at roulette (no cards) once its betting closed (rien ne va plus: the ball is spun)."""
    if coup.state not in Round.IN_PLAY:
        return False
    if not spec(coup.table.game).cards:
        return coup.state != Round.State.BETTING
    return Event.objects.filter(stream=coup.stream, type__in=DRAW_EVENTS).exists()


def round_past_the_deal(round_id: object) -> bool:
    """``past_the_deal`` of coup ``round_id`` (its id), read without a lock: False when there is
    no such coup (the void itself then answers 404)."""
    try:
        key = uuid_of(round_id)
    except ValueError:
        return False
    coup = Round.objects.select_related("table").filter(pk=key).first()
    return coup is not None and past_the_deal(coup)


VOID_AFTER_THE_DEAL = "voiding a coup after the deal"


def round_void(
    *, round_id: str, reason: str, actor: str, approver: str | None = None, idempotency_key: str | None = None
) -> dict:
    """Void a coup in play: every stake goes back untouched, what is still on the layout of it
    (the game's ``on_layout``); the game's ``after_void`` then (Caribbean stud: the coup's own
    deck is closed and revealed, ``caribbean.void_decks``). Before the deal (``past_the_deal``:
    no card drawn; at roulette, betting still open) one person voids it; after it, ``approver``
    (another pit boss or a cage supervisor, who confirmed the approval ``round_void`` from his
    own session) signs too, recorded as ``approved_by`` in ``RoundVoided`` (so is an approver
    given before the deal). Returns the round summary plus ``{"bets_returned"}`` (and
    ``"approved_by"`` when signed). Raises ``InvalidInput`` (400: no reason), ``NotFound``
    (404: no such coup), ``RoleRequired`` (403: after the deal without an approver, or one
    who is the actor or holds neither role; an approver given before the deal is checked the
    same way), ``StateConflict`` (409: settled or voided already)."""
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("say why the coup is void", field="reason")
    signed = {"approver": approver} if approver is not None else {}
    with ledger_command(
        actor=actor,
        request={"op": "round_void", "round": str(round_id), "reason": reason, **signed},
        idempotency_key=idempotency_key,
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        coup = round_for_update(round_id)
        dealt = past_the_deal(coup)
        _transition(coup, "void", "void")
        if dealt or approver is not None:
            require_second_signature(VOID_AFTER_THE_DEAL, approver, actor, Role.PIT_BOSS, Role.CAGE_SUPERVISOR)
        bets_as_recorded(coup)  # the stakes given back are read from the rows
        table = coup.table
        bets = list(coup.bets.select_for_update().select_related("patron").filter(state=Bet.State.PLACED))
        # What each bet still has on the layout: its stake, or at black jack also its doubles,
        # splits and insurance, less what was already paid at once (blackjack, even money).
        game = spec(table.game)
        on_layout = game.service("on_layout")
        outstanding = on_layout(coup) if on_layout is not None else {}
        events = []
        for bet in bets:
            amount = outstanding.get(str(bet.id), bet.stake_cents)
            bet.give_back()
            bet.return_cents = amount
            colour = bet.chips == Bet.Chips.COLOUR
            patron_account = accounts.patron_colour(bet.patron.code, table.code) if colour else bet.patron.chips_account
            events.append(
                NewEvent(
                    "BetReturned",
                    {
                        "bet": str(bet.id),
                        "round": str(coup.id),
                        "patron": bet.patron.code,
                        "stake_cents": amount,
                    },
                    posting_rules.bet_settled(
                        table=table.code,
                        patron_account=patron_account,
                        house_account=accounts.table_tray(table.code),
                        stake=amount,
                        returned=amount,
                        winnings=0,
                    )
                    if amount
                    else [],
                )
            )
        voided = {"round": str(coup.id), "table": table.code, "reason": reason, **_approved_by(approver)}
        events.append(NewEvent("RoundVoided", voided))
        saved = cmd.append(
            stream=coup.stream, expected_version=coup.version, correlation_id=str(coup.id), events=events
        )
        _save_bets(bets, ("state", "return_cents"))
        coup.version = saved[-1].version
        coup.save()
        after_void = game.service("after_void")
        if after_void is not None:  # e.g. a Caribbean coup's own deck, spent as settling would
            after_void(cmd, coup)
        return cmd.finish({**_summary(coup), "bets_returned": len(bets), **_approved_by(approver)})


def _approved_by(approver: str | None) -> dict:
    return {"approved_by": approver} if approver is not None else {}

"""A live floor for the demo: a background player that keeps every game's table busy
at a human pace, through the same services as the dealers' terminals and the cage.

``FloorSimulator.run()`` opens what is closed (cage shift, tables), then plays one coup at a
time, table after table: bets go down, a pause (the floor shows the coup in play), the coup is
dealt or the ball dropped, a pause. Patrons arrive (registered, buy in at the table or at the
cage), play, and leave (colour chips changed back, chips redeemed at the cage); now and then a
tray gets a fill or gives a credit, and a patron tries a bet over the table's limit, which is
refused and recorded (``demo.day.record_refusal``). ``manage.py simulate_floor`` runs it.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import DatabaseError, connection

from basis.money import format_cents
from cashier.services.cage import chips_purchase, chips_redeem
from cashier.services.slips import slip_accept, slip_issue, slip_request
from core.denominations import chip_denominations, decompose
from games.catalog import baccarat, blackjack, caribbean_stud, english_roulette, spec, trente_quarante
from games.catalog import classic_stud as classic_stud_game
from games.models import Bet, ColourStack, Shoe, Table
from games.rules.basic_strategy import basic_decision
from games.rules.poker_hands import evaluate
from games.services.baccarat import baccarat_bet
from games.services.bets import bet_place
from games.services.blackjack import blackjack_bet_place, blackjack_deal, blackjack_decide
from games.services.caribbean import caribbean_ante, caribbean_decide
from games.services.classic_stud import classic_stud_act, classic_stud_sit
from games.services.colour_chips import colour_chips_buy, colour_chips_change_inverse
from games.services.dealing import deal
from games.services.rounds import round_close_bets, round_open, round_record_result, round_void
from games.services.shoes import active_shoe, shoe_close, shoe_start
from games.services.tables import table_buy_in
from games.services.trente_quarante import tq_bet
from ledger import accounts, outage, store
from ledger.errors import DomainError
from ledger.models import Event
from patrons.models import Patron
from patrons.selectors import patron_chips_cents
from patrons.services.patrons import patron_register

from . import classic_stud
from .day import CASHIER, DEALER, PIT_BOSS, RUNNER, demo_table_open, record_refusal
from .names import guest
from .roulette import _ensure_cage, void_leftover_coup

# The live floor's tables: code → (game, first opener in cents, rules).
TABLES = {
    "R1": (english_roulette.SPEC.code, 5_000_000, {}),
    "B1": (blackjack.SPEC.code, 5_000_000, {}),
    "C1": (caribbean_stud.SPEC.code, 2_000_000, {}),
    "S1": (classic_stud_game.SPEC.code, classic_stud.OPENER_CENTS, classic_stud.RULES),  # as the demo day's
    "P1": (baccarat.SPEC.code, 3_000_000, {}),
    "T1": (trente_quarante.SPEC.code, 3_000_000, {}),
}
SEATS = 4  # patrons a table keeps at most
DATABASE_PROBE_SECONDS = 2.0  # how long one look at a database that went away may take
DATABASE_POLL_SECONDS = 5.0  # the longest pause between two looks
FLOOR_DOCUMENT = "identity card FL"  # the floor guests' documents: "identity card FL R1-1733500000-3"


def tidy_floor() -> int:
    """Put right what a stopped background player left at its open tables, so that the day it
    played can be closed (the demo closes yesterday's, which the floor may have played): a coup
    in play voided, every colour stack still out changed back. Returns the stacks changed back."""
    changed = 0
    for code in TABLES:
        table = Table.objects.filter(code=code, state=Table.State.OPEN).first()
        if table is None:
            continue
        void_leftover_coup(code)
        for stack in ColourStack.objects.filter(table=table, state=ColourStack.State.ACTIVE).select_related("patron"):
            colour_chips_change_inverse(table=code, patron=stack.patron.code, actor=DEALER)
            changed += 1
    return changed


COLOUR_UNIT_CENTS = 200


@dataclass
class FloorStats:
    coups: int = 0
    bets: int = 0
    refused: int = 0
    arrivals: int = 0
    departures: int = 0
    slips: int = 0
    by_table: dict[str, int] = field(default_factory=dict)


class FloorSimulator:
    """One background player for the whole floor. ``pace``: seconds between two steps (a coup
    takes two: bets, then the deal); ``rng``: the patrons' choices (balls and shoes stay random)."""

    def __init__(
        self, *, pace: float = 3.0, rng: random.Random | None = None, out=print, tables=None, beat=None, waiting=None
    ):
        self.pace = pace
        self.beat = beat or (lambda stats: None)  # called after each step: the player's heartbeat
        self.waiting = waiting or (lambda why: None)  # called when it waits for the database
        self.rng = rng or random.Random()
        self.out = out
        self.tables = list(tables or TABLES)
        self.seated: dict[str, list[str]] = {code: [] for code in self.tables}
        self.stats = FloorStats()
        self._guests = 0

    # --- the floor opens ---------------------------------------------------------------------

    def open_floor(self) -> None:
        """The cage's float and a cashier shift, then every table open (opener counted)."""
        _ensure_cage(share=2)  # half the main bank: the other half for the cashier's own window
        for code in self.tables:
            game, opener, rules = TABLES[code]
            void_leftover_coup(code)
            table = Table.objects.filter(code=code).first()
            if table is None or table.state != Table.State.OPEN:
                demo_table_open(code, game, opener, rules)
            self.seated[code] = self._still_seated(code)

    def _reopen(self, code: str) -> None:
        table = Table.objects.filter(code=code).first()
        if table is None or table.state != Table.State.OPEN:
            game, opener, rules = TABLES[code]
            demo_table_open(code, game, opener, rules)
        self.seated[code] = [p for p in self.seated[code] if patron_chips_cents(p) > 0]

    def _still_seated(self, code: str) -> list[str]:
        """Patrons of the simulator who still hold chips (a restart finds them again)."""
        guests = Patron.objects.filter(document__startswith=f"{FLOOR_DOCUMENT} {code}-").order_by("-code")
        codes = [p for p in guests.values_list("code", flat=True)[:50] if patron_chips_cents(p) > 0]
        return codes[:SEATS]

    # --- patrons -----------------------------------------------------------------------------

    def arrive(self, code: str) -> str:
        """A new patron sits down at ``code``: cash at the table (into the drop box) or chips
        bought at the cage; at roulette he also buys colour chips."""
        self._guests += 1
        seat = f"{code}-{int(time.time())}-{self._guests}"
        name, _ = guest(f"floor {seat}")
        # The document names the table and the moment: a restarted player finds his guests by it.
        document = f"{FLOOR_DOCUMENT} {seat}"
        patron = patron_register(kind="identified", name=name, document=document, actor=CASHIER)["patron"]
        amount = self.rng.choice([20_000, 50_000, 100_000])
        if self.rng.random() < 0.7:
            table_buy_in(code=code, patron=patron, amount_cents=amount, actor=DEALER)
        else:
            chips_purchase(patron=patron, amount_cents=amount, actor=CASHIER)
        if spec(TABLES[code][0]).layout_bets:  # roulette's patrons play colour chips
            colour_chips_buy(
                table=code,
                patron=patron,
                chips=amount // 2 // COLOUR_UNIT_CENTS,
                unit_value_cents=COLOUR_UNIT_CENTS,
                actor=DEALER,
            )
        self.seated[code].append(patron)
        self.stats.arrivals += 1
        self.out(f"  {patron} sits down at {code} with {format_cents(amount)}")
        return patron

    def leave(self, code: str, patron: str) -> None:
        """``patron`` leaves ``code``: colour chips changed back, his chips redeemed at the cage."""
        if spec(TABLES[code][0]).layout_bets and store.balance(accounts.patron_colour(patron, code)):
            colour_chips_change_inverse(table=code, patron=patron, actor=DEALER)
        held = patron_chips_cents(patron)
        if held:
            chips_redeem(patron=patron, amount_cents=held, actor=CASHIER)
        self.seated[code].remove(patron)
        self.stats.departures += 1
        self.out(f"  {patron} leaves {code}")

    def comings_and_goings(self, code: str) -> None:
        players = self.seated[code]
        for patron in list(players):
            broke = patron_chips_cents(patron) < 2_000 and not self._colour(code, patron)
            if broke or self.rng.random() < 0.04:
                self.leave(code, patron)
        while len(players) < 2 or (len(players) < SEATS and self.rng.random() < 0.15):
            self.arrive(code)

    def _colour(self, code: str, patron: str) -> int:
        if not spec(TABLES[code][0]).layout_bets:
            return 0
        return store.balance(accounts.patron_colour(patron, code))

    # --- the trays ---------------------------------------------------------------------------

    def maybe_slip(self, code: str) -> None:
        """Now and then a fill (a tray running low) or a credit (a tray grown heavy)."""
        if self.rng.random() >= 0.03:
            return
        opener = TABLES[code][1]
        tray = store.balance(accounts.table_tray(code))
        kind = "fill" if tray < opener else "credit"
        amount = self.rng.choice([20_000, 50_000, 100_000])
        if kind == "credit" and tray - amount < opener // 2:
            return
        slip = slip_request(
            kind=kind, table=code, denominations=decompose(amount, chip_denominations()), actor=PIT_BOSS
        )
        slip_issue(kind=kind, serial=slip["serial"], runner=RUNNER, actor=CASHIER)
        if kind == "fill":
            slip_accept(kind=kind, serial=slip["serial"], actor=DEALER, count=slip["denominations"])
        else:  # a credit is counted in at the cage, by the cashier who prepared its slip
            slip_accept(kind=kind, serial=slip["serial"], actor=CASHIER, count=slip["denominations"])
        self.stats.slips += 1
        self.out(f"  {kind} of {format_cents(amount)} at {code}")

    # --- one coup ----------------------------------------------------------------------------

    def _try(self, place, **kwargs) -> bool:
        try:
            place(**kwargs)
        except DomainError as exc:
            self.stats.refused += record_refusal(exc, actor=DEALER)
            return False
        self.stats.bets += 1
        return True

    def _stake(self, usual: list[int], over_cents: int) -> int:
        """A usual stake, or once in a while one over the table's limit (refused, recorded)."""
        return over_cents if self.rng.random() < 0.03 else self.rng.choice(usual)

    def _shoe(self, code: str) -> None:
        shoe = active_shoe(Table.objects.get(code=code))
        if shoe is not None and shoe.state != Shoe.State.IN_PLAY:
            shoe_close(shoe_id=str(shoe.id), actor=DEALER)
            shoe = None
        if shoe is None:
            shoe_start(table=code, actor=DEALER)

    def bets(self, code: str) -> str:
        """Open a coup at ``code`` and place its bets; returns the round id."""
        game = TABLES[code][0]
        if spec(game).dealt_from_a_shoe:
            self._shoe(code)
        coup = round_open(table=code, actor=DEALER)["round"]
        PLAYERS[game].bets(self, coup, self.seated[code])
        return coup

    def finish(self, code: str, coup: str) -> None:
        """Close the bets and play the coup out: the ball, or the cards and every decision."""
        game = TABLES[code][0]
        if not Bet.objects.filter(round_id=coup).exists():
            round_void(round_id=coup, reason="no bet on the layout", actor=DEALER)
        else:
            self._play_out(game, coup)
        self.stats.coups += 1  # a void coup is a coup too: the loop always moves on
        self.stats.by_table[code] = self.stats.by_table.get(code, 0) + 1

    def _play_out(self, game: str, coup: str) -> None:
        round_close_bets(round_id=coup, actor=DEALER)
        PLAYERS[game].play_out(self, coup)

    # --- each game's bets and decisions (``PLAYERS``) -------------------------------------

    def _roulette_bets(self, coup: str, players: list[str]) -> None:
        rng = self.rng
        for patron in players:
            for _ in range(rng.randint(1, 3)):
                if rng.random() < 0.5:
                    bet = {"type": "plein", "numbers": [rng.randrange(37)]}
                    stake = self._stake([200, 400, 1_000], 20_000)
                else:
                    bet = {"type": "chance_simple", "chance": rng.choice(["rouge", "noir", "pair", "impair"])}
                    stake = self._stake([600, 1_000, 2_000], 200_000)
                self._try(
                    bet_place, round_id=coup, patron=patron, stake_cents=stake, chips="colour", bet=bet, actor=DEALER
                )

    def _blackjack_bets(self, coup: str, players: list[str]) -> None:
        for box, patron in enumerate(players, start=1):
            stake = self._stake([1_000, 2_000, 2_500], 200_000)
            self._try(
                blackjack_bet_place,
                round_id=coup,
                patron=patron,
                box=box,
                stake_cents=stake,
                seated=True,
                actor=DEALER,
            )

    def _caribbean_bets(self, coup: str, players: list[str]) -> None:
        for box, patron in enumerate(players, start=1):
            if patron_chips_cents(patron) >= 3_000:
                self._try(caribbean_ante, round_id=coup, patron=patron, box=box, ante_cents=1_000, actor=DEALER)

    def _classic_stud_bets(self, coup: str, players: list[str]) -> None:
        for seat, patron in enumerate(players, start=1):
            stack = min(patron_chips_cents(patron), 20_000)
            if stack >= 2_000:
                self._try(classic_stud_sit, round_id=coup, patron=patron, seat=seat, stack_cents=stack, actor=DEALER)

    def _baccarat_bets(self, coup: str, players: list[str]) -> None:
        for patron in players:
            on = self.rng.choices(["banker", "player", "tie"], weights=[5, 4, 1])[0]
            stake = self._stake([500, 1_000, 2_500], 50_000)
            self._try(baccarat_bet, round_id=coup, patron=patron, bet=on, stake_cents=stake, actor=DEALER)

    def _tq_bets(self, coup: str, players: list[str]) -> None:
        for patron in players:
            on = self.rng.choice(["rouge", "noir", "couleur", "inverse"])
            stake = self._stake([500, 1_000, 2_000], 200_000)
            self._try(tq_bet, round_id=coup, patron=patron, bet=on, stake_cents=stake, actor=DEALER)

    def _ball(self, coup: str) -> None:
        round_record_result(round_id=coup, number=secrets.randbelow(37), actor=DEALER)

    def _deal(self, coup: str) -> None:
        deal(round_id=coup, actor=DEALER)

    def _blackjack(self, coup: str) -> None:
        state = blackjack_deal(round_id=coup, actor=DEALER)
        while state.get("awaiting") is not None:
            asked = state["awaiting"]
            kind, box, bettor = asked["kind"], asked["box"], asked["bettors"][0]
            if kind == "insurance":
                answer = {"action": "insurance", "amount_cents": 0}
            elif kind == "even_money":
                answer = {"action": "even_money", "accept": False}
            elif kind == "follow":
                answer = {"action": "follow", "follows": asked["follows"], "follow": False}
            else:
                allowed = set(asked["actions"])
                if patron_chips_cents(bettor) < 5_000:
                    allowed -= {"double", "split"}
                answer = {
                    "action": basic_decision(asked["cards"], asked["dealer_up"], allowed),
                    "hand_index": asked["hand_index"],
                }
            try:
                state = blackjack_decide(round_id=coup, patron=bettor, box=box, actor=DEALER, **answer)
            except DomainError as exc:  # a double he cannot cover after all: he takes a card
                self.stats.refused += record_refusal(exc, actor=DEALER)
                state = blackjack_decide(
                    round_id=coup,
                    patron=bettor,
                    box=box,
                    hand_index=asked.get("hand_index", 0),
                    action="hit",
                    actor=DEALER,
                )

    def _caribbean(self, coup: str) -> None:
        deal(round_id=coup, actor=DEALER)
        hands: dict[int, list[str]] = {}
        patrons: dict[int, str] = {}
        for data in Event.objects.filter(stream=f"round/{coup}", type__in=["CardDealt", "BetPlaced"]).values_list(
            "data", flat=True
        ):
            if "card" in data and data.get("box") is not None:
                hands.setdefault(data["box"], []).append(data["card"])
            elif "patron" in data and data.get("box") is not None:
                patrons[data["box"]] = data["patron"]
        for box, patron in sorted(patrons.items()):
            cards = hands.get(box, [])
            rank = evaluate(cards) if len(cards) == 5 else None
            strong = rank is not None and (rank.category != "high card" or {c[0] for c in cards} >= {"A", "K"})
            action = "raise" if strong and patron_chips_cents(patron) >= 2_000 else "fold"
            caribbean_decide(round_id=coup, patron=patron, box=box, action=action, actor=DEALER)

    def _classic_stud(self, coup: str) -> None:
        state = deal(round_id=coup, actor=DEALER)
        while state.get("awaiting"):
            turn = state["awaiting"]
            actions = set(turn["actions"])
            if "check" in actions and self.rng.random() < 0.7:
                choice = {"action": "check"}
            elif "call" in actions and self.rng.random() < 0.8:
                choice = {"action": "call"}
            elif "bet" in actions:
                choice = {"action": "bet", "amount_cents": turn["min_total_cents"]}
            else:
                choice = {"action": "fold"}
            try:
                state = classic_stud_act(round_id=coup, seat=turn["seat"], actor=DEALER, **choice)
            except DomainError as exc:  # a bet he cannot cover: refused (recorded), he folds
                self.stats.refused += record_refusal(exc, actor=DEALER)
                state = classic_stud_act(round_id=coup, seat=turn["seat"], action="fold", actor=DEALER)

    # --- the loop ----------------------------------------------------------------------------

    def play_coup(self, code: str) -> None:
        """One coup at ``code``, with its pauses: bets, a pause with the coup in play, the deal."""
        self.comings_and_goings(code)
        coup = self.bets(code)
        self.sleep()
        self.finish(code, coup)
        self.maybe_slip(code)

    def _resume(self, code: str) -> None:
        """After an outage: the coup the outage cut off voided, the table set up again (a table
        whose setting up meets the outage again is tried at its next turn)."""
        try:
            void_leftover_coup(code)
            self._reopen(code)
        except DatabaseError as exc:
            if not outage.unreachable(exc):
                raise
        except DomainError as exc:
            self.out(f"  {code}: {exc.__class__.__name__}: {exc}; tried again at its next turn")

    def sleep(self) -> None:
        if self.pace > 0:
            time.sleep(self.pace * self.rng.uniform(0.6, 1.4))

    def wait_for_database(self, error: BaseException, *, until: float | None = None) -> bool:
        """The database went away: wait until it answers again (polled every ``DATABASE_POLL_SECONDS``
        at most, ``ledger.outage.probe``), or until ``until`` (``time.monotonic()``) passes.
        Returns whether it answers. The heartbeat says ``waiting`` meanwhile."""
        outage.noted_unavailable(error)
        self.out("the database is out of reach: the floor waits for it")
        self.waiting("the database is out of reach: the player waits for it and resumes when it answers")
        if not connection.in_atomic_block:
            connection.close()  # the kept connection died with the server
        pause = 0.5
        while not outage.probe(timeout=DATABASE_PROBE_SECONDS):
            if until is not None and time.monotonic() >= until:
                return False
            time.sleep(pause)
            pause = min(pause * 2, DATABASE_POLL_SECONDS)
        self.out("the database answers again: the floor resumes")
        return True

    def run(self, *, coups: int | None = None, seconds: float | None = None) -> FloorStats:
        """Open the floor, then play coup after coup round the tables until ``coups`` coups are
        played or ``seconds`` have passed (neither: until interrupted). The database going away
        stops nothing: the player waits for it (``wait_for_database``), then voids the coup it
        left half-played and goes on."""
        started = time.monotonic()
        until = started + seconds if seconds is not None else None
        while True:
            try:
                self.open_floor()
                break
            except DatabaseError as exc:
                if not outage.unreachable(exc) or not self.wait_for_database(exc, until=until):
                    raise
        self.beat(self.stats)
        turn = 0
        while (coups is None or self.stats.coups < coups) and (seconds is None or time.monotonic() - started < seconds):
            code = self.tables[turn % len(self.tables)]
            turn += 1
            try:
                self.play_coup(code)
            except DatabaseError as exc:
                if not outage.unreachable(exc):
                    raise
                if not self.wait_for_database(exc, until=until):
                    break
                self._resume(code)
                continue
            except DomainError as exc:
                # A table the pit boss closed, a shoe or a patron changed by hand meanwhile: the
                # floor goes on; the coup left half-played is voided, the table opened again.
                self.out(f"  {code}: {exc.__class__.__name__}: {exc}; the table is set up again")
                void_leftover_coup(code)
                self._reopen(code)
                continue
            self.out(f"coup at {code} ({self.stats.coups} played, {self.stats.refused} bets refused)")
            self.beat(self.stats)
            self.sleep()
        return self.stats


@dataclass(frozen=True)
class FloorPlayer:
    """How the floor plays one game: ``bets(simulator, round id, patrons)`` puts the coup's bets
    down, ``play_out(simulator, round id)`` plays it out once its bets are closed."""

    bets: Callable[[FloorSimulator, str, list[str]], None]
    play_out: Callable[[FloorSimulator, str], None] = FloorSimulator._deal


# The floor's way of playing each game, keyed by the game's code in the registry
# (``games.catalog``): a game added there is played here once it has its line.
PLAYERS: dict[str, FloorPlayer] = {
    english_roulette.SPEC.code: FloorPlayer(FloorSimulator._roulette_bets, FloorSimulator._ball),
    blackjack.SPEC.code: FloorPlayer(FloorSimulator._blackjack_bets, FloorSimulator._blackjack),
    caribbean_stud.SPEC.code: FloorPlayer(FloorSimulator._caribbean_bets, FloorSimulator._caribbean),
    classic_stud_game.SPEC.code: FloorPlayer(FloorSimulator._classic_stud_bets, FloorSimulator._classic_stud),
    baccarat.SPEC.code: FloorPlayer(FloorSimulator._baccarat_bets),
    trente_quarante.SPEC.code: FloorPlayer(FloorSimulator._tq_bets),
}

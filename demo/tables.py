"""Demo sessions at a baccarat table (P1) and a trente-et-quarante table (T1), through the
services only: regular players bet every coup from a shuffled shoe (a new shoe when the cut
card comes out); prison bets are left to the next coup, or to ``prison_on_close``; every chip
is redeemed at the end and the tables close."""

import random
from dataclasses import dataclass, field

from cashier.services.cage import chips_redeem
from games.catalog import baccarat, spec, trente_quarante
from games.models import Shoe, Table
from games.selectors import settlements_net_cents, table_win_cents
from games.services.baccarat import baccarat_bet, shoe_history
from games.services.dealing import deal
from games.services.rounds import round_close_bets, round_open
from games.services.shoes import active_shoe, shoe_close, shoe_start
from games.services.tables import table_buy_in
from games.services.trente_quarante import tq_bet
from ledger import accounts
from ledger.errors import DomainError
from ledger.progress import Progress, counting
from ledger.selectors import head_position, movement_cents
from patrons.selectors import patron_chips_cents

from .day import demo_table_close, demo_table_open, record_refusal
from .players import demo_players
from .roulette import _ensure_cage, void_leftover_coup

DEALER, CASHIER = "demo-dealer", "demo-cashier"


@dataclass
class TableReport:
    table: str
    coups: int = 0
    bets: int = 0
    refused: int = 0
    table_win_cents: int = 0
    settlements: dict = field(default_factory=dict)
    drop_cents: int = 0
    history: dict = field(default_factory=dict)


def _session(
    code: str, game: str, prefix: str, place, coups: int, rng: random.Random, progress: Progress | None = None
) -> TableReport:
    first_position = head_position()
    _ensure_cage()
    void_leftover_coup(code)
    table = Table.objects.filter(code=code).first()
    if table is None or table.state != Table.State.OPEN:
        demo_table_open(code, game, 3_000_000)
    players = demo_players(prefix, 4)
    for player in players:
        if patron_chips_cents(player) < 20_000:
            table_buy_in(code=code, patron=player, amount_cents=50_000, actor=DEALER)
    report = TableReport(code)
    for _ in counting(range(coups), progress):
        shoe = active_shoe(Table.objects.get(code=code))
        if shoe is None or shoe.state != Shoe.State.IN_PLAY:
            shoe_start(table=code, actor=DEALER)
        coup = round_open(table=code, actor=DEALER)["round"]
        for player in players:
            try:
                place(coup, player, rng)
                report.bets += 1
            except DomainError as exc:
                report.refused += record_refusal(exc, actor=DEALER)
        round_close_bets(round_id=coup, actor=DEALER)
        deal(round_id=coup, actor=DEALER)
        report.coups += 1
    the_table = Table.objects.get(code=code)
    shoe = active_shoe(the_table)
    if shoe is not None:
        if spec(game).scoreboard:  # punto banco's road of the shoe
            report.history = shoe_history(str(shoe.id))
        shoe_close(shoe_id=str(shoe.id), actor=DEALER)
    demo_table_close(code)  # prison bets still out: prison_on_close
    for player in players:
        held = patron_chips_cents(player)
        if held:
            chips_redeem(patron=player, amount_cents=held, actor=CASHIER)
    report.table_win_cents = table_win_cents(code, after=first_position)
    report.settlements = settlements_net_cents(code, after=first_position)
    report.drop_cents = movement_cents([accounts.table_drop(code)], after=first_position)
    return report


def _baccarat_bet(coup: str, player: str, rng: random.Random) -> None:
    on = rng.choices(["banker", "player", "tie"], weights=[5, 4, 1])[0]
    baccarat_bet(round_id=coup, patron=player, bet=on, stake_cents=rng.choice([500, 1_000, 2_500]), actor=DEALER)


def _tq_bet(coup: str, player: str, rng: random.Random) -> None:
    tq_bet(
        round_id=coup,
        patron=player,
        bet=rng.choice(["rouge", "noir", "couleur", "inverse"]),
        stake_cents=rng.choice([500, 1_000, 2_000]),
        actor=DEALER,
    )


def play_baccarat_session(
    *, coups: int = 60, rng: random.Random | None = None, progress: Progress | None = None
) -> TableReport:
    return _session("P1", baccarat.SPEC.code, "baccarat", _baccarat_bet, coups, rng or random.Random(), progress)


def play_trente_quarante_session(
    *, coups: int = 60, rng: random.Random | None = None, progress: Progress | None = None
) -> TableReport:
    return _session(
        "T1", trente_quarante.SPEC.code, "trente-et-quarante", _tq_bet, coups, rng or random.Random(), progress
    )

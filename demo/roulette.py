"""A demo session at an English roulette table, played through the services only.

Seeds what is missing (cage float, table R1, six regular patrons), then plays ``spins`` coups in which
seated patrons bet colour chips inside, outside and on announced bets, and a standing patron
bets value chips on the even chances; then changes the colour chips back, redeems every
chip at the cage, closes the table, rebuilds the projections and verifies the chain.
The winning number is drawn with ``secrets``; the patrons' choices with ``rng``.
"""

import random
import secrets
from dataclasses import dataclass, field

from cashier.models import Cage
from cashier.selectors import cage_get
from cashier.services.cage import cage_open, chips_purchase, chips_redeem
from games.catalog.english_roulette import SPEC as GAME
from games.models import Table
from games.rules.roulette import ANNOUNCE_OPTIONS, ANNOUNCED, BetType, bet_kinds, expand_announced
from games.rules.roulette_table import RouletteTableRules
from games.selectors import patron_result_cents, round_in_play, settlements_net_cents, table_win_cents
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy, colour_chips_change_inverse
from games.services.rounds import past_the_deal, round_close_bets, round_open, round_record_result, round_void
from games.services.tables import table_buy_in
from ledger import accounts, projections, store
from ledger.errors import DomainError
from ledger.progress import Progress, counting
from ledger.replay import replay_check
from ledger.selectors import head_position, movement_cents
from ledger.verify import verify_chain
from patrons.selectors import patron_chips_cents
from patrons.services.patrons import patron_register

from .day import SUPERVISOR, demo_cage_shift_open, demo_table_close, demo_table_open, ensure_demo_staff, record_refusal
from .players import regular

DEALER = "demo-dealer"
CASHIER = "demo-cashier"
TABLE = "R1"
ANNOUNCES = [name for name in ANNOUNCED if name != "voisins" and name not in ANNOUNCE_OPTIONS]


@dataclass
class Seat:
    patron: str
    unit_cents: int


@dataclass
class SessionReport:
    spins: int
    first_position: int
    last_position: int
    table_win_cents: int
    settlements: dict
    drop_cents: int
    patrons: dict[str, int] = field(default_factory=dict)
    bets_placed: int = 0
    refused: int = 0
    verified: bool = False
    verify_detail: str = ""
    projection_events: int = 0
    replay_differences: int = 0

    @property
    def events_appended(self) -> int:
        return self.last_position - self.first_position


def void_leftover_coup(code: str) -> None:
    """A demo stopped half-way leaves a coup in play: void it so the new session can start. Past
    its deal the demo's cage supervisor signs the void beside the dealer (``round_void``)."""
    table = Table.objects.filter(code=code).first()
    leftover = round_in_play(table) if table else None
    if leftover is not None:
        approver = None
        if past_the_deal(leftover):
            ensure_demo_staff()
            approver = SUPERVISOR
        reason = "demo restarted after an interrupted session"
        round_void(round_id=str(leftover.id), reason=reason, actor=DEALER, approver=approver)


def _ensure_cage(*, share: int = 1) -> None:
    """The cage open with its float and the demo cashier's window open with 1/``share`` of the
    main bank (``demo_cage_shift_open``)."""
    if cage_get().state != Cage.State.OPEN:
        book_cash, book_chips = store.balance(accounts.CAGE_CASH), store.balance(accounts.CAGE_CHIPS)
        cage_open(cash_cents=max(book_cash, 5_000_000), chips_cents=max(book_chips, 5_000_000), actor=CASHIER)
    demo_cage_shift_open(share=share)  # chips cross the counter only inside a cashier's window


def _ensure_table() -> None:
    table = Table.objects.filter(code=TABLE).first()
    if table is None or table.state != Table.State.OPEN:
        demo_table_open(TABLE, GAME.code, 5_000_000)


def _seat_patrons(rng: random.Random, count: int) -> list[Seat]:
    seats = []
    for i in range(count):
        code = regular(f"roulette {i + 1}")
        unit = rng.choice([200, 200, 500, 1000])
        seat = Seat(code, unit)
        cash = rng.choice([50_000, 100_000, 200_000])
        if i % 2:  # half buy at the cage, half with cash at the table (into the drop box)
            chips_purchase(patron=code, amount_cents=cash, actor=CASHIER)
        else:
            table_buy_in(code=TABLE, patron=code, amount_cents=cash, actor=DEALER)
        colour_chips_buy(table=TABLE, patron=code, chips=(cash // 2) // unit, unit_value_cents=unit, actor=DEALER)
        seats.append(seat)
    return seats


def _random_bet(rng: random.Random, seat: Seat, rules: RouletteTableRules, inside: list, outside: list) -> dict:
    """A seated patron's next bet in colour chips: inside, outside, or announced."""
    roll = rng.random()
    if roll < 0.15:
        return {"announce": {"name": rng.choice(ANNOUNCES)}, "stake_cents": seat.unit_cents}
    if roll < 0.20:
        return {"announce": {"name": "voisins", "number": rng.randrange(37)}, "stake_cents": seat.unit_cents}
    position = rng.choice(inside if roll < 0.65 else outside)
    minimum = rules.even_chance_min_cents if position.is_even_chance else rules.min_bet_cents
    chips = max(rng.randint(1, 5), -(-minimum // seat.unit_cents))
    return {"bet": position.to_dict(), "stake_cents": chips * seat.unit_cents}


def _total_stake(bet: dict) -> int:
    """What a bet takes from the patron's chips: an announced bet is a chip a component."""
    announce = bet.get("announce")
    if announce is None:
        return bet["stake_cents"]
    parts = expand_announced(announce["name"], chip_cents=bet["stake_cents"], number=announce.get("number"))
    return sum(chips for _, chips in parts) * bet["stake_cents"]


def play_demo_session(
    *, spins: int = 200, seated: int = 6, rng: random.Random | None = None, out=print, progress: Progress | None = None
) -> SessionReport:
    """Play one session; returns its report. Raises if the chain does not verify. ``progress``:
    advanced by one a spin (``ledger.progress``)."""
    rng = rng or random.Random()
    first_position = head_position()
    _ensure_cage()
    void_leftover_coup(TABLE)
    _ensure_table()
    seats = _seat_patrons(rng, seated)
    standing = patron_register(kind="anonymous", actor=CASHIER)["patron"]
    if patron_chips_cents(standing) < 50_000:
        chips_purchase(patron=standing, amount_cents=100_000, actor=CASHIER)
    kinds = bet_kinds()
    inside = [
        k
        for k in kinds
        if k.type
        not in (
            BetType.CHANCE_SIMPLE,
            BetType.COLONNE,
            BetType.DOUZAINE,
            BetType.COLONNE_A_CHEVAL,
            BetType.DOUZAINE_A_CHEVAL,
        )
    ]
    outside = [k for k in kinds if k not in inside]
    even = [k for k in kinds if k.type == BetType.CHANCE_SIMPLE]
    rules = RouletteTableRules.from_dict(Table.objects.get(code=TABLE).rules)
    report = SessionReport(spins, first_position, 0, 0, {}, 0)

    for spin in counting(range(spins), progress):
        coup = round_open(table=TABLE, actor=DEALER)["round"]
        for seat in seats:
            _top_up_colour(seat)
            for _ in range(rng.randint(0, 3)):
                bet = _random_bet(rng, seat, rules, inside, outside)
                # A player bets what he has in front of him: one out of colour chips (and of
                # value chips to change into them) sits the coup out rather than be refused.
                if store.balance(accounts.patron_colour(seat.patron, TABLE)) < _total_stake(bet):
                    break
                _try(report, round_id=coup, patron=seat.patron, chips="colour", **bet)
        if rng.random() < 0.6:
            stake = rng.choice([1_000, 2_000, 5_000])
            _try(report, round_id=coup, patron=standing, stake_cents=stake, bet=rng.choice(even).to_dict())
        if spin == 0:
            # Once a session, deliberately: a stake on red over the even chances' maximum, which
            # the dealer refuses and the floor records (the exception log lists it).
            over = rules.even_chance_max_cents + 50_000
            _try(
                report,
                round_id=coup,
                patron=standing,
                stake_cents=over,
                bet={"type": "chance_simple", "chance": "rouge"},
            )
        round_close_bets(round_id=coup, actor=DEALER)
        round_record_result(round_id=coup, number=secrets.randbelow(37), actor=DEALER)
        if (spin + 1) % 50 == 0:
            out(f"  {spin + 1} spins played")

    for seat in seats:
        colour_chips_change_inverse(table=TABLE, patron=seat.patron, actor=DEALER)
    for code in [seat.patron for seat in seats] + [standing]:
        held = patron_chips_cents(code)
        if held:
            chips_redeem(patron=code, amount_cents=held, actor=CASHIER)
    demo_table_close(TABLE)

    report.last_position = head_position()
    report.table_win_cents = table_win_cents(TABLE, after=first_position)
    report.settlements = settlements_net_cents(TABLE, after=first_position)
    report.drop_cents = movement_cents([accounts.table_drop(TABLE)], after=first_position)
    for code in [seat.patron for seat in seats] + [standing]:
        report.patrons[code] = patron_result_cents(code, after=first_position)
    report.projection_events = projections.rebuild()["balances"]
    report.replay_differences = len(replay_check())
    result = verify_chain()
    report.verified = result.ok
    report.verify_detail = f"{result.checked} events, head {result.head_hash[:16]}…" if result.ok else result.reason
    return report


def _top_up_colour(seat: Seat) -> None:
    """A patron short of colour chips changes half of his value chips into more of them."""
    if store.balance(accounts.patron_colour(seat.patron, TABLE)) >= 20 * seat.unit_cents:
        return
    chips = patron_chips_cents(seat.patron) // 2 // seat.unit_cents
    if chips:
        colour_chips_buy(table=TABLE, patron=seat.patron, chips=chips, actor=DEALER)


def _try(report: SessionReport, **bet) -> None:
    try:
        bet_place(actor=DEALER, **bet)
        report.bets_placed += 1
    except DomainError as exc:
        # over a limit or out of chips: a real table refuses it too, and the floor records it
        report.refused += record_refusal(exc, actor=DEALER)

"""A demo session at a Caribbean stud table (C1), played through the services only: up to four
regular players ante each coup on a fresh shuffled deck and raise with a pair or better (or
ace-king), fold otherwise; every chip is redeemed at the end and the table closes."""

from dataclasses import dataclass, field

from cashier.services.cage import chips_redeem
from games.models import Table
from games.rules.poker_hands import evaluate
from games.selectors import settlements_net_cents, table_win_cents
from games.services.caribbean import caribbean_ante, caribbean_decide
from games.services.dealing import deal
from games.services.rounds import round_close_bets, round_open
from games.services.tables import table_buy_in
from ledger import accounts
from ledger.models import Event
from ledger.progress import Progress, counting
from ledger.selectors import head_position, movement_cents
from patrons.selectors import patron_chips_cents

from .day import demo_table_close, demo_table_open
from .players import demo_players
from .roulette import _ensure_cage, void_leftover_coup

DEALER, CASHIER, TABLE = "demo-dealer", "demo-cashier", "C1"


@dataclass
class StudReport:
    coups: int = 0
    raises: int = 0
    folds: int = 0
    table_win_cents: int = 0
    settlements: dict = field(default_factory=dict)
    drop_cents: int = 0


def _raises(cards: list[str]) -> bool:
    rank = evaluate(cards)
    return rank.category != "high card" or {c[0] for c in cards} >= {"A", "K"}


def play_caribbean_session(
    *, coups: int = 50, players: int = 4, ante_cents: int = 1_000, progress: Progress | None = None
) -> StudReport:
    """Play ``coups`` coups of Caribbean stud; ``progress``: advanced by one a coup."""
    first_position = head_position()
    _ensure_cage()
    void_leftover_coup(TABLE)
    table = Table.objects.filter(code=TABLE).first()
    if table is None or table.state != Table.State.OPEN:
        demo_table_open(TABLE, Table.Game.CARIBBEAN_STUD, 2_000_000)
    codes = demo_players("stud", players)
    for code in codes:
        if patron_chips_cents(code) < 20 * ante_cents:
            table_buy_in(code=TABLE, patron=code, amount_cents=40 * ante_cents, actor=DEALER)
    report = StudReport()
    for _ in counting(range(coups), progress):
        seated = [c for c in codes if patron_chips_cents(c) >= 3 * ante_cents]
        if not seated:
            break
        coup = round_open(table=TABLE, actor=DEALER)["round"]
        for box, code in enumerate(seated, start=1):
            caribbean_ante(round_id=coup, patron=code, box=box, ante_cents=ante_cents, actor=DEALER)
        round_close_bets(round_id=coup, actor=DEALER)
        deal(round_id=coup, actor=DEALER)
        hands: dict[int, list[str]] = {}
        for data in Event.objects.filter(stream=f"round/{coup}", type="CardDealt").values_list("data", flat=True):
            if data["box"] is not None:
                hands.setdefault(data["box"], []).append(data["card"])
        for box, code in enumerate(seated, start=1):
            action = "raise" if _raises(hands[box]) else "fold"
            report.raises += action == "raise"
            report.folds += action == "fold"
            caribbean_decide(round_id=coup, patron=code, box=box, action=action, actor=DEALER)
        report.coups += 1
    for code in codes:
        held = patron_chips_cents(code)
        if held:
            chips_redeem(patron=code, amount_cents=held, actor=CASHIER)
    demo_table_close(TABLE)
    report.table_win_cents = table_win_cents(TABLE, after=first_position)
    report.settlements = settlements_net_cents(TABLE, after=first_position)
    report.drop_cents = movement_cents([accounts.table_drop(TABLE)], after=first_position)
    return report

"""A demo session at a Caribbean stud table (C1), played through the services only: up to four
regular players ante each coup on a fresh shuffled deck and raise with a pair or better (or
ace-king), fold otherwise; every chip is redeemed at the end and the table closes."""

from dataclasses import dataclass

from games.catalog.caribbean_stud import SPEC as GAME
from games.rules.poker_hands import evaluate
from games.services.caribbean import caribbean_ante, caribbean_decide
from games.services.dealing import deal
from games.services.rounds import round_close_bets, round_open
from ledger.models import Event
from ledger.progress import Progress, counting
from patrons.selectors import patron_chips_cents

from .day import DEALER
from .players import demo_players
from .sessions import TableSessionReport, buy_in_short, session_end, session_start

TABLE = "C1"


@dataclass
class StudReport(TableSessionReport):
    raises: int = 0
    folds: int = 0


def _raises(cards: list[str]) -> bool:
    rank = evaluate(cards)
    return rank.category != "high card" or {c[0] for c in cards} >= {"A", "K"}


def play_caribbean_session(
    *, coups: int = 50, players: int = 4, ante_cents: int = 1_000, progress: Progress | None = None
) -> StudReport:
    """Play ``coups`` coups of Caribbean stud; ``progress``: advanced by one a coup."""
    first_position = session_start(TABLE, GAME.code, 2_000_000)
    codes = demo_players("stud", players)
    buy_in_short(TABLE, codes, below_cents=20 * ante_cents, amount_cents=40 * ante_cents)
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
    session_end(report, TABLE, codes, first_position)
    return report

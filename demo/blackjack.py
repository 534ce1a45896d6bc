"""A demo session at a black jack table, played through the services only.

Opens table B1 (default rules) with a shuffled shoe, seats up to four regular players (one of
them sometimes also bets behind another's box), and plays ``coups`` coups on basic strategy
(declining insurance and even money, following doubles and splits when he can afford them).
A shoe whose cut card came out is closed — its order revealed and checked against its
commitment — and a new one starts. At the end every chip is redeemed and the table closes.
"""

import random
from dataclasses import dataclass, field

from games.catalog.blackjack import SPEC as GAME
from games.models import Round, Shoe, Table
from games.rules.basic_strategy import basic_decision
from games.rules.blackjack_table import BlackjackTableRules
from games.services.blackjack import blackjack_bet_place, blackjack_deal, blackjack_decide
from games.services.rounds import round_close_bets, round_open
from games.services.shoes import active_shoe, shoe_close, shoe_start, verify_shoe
from ledger.errors import DomainError
from ledger.progress import Progress, counting
from ledger.selectors import head_position
from patrons.selectors import patron_chips_cents

from .day import DEALER, demo_table_open, record_refusal
from .players import demo_players
from .roulette import _ensure_cage, void_leftover_coup
from .sessions import TableSessionReport, buy_in_short, session_end

TABLE = "B1"


@dataclass
class BlackjackReport(TableSessionReport):
    hands: int = 0
    shoes_verified: int = 0
    shoe_faults: list[str] = field(default_factory=list)
    refused: int = 0  # decisions refused (a double he cannot cover), recorded for the floor


def _behind_beside(rules: BlackjackTableRules) -> bool:
    """A seated player may also bet behind the box beside his own, with boxes still free."""
    return rules.beside_own_box != 0 and not rules.behind_only_when_full


def _ensure_table_and_shoe() -> None:
    table = Table.objects.filter(code=TABLE).first()
    if table is None or table.state != Table.State.OPEN:
        demo_table_open(TABLE, GAME.code, 5_000_000)
    shoe = active_shoe(Table.objects.get(code=TABLE))
    if shoe is None or shoe.state != Shoe.State.IN_PLAY:
        shoe_start(table=TABLE, actor=DEALER)


def _answer(decision: dict, game_hands: list[dict], can_afford) -> dict:
    """The basic-strategy answer to what the coup awaits."""
    kind, box = decision["kind"], decision["box"]
    if kind == "insurance":
        return {"action": "insurance", "amount_cents": 0, "patron": decision["bettors"][0], "box": box}
    if kind == "even_money":
        return {"action": "even_money", "accept": False, "patron": decision["bettors"][0], "box": box}
    if kind == "follow":
        bettor = decision["bettors"][0]
        return {
            "action": "follow",
            "follows": decision["follows"],
            "follow": can_afford(bettor),
            "patron": bettor,
            "box": box,
        }
    seated = decision["bettors"][0]
    allowed = set(decision["actions"])
    if not can_afford(seated):
        allowed -= {"double", "split"}
    choice = basic_decision(decision["cards"], decision["dealer_up"], allowed)
    return {"action": choice, "patron": seated, "box": box, "hand_index": decision["hand_index"]}


def play_blackjack_session(
    *, coups: int = 100, players: int = 4, rng: random.Random | None = None, progress: Progress | None = None
) -> BlackjackReport:
    """Play ``coups`` coups at B1; returns the report (win from the ledger and from settlements).
    ``progress``: advanced by one a coup (``ledger.progress``)."""
    rng = rng or random.Random()
    first_position = head_position()
    _ensure_cage()
    void_leftover_coup(TABLE)
    _ensure_table_and_shoe()
    codes = demo_players("black jack", players)
    buy_in_short(TABLE, codes, below_cents=20_000, amount_cents=50_000)
    report = BlackjackReport()
    stake_of = {code: rng.choice([1_000, 2_000, 2_500, 5_000]) for code in codes}

    def can_afford(code: str) -> bool:
        return patron_chips_cents(code) >= 2 * stake_of[code]

    for _ in counting(range(coups), progress):
        _ensure_table_and_shoe()
        rules = BlackjackTableRules.from_dict(Table.objects.get(code=TABLE).rules)
        coup = round_open(table=TABLE, actor=DEALER)["round"]
        seated = [c for c in codes if patron_chips_cents(c) >= stake_of[c]]
        for box, code in enumerate(seated, start=1):
            blackjack_bet_place(
                round_id=coup, patron=code, box=box, stake_cents=stake_of[code], seated=True, actor=DEALER
            )
        # A player also bets behind his neighbour's box, where the table's preset lets him (sheet
        # 004's; sheet 000's, the default, keeps him on his own box and bets behind for a full table).
        if len(seated) > 1 and _behind_beside(rules) and rng.random() < 0.3:
            behind = seated[0]
            if patron_chips_cents(behind) >= 2 * stake_of[behind]:
                blackjack_bet_place(round_id=coup, patron=behind, box=2, stake_cents=1_000, actor=DEALER)
        if not seated:
            break
        round_close_bets(round_id=coup, actor=DEALER)
        state = blackjack_deal(round_id=coup, actor=DEALER)
        while state["awaiting"] is not None:
            try:
                state = blackjack_decide(
                    round_id=coup, actor=DEALER, **_answer(state["awaiting"], state["hands"], can_afford)
                )
            except DomainError as exc:  # e.g. a double he cannot cover after all: take a card instead
                report.refused += record_refusal(exc, actor=DEALER)
                decision = state["awaiting"]
                state = blackjack_decide(
                    round_id=coup,
                    actor=DEALER,
                    action="hit",
                    patron=decision["bettors"][0],
                    box=decision["box"],
                    hand_index=decision["hand_index"],
                )
        report.coups += 1
        report.hands += len(state["hands"])
        assert Round.objects.get(pk=coup).state == Round.State.SETTLED
    table = Table.objects.get(code=TABLE)
    shoe = active_shoe(table)
    if shoe is not None:
        shoe_close(shoe_id=str(shoe.id), actor=DEALER)
    for shoe in table.shoes.filter(state=Shoe.State.CLOSED):
        faults = verify_shoe(str(shoe.id))
        report.shoe_faults += faults
        report.shoes_verified += not faults
    session_end(report, TABLE, codes, first_position)
    return report

"""A demo session at a classic five-card stud table (S1), through the services only: three
regular players buy in at the table, sit down each hand with their stack, ante the base stake
and play the hand out against each other; the house takes a rake of each pot (``RULES``: the
table option RULES.md §Classic five-card stud leaves to the casino, default 0), which is the
table's whole win. Every chip is redeemed at the end and the table closes."""

import random
from dataclasses import dataclass

from games.catalog.classic_stud import SPEC as GAME
from games.rules.poker_hands import evaluate
from games.services.classic_stud import classic_stud_act, classic_stud_sit
from games.services.dealing import deal
from games.services.rounds import round_close_bets, round_open
from ledger.models import Event
from ledger.progress import Progress, counting
from patrons.selectors import patron_chips_cents

from .day import DEALER
from .players import demo_players
from .sessions import TableSessionReport, buy_in_short, session_end, session_start

TABLE = "S1"
OPENER_CENTS = 1_000_000
# The house's take at the demo's (and the live floor's) classic stud table: 5 % of each pot,
# rounded down to the cent, at most 5 EUR a hand (games.rules.classic_stud, rake_pct and
# rake_cap_cents). The base stake (the ante, the smallest bet) is 2 EUR.
RULES = {"base_stake_cents": 200, "rake_pct": 5, "rake_cap_cents": 500}
BUY_IN_CENTS = 20_000
STACK_CENTS = 10_000  # what each player puts in play a hand (table stakes)


@dataclass
class ClassicStudReport(TableSessionReport):
    showdowns: int = 0
    actions: int = 0
    rake_cents: int = 0


def _cards(coup: str) -> dict[int, list[str]]:
    """``{seat: cards dealt to it so far}``, hole card included (the ledger holds them all)."""
    cards: dict[int, list[str]] = {}
    for data in Event.objects.filter(stream=f"round/{coup}", type="CardDealt").values_list("data", flat=True):
        cards.setdefault(data["seat"], []).append(data["card"])
    return cards


def _strength(cards: list[str]) -> int:
    """2: a pair or better among his cards; 1: an ace or a king; 0: nothing."""
    ranks = [card[0] for card in cards]
    if len(set(ranks)) < len(ranks):
        return 2
    return 1 if {"A", "K"} & set(ranks) else 0


def _choice(turn: dict, cards: list[str], rng: random.Random) -> dict:
    """A plain player: bets or raises the minimum with a pair, calls with an ace or a king (or
    now and then with nothing), checks when he can, folds the rest."""
    actions = set(turn["actions"])
    strength = _strength(cards)
    if len(cards) == 5:  # the last round: the hand is made
        strength = 2 if evaluate(cards).category != "high card" else min(strength, 1)
    if strength == 2 and "bet" in actions:
        return {"action": "bet", "amount_cents": turn["min_total_cents"]}
    if strength == 2 and "raise" in actions and turn["level_cents"] < 4 * RULES["base_stake_cents"]:
        return {"action": "raise", "amount_cents": turn["min_total_cents"]}
    if "check" in actions:
        return {"action": "check"}
    if "call" in actions and (strength or rng.random() < 0.3):
        return {"action": "call"}
    return {"action": "fold"}


def play_classic_stud_session(
    *, coups: int = 5, players: int = 3, rng: random.Random | None = None, progress: Progress | None = None
) -> ClassicStudReport:
    """Play ``coups`` hands of classic stud at S1 with ``players`` regulars; ``progress``: one a hand."""
    rng = rng or random.Random()
    first_position = session_start(TABLE, GAME.code, OPENER_CENTS, RULES)
    codes = demo_players("classic stud", players)
    buy_in_short(TABLE, codes, below_cents=STACK_CENTS, amount_cents=BUY_IN_CENTS)
    report = ClassicStudReport()
    for _ in counting(range(coups), progress):
        seated = [c for c in codes if patron_chips_cents(c) >= RULES["base_stake_cents"]]
        if len(seated) < 2:
            break
        coup = round_open(table=TABLE, actor=DEALER)["round"]
        for seat, code in enumerate(seated, start=1):
            stack = min(patron_chips_cents(code), STACK_CENTS)
            classic_stud_sit(round_id=coup, patron=code, seat=seat, stack_cents=stack, actor=DEALER)
        round_close_bets(round_id=coup, actor=DEALER)
        state = deal(round_id=coup, actor=DEALER)
        while state["awaiting"] is not None:
            turn = state["awaiting"]
            choice = _choice(turn, _cards(coup)[turn["seat"]], rng)
            state = classic_stud_act(round_id=coup, seat=turn["seat"], actor=DEALER, **choice)
            report.actions += 1
        report.coups += 1
        report.showdowns += state["result"]["showdown"]
        report.rake_cents += state["result"]["rake_cents"]
    session_end(report, TABLE, codes, first_position)
    return report

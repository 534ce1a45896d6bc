"""Black jack's theoretical win counts the initial stakes only (RULES.md §Black jack,
"Theoretical win"): a double and a split add handle but no theory; insurance and even money
are charged their own exact edge (``games.rules.blackjack_theory``). Constructed coups through
the HTTP API with a card-reading shoe (default rules: 6 decks, no hole card, double 9–11), then
the projections rebuilt from the ledger: the patron's rating and the table's statistics carry
the exact theory. Stakes in cents; theory in exact fractions of a cent."""

from fractions import Fraction

import pytest

from games.rules.blackjack_table import BlackjackTableRules
from ledger import projections
from ledger.models import Event, PatronDayRating, TableDayStats
from tests.api.test_blackjack_cases import Table
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db

E = BlackjackTableRules.from_dict({}).edge()  # the default rule set's edge per initial bet
INSURANCE_6_DECKS = Fraction(23, 311)  # 1 − 3 × 96/311: a ten in the hole, the dealer's ace removed
EVEN_MONEY_6_DECKS_ACE = Fraction(24, 309)  # 1 − 3 × 95/309: the player's ace and ten removed too


@pytest.fixture
def bj(api, cage):
    return Table(api)


def _theory_rebuilt(patron: str) -> tuple[Fraction, Fraction, int]:
    projections.rebuild(["ratings", "table_stats"])
    rating = PatronDayRating.objects.get(patron=patron)
    stats = TableDayStats.objects.get(table="B1")
    return Fraction(rating.theoretical_win), Fraction(stats.theoretical_win), stats.handle_cents


def test_a_double_a_split_an_insurance_and_even_money_are_charged_by_the_rules(bj):
    """Four coups, 10.00 or 20.00 initial: a doubled 11 (handle 20.00, theory 10.00 × E), split
    8s (handle 20.00, theory 10.00 × E), 20.00 with 10.00 insured against an ace (theory
    20.00 × E + 10.00 × 23/311), even money on a blackjack against an ace (theory 10.00 × E +
    5.00 × 24/309). Handle 80.00; the old figure was 80.00 × E."""
    p = make_patron(100_000)
    bj.coup([(p, 1, 1_000, True)])  # a double: 6 + 5 = 11 against a 9
    bj.cards("6S", "9D", "5H")
    bj.decide(p, "double")
    assert bj.cards("TC", "8C")["state"] == "settled"  # 21 against 17

    bj.coup([(p, 1, 1_000, True)])  # a split: 8, 8 against a 7
    bj.cards("8S", "7D", "8H")
    bj.decide(p, "split")
    bj.cards("TC")
    bj.decide(p, "stand")
    bj.cards("9C")
    bj.decide(p, "stand")
    assert bj.cards("KD")["state"] == "settled"  # 18 wins, 17 pushes against 17

    bj.coup([(p, 1, 2_000, True)])  # insurance: 10, 9 against an ace, 10.00 insured
    bj.cards("TS", "AS", "9H")
    bj.decide(p, "insurance", amount_cents=1_000)
    bj.decide(p, "stand")
    assert bj.cards("7D")["state"] == "settled"

    bj.coup([(p, 1, 1_000, True)])  # even money: A, K against an ace
    bj.cards("AD", "AC", "KH")
    bj.decide(p, "even_money", accept=True)

    lines = [e.data for e in Event.objects.filter(type="BetSettled").order_by("position")]
    assert [(d["outcome"], d["stake_cents"]) for d in lines] == [
        ("won", 2_000), ("won", 1_000), ("pushed", 1_000), ("won", 2_000), ("insurance_lost", 1_000),
        ("even_money", 1_000),
    ]  # fmt: skip
    assert all(Fraction(d["edge_per_initial_bet"]) == E for d in lines)

    expected = 5_000 * E + 1_000 * INSURANCE_6_DECKS + 500 * EVEN_MONEY_6_DECKS_ACE
    rating, table, handle = _theory_rebuilt(p)
    assert handle == 8_000
    assert rating == table == expected
    assert table != handle * E  # the figure before: every stake × the table's edge


def test_a_bet_behind_is_charged_its_stake_when_the_seated_player_doubles(api, cage):
    """The seated player doubles 10.00; the bettor behind (20.00) is not asked (sheet 000: the
    seated player alone decides) and keeps his stake: theory (10.00 + 20.00) × E, on a handle
    of 40.00."""
    bj = Table(api, rules={"behind_only_when_full": False})  # a bet behind with boxes still free
    seated, behind = make_patron(10_000), make_patron(10_000)
    bj.coup([(seated, 1, 1_000, True), (behind, 1, 2_000, False)])
    bj.cards("6S", "9D", "5H")
    bj.decide(seated, "double")
    assert bj.cards("TC", "8C")["state"] == "settled"
    projections.rebuild(["ratings", "table_stats"])
    stats = TableDayStats.objects.get(table="B1")
    assert (stats.handle_cents, Fraction(stats.theoretical_win)) == (4_000, 3_000 * E)
    assert Fraction(PatronDayRating.objects.get(patron=seated).theoretical_win) == 1_000 * E

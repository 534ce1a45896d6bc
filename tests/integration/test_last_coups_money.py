"""The table page's last coups read what each coup staked and won from the ledger: a Caribbean
stud raise and a lost black jack double count as much as the ante or the first stake, and a
coup's house win is what its events moved on the table's win accounts (the win chart's step)."""

import pytest

from dashboard.table_reads import table_detail
from games.selectors import table_win_cents
from tests.api.test_caribbean_cases import StudTable
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db


def test_a_raised_caribbean_coup_shows_ante_and_raise_staked_and_the_ledgers_house_win(api, cage):
    stud = StudTable(api)
    patron = make_patron(10_000)
    stud.coup([(patron, 1, 1_000)])
    # The player's pair of fives against the dealer's qualifying ace-king: ante 1:1, raise 1:1 (pair).
    stud.deal_hands(["5S", "5H", "KC", "JH", "7S"], ["AS", "KH", "8C", "9D", "3C"])
    stud.decide(patron, "raise")

    (coup,) = table_detail("C1")["last_coups"]
    assert coup["staked_cents"] == 1_000 + 2_000
    assert coup["house_win_cents"] == -(1_000 + 2_000) == table_win_cents("C1")


def test_a_coup_still_in_play_has_its_stakes_and_no_house_win_yet(api, cage):
    stud = StudTable(api)
    patron = make_patron(10_000)
    stud.coup([(patron, 1, 1_500)])
    in_play = table_detail("C1")["in_play"]
    assert (in_play["staked_cents"], in_play["house_win_cents"]) == (1_500, None)

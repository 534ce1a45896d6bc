"""A coup reversed (every posting of it taken back) takes its bets out of the patron's day
rating again: bets, staked, actual and theoretical win, so comps reckoned on theoretical win
never count it. The time he played stays. A catch-up and a rebuild (SQLite's fold and
PostgreSQL's summed fold) agree."""

from fractions import Fraction

import pytest

from games.services.bets import bet_place
from games.services.corrections import round_reverse
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import projections
from ledger.models import PatronDayRating
from staff.roles import Role
from tests.conftest import ACTOR, make_patron, staff_user

pytestmark = pytest.mark.django_db

ROUGE = {"type": "chance_simple", "chance": "rouge"}
NOIR = {"type": "chance_simple", "chance": "noir"}


def _coup(patron: str, bets: list[tuple[dict, int]], number: int) -> str:
    coup = round_open(table="R1", actor=ACTOR)["round"]
    for bet, stake in bets:
        bet_place(round_id=coup, patron=patron, stake_cents=stake, bet=bet, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=number, actor=ACTOR)
    return coup


def _rating(patron: str) -> tuple:
    r = PatronDayRating.objects.get(patron=patron)
    return r.bets, r.staked_cents, r.actual_win_cents, Fraction(r.theoretical_win), r.first_bet_at, r.last_bet_at


def test_a_reversed_coup_takes_its_bets_out_of_the_rating_in_a_catch_up_and_a_rebuild(table):
    staff_user("pit1", Role.PIT_BOSS.value)
    staff_user("pit2", Role.PIT_BOSS.value)
    patron = make_patron(100_000)
    _coup(patron, [(ROUGE, 1_000)], number=21)  # rouge wins: the house loses 10.00
    projections.catch_up_all()
    kept = _rating(patron)
    assert kept[:4] == (1, 1_000, -1_000, Fraction(1_000, 74))

    misread = _coup(patron, [(ROUGE, 2_000), (NOIR, 1_500)], number=17)  # 17 is black: rouge loses, noir wins
    projections.catch_up_all()
    assert _rating(patron)[:3] == (3, 4_500, -1_000 + 2_000 - 1_500)

    round_reverse(round_id=misread, reason="the ball was misread", approver="pit2", actor="pit1")
    projections.catch_up_all()
    bets, staked, won, theoretical, first, last = _rating(patron)
    assert (bets, staked, won, theoretical) == kept[:4]
    assert first == kept[4] and last > kept[5]  # the reversed coup's time stays played

    projections.rebuild(["ratings"])
    assert _rating(patron) == (bets, staked, won, theoretical, first, last)


def test_a_reversed_coup_takes_its_bets_out_of_the_tables_handle_and_theoretical_win(table):
    """The game-protection page read a reversed coup's stakes in the handle and the theoretical
    win; the coup itself stays counted (played, then reversed)."""
    from ledger.models import TableDayStats

    staff_user("pit1", Role.PIT_BOSS.value)
    staff_user("pit2", Role.PIT_BOSS.value)
    patron = make_patron(100_000)
    _coup(patron, [(ROUGE, 1_000)], number=21)
    projections.catch_up_all()

    def stats() -> tuple:
        s = TableDayStats.objects.get(table="R1")
        return s.coups, s.bets, s.handle_cents, Fraction(s.theoretical_win)

    coups, bets, handle, theoretical = stats()
    misread = _coup(patron, [(ROUGE, 2_000), (NOIR, 1_500)], number=17)
    round_reverse(round_id=misread, reason="the ball was misread", approver="pit2", actor="pit1")
    projections.catch_up_all()
    assert stats() == (coups + 1, bets, handle, theoretical)
    projections.rebuild(["table_stats"])
    assert stats() == (coups + 1, bets, handle, theoretical)

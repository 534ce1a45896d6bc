"""Prison bets at French roulette (zero_rule = en_prison) through the ledger (RULES.md §Prison bets,
case C08 en prison)."""

import pytest

from games.models import Bet
from games.selectors import settlements_net_cents, table_win_cents
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_close, table_open
from ledger import accounts, projections, store
from ledger.models import AccountBalance, TableDayStats
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db


def spin(number, bets=()):
    coup = round_open(table="F1", actor=ACTOR)["round"]
    for patron, chance, stake in bets:
        bet_place(
            round_id=coup,
            patron=patron,
            stake_cents=stake,
            bet={"type": "chance_simple", "chance": chance},
            actor=ACTOR,
        )
    round_close_bets(round_id=coup, actor=ACTOR)
    return round_record_result(round_id=coup, number=number, actor=ACTOR)


def chips(code):
    return store.balance(accounts.patron_chips(code))


@pytest.fixture
def french(cage):
    def open_with(**rules):
        table_open(
            code="F1",
            game="english_roulette",
            opener_cents=1_000_000,
            actor=ACTOR,
            rules={"zero_rule": "en_prison", **rules},
        )

    return open_with


def test_c08_en_prison_then_released_then_lost(french):
    """10 on pair, ball on 0: imprisoned (never +10); next spin 2: 10 returned, no win."""
    french()
    p = make_patron(10_000)
    spin(0, [(p, "pair", 1_000)])
    assert chips(p) == 9_000 and store.balance(accounts.table_prison("F1")) == 1_000
    assert Bet.objects.get().state == "imprisoned"
    spin(2)
    assert chips(p) == 10_000 and store.balance(accounts.table_prison("F1")) == 0
    assert Bet.objects.get().state == "released"
    spin(0, [(p, "pair", 1_000)])
    spin(7)  # odd: the imprisoned bet is lost
    assert chips(p) == 9_000 and Bet.objects.filter(state="lost").count() == 1
    assert table_win_cents("F1") == settlements_net_cents("F1")["house_win"] == 1_000
    assert replay_check() == [] and verify_chain().ok
    # the statistics count the stakes prison decided too: 2 bets of 10, both decided
    projections.catch_up_all()
    stats = TableDayStats.objects.get(table="F1")
    assert (stats.bets, stats.handle_cents, stats.win_cents) == (2, 2_000, 1_000)


def test_a_second_zero_follows_double_prison(french):
    french(double_prison="stay")
    p = make_patron(10_000)
    spin(0, [(p, "rouge", 1_000)])
    spin(0)  # stays in prison
    assert Bet.objects.get().state == "imprisoned"
    spin(1)  # red: released
    assert chips(p) == 10_000


def test_the_prison_balance_is_rebuilt_from_the_ledger(french):
    french()
    p = make_patron(10_000)
    spin(0, [(p, "manque", 2_000), (p, "passe", 1_000)])
    projections.catch_up_all()
    before = AccountBalance.objects.get(account=accounts.table_prison("F1")).balance_cents
    projections.rebuild()
    assert before == AccountBalance.objects.get(account=accounts.table_prison("F1")).balance_cents == 3_000


@pytest.mark.parametrize("rule, returned", [("half_returned", 500), ("returned", 1_000)])
def test_a_table_closes_through_prison_on_close(french, rule, returned):
    french(prison_on_close=rule)
    p = make_patron(10_000)
    spin(0, [(p, "noir", 1_000)])
    table_close(code="F1", actor=ACTOR)
    assert chips(p) == 9_000 + returned and store.balance(accounts.table_prison("F1")) == 0
    assert table_win_cents("F1") == settlements_net_cents("F1")["house_win"] == 1_000 - returned
    assert replay_check() == []


def test_the_in_prison_index_holds_exactly_the_imprisoned_bets(french):
    """``prison_level > 0`` (the in-prison index's condition) exactly when imprisoned, by a check
    constraint: a bet in any other state with a level, or imprisoned without one, is refused."""
    from django.db import IntegrityError, connection, transaction

    french(double_prison="deeper")
    p = make_patron(10_000)
    spin(0, [(p, "pair", 1_000), (p, "impair", 2_000)])
    spin(0)  # deeper: level 2
    assert sorted(Bet.objects.in_prison().values_list("stake_cents", "prison_level")) == [(1_000, 2), (2_000, 2)]
    imprisoned = Bet.objects.in_prison().first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Bet.objects.filter(pk=imprisoned.pk).update(prison_level=0)
    spin(5)  # impair wins: level 1; pair loses: lost
    assert list(Bet.objects.in_prison().values_list("stake_cents", "prison_level")) == [(2_000, 1)]
    lost = Bet.objects.get(stake_cents=1_000)
    assert (lost.state, lost.prison_level) == ("lost", 0)
    with pytest.raises(IntegrityError), transaction.atomic():
        Bet.objects.filter(pk=lost.pk).update(prison_level=1)
    if connection.vendor == "postgresql":  # room on each page for the one update a bet gets
        with connection.cursor() as cursor:
            cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'games_bet'")
            assert cursor.fetchone()[0] == ["fillfactor=50"]

"""A table closed and opened again with no rules given keeps the limits and options it closed
with (a pit boss who means others changes them); rules given replace them; a new table starts
from its game's defaults."""

import pytest

from games.models import Table
from games.services.table_rules import table_rules_change
from games.services.tables import table_close, table_open
from ledger.models import Event
from staff.roles import Role
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(cage):
    staff_user("pit1", Role.PIT_BOSS)
    return "pit1"


def test_a_table_opened_again_keeps_the_limits_it_closed_with(boss):
    first = table_open(code="R7", game="english_roulette", opener_cents=5_000_000, actor=boss)
    default_max = first["rules"]["max_bet_cents"]
    table_rules_change(code="R7", rules={"max_bet_cents": default_max // 2}, actor=boss)
    table_close(code="R7", actor=boss)

    again = table_open(code="R7", game="english_roulette", opener_cents=5_000_000, actor=boss)

    assert again["rules"]["max_bet_cents"] == default_max // 2
    assert Table.objects.get(code="R7").rules["max_bet_cents"] == default_max // 2
    opened = Event.objects.filter(type="TableOpened", data__table="R7").order_by("-position").first()
    assert opened.data["rules"]["max_bet_cents"] == default_max // 2


def test_rules_given_at_an_opening_replace_those_it_closed_with(boss):
    first = table_open(code="R8", game="english_roulette", opener_cents=5_000_000, actor=boss)
    default_max = first["rules"]["max_bet_cents"]
    table_rules_change(code="R8", rules={"max_bet_cents": default_max // 2}, actor=boss)
    table_close(code="R8", actor=boss)

    again = table_open(code="R8", game="english_roulette", opener_cents=5_000_000, actor=boss, rules={})

    assert again["rules"]["max_bet_cents"] == default_max

"""POST /api/tables/<code>/opener on a code the floor does not have: a pit boss's request is
refused at once (403, nothing written, nothing waiting); an administrator's (here a pit boss who
is also the floor's administrator) waits for the dealer as any opener. A table already on the
floor is reopened by a pit boss as before."""

import pytest

from approvals.models import Approval
from games.models import Table
from games.services.tables import table_close, table_open
from ledger.models import Event
from staff.roles import Role
from tests.conftest import OPENER, approve, client_as, staff_clients, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(settings, cage):
    settings.TABLE_SET_UP_NEEDS_ADMINISTRATOR = True
    clients = staff_clients({"pit1": Role.PIT_BOSS, "dealer1": Role.DEALER})
    clients["boss-admin"] = client_as(staff_user("boss-admin", Role.PIT_BOSS.value, Role.ADMIN.value))
    return clients


def _ask(client, code: str, maker: str):
    body = {"game": "english_roulette", "opener": OPENER, "dealer": "dealer1", "pit_boss": maker, "rules": {}}
    return client.post(f"/api/tables/{code}/opener", body, format="json")


def test_a_pit_boss_cannot_make_a_new_table_through_the_api_and_nothing_is_written(people):
    events = Event.objects.count()
    refused = _ask(people["pit1"], "R7", "pit1")
    assert refused.status_code == 403
    assert "setting up a new table R7" in refused.json()["detail"]
    assert not Table.objects.filter(code="R7").exists()
    assert not Approval.objects.exists()
    assert Event.objects.count() == events


def test_an_administrator_sets_a_new_table_up_and_the_dealer_confirms_it(people):
    opened = approve(_ask(people["boss-admin"], "R7", "boss-admin"), people["dealer1"])
    assert opened.status_code == 201, opened.json()
    assert Table.objects.get(code="R7").state == Table.State.OPEN


def test_a_pit_boss_reopens_a_table_the_floor_has(people):
    table_open(code="R8", game="english_roulette", opener_cents=5_000_000, actor="boss-admin", rules={})
    table_close(code="R8", actor="boss-admin")
    reopened = approve(_ask(people["pit1"], "R8", "pit1"), people["dealer1"])
    assert reopened.status_code == 201, reopened.json()
    assert Table.objects.get(code="R8").state == Table.State.OPEN

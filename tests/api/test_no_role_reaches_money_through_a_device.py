"""The admin role cannot move money through a device (it once issued one and bought in with it).

The admin (who may not buy in at a table himself: 403) issued a device token for R2 (201) and
the device posted a buy-in (201). A device acts with the dealer's endpoints at its table, so only
the pit boss issues one; and a device acts only on its kind's endpoints: a card-reading shoe
reports cards and reads its shoe, it never takes a buy-in or a bet.
"""

import pytest
from rest_framework.test import APIClient

from games.services.rounds import round_open
from games.services.shoes import shoe_start
from games.services.tables import table_open
from ledger import store
from ledger.models import Event
from staff.models import DeviceToken
from staff.roles import RoleRequired
from staff.services import device_token_issue
from tests.conftest import ACTOR, client_as, make_patron, staff_user

pytestmark = pytest.mark.django_db


def _device(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return client


@pytest.fixture
def floor(table):
    table_open(code="R2", game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={})
    return {
        "admin": staff_user("admin1", "admin"),
        "pit": staff_user("pit1", "pit_boss"),
        "patron": make_patron(0),
    }


def test_the_admin_cannot_issue_a_device_and_so_cannot_buy_in_through_one(floor):
    admin = client_as(floor["admin"])
    buy_in = {"patron": floor["patron"], "amount_cents": 50_000}
    assert admin.post("/api/tables/R2/buy-ins", buy_in, format="json").status_code == 403  # directly: refused
    before = store.head()
    issued = admin.post("/api/staff/devices", {"name": "terminal-R2", "kind": "terminal", "table": "R2"}, format="json")
    assert issued.status_code == 403, issued.content
    assert "token" not in issued.json()
    assert not DeviceToken.objects.exists()
    assert store.head() == before
    with pytest.raises(RoleRequired):
        device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="admin1")
    assert not Event.objects.filter(type="DeviceTokenIssued").exists()


def test_the_pit_boss_issues_a_terminal_that_buys_in_at_its_table(floor):
    pit = client_as(floor["pit"])
    issued = pit.post("/api/staff/devices", {"name": "terminal-R2", "kind": "terminal", "table": "R2"}, format="json")
    assert issued.status_code == 201, issued.content
    terminal = _device(issued.json()["token"])
    bought = terminal.post("/api/tables/R2/buy-ins", {"patron": floor["patron"], "amount_cents": 50_000}, format="json")
    assert bought.status_code == 201, bought.content
    assert Event.objects.get(type="CashBuyIn").actor == "device:terminal-R2"


def test_the_admin_still_revokes_a_device(floor):
    device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="pit1")
    revoked = client_as(floor["admin"]).post("/api/staff/devices/terminal-R2/revoke", {}, format="json")
    assert revoked.status_code == 200, revoked.content
    assert DeviceToken.objects.get(name="terminal-R2").revoked_at is not None


def test_a_card_reading_shoe_reads_its_shoe_but_never_moves_money(floor):
    table_open(code="B1", game="blackjack", opener_cents=1_000_000, actor=ACTOR, rules={})
    shoe_id = shoe_start(table="B1", actor=ACTOR)["shoe"]
    shoe = _device(device_token_issue(name="shoe-B1", kind="shoe", table="B1", actor="pit1")["token"])
    assert shoe.get(f"/api/shoes/{shoe_id}/").status_code == 200
    history = shoe.get(f"/api/shoes/{shoe_id}/history")  # read (not 403): a black jack shoe has no roads
    assert (
        history.status_code,
        history.json()["detail"].endswith("the bead plate and big road are punto banco's"),
    ) == (
        404,
        True,
    )
    assert shoe.get("/api/tables/B1/rounds/").status_code == 200  # which coup the cards are for
    coup = round_open(table="B1", actor=ACTOR)["round"]
    reported = shoe.post(f"/api/rounds/{coup}/cards", {"card": "X"}, format="json")
    assert reported.status_code == 400 and reported.json()["field"] == "card"  # past the permission
    before = store.head()
    for path, body in (
        ("/api/tables/B1/buy-ins", {"patron": floor["patron"], "amount_cents": 50_000}),
        ("/api/tables/B1/rounds", {}),
        (f"/api/shoes/{shoe_id}/close", {}),
    ):
        response = shoe.post(path, body, format="json")
        assert response.status_code == 403, (path, response.content)
        assert "shoe device" in response.json()["detail"]
    assert store.head() == before

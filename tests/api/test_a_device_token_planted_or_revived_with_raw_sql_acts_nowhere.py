"""Someone holding the database credentials (not ``SECRET_KEY``) revives a revoked terminal and
moves it to another table (``UPDATE staff_devicetoken SET revoked_at = NULL, table_code = 'T1'``),
moves a live one, writes the SHA-256 of a token he knows over a live one's, or INSERTs a device
account and its token row. The device authentication takes a token only as far as the device's
sealed events vouch for it (``staff.identity.device_as_recorded``): 401 for a device no
``DeviceTokenIssued`` made, one revoked since, or a digest the event did not record; a device
acts only at the table its event named. Nothing reaches the ledger."""

import hashlib

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from games.models import Round
from games.services.tables import table_open
from ledger import store
from ledger.commands import ledger_command
from ledger.models import Event
from ledger.store import NewEvent
from staff.models import DeviceToken
from staff.services import DEVICES_STREAM, device_token_issue, device_token_revoke, token_digest
from tests.conftest import ACTOR, staff_user

pytestmark = pytest.mark.django_db

KNOWN_TOKEN = "a-token-the-insider-knows"


def _device(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    return client


def _sql(statement: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


@pytest.fixture
def floor(cage):
    staff_user("pit1", "pit_boss")
    for code in ("R2", "T1"):
        table_open(code=code, game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={})


def _open_coup(client: APIClient, table: str):
    return client.post(f"/api/tables/{table}/rounds", {}, format="json")


def test_a_revoked_terminal_revived_and_moved_with_raw_sql_opens_no_coup(floor):
    token = device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="pit1")["token"]
    device_token_revoke(name="terminal-R2", actor="pit1")
    _sql("UPDATE staff_devicetoken SET revoked_at = NULL, table_code = 'T1' WHERE name = 'terminal-R2'")
    head = store.head()

    opened = _open_coup(_device(token), "T1")

    assert opened.status_code == 401, opened.content
    assert opened.json()["detail"] == "unknown or revoked device token"
    assert _open_coup(_device(token), "R2").status_code == 401
    assert store.head() == head
    assert not Round.objects.exists()


def test_a_live_terminal_moved_with_raw_sql_still_acts_only_at_its_issued_table(floor):
    token = device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="pit1")["token"]
    _sql("UPDATE staff_devicetoken SET table_code = 'T1', kind = 'terminal' WHERE name = 'terminal-R2'")

    moved = _open_coup(_device(token), "T1")
    assert moved.status_code == 403, moved.content
    assert moved.json()["detail"] == "this device is bound to table R2"
    assert not Round.objects.filter(table__code="T1").exists()

    at_home = _open_coup(_device(token), "R2")
    assert at_home.status_code == 201, at_home.content
    assert Event.objects.get(type="RoundOpened").actor == "device:terminal-R2"


def test_a_token_digest_written_over_a_live_terminal_with_raw_sql_is_refused(floor):
    issued = device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="pit1")["token"]
    _sql("UPDATE staff_devicetoken SET digest = %s WHERE name = 'terminal-R2'", [token_digest(KNOWN_TOKEN)])
    head = store.head()
    assert _open_coup(_device(KNOWN_TOKEN), "R2").status_code == 401
    assert _open_coup(_device(issued), "R2").status_code == 401  # the row no longer holds it
    assert store.head() == head


def test_a_device_inserted_with_raw_sql_closes_no_bets_and_records_no_result(floor):
    coup = _open_coup(
        _device(device_token_issue(name="t-R2", kind="terminal", table="R2", actor="pit1")["token"]), "R2"
    )
    coup_id = coup.json()["round"]
    User = get_user_model()
    _sql(
        "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, first_name, last_name,"
        " email, date_joined) VALUES ('device:planted', '!', %s, %s, %s, '', '', '', %s)",
        [False, False, True, timezone.now()],
    )
    user_id = User.objects.get(username="device:planted").pk
    _sql(
        "INSERT INTO staff_devicetoken (name, kind, table_code, user_id, digest, prefix, created_at, created_by)"
        " VALUES ('planted', 'terminal', 'R2', %s, %s, 'a-token-', %s, 'pit1')",
        [user_id, hashlib.sha256(KNOWN_TOKEN.encode()).hexdigest(), timezone.now()],
    )
    head = store.head()
    planted = _device(KNOWN_TOKEN)

    closed = planted.post(f"/api/rounds/{coup_id}/close-bets", {}, format="json")
    result = planted.post(f"/api/rounds/{coup_id}/result", {"number": 7}, format="json")

    assert (closed.status_code, result.status_code) == (401, 401)
    assert store.head() == head
    assert Round.objects.get(id=coup_id).state == Round.State.BETTING


def test_a_terminal_issued_before_its_token_digest_was_recorded_acts_at_its_issued_table(floor):
    """An older ``DeviceTokenIssued`` (no ``token_digest``) is taken on its row's digest; its
    table and revocation still come from the events."""
    user = get_user_model().objects.create_user(username="device:old-R2", password=None)
    DeviceToken.objects.create(
        name="old-R2", kind="terminal", table_code="R2", user=user, digest=token_digest(KNOWN_TOKEN), created_by="pit1"
    )
    data = {"device": "old-R2", "kind": "terminal", "table": "R2", "before": None, "after": {"table": "R2"}}
    with ledger_command(actor="pit1", request={"op": "device_token_issue", "name": "old-R2"}) as cmd:
        cmd.append(
            stream=DEVICES_STREAM,
            expected_version=store.stream_version(DEVICES_STREAM),
            events=[NewEvent("DeviceTokenIssued", data | {"user": "device:old-R2"})],
        )
    _sql("UPDATE staff_devicetoken SET table_code = 'T1' WHERE name = 'old-R2'")
    assert _open_coup(_device(KNOWN_TOKEN), "T1").status_code == 403
    assert _open_coup(_device(KNOWN_TOKEN), "R2").status_code == 201
    device_token_revoke(name="old-R2", actor="pit1")
    _sql("UPDATE staff_devicetoken SET revoked_at = NULL WHERE name = 'old-R2'")
    assert _open_coup(_device(KNOWN_TOKEN), "R2").status_code == 401


def test_the_issued_event_records_a_keyed_digest_of_the_token_never_the_token(floor):
    token = device_token_issue(name="terminal-R2", kind="terminal", table="R2", actor="pit1")["token"]
    recorded = Event.objects.get(type="DeviceTokenIssued").data["token_digest"]
    assert len(recorded) == 64
    assert recorded not in (token, token_digest(token))
    assert token not in str(Event.objects.get(type="DeviceTokenIssued").data)

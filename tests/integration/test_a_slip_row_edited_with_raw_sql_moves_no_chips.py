"""Someone holding the application's database credentials writes a requested 50,000 EUR fill
down to 10 EUR in its row (``cashier_slip``: amount and denominations), so that the cage issues
a check of 10 EUR under the large-fill signature, or edits the slip once issued, or names
himself its requester to get round the segregation of duties. Every step of a slip (issue,
accept, void, reverse) first compares the row with its sealed events: 409 naming what differs,
nothing appended, no chip moved; set back, the slip goes on by its recorded figures."""

import json

import pytest
from django.db import connection

from cashier.models import Slip
from cashier.services.cage_shifts import last_shift_event
from cashier.services.slips import slip_accept, slip_issue, slip_request
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event
from staff.roles import grant

from ..conftest import CAGE_STAFF, hand_cage_to

pytestmark = pytest.mark.django_db

FIFTY_THOUSAND = {"1000000": 5}  # five 10,000 EUR plaques: 50,000 EUR, at the large-fill threshold


@pytest.fixture
def staff(table, django_user_model):
    for name, role in CAGE_STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    last = last_shift_event()
    if last is not None and last.type == "CageShiftOpened":
        hand_cage_to("cash1")
    return CAGE_STAFF


def _sql_update_slip(serial: str, **columns) -> None:
    jsonb = "::jsonb" if connection.vendor == "postgresql" else ""
    assignments, params = [], []
    for name, value in columns.items():
        if isinstance(value, dict):
            assignments.append(f"{name} = %s{jsonb}")
            value = json.dumps(value)
        else:
            assignments.append(f"{name} = %s")
        params.append(value)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE cashier_slip SET {', '.join(assignments)} WHERE serial = %s", [*params, serial])


def _request() -> str:
    return slip_request(kind="fill", table="R1", denominations=FIFTY_THOUSAND, actor="pit1")["serial"]


def test_a_fill_written_down_in_its_row_is_not_issued(staff):
    serial = _request()
    _sql_update_slip(serial, amount_cents=1_000, denominations={"1000": 1})
    head, cage_chips = store.head(), store.balance(accounts.CAGE_CHIPS)

    with pytest.raises(StateConflict) as refused:
        slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")

    assert (
        f"fill slip {serial}'s row differs from its ledger events (amount_cents, denominations)"
        in refused.value.message
    )
    assert refused.value.field == "serial"
    assert store.head() == head
    assert store.balance(accounts.CAGE_CHIPS) == cage_chips
    assert not Event.objects.filter(type="FillIssued").exists()

    # Set back, the fill is issued for what was requested.
    _sql_update_slip(serial, amount_cents=5_000_000, denominations=FIFTY_THOUSAND)
    issued = slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    assert issued["amount_cents"] == 5_000_000
    assert store.balance(accounts.CAGE_CHIPS) == cage_chips - 5_000_000


def test_an_issued_fill_written_down_in_its_row_is_not_accepted(staff):
    serial = _request()
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    _sql_update_slip(serial, amount_cents=1_000, denominations={"1000": 1})
    head, tray = store.head(), store.balance(accounts.table_tray("R1"))

    with pytest.raises(StateConflict, match=r"differs from its ledger events \(amount_cents, denominations\)"):
        slip_accept(kind="fill", serial=serial, actor="pit2", count={"1000": 1})

    assert store.head() == head
    assert store.balance(accounts.table_tray("R1")) == tray
    assert Slip.objects.get(serial=serial).state == Slip.State.ISSUED


def test_a_requester_renamed_in_the_row_does_not_let_him_issue_his_own_fill(staff):
    serial = _request()
    _sql_update_slip(serial, requested_by="pit2")
    head = store.head()

    with pytest.raises(StateConflict, match=r"differs from its ledger events \(requested_by\)"):
        slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")

    assert store.head() == head


def test_an_untouched_slip_goes_through_every_step(staff):
    serial = _request()
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    delivered = slip_accept(kind="fill", serial=serial, actor="pit2", count=FIFTY_THOUSAND)
    assert (delivered["state"], delivered["amount_cents"]) == ("delivered", 5_000_000)

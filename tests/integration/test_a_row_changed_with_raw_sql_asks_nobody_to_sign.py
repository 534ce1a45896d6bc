"""Someone holding the application's database credentials moves an issued fill to another table
in its row (``cashier_slip.table_id``) before anyone is asked to sign. Who is asked (the dealer
of the fill's table) and the count he must match are read from the row only once it is what the
sealed events recorded: the request is refused (409) and no approval waits; an approval already
waiting is in no dealer's scope any more, so the other table's dealer does not read it."""

import pytest
from django.db import connection

from approvals.models import Approval
from approvals.selectors import subject_table
from approvals.services import approval_request
from cashier.services.slips import slip_issue, slip_request
from games.models import Table
from games.services.tables import table_open
from ledger import store
from ledger.errors import StateConflict
from staff.roles import grant
from staff.services import dealer_assign

from ..conftest import CAGE_STAFF, hand_cage_to

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(table, django_user_model):
    from cashier.services.cage_shifts import last_shift_event

    for name, role in CAGE_STAFF.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    last = last_shift_event()
    if last is not None and last.type == "CageShiftOpened":
        hand_cage_to("cash1")
    table_open(code="R2", game="english_roulette", opener_cents=5_000_000, actor="pit1", rules={})
    dealer_assign(dealer="dealer1", table="R1", actor="pit1")
    return CAGE_STAFF


def _issued_fill() -> str:
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 10}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    return serial


def _sql(statement: str, params: list) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def test_a_fill_moved_to_another_table_in_its_row_asks_no_dealer_to_accept_it(staff):
    serial = _issued_fill()
    _sql("UPDATE cashier_slip SET table_id = %s WHERE serial = %s", [Table.objects.get(code="R2").pk, serial])
    head, waiting = store.head(), Approval.objects.count()

    with pytest.raises(StateConflict, match=r"row differs from its ledger events \(table\)"):
        approval_request(kind="slip_accept", payload={"kind": "fill", "serial": serial}, actor="run1")

    assert (store.head(), Approval.objects.count()) == (head, waiting)


def test_an_approval_about_a_slip_changed_in_its_row_is_in_no_dealers_scope(staff):
    serial = _issued_fill()
    asked = approval_request(kind="slip_accept", payload={"kind": "fill", "serial": serial}, actor="run1")
    approval = Approval.objects.get(id=asked["approval"]["id"])
    assert subject_table(approval) == "R1"

    _sql("UPDATE cashier_slip SET table_id = %s WHERE serial = %s", [Table.objects.get(code="R2").pk, serial])

    assert subject_table(approval) is None

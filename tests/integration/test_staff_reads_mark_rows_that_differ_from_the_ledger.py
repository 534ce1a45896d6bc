"""The access review and the assignments list show what the sealed events say: a role group
added in ``auth_user_groups`` or a dealer assignment inserted with raw SQL (by someone holding
the database credentials, not ``SECRET_KEY``) is marked "differs from the ledger", never shown
as held "since: account created" or as a dealer's table.
"""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.utils import timezone

from staff.services import dealer_assign, staff_account_create
from tests.conftest import client_as

pytestmark = pytest.mark.django_db


def _sql(statement: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


@pytest.fixture
def people(table):
    staff_account_create(username="aud1", roles=["auditor"], actor="manage.py")
    staff_account_create(username="pit1", roles=["pit_boss"], actor="manage.py")
    staff_account_create(username="dealer7", roles=["dealer"], actor="manage.py")
    staff_account_create(username="dealer8", roles=["dealer"], actor="manage.py")
    dealer_assign(dealer="dealer7", table="R1", actor="pit1")
    users = get_user_model().objects
    return client_as(users.get(username="aud1")), client_as(users.get(username="pit1"))


def test_a_role_group_planted_with_raw_sql_is_marked_in_the_access_review_not_held(people):
    auditor, _ = people
    cashier = Group.objects.get_or_create(name="cashier")[0]
    user_id = get_user_model().objects.get(username="dealer8").pk
    _sql("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)", [user_id, cashier.pk])
    response = auditor.get("/api/staff/access-review")
    assert response.status_code == 200
    rows = {(r["username"], r["role"]): r for r in response.json()["rows"]}
    planted = rows[("dealer8", "cashier")]
    assert planted["since"] is None
    assert planted["since_source"] == "differs from the ledger"
    assert planted["ledger"].startswith("differs from the ledger: the row holds this role")
    held = rows[("dealer8", "dealer")]
    assert (held["since_source"], held["ledger"]) == ("role change event", "")
    assert rows[("pit1", "pit_boss")]["ledger"] == ""
    csv = auditor.get("/api/staff/access-review.csv").content.decode()
    assert "dealer8,True,cashier,,differs from the ledger" in csv


def test_a_superuser_flag_planted_with_raw_sql_shows_no_admin_role_held(people):
    auditor, _ = people
    _sql("UPDATE auth_user SET is_superuser = TRUE WHERE username = 'dealer8'")
    rows = {(r["username"], r["role"]): r for r in auditor.get("/api/staff/access-review").json()["rows"]}
    assert rows[("dealer8", "admin")]["since_source"] == "differs from the ledger"
    assert rows[("dealer8", "dealer")]["ledger"] == ""


def test_a_dealer_assignment_planted_with_raw_sql_is_marked_in_the_assignments_list(people):
    _, pit_boss = people
    dealer = get_user_model().objects.get(username="dealer8").pk
    _sql(
        "INSERT INTO staff_dealerassignment (dealer_id, table_code, started_at, assigned_by, ended_by) "
        "VALUES (%s, 'R1', %s, 'pit1', '')",
        [dealer, timezone.now()],
    )
    response = pit_boss.get("/api/staff/assignments/")
    assert response.status_code == 200
    body = response.json()
    rows = {r["dealer"]: r for r in (body["results"] if isinstance(body, dict) else body)}
    assert rows["dealer8"]["ledger"] == "differs from the ledger: (no event)"
    assert (rows["dealer7"]["table_code"], rows["dealer7"]["ledger"]) == ("R1", "")


def test_an_assignment_moved_with_raw_sql_is_marked_with_the_field_that_differs(people):
    _, pit_boss = people
    _sql("UPDATE staff_dealerassignment SET table_code = 'R9' WHERE table_code = 'R1'")
    body = pit_boss.get("/api/staff/assignments/").json()
    rows = {r["dealer"]: r for r in (body["results"] if isinstance(body, dict) else body)}
    assert rows["dealer7"]["ledger"] == "differs from the ledger: table_code"

"""Someone holding the database credentials adds a role group to ``auth_user_groups``, or sets
``is_superuser`` or ``is_active``, with raw SQL: the account's next request holds only what its
sealed identity events granted (``staff.standing``), whatever the row says. A role given
through the services works at the next request."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client

from staff.backends import StaffBackend
from staff.roles import roles_of
from staff.services import staff_account_create, staff_leave, staff_roles_add

pytestmark = pytest.mark.django_db


def _sql(statement: str, params=()) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def _client(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username), backend="staff.backends.StaffBackend")
    return client


def _dashboard(client: Client) -> int:
    return client.get("/dashboard/").status_code


@pytest.fixture
def cashier():
    staff_account_create(username="cash1", password="a long enough passphrase", roles=["cashier"], actor="manage.py")
    return get_user_model().objects.get(username="cash1")


def test_a_role_group_added_with_raw_sql_gives_no_role(cashier):
    client = _client("cash1")
    assert _dashboard(client) == 403  # the dashboard is the pit boss's
    group = Group.objects.get(name="pit_boss").pk
    _sql("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)", [cashier.pk, group])
    assert _dashboard(client) == 403
    assert roles_of(StaffBackend().get_user(cashier.pk)) == {"cashier"}
    assert roles_of(get_user_model().objects.get(pk=cashier.pk)) == {"cashier"}


def test_superuser_set_with_raw_sql_is_no_admin(cashier):
    _sql("UPDATE auth_user SET is_superuser = TRUE, is_staff = TRUE WHERE id = %s", [cashier.pk])
    loaded = StaffBackend().get_user(cashier.pk)
    assert (loaded.is_superuser, loaded.is_staff, roles_of(loaded)) == (False, False, {"cashier"})
    assert _client("cash1").get("/admin/").status_code == 302  # the admin site's login, not its index


def test_a_leaver_revived_with_raw_sql_stays_out(cashier):
    staff_account_create(username="admin1", roles=[], is_staff=True, is_superuser=True, actor="manage.py")
    staff_account_create(username="admin2", roles=["admin"], actor="manage.py")
    staff_leave(username="cash1", actor="admin1", approver="admin2", reason="left the casino")
    _sql("UPDATE auth_user SET is_active = TRUE WHERE id = %s", [cashier.pk])
    assert StaffBackend().get_user(cashier.pk) is None


def test_a_role_given_through_the_services_works_at_the_next_request(cashier):
    client = _client("cash1")
    assert _dashboard(client) == 403
    staff_roles_add(username="cash1", roles=["pit_boss"], actor="manage.py")
    assert _dashboard(client) == 200

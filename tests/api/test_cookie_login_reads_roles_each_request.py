"""A logged-in session per request (staff/sessions.py, staff/backends.py): the user
and his roles read in one statement must behave as Django's ORM-backed session and backend —
roles as the groups give them, a role taken away or a logout effective on the next request,
expired, forged or odd session cookies anonymous (never a 500)."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from staff.backends import StaffBackend
from staff.roles import roles_of
from staff.sessions import SessionStore, stored_key
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user, backend="staff.backends.StaffBackend")
    return client


def _roles_via_orm(user) -> frozenset[str]:
    user = type(user).objects.get(pk=user.pk)  # no cached roles
    return roles_of(user)


@pytest.mark.parametrize("roles", [(), ("dealer",), ("pit_boss", "cashier"), ("auditor",)])
def test_get_user_loads_the_roles_the_groups_give(roles):
    user = staff_user("someone", *roles)
    user.groups.add(Group.objects.get_or_create(name="not-a-role")[0])
    loaded = StaffBackend().get_user(str(user.pk))
    assert loaded.pk == user.pk and loaded.username == "someone" and loaded.password == user.password
    assert roles_of(loaded) == _roles_via_orm(user) == frozenset(roles)


def test_get_user_superuser_holds_admin_and_inactive_or_unknown_is_nobody():
    boss = staff_user("root", "auditor")
    boss.is_superuser = True
    boss.save()
    assert roles_of(StaffBackend().get_user(boss.pk)) == {"auditor", "admin"}
    boss.is_active = False
    boss.save()
    assert StaffBackend().get_user(boss.pk) is None
    for key in (10**9, "abc", "1\x00"):
        assert StaffBackend().get_user(key) is None


def _whoami(client: Client) -> int:
    return client.get("/api/tables/").status_code


def test_a_session_authenticates_until_logout_and_roles_change_at_once():
    pit = staff_user("pit9", "pit_boss")
    client = _client(pit)
    assert _whoami(client) == 200
    pit.groups.clear()  # role taken away: the next request holds none
    assert _whoami(client) == 403
    pit.groups.add(Group.objects.get(name="pit_boss"))
    assert _whoami(client) == 200
    client.logout()
    assert _whoami(client) in (401, 403)


def test_an_expired_or_deleted_session_is_anonymous():
    client = _client(staff_user("pit8", "pit_boss"))
    key = client.cookies["sessionid"].value
    Session.objects.filter(pk=stored_key(key)).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert _whoami(client) in (401, 403)
    client = _client(staff_user("pit7", "pit_boss"))
    Session.objects.filter(pk=stored_key(client.cookies["sessionid"].value)).delete()
    assert _whoami(client) in (401, 403)


@pytest.mark.parametrize("cookie", ["x" * 40, '"abc\\000defghijkl"', "\u00e9" * 12, "a" * 5000, ""])
def test_a_forged_session_cookie_is_anonymous(cookie):
    client = Client()
    client.cookies["sessionid"] = cookie
    assert _whoami(client) in (401, 403)


def test_a_session_key_altered_by_a_byte_is_anonymous():
    client = _client(staff_user("pit_cookie", "pit_boss"))
    key = client.cookies["sessionid"].value
    for forged in (key.upper(), key + "\x00", key[:-1], key + " ", f'"{key}\\000"', key + "\u00e9"):
        other = Client()
        other.cookies["sessionid"] = forged
        assert other.get("/api/tables/").status_code in (401, 403), forged
    assert client.get("/api/tables/").status_code == 200
    row = Session.objects.get(pk=stored_key(key))
    # The row's data read with its own key (they are signed for it: the row alone reads empty).
    assert SessionStore(key).load()["_auth_user_id"] == SessionStore(key).decode(row.session_data)["_auth_user_id"]
    assert row.get_decoded() == {}

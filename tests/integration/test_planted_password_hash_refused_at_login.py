"""Someone holding the application's database credentials writes a hash of a password he knows
into a person's ``auth_user`` row: ``ledger verify`` names it, but he would log in long before
anyone runs it. The login backend compares the stored hash with the one the account's identity
events recorded and refuses it, with a warning, on both login forms and HTTP Basic; every way
the services change a password (console, reset and change, a re-hash at login) still logs in.
"""

import base64
import logging

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.db import connection
from django.test import Client

from ledger import identity
from ledger.models import Event
from staff.accounts import staff_password_change
from staff.services import staff_account_create, staff_password_set
from tests.conftest import staff_user
from tests.integration.test_identity_changed_with_raw_sql_is_reported import (
    SECRET_PASSWORD,
    _logs_in,
    _sql,
)

pytestmark = pytest.mark.django_db

INSIDERS = "the insider's own password"
NEW_PASSWORD = "blue-Tangerine-42-croupier"
LOGIN_FORMS = ["/dashboard/login/", "/workstations/login/"]


def _basic(username: str, password: str) -> dict:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


def _form_logs_in(form: str, username: str, password: str) -> bool:
    browser = Client()
    browser.post(form, {"username": username, "password": password})
    return "_auth_user_id" in browser.session


def _basic_logs_in(username: str, password: str) -> bool:
    answer = Client().get("/api/patrons/", **_basic(username, password))
    assert answer.status_code in (200, 401), answer.content
    return answer.status_code == 200


@pytest.fixture
def cashier():
    staff_account_create(username="cash1", password=SECRET_PASSWORD, roles=["cashier"], actor="manage.py")


def _plant(password: str = INSIDERS) -> str:
    planted = make_password(password)
    _sql("UPDATE auth_user SET password = %s WHERE username = 'cash1'", [planted])
    return planted


@pytest.mark.parametrize("form", LOGIN_FORMS)
def test_a_planted_hash_is_refused_on_the_login_forms_with_a_warning(cashier, form, caplog):
    assert _form_logs_in(form, "cash1", SECRET_PASSWORD)
    planted = _plant()
    with caplog.at_level(logging.WARNING, logger="staff.backends"):
        assert not _form_logs_in(form, "cash1", INSIDERS)
    [warning] = [r for r in caplog.records if r.name == "staff.backends"]
    assert warning.levelno == logging.WARNING and "cash1" in warning.getMessage()
    assert "not the one the ledger recorded" in warning.getMessage()
    assert (warning.username, warning.password_matched) == ("cash1", True)
    assert planted not in caplog.text and INSIDERS not in caplog.text
    # A failed login like any other (the auth trail, the lockout's count), and not re-hashed.
    assert Event.objects.filter(type="StaffLoginFailed", data__user="cash1").exists()
    assert get_user_model().objects.get(username="cash1").password == planted


def test_a_planted_hash_is_refused_over_http_basic(cashier, caplog):
    assert _basic_logs_in("cash1", SECRET_PASSWORD)
    _plant()
    with caplog.at_level(logging.WARNING, logger="staff.backends"):
        assert not _basic_logs_in("cash1", INSIDERS)
    assert "login refused: cash1 holds a stored password hash" in caplog.text
    assert not _basic_logs_in("cash1", SECRET_PASSWORD)  # nor the old one: the row holds the insider's


def test_a_hash_copied_from_another_account_is_refused(cashier):
    # The digest is of the user and his hash: another account's genuine hash does not pass.
    staff_account_create(username="cash2", password=INSIDERS, roles=["cashier"], actor="manage.py")
    copied = "(SELECT password FROM auth_user WHERE username = 'cash2')"
    _sql(f"UPDATE auth_user SET password = {copied} WHERE username = 'cash1'")
    assert not _logs_in("cash1", INSIDERS) and _logs_in("cash2", INSIDERS)


def test_passwords_changed_through_the_services_log_in(cashier):
    staff_password_set(username="cash1", password=NEW_PASSWORD, actor="manage.py")
    for form in LOGIN_FORMS:
        assert _form_logs_in(form, "cash1", NEW_PASSWORD)
    user = get_user_model().objects.get(username="cash1")
    staff_password_change(user=user, old_password=NEW_PASSWORD, new_password=f"{NEW_PASSWORD}-2")
    assert _basic_logs_in("cash1", f"{NEW_PASSWORD}-2") and not _basic_logs_in("cash1", NEW_PASSWORD)
    assert identity.mismatches() == []


def test_the_console_commands_set_passwords_that_log_in(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", SECRET_PASSWORD)
    call_command("createsuperuser", username="root", email="root@example.com", interactive=False, verbosity=0)
    assert _logs_in("root", SECRET_PASSWORD)
    monkeypatch.setattr("getpass.getpass", lambda prompt="": NEW_PASSWORD)
    call_command("changepassword", "root", verbosity=0)
    assert _logs_in("root", NEW_PASSWORD) and not _logs_in("root", SECRET_PASSWORD)
    assert identity.mismatches() == []


def test_an_account_whose_events_never_stated_a_hash_still_logs_in():
    # A ledger older than the digests (here: an account made without the services) locks nobody out.
    staff_user("old1", "cashier")
    assert _logs_in("old1", "x") and _basic_logs_in("old1", "x")


def test_the_check_is_one_query_over_the_accounts_own_events(cashier, django_assert_num_queries):
    from staff.identity import password_as_recorded

    stored = get_user_model().objects.get(username="cash1").password
    staff_account_create(username="cash2", password=INSIDERS, roles=["cashier"], actor="manage.py")
    with django_assert_num_queries(1) as captured:
        assert password_as_recorded("cash1", stored)
    assert "cash1" in captured.captured_queries[0]["sql"]
    assert not password_as_recorded("cash1", make_password(INSIDERS))


def test_an_account_inserted_with_raw_sql_may_not_log_in(settings, caplog):
    """A whole account row planted by someone holding the database credentials: no identity
    event created it, so its password opens nothing (``ledger verify`` names it too)."""
    from django.contrib.auth import authenticate
    from django.test import RequestFactory
    from django.utils import timezone

    settings.STAFF_LOGIN_REQUIRES_RECORDED_ACCOUNT = True
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, first_name, last_name, "
            "email, date_joined) VALUES ('ghostadmin', %s, true, true, true, '', '', '', %s)",
            [make_password("boo"), timezone.now()],
        )
    with caplog.at_level("WARNING", logger="staff.backends"):
        assert authenticate(RequestFactory().post("/accounts/login/"), username="ghostadmin", password="boo") is None
    assert "ghostadmin is an account no identity event in the ledger created" in caplog.text
    staff_account_create(username="recorded1", password="pw-recorded-1", actor="manage.py")
    assert authenticate(RequestFactory().post("/accounts/login/"), username="recorded1", password="pw-recorded-1")

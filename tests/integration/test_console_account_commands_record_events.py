"""The project's own ``createsuperuser`` and ``changepassword`` (staff's, in place of Django's):
the account created and the password set are identity events, so ``ledger verify`` finds the
rows as the ledger says they are (Django's own commands wrote the rows alone)."""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from ledger import identity
from ledger.models import Event
from staff.management.commands import changepassword
from staff.models import PasswordChangeDue
from staff.services import password_digest, staff_account_create

pytestmark = pytest.mark.django_db

PASSWORD = "a long console password"


def test_createsuperuser_records_the_account_it_creates(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command(
        "createsuperuser", "--noinput", "--username", "root", "--email", "root@casino.example", stdout=StringIO()
    )
    root = get_user_model().objects.get(username="root")
    assert root.is_superuser and root.check_password(PASSWORD)
    event = Event.objects.get(type="StaffUserChanged", data__user="root")
    assert (event.actor, event.data["before"]) == ("manage.py", None)
    assert event.data["after"] == {"username": "root", "is_active": True, "is_staff": True, "is_superuser": True}
    assert event.data["password_digest"] == password_digest(root)
    assert identity.mismatches() == []


def test_changepassword_sets_the_password_through_the_service(monkeypatch):
    staff_account_create(username="cash1", password="the first password", roles=["cashier"], actor="manage.py")
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="Password: ": PASSWORD)
    out = StringIO()
    call_command("changepassword", "cash1", stdout=out)
    cashier = get_user_model().objects.get(username="cash1")
    assert cashier.check_password(PASSWORD)
    assert "Password changed successfully for user 'cash1'" in out.getvalue()
    event = Event.objects.get(type="StaffPasswordSet")
    assert (event.actor, event.data) == ("manage.py", {"user": "cash1", "password_digest": password_digest(cashier)})
    assert PASSWORD not in str(event.data)
    assert identity.mismatches() == []


def test_the_exception_log_lists_a_password_set_at_the_console_and_a_name_changed(monkeypatch):
    from audit.exceptions import exception_log
    from ledger.gaming_day import current_gaming_day
    from staff.services import staff_profile_change

    staff_account_create(username="adm1", roles=["admin"], actor="manage.py")
    staff_account_create(username="cash1", roles=["cashier"], actor="manage.py")
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="Password: ": PASSWORD)
    call_command("changepassword", "cash1", stdout=StringIO())
    staff_profile_change(username="cash1", first_name="Jeanne", email="j@casino.example", actor="adm1")
    rows = exception_log(current_gaming_day(), kind="role_change", person="cash1")["rows"]
    assert [row["what"] for row in rows][-2:] == [
        "password of cash1 set at the console",
        "first name, e-mail of cash1 changed",
    ]


def test_one_operator_at_the_console_cannot_make_the_second_admin_or_set_a_password_once_two_exist(monkeypatch):
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", "--noinput", "--username", "root", "--email", "r@casino.example", stdout=StringIO())
    with pytest.raises(CommandError, match=r"an admin exists \(root\)"):
        call_command("createsuperuser", "--noinput", "--username", "root2", "--email", "s@casino.example")
    assert not get_user_model().objects.filter(username="root2").exists()
    staff_account_create(username="adm2", roles=["admin"], actor="root")
    staff_account_create(username="cash1", password="the first password", roles=["cashier"], actor="root")
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="Password: ": PASSWORD)
    with pytest.raises(CommandError, match="this site has two admins"):
        call_command("changepassword", "cash1", stdout=StringIO())
    assert get_user_model().objects.get(username="cash1").check_password("the first password")
    assert not Event.objects.filter(type="StaffPasswordSet").exists()


def test_a_password_set_at_the_console_must_be_changed_at_the_next_login(monkeypatch):
    staff_account_create(username="cash1", password="the first password", roles=["cashier"], actor="manage.py")
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="Password: ": PASSWORD)
    call_command("changepassword", "cash1", stdout=StringIO())
    due = PasswordChangeDue.objects.get(user__username="cash1")
    assert (due.reason, due.set_by) == ("password set at the console", "manage.py")


def test_admin_rows_changed_with_sql_neither_open_the_console_nor_name_an_admin(monkeypatch):
    from django.db import connection

    staff_account_create(username="adm1", roles=["admin"], actor="manage.py")
    staff_account_create(username="adm2", roles=["admin"], actor="adm1")
    staff_account_create(username="cash1", password="the first password", roles=["cashier"], actor="adm1")
    with connection.cursor() as cursor:  # one admin set inactive, a forged one made superuser
        cursor.execute("UPDATE auth_user SET is_active = false WHERE username = 'adm2'")
        cursor.execute("UPDATE auth_user SET is_superuser = true, is_active = true WHERE username = 'cash1'")
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="Password: ": PASSWORD)

    with pytest.raises(CommandError, match="this site has two admins"):
        call_command("changepassword", "cash1", stdout=StringIO())
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    with pytest.raises(CommandError, match=r"an admin exists \(adm1, adm2\)"):
        call_command("createsuperuser", "--noinput", "--username", "root2", "--email", "s@casino.example")
    assert get_user_model().objects.get(username="cash1").check_password("the first password")

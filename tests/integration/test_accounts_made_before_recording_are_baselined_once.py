"""A database upgraded from before accounts were recorded holds accounts no identity event made:
``ledger verify`` names each "(no event)" and the login's hash check has nothing to compare.
``manage.py staff_baseline`` records them, once, as they stand; an account whose row
contradicts an event is refused, and a second baseline is refused (an account made behind the
ledger's back later is not blessed by it)."""

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import RequestFactory
from django.utils import timezone

from ledger import identity
from ledger.models import Event
from staff.services import record_roles_change, staff_account_create
from tests.integration.test_anchored_chain import _Out

pytestmark = pytest.mark.django_db


def _made_before_recording(username: str, password: str, group: str | None = None) -> None:
    """An account as an older release made it: rows only, no event."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_user (username, password, is_superuser, is_staff, is_active, first_name, last_name, "
            "email, date_joined) VALUES (%s, %s, false, false, true, 'Old', 'Timer', '', %s)",
            [username, make_password(password), timezone.now()],
        )
        if group:
            cursor.execute(
                "INSERT INTO auth_group (name) SELECT %s WHERE NOT EXISTS (SELECT 1 FROM auth_group WHERE name = %s)",
                [group, group],
            )
            cursor.execute(
                "INSERT INTO auth_user_groups (user_id, group_id) SELECT u.id, g.id FROM auth_user u, auth_group g "
                "WHERE u.username = %s AND g.name = %s",
                [username, group],
            )


def _baseline() -> str:
    out = _Out()
    call_command("staff_baseline", "--actor", "ops-lead", stdout=out)
    return out.text


def _logs_in(username: str, password: str) -> bool:
    return authenticate(RequestFactory().post("/accounts/login/"), username=username, password=password) is not None


def test_accounts_made_before_recording_are_recorded_as_they_stand_and_verify():
    staff_account_create(username="recorded1", password="pw-recorded-1", roles=["cashier"], actor="manage.py")
    _made_before_recording("old1", "pw-old-1", group="cashier")
    _made_before_recording("old2", "pw-old-2")
    assert sorted((m.id, m.field) for m in identity.mismatches()) == [("old1", "(no event)"), ("old2", "(no event)")]
    assert _baseline() == "recorded as they stand: old1, old2\n"
    assert identity.mismatches() == []
    event = Event.objects.filter(type="StaffUserChanged", data__user="old1").get()
    assert event.data["baseline"] is True and event.data["roles"] == ["cashier"]
    assert event.actor == "manage.py staff_baseline (ops-lead)"
    assert "pw-old-1" not in str(event.data) and event.data["password_digest"]
    assert _logs_in("old1", "pw-old-1") and _logs_in("recorded1", "pw-recorded-1")
    # The hash is now checked at login: one planted after the baseline is refused.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE auth_user SET password = %s WHERE username = 'old2'", [make_password("planted")])
    assert not _logs_in("old2", "planted")


def test_a_baseline_runs_once_and_a_later_ghost_stays_reported():
    _made_before_recording("old1", "pw-old-1")
    _baseline()
    _made_before_recording("ghost", "boo")
    with pytest.raises(CommandError, match=r"recorded as they stood already \(event \d+\)"):
        _baseline()
    assert [(m.id, m.field) for m in identity.mismatches()] == [("ghost", "(no event)")]


def test_an_account_whose_row_contradicts_an_event_is_not_recorded():
    _made_before_recording("old1", "pw-old-1")
    old1 = get_user_model().objects.get(username="old1")
    record_roles_change(user=old1, after={"cashier"}, actor="manage.py")  # an event states his roles
    with connection.cursor() as cursor:  # … and his groups are changed behind it
        cursor.execute("DELETE FROM auth_user_groups WHERE user_id = %s", [old1.pk])
    with pytest.raises(CommandError, match=r"contradict the ledger .*: old1 \(groups\)"):
        _baseline()
    assert not Event.objects.filter(data__baseline=True).exists()


def test_with_every_account_recorded_there_is_nothing_to_do():
    staff_account_create(username="recorded1", password="pw-recorded-1", actor="manage.py")
    assert _baseline() == "every account is already recorded: nothing to do\n"

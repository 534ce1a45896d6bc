"""Account controls (25 CFR 543.16): incompatible roles refused in one account, the access review,
leavers deactivated with the time recorded, and Django's password policy."""

import csv
import io

import pytest
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import Client

from ledger import store
from ledger.models import Event
from staff.accounts import staff_roles_set
from staff.models import DealerAssignment
from staff.roles import IncompatibleRoles, roles_of
from staff.services import dealer_assign, record_roles_change, staff_leave
from tests.conftest import ACTOR, approve, client_as, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api():
    return client_as(staff_user("boss", "admin"))


@pytest.fixture
def second_admin():
    """Another admin: he signs what ``boss`` asks for an account (``POST /api/approvals/<id>/confirm``)."""
    return client_as(staff_user("boss2", "admin"))


def _roles_set(admin_api, second_admin, username: str, roles: list[str]):
    asked = admin_api.post(f"/api/staff/users/{username}/roles", {"roles": roles}, format="json")
    assert asked.status_code == 202, asked.content
    return second_admin.post(f"/api/approvals/{asked.json()['approval']['id']}/confirm")


@pytest.mark.parametrize(
    ("roles", "named"),
    [
        (["runner", "cashier"], "runner and cashier"),
        (["runner", "pit_boss"], "runner and pit_boss"),
        (["count_team", "cashier"], "count_team and cashier"),
        (["count_team", "cage_supervisor"], "count_team and cage_supervisor"),
        (["drop_team", "count_team"], "drop_team and count_team"),
    ],
)
def test_an_account_given_incompatible_roles_is_refused_with_400_naming_them(admin_api, roles, named):
    staff_user("sam", "dealer")
    before = store.head()
    response = admin_api.post("/api/staff/users/sam/roles", {"roles": roles}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == "roles" and named in body["detail"]
    assert roles_of("sam") == {"dealer"}
    assert store.head() == before


def test_compatible_roles_are_set_and_recorded_once_a_second_admin_confirms(admin_api, second_admin):
    staff_user("sam", "dealer")
    response = _roles_set(admin_api, second_admin, "sam", ["cashier", "cage_supervisor"])
    assert response.status_code == 200, response.content
    assert response.json()["after"] == ["cage_supervisor", "cashier"]
    assert roles_of("sam") == {"cashier", "cage_supervisor"}


def test_the_role_change_service_refuses_incompatible_roles_on_every_path():
    sam = staff_user("sam", "runner")
    staff_user("boss", "admin")
    with pytest.raises(IncompatibleRoles) as refused:
        staff_roles_set(username="sam", roles=["runner", "cashier"], actor="boss", approver="boss2")
    assert refused.value.status == 400 and refused.value.field == "roles"
    with pytest.raises(IncompatibleRoles):
        record_roles_change(user=sam, after={"runner", "pit_boss"}, actor=ACTOR)
    with pytest.raises(CommandError, match="runner and cashier"):
        call_command("staff_roles", "sam", "cashier", "--add")
    assert roles_of("sam") == {"runner"}
    assert not Event.objects.filter(type="StaffRolesChanged").exists()


def test_the_django_admin_changes_no_roles_not_even_incompatible_ones(client, django_user_model):
    root = django_user_model.objects.create_superuser(username="root", password="x")
    sam = staff_user("sam", "count_team")
    client.force_login(root)
    before = store.head()
    form = {
        "username": "sam",
        "is_active": "on",
        "date_joined_0": "2026-11-29",
        "date_joined_1": "20:00:00",
        "groups": [Group.objects.get(name="count_team").pk, Group.objects.get(name="cage_supervisor").pk],
    }
    page = client.post(f"/admin/auth/user/{sam.pk}/change/", form)
    assert page.status_code == 302  # saved: the roles are read-only there, the posted ones ignored
    assert roles_of("sam") == {"count_team"}
    assert not Event.objects.filter(type="StaffRolesChanged").exists()
    assert store.head() == before


def test_the_access_review_lists_roles_since_when_and_last_login(admin_api, second_admin, django_user_model):
    staff_user("sam", "dealer")
    staff_user("old", "cashier")
    assert _roles_set(admin_api, second_admin, "sam", ["dealer", "pit_boss"]).status_code == 200
    granted = Event.objects.get(type="StaffRolesChanged").occurred_at
    assert Client().post("/api/auth/login/", {"username": "sam", "password": "x"}).status_code == 302
    staff_leave(username="old", actor="boss", approver="boss2", reason="resigned")
    left = Event.objects.get(type="StaffLeft")

    auditor = client_as(staff_user("aud", "auditor"))
    report = auditor.get("/api/staff/access-review")
    assert report.status_code == 200, report.content
    rows = {(row["username"], row["role"]): row for row in report.json()["rows"]}
    pit = rows[("sam", "pit_boss")]
    assert pit["since"] == granted.isoformat() and pit["since_source"] == "role change event"
    assert pit["last_login"] is not None and pit["active"] is True and pit["left_at"] is None
    dealer = rows[("sam", "dealer")]
    assert dealer["since_source"] == "account created" and dealer["since"] == dealer["date_joined"]
    gone = rows[("old", "cashier")]
    assert gone["active"] is False and gone["left_at"] == left.data["left_at"] and gone["last_login"] is None
    assert rows[("aud", "auditor")]["incompatible"] == ""

    download = auditor.get("/api/staff/access-review.csv")
    assert download.status_code == 200 and download["Content-Type"].startswith("text/csv")
    lines = list(csv.reader(io.StringIO(download.content.decode())))
    assert lines[0] == ["title", "Access review"]
    assert lines[3][:4] == ["username", "active", "role", "since"]
    assert ["old", "False", "cashier"] in [line[:3] for line in lines[4:]]


def test_only_the_auditor_and_the_admin_read_the_access_review():
    for role in ("cashier", "pit_boss", "count_team"):
        assert client_as(staff_user(f"u-{role}", role)).get("/api/staff/access-review").status_code == 403
    assert client_as(staff_user("root2", "admin")).get("/api/staff/access-review.csv").status_code == 200


def test_a_leaver_is_deactivated_once_another_admin_signs_with_the_time_recorded(admin_api, second_admin, table):
    """One admin alone could once deactivate his colleagues, the other admins first: nobody
    would then be left to sign their return. Another admin signs a leaver's deactivation."""
    staff_user("pit9", "pit_boss")
    staff_user("dealer5", "dealer")
    dealer_assign(dealer="dealer5", table="R1", actor="pit9")
    asked = admin_api.post("/api/staff/users/dealer5/leave", {"reason": "end of contract"}, format="json")
    assert asked.status_code == 202, asked.content
    assert roles_of("dealer5") == frozenset({"dealer"})  # nothing yet: one admin asked
    assert admin_api.post(f"/api/approvals/{asked.json()['approval']['id']}/confirm").status_code == 403
    response = approve(asked, second_admin)
    assert response.status_code == 200, response.content
    body = response.json()
    event = Event.objects.get(type="StaffLeft")
    assert (event.stream, event.actor) == ("staff/roles", "boss")
    assert event.data == {
        "user": "dealer5",
        "left_at": body["left_at"],
        "roles": ["dealer"],
        "reason": "end of contract",
        "approver": "boss2",
        "before": {"is_active": True},
        "after": {"is_active": False},
    }
    assert roles_of("dealer5") == frozenset()
    assert not DealerAssignment.objects.filter(dealer__username="dealer5", ended_at__isnull=True).exists()
    assert Client().post("/api/auth/login/", {"username": "dealer5", "password": "x"}).status_code == 200  # refused
    again = admin_api.post("/api/staff/users/dealer5/leave", {}, format="json")
    assert again.status_code == 409
    assert admin_api.post("/api/staff/users/boss/leave", {}, format="json").status_code == 403
    assert admin_api.post("/api/staff/users/nobody/leave", {}, format="json").status_code == 404
    assert client_as(staff_user("pit8", "pit_boss")).post("/api/staff/users/pit9/leave", {}).status_code == 403


@pytest.mark.parametrize("password", ["short1!", "123456789012345", "password1234", "samuel-casino"])
def test_weak_passwords_are_refused_by_the_policy(django_user_model, password):
    user = django_user_model(username="samuel-casino", first_name="Samuel")
    with pytest.raises(ValidationError):
        validate_password(password, user)


def test_a_long_uncommon_password_passes_the_policy(django_user_model):
    validate_password("blue-Tangerine-42-croupier", django_user_model(username="sam"))

"""A superuser set a cashier's password in the Django admin (no ledger event, only a
``django_admin_log`` row he could delete) and worked as that cashier.

Now the admin sets no password, role or active flag and edits no patron's identity; a password
reset, a role change or a reactivation is asked by one admin and confirmed by another from his
own session (``approvals``), recorded on the ledger with both names, and the account's owner
must choose his own new password before anything else: both login forms send him to the
password page, the API answers 403 naming it.
"""

import base64

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from approvals.models import Approval
from ledger import store
from ledger.models import Event, IdempotencyRecord
from patrons.services.patrons import identity_digests, patron_register
from staff.accounts import password_change_due
from staff.models import PasswordChangeDue
from staff.services import password_digest, staff_leave
from tests.conftest import client_as, staff_user

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "blue-Tangerine-42-croupier"


@pytest.fixture
def people(cage):
    return {
        "adm1": staff_user("adm1", "admin"),
        "adm2": staff_user("adm2", "admin"),
        "cash1": staff_user("cash1", "cashier"),
        "pit1": staff_user("pit1", "pit_boss"),
    }


def _logs_in(username: str, password: str) -> bool:
    """Whether ``password`` is the account's password now."""
    return get_user_model().objects.get(username=username).check_password(password)


def _reset(people, *, maker="adm1", signer="adm2", username="cash1"):
    asked = client_as(people[maker]).post(f"/api/staff/users/{username}/password-reset", {}, format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    return approval, client_as(people[signer]).post(f"/api/approvals/{approval}/confirm", {}, format="json")


def _basic(username: str, password: str) -> dict:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


def test_a_superuser_cannot_set_a_cashiers_password_in_the_admin(client, people, django_user_model):
    root = django_user_model.objects.create_superuser(username="root", password="x")
    cashier = people["cash1"]
    client.force_login(root)
    before = store.head()
    url = f"/admin/auth/user/{cashier.pk}/password/"
    assert client.get(url).status_code == 403
    posted = client.post(url, {"password1": "root-knows-this-1", "password2": "root-knows-this-1"})
    assert posted.status_code == 403
    change = client.get(f"/admin/auth/user/{cashier.pk}/change/").content.decode()
    assert 'name="password"' not in change and "../password/" not in change
    assert 'name="username"' not in change and 'name="is_active"' not in change and 'name="groups"' not in change
    assert "password-reset" in change  # the page says where a password is reset
    client.post(f"/admin/auth/user/{cashier.pk}/change/", {"username": "cash1", "password": "pbkdf2_sha256$forged"})
    assert _logs_in("cash1", "x") and not _logs_in("cash1", "root-knows-this-1")
    assert store.head() == before


def test_a_superuser_cannot_edit_a_patrons_identity_in_the_admin(client, people, django_user_model):
    root = django_user_model.objects.create_superuser(username="root", password="x")
    code = patron_register(kind="identified", name="Anne Martin", document="FR-123", actor="cash1")["patron"]
    from patrons.models import Patron

    patron = Patron.objects.get(code=code)
    client.force_login(root)
    page = client.get(f"/admin/patrons/patron/{patron.pk}/change/")
    assert page.status_code == 200 and 'name="name"' not in page.content.decode()
    assert "/api/patrons/&lt;code&gt;/identity" in page.content.decode()
    forged = client.post(f"/admin/patrons/patron/{patron.pk}/change/", {"name": "Someone Else", "document": "X-1"})
    assert forged.status_code == 403
    assert client.post("/admin/patrons/patron/add/", {"code": "P99999", "name": "Ghost"}).status_code == 403
    patron.refresh_from_db()
    assert (patron.name, patron.document) == ("Anne Martin", "FR-123")


def test_a_password_reset_waits_for_a_second_admin_and_is_an_event_naming_both(people):
    asked = client_as(people["adm1"]).post("/api/staff/users/cash1/password-reset", {}, format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]
    assert approval["waiting_for"] == [{"slot": "approver", "roles": ["admin"], "user": None}]
    assert not Event.objects.filter(type="StaffPasswordReset").exists() and _logs_in("cash1", "x")
    for who in ("adm1", "cash1", "pit1"):  # the maker; people without the admin role
        refused = client_as(people[who]).post(f"/api/approvals/{approval['id']}/confirm", {}, format="json")
        assert refused.status_code == 403, (who, refused.content)
    assert _logs_in("cash1", "x")

    confirmed = client_as(people["adm2"]).post(f"/api/approvals/{approval['id']}/confirm", {}, format="json")
    assert confirmed.status_code == 200, confirmed.content
    temporary = confirmed.json()["temporary_password"]
    assert len(temporary) >= 12 and confirmed.json()["must_change_password"] is True
    event = Event.objects.get(type="StaffPasswordReset")
    assert (event.stream, event.actor) == ("staff/roles", "adm1")
    assert event.data == {
        "user": "cash1",
        "approver": "adm2",
        "before": {"must_change_password": False},
        "after": {"must_change_password": True},
        # The keyed digest of the new hash (ledger verify compares it), never the password.
        "password_digest": password_digest(get_user_model().objects.get(username="cash1")),
    }
    # The temporary password is in the confirming admin's answer only: never stored.
    assert temporary not in str(Approval.objects.get(id=approval["id"]).result)
    assert all(temporary not in str(e.data) for e in Event.objects.filter(stream__startswith="approval/"))
    assert all(temporary not in str(r.result) for r in IdempotencyRecord.objects.all())
    assert not _logs_in("cash1", "x") and _logs_in("cash1", temporary)
    assert PasswordChangeDue.objects.filter(user=people["cash1"]).exists()


def test_the_maker_cannot_name_himself_and_the_owner_cannot_sign_his_own_reset(people):
    before = store.head()
    himself = client_as(people["adm1"]).post(
        "/api/staff/users/cash1/password-reset", {"approver": "adm1"}, format="json"
    )
    assert himself.status_code == 403 and "segregation of duties" in himself.json()["detail"]
    assert store.head() == before
    own = client_as(people["adm1"]).post("/api/staff/users/adm1/password-reset", {}, format="json")
    assert own.status_code == 403
    approval, by_owner = _reset(people, username="adm2", signer="adm2")
    assert by_owner.status_code == 403 and "account's owner" in by_owner.json()["detail"]
    assert not Event.objects.filter(type="StaffPasswordReset").exists()
    assert Approval.objects.get(id=approval).state == "pending"


@pytest.mark.parametrize("login_form", ["/dashboard/login/", "/workstations/login/"])
def test_after_a_reset_the_owner_chooses_a_new_password_before_anything_else(people, login_form):
    _, confirmed = _reset(people)
    temporary = confirmed.json()["temporary_password"]
    browser = Client()
    landed = browser.post(login_form, {"username": "cash1", "password": temporary}, follow=True)
    assert landed.redirect_chain[-1][0].startswith("/accounts/password/?next=")
    page = landed.content.decode()
    assert "Choose a new password" in page and "Someone else changed your account" in page
    cage = browser.get("/workstations/cage/")
    assert cage.status_code == 302 and cage["Location"].startswith("/accounts/password/")
    api = browser.get("/api/approvals/")
    assert api.status_code == 403 and api.json()["error"] == "password_change_required"
    assert "choose a new password first" in api.json()["detail"]
    basic = Client().get("/api/patrons/", **_basic("cash1", temporary))
    assert basic.status_code == 403 and "choose a new password first" in basic.json()["detail"]

    weak = browser.post(
        "/accounts/password/", {"old_password": temporary, "new_password1": "short", "new_password2": "short"}
    )
    assert weak.status_code == 200 and "too short" in weak.content.decode()
    changed = browser.post(
        "/accounts/password/",
        {"old_password": temporary, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD, "next": "/"},
    )
    assert changed.status_code == 302 and changed["Location"] == "/"
    event = Event.objects.get(type="StaffPasswordChanged")
    assert (event.actor, event.data) == (
        "cash1",
        {
            "user": "cash1",
            "before": {"must_change_password": True},
            "after": {"must_change_password": False},
            "password_digest": password_digest(get_user_model().objects.get(username="cash1")),
        },
    )
    assert not PasswordChangeDue.objects.filter(user=people["cash1"]).exists()
    assert browser.get("/workstations/cage/").status_code == 200  # same session, kept
    assert Client().get("/api/patrons/", **_basic("cash1", NEW_PASSWORD)).status_code == 200
    assert not _logs_in("cash1", temporary)


def test_an_api_user_changes_his_password_through_the_api(people):
    _, confirmed = _reset(people)
    temporary = confirmed.json()["temporary_password"]
    api = Client()
    assert api.get("/api/patrons/", **_basic("cash1", temporary)).status_code == 403
    wrong = api.post(
        "/api/staff/password",
        {"old_password": "nope", "new_password": NEW_PASSWORD},
        content_type="application/json",
        **_basic("cash1", temporary),
    )
    assert wrong.status_code == 400 and wrong.json()["field"] == "old_password"
    same = api.post(
        "/api/staff/password",
        {"old_password": temporary, "new_password": temporary},
        content_type="application/json",
        **_basic("cash1", temporary),
    )
    assert same.status_code == 400 and same.json()["field"] == "new_password"
    done = api.post(
        "/api/staff/password",
        {"old_password": temporary, "new_password": NEW_PASSWORD},
        content_type="application/json",
        **_basic("cash1", temporary),
    )
    assert done.status_code == 200, done.content
    assert done.json()["must_change_password"] is False
    assert api.get("/api/patrons/", **_basic("cash1", NEW_PASSWORD)).status_code == 200


@pytest.mark.parametrize("field", ["username", "user", "approver"])
def test_the_password_api_refuses_a_body_naming_someone_or_anything_else(people, field):
    # One's own password only: a body naming another person is refused, not silently ignored.
    before = store.head()
    api = Client()
    named = api.post(
        "/api/staff/password",
        {"old_password": "x", "new_password": NEW_PASSWORD, field: "adm1"},
        content_type="application/json",
        **_basic("cash1", "x"),
    )
    assert named.status_code == 400, named.content
    assert named.json()["field"] == field and "your own password only" in named.json()["detail"]
    assert store.head() == before
    assert _logs_in("cash1", "x") and _logs_in("adm1", "x")
    own = api.post(
        "/api/staff/password",
        {"old_password": "x", "new_password": NEW_PASSWORD},
        content_type="application/json",
        **_basic("cash1", "x"),
    )
    assert own.status_code == 200, own.content
    assert _logs_in("cash1", NEW_PASSWORD) and _logs_in("adm1", "x")


def test_a_role_change_and_a_reactivation_need_a_second_admin_and_a_new_password(people):
    adm1, adm2 = client_as(people["adm1"]), client_as(people["adm2"])
    asked = adm1.post("/api/staff/users/pit1/roles", {"roles": ["pit_boss", "cashier"]}, format="json")
    assert asked.status_code == 202 and not Event.objects.filter(type="StaffRolesChanged", data__user="pit1").exists()
    done = adm2.post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
    assert done.status_code == 200, done.content
    assert Event.objects.get(type="StaffRolesChanged", data__user="pit1").data["approver"] == "adm2"
    assert password_change_due(people["pit1"].__class__.objects.get(username="pit1"))

    staff_leave(username="cash1", actor="adm1", approver="adm2", reason="resigned")
    asked = adm1.post("/api/staff/users/cash1/reactivate", {"approver": "adm2"}, format="json")
    assert asked.status_code == 202, asked.content
    people["cash1"].refresh_from_db()
    assert not people["cash1"].is_active
    done = adm2.post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
    assert done.status_code == 200, done.content
    event = Event.objects.filter(type="StaffUserChanged", data__user="cash1").get()
    assert (event.actor, event.data["approver"]) == ("adm1", "adm2")
    assert (event.data["before"]["is_active"], event.data["after"]["is_active"]) == (False, True)
    assert PasswordChangeDue.objects.filter(user__username="cash1").exists()
    again = adm1.post("/api/staff/users/cash1/reactivate", {}, format="json")
    assert again.status_code == 409


def test_an_operator_asks_at_the_console_and_another_admin_confirms(people, capsys):
    with pytest.raises(CommandError, match="another admin exists"):
        call_command("staff_roles", "pit1", "cashier")
    call_command("account_change", "password-reset", "cash1", "--actor", "adm1")
    out = capsys.readouterr().out
    assert "waits for admin" in out and "/confirm" in out
    approval = Approval.objects.get(kind="staff_password_reset")
    assert approval.maker == "adm1" and approval.state == "pending"
    assert not Event.objects.filter(type="StaffPasswordReset").exists()
    confirmed = client_as(people["adm2"]).post(f"/api/approvals/{approval.id}/confirm", {}, format="json")
    assert confirmed.status_code == 200 and Event.objects.get(type="StaffPasswordReset").actor == "adm1"
    with pytest.raises(CommandError, match="unknown role"):
        call_command("account_change", "roles", "cash1", "king", "--actor", "adm1")


def test_an_account_created_in_the_admin_must_choose_its_own_password(client, people, django_user_model):
    root = django_user_model.objects.create_superuser(username="root", password="x")
    client.force_login(root)
    created = client.post(
        "/admin/auth/user/add/",
        {"username": "newbie", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )
    assert created.status_code == 302, created.content[:1000]
    assert PasswordChangeDue.objects.filter(user__username="newbie").exists()
    assert Event.objects.get(type="StaffUserChanged", data__user="newbie").actor == "root"


def test_the_exception_log_lists_a_reset_with_both_admins(people):
    _reset(people)
    auditor = client_as(staff_user("aud1", "auditor"))
    rows = auditor.get("/api/audit/exceptions/", {"kind": "role_change"}).json()["rows"]
    (row,) = [r for r in rows if r["type"] == "StaffPasswordReset"]
    assert (row["person"], row["approver"], row["subject"]) == ("adm1", "adm2", "user cash1")
    assert row["what"] == "password of cash1 reset: he chooses a new one at his next login"


def test_a_patrons_identity_changes_only_through_the_service_and_each_change_is_an_event(people):
    code = patron_register(kind="identified", name="Anne Martin", document="FR-123", actor="cash1")["patron"]
    cashier = client_as(people["cash1"])
    corrected = cashier.post(
        f"/api/patrons/{code}/identity", {"name": "Anne Martin", "document": "FR-124"}, format="json"
    )
    assert corrected.status_code == 201, corrected.content
    event = Event.objects.get(type="PatronIdentityRecorded")
    # No name, no document: their keyed digests only (what ledger verify compares).
    digests = identity_digests(code, name="Anne Martin", document="FR-124")
    assert (event.actor, event.data) == ("cash1", {"patron": code, "replaced": True, **digests})
    assert "FR-124" not in str(event.data) and "Anne" not in str(event.data)
    assert (
        client_as(people["adm1"])
        .post(f"/api/patrons/{code}/identity", {"name": "X", "document": "Y"}, format="json")
        .status_code
        == 403
    )

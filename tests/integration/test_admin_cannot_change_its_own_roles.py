"""A superuser cannot give himself a role in the Django admin. One took the cashier role there
(302), then sold chips (201): a change the API refuses (``POST /api/staff/users/<self>/roles``:
403).

The admin's user form now shows roles, model permissions, the password, superuser, staff and
active status read-only on every account: they change through ``staff.accounts``, asked by one
admin and confirmed by another from his own session (``approvals``); the role groups cannot be
renamed there.
"""

import pytest
from django.contrib.auth.models import Group, Permission
from rest_framework.test import APIClient

from ledger import store
from ledger.models import Event
from staff.roles import roles_of
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(django_user_model, cage):
    return django_user_model.objects.create_superuser(username="root", password="x")


def _user_form(user, **fields) -> dict:
    form = {
        "username": user.username,
        "is_active": "on",
        "date_joined_0": "2026-11-29",
        "date_joined_1": "20:00:00",
    }
    form.update(fields)
    return form


def test_a_superuser_cannot_give_himself_the_cashier_role_in_the_admin(client, root):
    cashier = Group.objects.get(name="cashier")
    client.force_login(root)
    before = store.head()
    form = _user_form(root, groups=[cashier.pk], is_staff="on", is_superuser="on")
    response = client.post(f"/admin/auth/user/{root.pk}/change/", form)
    assert response.status_code in (302, 403), response.content[:500]
    root.refresh_from_db()
    assert not root.groups.exists()
    assert roles_of(root) == {"admin"}
    assert not Event.objects.filter(type="StaffRolesChanged", data__user=root.username).exists()
    assert store.head() == before

    api = APIClient()
    api.force_authenticate(root)
    sale = api.post("/api/cage/purchases", {"patron": "anon", "amount_cents": 10_000}, format="json")
    assert sale.status_code == 403
    # The same change through the API: refused, as it always was.
    refused = api.post(f"/api/staff/users/{root.username}/roles", {"roles": ["cashier"]}, format="json")
    assert refused.status_code == 403


def test_the_access_fields_of_every_account_are_read_only_in_the_form(client, root):
    client.force_login(root)
    other = staff_user("dealer9", "dealer")
    for user in (root, other):
        page = client.get(f"/admin/auth/user/{user.pk}/change/").content.decode()
        for field in ("groups", "user_permissions", "is_superuser", "is_staff", "is_active", "password"):
            assert f'name="{field}"' not in page, field
        assert "/api/staff/users/&lt;name&gt;/password-reset" in page  # where a password is reset


def test_a_staff_user_without_the_admin_role_cannot_change_roles_in_the_admin(client, root):
    clerk = staff_user("clerk", "pit_boss")
    clerk.is_staff = True
    clerk.save()
    clerk.user_permissions.add(*Permission.objects.filter(codename__in=["view_user", "change_user"]))
    dealer = staff_user("dealer9", "dealer")
    cashier = Group.objects.get(name="cashier")
    client.force_login(clerk)
    before = store.head()
    client.post(f"/admin/auth/user/{dealer.pk}/change/", _user_form(dealer, groups=[cashier.pk]))
    client.post(f"/admin/auth/user/{clerk.pk}/change/", _user_form(clerk, groups=[cashier.pk], is_staff="on"))
    assert roles_of(dealer.username) == {"dealer"}
    assert roles_of(clerk.username) == {"pit_boss"}
    assert store.head() == before


def test_roles_posted_in_the_admin_for_another_user_are_ignored(client, root):
    dealer = staff_user("dealer9", "dealer")
    runner = Group.objects.get(name="runner")
    client.force_login(root)
    before = store.head()
    response = client.post(f"/admin/auth/user/{dealer.pk}/change/", _user_form(dealer, groups=[runner.pk]))
    assert response.status_code == 302, response.content[:500]
    assert roles_of("dealer9") == {"dealer"}
    assert store.head() == before


def test_a_role_group_cannot_be_renamed_or_deleted_in_the_admin(client, root):
    cashier = Group.objects.get(name="cashier")
    client.force_login(root)
    renamed = client.post(f"/admin/auth/group/{cashier.pk}/change/", {"name": "old-cashier"})
    assert renamed.status_code == 403
    deleted = client.post(f"/admin/auth/group/{cashier.pk}/delete/", {"post": "yes"})
    assert deleted.status_code == 403
    assert Group.objects.filter(name="cashier").exists()


def test_no_group_is_added_in_the_admin(client, root):
    """A group made in the admin would leave no ledger event and need no second admin."""
    client.force_login(root)
    added = client.post("/admin/auth/group/add/", {"name": "pit_boss_2"})
    assert added.status_code == 403
    assert not Group.objects.filter(name="pit_boss_2").exists()

"""Roles are auth groups; segregation of duties compares the actors of each step."""

import pytest
from django.contrib.auth.models import Group

from staff.roles import ALL_ROLES, Role, RoleRequired, grant, has_role, require_distinct, require_role, roles_of

pytestmark = pytest.mark.django_db


def test_every_role_has_its_group_after_migrate():
    assert set(Group.objects.values_list("name", flat=True)) >= ALL_ROLES


def test_roles_of_a_user_and_by_username(django_user_model):
    user = django_user_model.objects.create_user(username="cage1", password="x")
    assert roles_of(user) == frozenset()
    grant(user, Role.CASHIER)
    assert roles_of("cage1") == {"cashier"}
    assert has_role(user, Role.CASHIER, Role.CAGE_SUPERVISOR)
    with pytest.raises(RoleRequired) as err:
        require_role("cage1", Role.PIT_BOSS, step="accepting a fill")
    assert err.value.status == 403 and "accepting a fill needs the role pit boss" in err.value.message


def test_unknown_and_inactive_users_hold_no_role(django_user_model):
    user = django_user_model.objects.create_user(username="gone", password="x", is_active=False)
    grant(user, Role.PIT_BOSS)
    assert roles_of("gone") == frozenset()
    assert roles_of("nobody") == frozenset()


def test_a_superuser_is_admin_only(django_user_model):
    root = django_user_model.objects.create_superuser(username="root", password="x")
    assert roles_of(root) == {"admin"}


def test_segregation_of_duties_names_the_clash():
    require_distinct("delivering fill 2026-000001", "runner1", [("requester", "pit1"), ("issuer", "cage1")])
    with pytest.raises(RoleRequired) as err:
        require_distinct("accepting fill 2026-000001", "cage1", [("requester", "pit1"), ("issuer", "cage1")])
    assert "cage1 is already the issuer" in err.value.message

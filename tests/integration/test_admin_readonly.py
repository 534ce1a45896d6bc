"""The admin bypasses the services, so it may look at the ledger, rounds, bets and
the staff's assignments and devices, the patrons (their identity changes through the AML service)
but never add, change or delete them; roles and the active flag posted in the admin's user form
change nothing (a second admin signs those, ``staff.accounts``)."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import RequestFactory

from cashier.models import Cage, CreditLine, Marker
from games.models import Bet, BetRefusal, Round, Table
from ledger.models import AccountBalance, Event
from patrons.models import Patron
from staff.models import DealerAssignment, DeviceToken, PasswordChangeDue
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db

READ_ONLY = [
    Event,
    AccountBalance,
    Table,
    Round,
    Bet,
    BetRefusal,
    Cage,
    CreditLine,
    Marker,
    DealerAssignment,
    DeviceToken,
    PasswordChangeDue,
    Patron,
]


@pytest.fixture
def root(django_user_model):
    return django_user_model.objects.create_superuser(username="root", password="x")


@pytest.mark.parametrize("model", READ_ONLY, ids=lambda m: m.__name__)
def test_the_admin_never_writes_money_or_state(model, root):
    model_admin = admin.site._registry[model]
    request = RequestFactory().get("/admin/")
    request.user = root
    assert model_admin.has_view_permission(request)
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, None)
    assert not model_admin.has_delete_permission(request, None)


def test_an_event_cannot_be_posted_through_the_admin(client, root, table):
    client.force_login(root)
    event = Event.objects.order_by("position").first()
    url = f"/admin/ledger/event/{event.pk}/change/"
    assert client.get(url).status_code == 200  # a superuser may look
    assert client.post(url, {"type": "Forged"}).status_code == 403
    event.refresh_from_db()
    assert event.type != "Forged"
    assert client.post("/admin/ledger/event/add/", {"type": "Forged"}).status_code == 403
    assert client.post(f"/admin/ledger/event/{event.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Event.objects.filter(pk=event.pk).exists()


def test_a_role_change_posted_in_the_user_form_changes_nothing(client, root):
    dealer = staff_user("dealer9", "dealer")
    client.force_login(root)
    runner = Group.objects.get(name="runner")
    response = client.post(
        f"/admin/auth/user/{dealer.pk}/change/",
        {
            "username": "dealer9",
            "is_active": "on",
            "groups": [runner.pk],
            "date_joined_0": "2026-11-29",
            "date_joined_1": "20:00:00",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    dealer.refresh_from_db()
    assert set(dealer.groups.values_list("name", flat=True)) == {"dealer"}
    assert not Event.objects.filter(type__in=("StaffRolesChanged", "StaffUserChanged")).exists()


def test_deactivating_an_account_in_the_admin_is_not_possible(client, root):
    dealer = staff_user("dealer8", "dealer")
    client.force_login(root)
    dealer_group = Group.objects.get(name="dealer")
    response = client.post(
        f"/admin/auth/user/{dealer.pk}/change/",
        {
            "username": "dealer8",
            "groups": [dealer_group.pk],
            "date_joined_0": "2026-11-29",
            "date_joined_1": "20:00:00",
        },  # "is_active" left out: unticked
    )
    assert response.status_code == 302, response.content[:2000]
    dealer.refresh_from_db()
    assert dealer.is_active  # read-only there: a leaver leaves by POST /api/staff/users/<name>/leave
    assert not Event.objects.filter(type__in=("StaffRolesChanged", "StaffUserChanged")).exists()


def test_a_name_and_email_changed_in_the_admin_are_an_event_and_verify(client, root):
    """The admin's user page changes the names and the e-mail through ``staff_profile_change``:
    an event names the fields changed (not their values), and the identity check finds the
    row as the ledger says it is."""
    from ledger import identity
    from staff.services import profile_digests, staff_account_create

    staff_account_create(username="cash9", roles=["cashier"], actor="manage.py")
    cashier = get_user_model().objects.get(username="cash9")
    client.force_login(root)
    response = client.post(
        f"/admin/auth/user/{cashier.pk}/change/",
        {
            "username": "cash9",
            "first_name": "Jeanne",
            "last_name": "",
            "email": "jeanne@casino.example",
            "date_joined_0": "2026-11-29",
            "date_joined_1": "20:00:00",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    cashier.refresh_from_db()
    assert (cashier.first_name, cashier.email) == ("Jeanne", "jeanne@casino.example")
    event = Event.objects.get(type="StaffProfileChanged")
    assert (event.actor, event.data["user"], event.data["changed"]) == ("root", "cash9", ["first_name", "email"])
    assert event.data["profile_digests"] == profile_digests(cashier)
    assert "jeanne" not in str(event.data).lower()
    assert [m for m in identity.mismatches() if m.id == "cash9"] == []

"""At the cage the patron chooses his PIN (his identity document shown) and changes his own
maximum bet with it (sheet 002), on the cashier's page, no API call: a lower limit is in force
at once, a higher one waits for the weekly reset; a wrong PIN is refused on the page naming the
PIN and the PIN is never shown back; the found patron's row reads his limit in force and a raise
that waits."""

import re

import pytest
from django.urls import reverse

from ledger.models import Event
from patrons.models import PatronPin, SelfLimit
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR

pytestmark = pytest.mark.django_db

PIN = "5173"


@pytest.fixture
def cashier(client, django_user_model, cage):
    user = django_user_model.objects.create_user(username="cash1", password="pw")
    grant(user, Role.CASHIER)
    client.force_login(user)
    return client


@pytest.fixture
def patron() -> str:
    return patron_register(kind="identified", name="Hélène Dupré", document="passport 12AB34567", actor=ACTOR)["patron"]


def _row(html: str, code: str) -> str:
    found = re.search(rf"<tr><td>{code}</td>(.*?)</tr>", html, re.S)
    assert found is not None, code
    return re.sub(r"<[^>]+>", " ", found.group(1))


def test_the_patron_sets_his_pin_with_his_document_then_lowers_and_raises_his_limit_on_the_page(cashier, patron):
    set_pin = cashier.post(
        reverse("workstations:cage-patron-pin"), {"patron": patron, "document": "passport 12AB34567", "pin": PIN}
    )
    assert set_pin.status_code == 302
    assert PatronPin.objects.filter(pk=patron).exists()
    assert PIN not in str(list(Event.objects.filter(type="PatronPinSet").values_list("data", flat=True)))
    first = cashier.post(
        reverse("workstations:cage-patron-self-limit"), {"patron": patron, "amount": "200", "pin": PIN}, follow=True
    )
    html = first.content.decode()
    assert f"Self-limit of patron {patron}: 200.00 EUR, in force now." in html
    assert SelfLimit.objects.get(pk=patron).max_bet_cents == 20_000
    assert "200.00 EUR" in _row(html, patron)
    assert PIN not in html


def test_a_wrong_pin_is_refused_on_the_page_naming_the_pin_and_the_pin_is_not_shown_back(cashier, patron):
    cashier.post(
        reverse("workstations:cage-patron-pin"), {"patron": patron, "document": "passport 12AB34567", "pin": PIN}
    )
    page = cashier.post(
        reverse("workstations:cage-patron-self-limit"), {"patron": patron, "amount": "150,00", "pin": "9999"}
    )
    html = page.content.decode()
    assert page.status_code == 400
    assert "<strong>Patron&#x27;s PIN</strong>" in html or "<strong>Patron's PIN</strong>" in html
    form = re.search(r'<form[^>]*data-form="self-limit">(.*?)</form>', html, re.S).group(1)
    assert 'value="150,00"' in form and "9999" not in form
    assert not SelfLimit.objects.filter(pk=patron).exists()


def test_a_pin_is_set_only_against_the_document_on_file(cashier, patron):
    page = cashier.post(
        reverse("workstations:cage-patron-pin"), {"patron": patron, "document": "passport 99ZZ00000", "pin": PIN}
    )
    assert page.status_code == 400
    assert "<strong>Identity document</strong>" in page.content.decode()
    assert PIN not in page.content.decode()
    assert not PatronPin.objects.filter(pk=patron).exists()


def test_a_forgotten_pin_is_reset_by_two_cage_logins_then_chosen_again(cashier, patron, django_user_model):
    """A PIN is not replaced by one person: asked by the cashier, approved by a cage supervisor
    from his own login on the same page; the patron then chooses a new one."""
    pin_url = reverse("workstations:cage-patron-pin")
    cashier.post(pin_url, {"patron": patron, "document": "passport 12AB34567", "pin": PIN})
    again = cashier.post(pin_url, {"patron": patron, "document": "passport 12AB34567", "pin": "1111"})
    assert again.status_code == 409 and "asks for a PIN reset" in again.content.decode()
    asked = cashier.post(reverse("workstations:cage-patron-pin-reset"), {"patron": patron}, follow=True)
    assert f"PIN reset of patron {patron} asked" in asked.content.decode()
    assert (
        'data-approval="pin_reset"' in asked.content.decode() and "Approve the PIN reset" not in asked.content.decode()
    )
    supervisor = django_user_model.objects.create_user(username="super1", password="pw")
    grant(supervisor, Role.CAGE_SUPERVISOR)
    cashier.force_login(supervisor)
    page = cashier.get(reverse("workstations:cage")).content.decode()
    approval = re.search(r"/workstations/cage/approvals/([0-9a-f-]{36})/confirm", page).group(1)
    assert "Approve the PIN reset" in page and f"PIN reset of patron {patron}" in page
    done = cashier.post(reverse("workstations:cage-decide", args=[approval, "confirm"]), follow=True)
    assert f"the PIN of patron {patron} is cleared" in done.content.decode()
    assert not PatronPin.objects.filter(pk=patron).exists()
    assert Event.objects.get(type="PatronPinReset").data == {"patron": patron, "approved_by": "super1"}
    chosen = cashier.post(pin_url, {"patron": patron, "document": "passport 12AB34567", "pin": "1111"})
    assert chosen.status_code == 302

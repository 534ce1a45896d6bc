"""The pit boss gives and reverses comps on the patron's page, as himself: the page shows what
the patron earned, was given and has left in currency units; a value above what is left is
refused naming the field and keeps what was typed; a cashier cannot post the form."""

import re
from html import unescape

import pytest
from django.test import Client
from django.urls import reverse

from ledger.models import Event
from staff.roles import Role
from tests.conftest import rated_by_hand, staff_user

pytestmark = pytest.mark.django_db


def text(response) -> str:
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode())))


@pytest.fixture
def rated(table):
    """A patron rated by hand at R1 (``rated_by_hand``): 8.74 EUR of comps earned."""
    staff_user("boss", Role.PIT_BOSS)
    return rated_by_hand("boss")


@pytest.fixture
def boss(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.get(username="boss"))
    return client


def test_the_page_shows_earned_given_and_available_in_currency_units(rated, boss):
    page = text(boss.get(reverse("dashboard:patron", kwargs={"code": rated})))
    assert "Earned 8.74 EUR (25.00 % of his theoretical win, 34.99 EUR)" in page
    assert "Given 0.00 EUR Available 8.74 EUR" in page
    assert "Value at cost (EUR)" in page


def test_a_comp_given_from_the_page_is_recorded_as_the_pit_boss_and_listed(rated, boss):
    sent = boss.post(
        reverse("dashboard:comp-give", kwargs={"code": rated}), {"kind": "meal", "amount": "5.00", "note": "buffet"}
    )
    assert sent.status_code == 302
    event = Event.objects.get(type="CompGiven")
    assert (event.actor, event.data["amount_cents"], event.data["note"]) == ("boss", 500, "buffet")
    page = text(boss.get(sent["Location"]))
    assert "Comp of 5.00 EUR given; 3.74 EUR left." in page
    assert "Given 5.00 EUR Available 3.74 EUR" in page
    assert re.search(r"Meal 5\.00 EUR buffet boss", page)


def test_a_comp_above_what_is_left_is_refused_naming_the_value_and_keeping_the_note(rated, boss):
    refused = boss.post(
        reverse("dashboard:comp-give", kwargs={"code": rated}), {"kind": "room", "amount": "9", "note": "suite"}
    )
    assert refused.status_code == 400
    page = text(refused)
    assert "Refused — Value : P00001 has 8.74 EUR of comps available" in page
    assert 'value="suite"' in refused.content.decode()
    assert not Event.objects.filter(type="CompGiven").exists()


def test_a_comp_reversed_from_the_page_needs_a_reason_and_is_shown_reversed(rated, boss):
    boss.post(reverse("dashboard:comp-give", kwargs={"code": rated}), {"kind": "show", "amount": "2.50"})
    given = Event.objects.get(type="CompGiven").position
    path = reverse("dashboard:comp-reverse", kwargs={"code": rated, "position": given})
    assert boss.post(path, {"reason": ""}).status_code == 400
    assert boss.post(path, {"reason": "show cancelled"}).status_code == 302
    page = text(boss.get(reverse("dashboard:patron", kwargs={"code": rated})))
    assert "Reversed: show cancelled" in page
    assert "Given 0.00 EUR Available 8.74 EUR" in page


def test_a_cashier_cannot_give_a_comp_from_the_page(rated):
    desk = Client()
    desk.force_login(staff_user("till", Role.CASHIER))
    sent = desk.post(reverse("dashboard:comp-give", kwargs={"code": rated}), {"kind": "meal", "amount": "1"})
    assert sent.status_code == 403
    assert not Event.objects.filter(type="CompGiven").exists()

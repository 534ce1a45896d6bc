"""The cage workstation through Django's test client (issue 24): who may enter, and a shift's
forms calling the cashier services as the logged-in user (the browser test does the whole
shift; these pin the refusals and the reconciliation's figures)."""

import re

import pytest
from django.urls import reverse

from cashier.services.cage_shifts import last_shift_event
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR

pytestmark = pytest.mark.django_db

CAGE_PAGES = ["cage"]


@pytest.fixture
def as_role(client, django_user_model):
    def login(username: str, *roles: str):
        user = django_user_model.objects.create_user(username=username, password="pw")
        grant(user, *roles)
        client.force_login(user)
        return client

    return login


def figure(html: str, name: str) -> str:
    found = re.search(rf'data-figure="{name}"[^>]*>(.*?)</', html, re.S)
    assert found is not None, name
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def test_anonymous_is_sent_to_the_workstation_login(client, cage_float):
    response = client.get(reverse("workstations:cage"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("workstations:login"))


@pytest.mark.parametrize("role", [Role.PIT_BOSS, Role.AUDITOR, Role.DEALER, Role.RUNNER, Role.COUNT_TEAM])
def test_roles_outside_the_cage_get_403_on_its_pages_and_forms(as_role, cage_float, role):
    client = as_role("outsider", role)
    assert client.get(reverse("workstations:cage")).status_code == 403
    before = Event.objects.count()
    assert client.post(reverse("workstations:cage-shift-open"), {"cash-50000": "1"}).status_code == 403
    assert client.post(reverse("workstations:cage-chips", args=["purchase"]), {}).status_code == 403
    assert Event.objects.count() == before


def test_a_sale_with_no_shift_open_is_refused_on_the_page_and_writes_nothing(as_role, cage_float):
    client = as_role("cash1", Role.CASHIER)
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    before = Event.objects.count()
    page = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "100"}, follow=True
    )
    assert "Refused. Cashier shift: no cashier shift is open at cage main" in page.content.decode()
    assert Event.objects.count() == before


def test_a_count_off_the_book_asks_for_a_reason_then_the_shift_report_reconciles(as_role, cage_float):
    client = as_role("cash1", Role.CASHIER)
    # The float: 100,000.00 EUR of cash (200 × 500) and of chips (10 × 10,000).
    opened = client.post(
        reverse("workstations:cage-shift-open"), {"cash-50000": "200", "chips-1000000": "10"}, follow=True
    )
    assert "Shift opened: counted 200,000.00 EUR, book 200,000.00 EUR, variance 0.00 EUR." in opened.content.decode()
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "1,250.50"}, follow=True
    )
    assert f"Sold 1,250.50 EUR of chips, patron {patron}" in sold.content.decode()
    # Closing 50.00 EUR short without a reason: sent back (409), nothing written.
    # Book: cash 101,250.50, chips 98,749.50. Counted: cash 101,200.50, chips 98,749.50.
    short = {"cash-50000": "202", "cash-20000": "1", "cash-50": "1", "chips-1000000": "9", "chips-500000": "1"}
    short |= {"chips-100000": "3", "chips-10000": "7", "chips-2500": "1", "chips-500": "4"}
    short |= {"chips-250": "1", "chips-100": "2"}
    before = Event.objects.count()
    asked = client.post(reverse("workstations:cage-shift-close"), short)
    assert asked.status_code == 409 and "give the reason for the variance" in asked.content.decode()
    assert Event.objects.count() == before
    closed = client.post(
        reverse("workstations:cage-shift-close"), short | {"variance_reason": "50 EUR note missing"}, follow=True
    )
    html = closed.content.decode()
    assert last_shift_event().data["variance_reason"] == "50 EUR note missing"
    assert figure(html, "opening-book") == "200,000.00 EUR"
    assert figure(html, "closing-book") == "200,000.00 EUR"  # a sale moves cash in and chips out
    assert (figure(html, "counted"), figure(html, "variance")) == ("199,950.00 EUR", "-50.00 EUR")
    assert '<td>+ chip sales</td><td class="num">1,250.50 EUR</td><td class="num">-1,250.50 EUR</td>' in html
    assert figure(html, "reason") == "50 EUR note missing"
    assert "Opening book plus movements agrees with the ledger's book at closing." in html

"""A page that refused a form is shown at the form's address; reloading it (a GET on an address
that takes only a POST) leads to the page the form belongs to, not to a blank 405. The API
keeps its 405."""

import pytest
from django.test import Client

from staff.roles import Role, grant

pytestmark = pytest.mark.django_db


@pytest.fixture
def pit_boss(django_user_model):
    user = django_user_model.objects.create_user(username="boss", password="x")
    grant(user, Role.PIT_BOSS)
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "address, page",
    [
        ("/dashboard/tables/R1/limits", "/dashboard/tables/R1/"),
        ("/dashboard/outages/OUT1/forms/OUT1-R1/buy-ins", "/dashboard/outages/"),
        ("/workstations/cage/chips/purchase", "/workstations/cage/"),
    ],
)
def test_a_form_address_opened_with_get_leads_to_the_page_above_it(pit_boss, address, page):
    answer = pit_boss.get(address)
    assert (answer.status_code, answer["Location"]) == (302, page)


def test_a_page_posted_to_keeps_its_405_and_the_api_its_own(pit_boss):
    assert pit_boss.post("/dashboard/").status_code == 405  # a page takes no POST: nothing above it to lead to
    assert pit_boss.get("/api/auth/logout/").status_code == 405

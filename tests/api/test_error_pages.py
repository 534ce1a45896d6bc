"""A refused or unknown page is one of the site's pages: its header, the reason in words and a
link back to the person's own page; ``/`` sends each role to its own page; a refusal is logged
as one WARNING line, without a traceback."""

import io
import logging

import pytest
from django.urls import reverse

from core.logs import ClientErrorFilter, ContextFilter, TextFormatter
from staff.roles import Role, grant

pytestmark = pytest.mark.django_db


def login(client, django_user_model, *roles: str):
    user = django_user_model.objects.create_user(username="person", password="pw")
    grant(user, *roles)
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    ("roles", "landing"),
    [
        ((Role.PIT_BOSS,), "dashboard:floor"),
        ((Role.CASHIER,), "workstations:cage"),
        ((Role.CAGE_SUPERVISOR,), "workstations:cage"),
        ((Role.AUDITOR,), "workstations:audit-days"),
        ((Role.RUNNER,), "workstations:runner"),
        ((Role.DEALER,), "dashboard:approvals"),
        ((), "docs"),
    ],
)
def test_the_root_sends_each_role_to_its_own_page(client, django_user_model, roles, landing):
    login(client, django_user_model, *roles)
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == reverse(landing)


def test_a_refused_page_has_the_header_the_reason_and_the_way_back(client, django_user_model):
    login(client, django_user_model, Role.CASHIER)
    response = client.get(reverse("dashboard:floor"))
    html = response.content.decode()
    assert response.status_code == 403
    assert '<header class="top">' in html and "<span>person</span>" in html
    assert '<p data-section="reason">The dashboard is for the pit boss role.</p>' in html
    assert f'<a id="landing" href="{reverse("workstations:cage")}">Back to the cage workstation</a>' in html
    assert f'<a href="{reverse("workstations:cage")}">Cage workstation</a>' in html
    assert f'href="{reverse("dashboard:floor")}"' not in html  # no link to a page he cannot open


def test_a_refused_workstation_names_the_roles_in_words(client, django_user_model):
    login(client, django_user_model, Role.PIT_BOSS)
    html = client.get(reverse("workstations:cage")).content.decode()
    assert "cage supervisor" in html and "cage_supervisor" not in html
    assert f'<a id="landing" href="{reverse("dashboard:floor")}">Back to the floor</a>' in html


def test_an_unknown_page_or_table_says_what_was_not_found(client, django_user_model):
    login(client, django_user_model, Role.PIT_BOSS)
    response = client.get(reverse("dashboard:table", args=["X9"]))
    html = response.content.decode()
    assert response.status_code == 404 and '<header class="top">' in html
    assert '<p data-section="reason">No table X9.</p>' in html
    assert f'<a id="landing" href="{reverse("dashboard:floor")}">Back to the floor</a>' in html
    html = client.get("/no-such-page/").content.decode()
    assert '<p data-section="reason">There is no page at /no-such-page/.</p>' in html
    # The API keeps its JSON answer.
    api = client.get("/api/no-such-resource/")
    assert api.status_code == 404 and api.json()["error"] == "not_found"


def test_a_refusal_is_logged_as_one_warning_line_without_a_traceback(client, django_user_model):
    login(client, django_user_model, Role.CASHIER)
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.addFilter(ClientErrorFilter())
    handler.setFormatter(TextFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        assert client.get(reverse("dashboard:floor")).status_code == 403
    finally:
        logger.removeHandler(handler)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and " WARNING django.request " in lines[0], lines
    assert "Forbidden" in lines[0] and "/dashboard/" in lines[0]
    # A server error keeps its traceback.
    record = logging.LogRecord(
        "django.request", logging.ERROR, __file__, 1, "boom", None, (ValueError, ValueError("x"), None)
    )
    record.status_code = 500
    assert ClientErrorFilter().filter(record) and record.exc_info is not None

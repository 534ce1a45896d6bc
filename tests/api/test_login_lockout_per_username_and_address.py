"""django-axes locks a username out at one address after AXES_FAILURE_LIMIT failed logins:
the combination, so that failures from a shared address (a proxy, the cage's NAT) lock nobody
else out, and nobody locks a colleague out from another place."""

import base64

import pytest
from rest_framework.test import APIClient

from tests.conftest import staff_user

pytestmark = pytest.mark.django_db

PROXY, DESK = "10.0.0.2", "10.0.7.31"


@pytest.fixture
def people(table, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    for name in ("pit1", "pit2"):
        user = staff_user(name, "pit_boss")
        user.set_password("right")
        user.save()


def basic(username: str, password: str, address: str) -> int:
    header = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
    return APIClient(REMOTE_ADDR=address).get("/api/tables/", HTTP_AUTHORIZATION=header).status_code


def test_failures_from_one_address_lock_that_username_there_only(people, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert basic("pit1", "wrong", PROXY) == 401
    assert basic("pit1", "right", PROXY) == 401  # locked: that username from that address
    assert basic("pit2", "right", PROXY) == 200  # the others behind the same address log in
    assert basic("pit1", "right", DESK) == 200  # and pit1 himself from his desk


def test_failures_for_many_usernames_from_one_address_lock_nobody_out(people, settings):
    for n in range(settings.AXES_FAILURE_LIMIT * 2):
        assert basic(f"guess{n}", "wrong", PROXY) == 401
    assert basic("pit1", "right", PROXY) == 200


def test_a_username_longer_than_any_account_is_refused_counted_and_never_a_500(people, settings, client):
    from axes.models import AccessAttempt

    long_name = "y" * 300

    assert basic(long_name, "x", PROXY) == 401
    form = client.post("/dashboard/login/", {"username": long_name, "password": "x"}, REMOTE_ADDR=PROXY)

    assert form.status_code in (200, 400) and b"Traceback" not in form.content
    (attempt,) = AccessAttempt.objects.filter(username="y" * 150)
    assert attempt.failures_since_start == 2
    for _ in range(settings.AXES_FAILURE_LIMIT - 2):
        assert basic(long_name, "x", PROXY) == 401
    assert basic("pit1", "right", PROXY) == 200  # the long name locked out only itself

"""Issue 25 §7: the API's rate limits — per person, per device token, per address without login
— answer 429 with Retry-After; the health probes are never limited."""

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from staff.services import device_token_issue
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def rates(settings):
    cache.clear()
    settings.API_THROTTLE_RATES = {"device": "3/minute", "user": "4/minute", "anon": "2/minute"}
    yield settings.API_THROTTLE_RATES
    cache.clear()


def test_a_person_over_the_rate_gets_429_with_retry_after(table, rates):
    client = APIClient()
    client.force_authenticate(staff_user("pit1", "pit_boss"))
    assert [client.get("/api/tables/").status_code for _ in range(4)] == [200] * 4
    refused = client.get("/api/tables/")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert refused.json()["error"] == "throttled"
    other = APIClient()
    other.force_authenticate(staff_user("pit2", "pit_boss"))
    assert other.get("/api/tables/").status_code == 200  # per person, not for everyone


def test_a_device_token_has_its_own_rate(table, rates):
    staff_user("pit1", "pit_boss")
    token = device_token_issue(name="terminal-R1", kind="terminal", table="R1", actor="pit1")["token"]
    terminal = APIClient()
    terminal.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    codes = [terminal.post("/api/tables/R1/rounds", {}, format="json").status_code for _ in range(4)]
    assert codes[-1] == 429
    assert codes[0] == 201


def test_requests_without_login_are_limited_per_address_but_not_the_probes(db, rates):
    client = Client(REMOTE_ADDR="198.51.100.4")
    assert [client.get("/api/schema/").status_code for _ in range(3)] == [200, 200, 429]
    assert Client(REMOTE_ADDR="198.51.100.5").get("/api/schema/").status_code == 200
    assert {client.get("/api/health/live").status_code for _ in range(5)} == {200}
    assert {client.get("/api/health/").status_code for _ in range(5)} == {200}


def test_a_rate_of_none_is_no_limit(table, rates, settings):
    settings.API_THROTTLE_RATES = dict(rates, user=None)
    client = APIClient()
    client.force_authenticate(staff_user("pit1", "pit_boss"))
    assert {client.get("/api/tables/").status_code for _ in range(10)} == {200}

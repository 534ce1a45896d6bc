"""The API's rate limits — per person, per device token, per address without login
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


def test_a_forged_x_forwarded_for_does_not_buy_a_fresh_anonymous_allowance(db, rates, settings):
    """No proxy configured (NUM_PROXIES 0): the header is the client's own writing, ignored."""
    settings.NUM_PROXIES = 0
    client = Client(REMOTE_ADDR="198.51.100.4")
    codes = [client.get("/api/schema/", HTTP_X_FORWARDED_FOR=f"10.9.8.{n}").status_code for n in range(3)]
    assert codes == [200, 200, 429]


def test_behind_one_proxy_the_address_it_saw_counts_not_what_the_client_wrote(db, rates, settings):
    settings.NUM_PROXIES = 1
    proxy = Client(REMOTE_ADDR="10.0.0.2")  # nginx: appends the address it saw
    codes = [proxy.get("/api/schema/", HTTP_X_FORWARDED_FOR=f"10.9.8.{n}, 198.51.100.4").status_code for n in range(3)]
    assert codes == [200, 200, 429]
    assert proxy.get("/api/schema/", HTTP_X_FORWARDED_FOR="198.51.100.5").status_code == 200  # another client

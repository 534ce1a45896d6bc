"""A cashier closing her window with a count more than CASINO_VARIANCE_THRESHOLD_CENTS off its
book (SHIFTS.md, the cashier's steps 1 and 6: a variance is explained and, above the threshold,
verified by a supervisor) does not close it alone: the close waits for a cage supervisor other
than her, who verifies it from his own login (``variance_verified_by``); an incoming cage
supervisor's signature of the handover is that verification. Within the threshold, the end of
the day's close is hers alone, at once."""

import pytest
from django.test import Client
from django.urls import reverse

from cashier.services.cage_shifts import cage_shift_close, open_windows
from ledger.models import Event
from staff.roles import Role, RoleRequired
from tests.conftest import approve, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"cash1": Role.CASHIER, "cash2": Role.CASHIER, "super1": Role.CAGE_SUPERVISOR}
IMPREST = {"cash": {"50000": 100}, "chips": {"1000000": 5}}  # 50,000.00 EUR of each
SHORT = {"cash": {"50000": 99}, "chips": {"1000000": 5}}  # 500.00 EUR of cash missing


@pytest.fixture
def clients(cage_float):
    clients = staff_clients(STAFF)
    opened = clients["cash1"].post("/api/cage/shifts/open", IMPREST, format="json")
    assert opened.status_code == 201, opened.json()
    return clients


def _closed() -> list[Event]:
    return list(Event.objects.filter(type="CageShiftClosed"))


def test_a_close_500_short_waits_for_a_cage_supervisor_and_closes_verified_by_him(clients):
    asked = clients["cash1"].post("/api/cage/shifts/close", SHORT | {"variance_reason": "short"}, format="json")
    assert asked.status_code == 202, asked.json()
    assert asked.json()["approval"]["waiting_for"] == [{"slot": "approver", "roles": ["cage_supervisor"], "user": None}]
    assert _closed() == [] and "cash1" in open_windows()
    # Another cashier may not verify it.
    assert clients["cash2"].post(f"/api/approvals/{asked.json()['approval']['id']}/confirm").status_code == 403
    verified = approve(asked, clients["super1"])
    assert verified.status_code == 200, verified.json()
    (closed,) = _closed()
    assert (closed.data["variance_cents"], closed.data["variance_verified_by"]) == (-50_000, "super1")
    assert "cash1" not in open_windows()


def test_a_close_within_the_threshold_is_hers_alone_at_once(clients, settings):
    settings.CASINO_VARIANCE_THRESHOLD_CENTS = 50_000
    closed = clients["cash1"].post("/api/cage/shifts/close", SHORT | {"variance_reason": "short"}, format="json")
    assert closed.status_code == 200, closed.json()
    assert "variance_verified_by" not in _closed()[0].data


def test_an_incoming_cage_supervisor_verifies_by_signing_the_handover(clients):
    asked = clients["cash1"].post(
        "/api/cage/shifts/close", SHORT | {"variance_reason": "short", "handover_to": "super1"}, format="json"
    )
    assert asked.status_code == 202, asked.json()
    assert [w["slot"] for w in asked.json()["approval"]["waiting_for"]] == ["incoming"]
    assert approve(asked, clients["super1"]).status_code == 200
    (closed,) = _closed()
    assert (closed.data["handover_to"], closed.data["variance_verified_by"]) == ("super1", "super1")


def test_the_service_refuses_a_close_over_the_threshold_without_a_verifier(clients):
    with pytest.raises(RoleRequired, match="needs a second signature"):
        cage_shift_close(**SHORT, variance_reason="short", actor="cash1")
    assert _closed() == []


def test_the_cage_page_shows_the_wait_to_her_and_the_verify_button_to_the_supervisor(clients, django_user_model):
    def page_of(username: str) -> str:
        client = Client()
        client.force_login(django_user_model.objects.get(username=username))
        return client.get(reverse("workstations:cage")).content.decode()

    clients["cash1"].post("/api/cage/shifts/close", SHORT | {"variance_reason": "short"}, format="json")
    assert "waiting for a cage supervisor to verify the variance</strong> from his own login" in page_of("cash1")
    supervisor = page_of("super1")
    assert "Verify: I checked the count and the reason" in supervisor
    assert "Verify: I checked" not in page_of("cash2")

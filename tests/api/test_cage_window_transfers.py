"""A cashier window topped up from the main bank mid-shift, or returning its surplus.

A cashier ran out of chips: "a 10,500 sale was refused (Window 3 holds 3,650.00 EUR of chips)
with no way to restock". Now she counts what she needs by denomination and asks; a cage
supervisor other than her counts it with her and signs from his own session (``approvals`` act
``cage_window_transfer``); then her drawer and the main bank move by the count, and the cage's
whole book does not.
"""

import re

import pytest
from django.test import Client
from django.urls import reverse

from approvals.models import Approval
from cashier.services.cage_shifts import cage_shift_close, main_bank, window_book
from cashier.services.cage_transfers import cage_window_transfer
from ledger import accounts, store
from ledger.errors import InvalidInput
from ledger.models import Event, Posting
from staff.roles import Role, signed_in_person
from tests.conftest import drawer_count, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"cash1": Role.CASHIER, "cash2": Role.CASHIER, "super1": Role.CAGE_SUPERVISOR}
# cash1's imprest: 50,000.00 EUR of cash, 50,000.00 EUR of chips (the float holds 100,000 of each).
IMPREST = {"cash": {"50000": 100}, "chips": {"1000000": 5}}
# 15,000.00 EUR of chips and 5,000.00 EUR of cash.
TOP_UP = {"chips": {"1000000": 1, "100000": 5}, "cash": {"50000": 10}}
URL = "/api/cage/windows/transfers"


@pytest.fixture
def clients(cage_float):
    """The cage with its float; cash1's window open with ``IMPREST``."""
    clients = staff_clients(STAFF)
    opened = clients["cash1"].post("/api/cage/shifts/open", IMPREST, format="json")
    assert opened.status_code == 201, opened.json()
    return clients


def _cage_book() -> tuple[int, int]:
    return store.balance(accounts.CAGE_CASH), store.balance(accounts.CAGE_CHIPS)


def _page_as(username: str, django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.get(username=username))
    return client


def _message(html: str) -> str:
    found = re.search(r'<ul class="messages" role="status">(.*?)</ul>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)).strip() if found else ""


def test_a_top_up_signed_by_a_cage_supervisor_moves_the_window_and_the_main_bank_by_the_count(clients):
    cage_before = _cage_book()
    asked = clients["cash1"].post(URL, TOP_UP | {"direction": "in"}, format="json")
    assert asked.status_code == 202, asked.json()
    approval = asked.json()["approval"]
    assert approval["waiting_for"] == [{"slot": "approver", "roles": ["cage_supervisor"], "user": None}]
    # Nothing moves until the supervisor signs.
    assert window_book("1") == {"cash_cents": 5_000_000, "chips_cents": 5_000_000}
    assert not Event.objects.filter(type="CageWindowReplenished").exists()

    signed = clients["super1"].post(f"/api/approvals/{approval['id']}/confirm", {}, format="json")
    assert signed.status_code == 201, signed.json()
    body = signed.json()
    assert (body["window"], body["direction"], body["cashier"], body["approved_by"]) == ("1", "in", "cash1", "super1")
    assert window_book("1") == {"cash_cents": 5_500_000, "chips_cents": 6_500_000}
    assert main_bank() == {"cash_cents": 4_500_000, "chips_cents": 3_500_000}
    assert _cage_book() == cage_before  # the cage's whole book: the money only changed drawers
    event = Event.objects.get(type="CageWindowReplenished")
    assert (event.actor, event.stream, event.data["approved_by"]) == ("cash1", "cagebank/main", "super1")
    assert (event.data["chips"], event.data["cash"]) == ({"100000": 5, "1000000": 1}, {"50000": 10})
    legs = {(p.account, p.amount_cents) for p in Posting.objects.filter(event=event)}
    assert legs == {
        ("cage:window:1:cash", 500_000),
        ("cage:windows:cash", -500_000),
        ("cage:window:1:chips", 1_500_000),
        ("cage:windows:chips", -1_500_000),
    }
    # The window closes counted as its drawer: the top-up is part of its book, no variance.
    closed = cage_shift_close(**drawer_count("1"), actor="cash1")
    assert closed["variance_cents"] == 0
    assert main_bank() == {"cash_cents": 10_000_000, "chips_cents": 10_000_000}


def test_more_than_the_main_bank_holds_is_400_on_chips_and_nothing_is_written(clients):
    before = Event.objects.count()
    asked = clients["cash1"].post(URL, {"direction": "in", "chips": {"1000000": 6}}, format="json")
    assert asked.status_code == 400
    assert asked.json()["field"] == "chips"
    assert "the main bank holds 50,000.00" in str(asked.json())
    assert Event.objects.count() == before and not Approval.objects.exists()


def test_a_count_that_is_empty_or_malformed_is_400_and_no_window_is_409(clients):
    empty = clients["cash1"].post(URL, {"direction": "in", "cash": {}, "chips": {}}, format="json")
    assert (empty.status_code, empty.json()["field"]) == (400, "chips") and "nothing was counted" in str(empty.json())
    bad = clients["cash1"].post(URL, {"direction": "in", "chips": {"333": 1}}, format="json")
    assert bad.status_code == 400 and "unknown denomination" in str(bad.json())
    no_window = clients["cash2"].post(URL, {"direction": "in", "chips": {"100000": 1}}, format="json")
    assert (no_window.status_code, no_window.json()["field"]) == (409, "shift")
    assert not Approval.objects.exists()


def test_the_cashier_cannot_sign_her_own_transfer_nor_pass_a_name_for_the_supervisor(clients):
    asked = clients["cash1"].post(URL, TOP_UP | {"direction": "in"}, format="json")
    approval = asked.json()["approval"]["id"]
    own = clients["cash1"].post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert own.status_code == 403
    other_cashier = clients["cash2"].post(f"/api/approvals/{approval}/confirm", {}, format="json")
    assert other_cashier.status_code == 403
    assert not Event.objects.filter(type="CageWindowReplenished").exists()
    # A supervisor's name given to the service, not his confirmation: refused.
    with pytest.raises(InvalidInput) as refused:
        cage_window_transfer(**TOP_UP, direction="in", approver="super1", actor="cash1")
    assert refused.value.field == "approver"
    assert window_book("1") == {"cash_cents": 5_000_000, "chips_cents": 5_000_000}


def test_a_surplus_returned_to_the_main_bank_and_a_replay_records_it_once(clients):
    too_much = clients["cash1"].post(URL, {"direction": "out", "cash": {"50000": 101}}, format="json")
    assert too_much.status_code == 400 and "window 1 holds 50,000.00" in str(too_much.json())
    cage_before = _cage_book()
    surplus = {"chips": {"1000000": 2}, "cash": {}}
    with signed_in_person(["super1"]):
        first = cage_window_transfer(**surplus, direction="out", approver="super1", actor="cash1", idempotency_key="k1")
        again = cage_window_transfer(**surplus, direction="out", approver="super1", actor="cash1", idempotency_key="k1")
    assert first == again and Event.objects.filter(type="CageWindowReturned").count() == 1
    assert window_book("1") == {"cash_cents": 5_000_000, "chips_cents": 3_000_000}
    assert main_bank() == {"cash_cents": 5_000_000, "chips_cents": 7_000_000}
    assert _cage_book() == cage_before


def test_the_page_flow_asked_waiting_signed_by_the_supervisor_and_shown_in_the_window_report(
    clients, django_user_model
):
    cashier = _page_as("cash1", django_user_model)
    page = cashier.get(reverse("workstations:cage")).content.decode()
    assert "Get chips or cash from the main bank / Return to the main bank" in page
    url = reverse("workstations:cage-transfer")
    # More chips than the main bank holds: refused on the count, what was typed kept.
    refused = cashier.post(url, {"direction": "in", "chips-1000000": "9", "idempotency_key": "t-1"})
    html = refused.content.decode()
    assert (
        refused.status_code == 400
        and "<strong>Chip count</strong>: The main bank holds 50,000.00 EUR of value chips" in html
    )
    assert 'id="transfer-chips-1000000" name="chips-1000000" inputmode="numeric"' in html
    assert re.search(r'id="transfer-chips-1000000"[^>]*value="9"', html)
    assert not Approval.objects.exists()

    asked = cashier.post(url, {"direction": "in", "chips-1000000": "1", "idempotency_key": "t-2"}, follow=True)
    assert "Top-up from the main bank asked: cash 0.00 EUR, chips 10,000.00 EUR" in _message(asked.content.decode())
    assert "waiting for a cage supervisor to sign from his own login" in asked.content.decode()
    approval = Approval.objects.get(kind="cage_window_transfer")

    supervisor = _page_as("super1", django_user_model)
    desk = supervisor.get(reverse("workstations:cage")).content.decode()
    assert "Approve: I counted it with cash1" in desk and "Top-up from the main bank, window 1" in desk
    signed = supervisor.post(
        reverse("workstations:cage-decide", args=[approval.id, "confirm"]), {"idempotency_key": "s-1"}, follow=True
    )
    assert "Signed: 10,000.00 EUR (cash 0.00 EUR, chips 10,000.00 EUR) moved from the main bank into window 1" in (
        _message(signed.content.decode())
    )
    assert window_book("1")["chips_cents"] == 6_000_000

    mine = cashier.get(reverse("workstations:cage")).content.decode()
    assert "Top-up from the main bank" in mine and "(signed by super1)" in mine
    opened = Event.objects.get(type="CageShiftOpened").position
    report = cashier.get(reverse("workstations:cage-shift", args=[opened])).content.decode()
    assert '<a href="#transactions">Top-ups from the main bank</a>' in report
    assert '<td data-figure="by">cash1, signed by super1</td>' in report  # the second signer beside the maker
    assert "Opening book plus movements agrees with the ledger's book now." in report

"""A cashier window handed over (SHIFTS.md, cashier step 6: "count, sign with the incoming
cashier"; step 1: the imprest counted "with the outgoing cashier; both sign; variances explained").

A cashier picked ``cagesup`` in the close form's drop-down and the report said "handed over to
cagesup", who never confirmed anything. Now a close handed over is the ``approvals`` act
``cage_shift_close``: it waits (202) until the named incoming cashier confirms from his own
session, and only then is the window closed with him as ``handover_to``; the service refuses a
``handover_to`` given any other way (400). When he opens his window, his count is compared
with the count handed over to him, and a difference needs its reason.
"""

import re

import pytest
from django.test import Client
from django.urls import reverse

from approvals.models import Approval
from cashier.services.cage_shifts import cage_shift_close, cage_shift_open, open_windows
from ledger.errors import InvalidInput
from ledger.models import Event
from staff.roles import Role, RoleRequired
from tests.conftest import approve, drawer_count, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {"cash1": Role.CASHIER, "cash2": Role.CASHIER, "super1": Role.CAGE_SUPERVISOR, "pit1": Role.PIT_BOSS}
# cash1's imprest: 50,000.00 EUR of cash, 50,000.00 EUR of chips.
IMPREST = {"cash": {"50000": 100}, "chips": {"1000000": 5}}


@pytest.fixture
def clients(cage_float):
    """The cage with its float; cash1's window open with ``IMPREST``."""
    clients = staff_clients(STAFF)
    opened = clients["cash1"].post("/api/cage/shifts/open", IMPREST, format="json")
    assert opened.status_code == 201, opened.json()
    return clients


def _ask_close(clients, maker="cash1", **extra):
    return clients[maker].post("/api/cage/shifts/close", IMPREST | extra, format="json")


def _page_as(username: str, django_user_model) -> Client:
    """A browser session of ``username`` (his own login)."""
    client = Client()
    client.force_login(django_user_model.objects.get(username=username))
    return client


def _closed() -> list[Event]:
    return list(Event.objects.filter(type="CageShiftClosed"))


def test_a_close_handed_over_waits_and_closes_nothing_until_the_incoming_confirms(clients):
    asked = _ask_close(clients, handover_to="cash2")
    assert asked.status_code == 202, asked.json()
    approval = asked.json()["approval"]
    assert (approval["kind"], approval["state"]) == ("cage_shift_close", "pending")
    assert approval["waiting_for"] == [{"slot": "incoming", "roles": ["cashier", "cage_supervisor"], "user": "cash2"}]
    assert _closed() == [] and "cash1" in open_windows()
    # A second close of the same window while the first waits: 409 naming the window's cashier.
    again = _ask_close(clients, handover_to="super1")
    assert (again.status_code, again.json()["field"]) == (409, "cashier")


def test_the_named_incoming_confirms_and_the_window_closes_handed_over_to_him(clients):
    asked = _ask_close(clients, handover_to="cash2")
    confirmed = approve(asked, clients["cash2"])
    assert confirmed.status_code == 200, confirmed.json()
    assert confirmed.json()["variance_cents"] == 0 and confirmed.json()["approval"]["state"] == "confirmed"
    (closed,) = _closed()
    assert (closed.actor, closed.data["handover_to"], closed.data["opened_by"]) == ("cash1", "cash2", "cash1")
    assert "cash1" not in open_windows()


def test_another_person_cannot_sign_for_the_incoming_cashier(clients):
    asked = _ask_close(clients, handover_to="cash2")
    approval = asked.json()["approval"]["id"]
    for other in ("super1", "pit1"):  # a cage supervisor is not cash2 either
        refused = clients[other].post(f"/api/approvals/{approval}/confirm", {}, format="json")
        assert refused.status_code == 403, refused.json()
        assert "cash2" in refused.json()["detail"]
    assert _closed() == [] and Approval.objects.get(id=approval).state == Approval.State.PENDING


def test_the_maker_cannot_confirm_his_own_handover_nor_hand_over_to_himself(clients):
    asked = _ask_close(clients, handover_to="cash2")
    own = clients["cash1"].post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
    assert own.status_code == 403
    withdrawn = clients["cash1"].post(f"/api/approvals/{asked.json()['approval']['id']}/reject", {}, format="json")
    assert withdrawn.status_code == 200 and withdrawn.json()["approval"]["state"] == "withdrawn"
    to_himself = _ask_close(clients, handover_to="cash1")
    assert to_himself.status_code == 403 and "segregation of duties" in to_himself.json()["detail"]
    assert _closed() == []


def test_the_incoming_must_hold_a_cage_role(clients):
    refused = _ask_close(clients, handover_to="pit1")
    assert refused.status_code == 403 and "taking over the cage" in refused.json()["detail"]
    assert not Approval.objects.exists()


def test_a_close_without_handover_is_the_cashiers_alone_and_at_once(clients):
    closed = _ask_close(clients)
    assert closed.status_code == 200 and closed.json()["variance_cents"] == 0
    assert _closed()[0].data["handover_to"] is None and not Approval.objects.exists()


def test_a_handover_named_directly_to_the_service_is_refused(clients):
    with pytest.raises(InvalidInput) as refused:
        cage_shift_close(**IMPREST, actor="cash1", handover_to="cash2")
    assert refused.value.field == "handover_to"
    assert "confirms the handover from his own session" in refused.value.message
    assert _closed() == []


def test_the_cage_page_asks_the_incoming_and_he_confirms_from_his_own_page(clients, django_user_model):
    """The form's drop-down names who is asked; his own cage page shows the handover with a
    Confirm button; the maker sees it waiting and may withdraw it."""
    cashier = _page_as("cash1", django_user_model)
    form = {"cash-50000": "100", "chips-1000000": "5", "handover_to": "cash2"}
    asked = cashier.post(reverse("workstations:cage-shift-close"), form, follow=True)
    assert asked.status_code == 200
    assert "stays open until cash2 confirms the handover" in asked.content.decode()
    assert _closed() == []
    page = cashier.get(reverse("workstations:cage")).content.decode()
    assert "waiting for cash2's signature" in page and "Withdraw the closing" in page
    assert 'data-form="close"' not in page  # no second close while this one waits

    incoming = _page_as("cash2", django_user_model)
    page = incoming.get(reverse("workstations:cage")).content.decode()
    assert 'data-section="handovers"' in page and "Confirm: I counted it with cash1" in page
    approval = Approval.objects.get(kind="cage_shift_close")
    signed = incoming.post(reverse("workstations:cage-decide", args=[approval.id, "confirm"]), follow=True)
    assert "closed and handed over to you" in signed.content.decode()
    (closed,) = _closed()
    assert closed.data["handover_to"] == "cash2"
    # His opening form now shows the count handed over to him.
    assert 'data-figure="handed-over">100,000.00 EUR' in incoming.get(reverse("workstations:cage")).content.decode()


def test_the_incoming_count_is_compared_with_the_count_handed_over(clients, django_user_model):
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    (closed,) = _closed()
    short = {"cash": {"50000": 99}, "chips": {"1000000": 5}}  # one 500 note less than handed over
    refused = clients["cash2"].post("/api/cage/shifts/open", short, format="json")
    assert (refused.status_code, refused.json()["field"]) == (400, "variance_reason")
    assert "differs by -500.00 EUR from the 100,000.00 EUR cash1 handed over" in refused.json()["detail"]
    asked = clients["cash2"].post(
        "/api/cage/shifts/open", short | {"variance_reason": "kept back in the main bank"}, format="json"
    )
    # 500.00 EUR off is over the variance threshold (100.00 EUR): a cage supervisor verifies it.
    assert asked.status_code == 202, asked.json()
    assert asked.json()["approval"]["waiting_for"] == [{"slot": "approver", "roles": ["cage_supervisor"], "user": None}]
    assert "cash2" not in open_windows()
    own = clients["cash2"].post(f"/api/approvals/{asked.json()['approval']['id']}/confirm", {}, format="json")
    assert own.status_code == 403 and "cash2" not in open_windows()
    opened = approve(asked, clients["super1"])
    assert opened.status_code == 201, opened.json()
    assert (opened.json()["handover_variance_cents"], opened.json()["handover_event"]) == (-50_000, closed.position)
    event = Event.objects.get(position=opened.json()["event"])
    assert (event.data["handover_from"], event.data["variance_reason"]) == ("cash1", "kept back in the main bank")
    assert (event.actor, event.data["variance_verified_by"]) == ("cash2", "super1")
    report = _page_as("cash2", django_user_model).get(reverse("workstations:cage-shift", args=[event.position]))
    html = report.content.decode()
    assert 'data-figure="handover-variance">-500.00 EUR' in html
    assert 'data-figure="handover-reason">kept back in the main bank' in html


def test_a_count_off_by_no_more_than_the_threshold_opens_at_once_with_its_reason(clients):
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    near = {"cash": {"50000": 100}, "chips": {"1000000": 4, "100000": 9, "10000": 9}}  # 100.00 EUR short
    opened = clients["cash2"].post(
        "/api/cage/shifts/open", near | {"variance_reason": "a 100 chip missing"}, format="json"
    )
    assert opened.status_code == 201, opened.json()
    assert opened.json()["handover_variance_cents"] == -10_000
    assert "variance_verified_by" not in Event.objects.get(position=opened.json()["event"]).data


def test_the_service_opens_no_window_over_the_threshold_without_a_cage_supervisors_verification(clients):
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    short = {"cash": {"50000": 99}, "chips": {"1000000": 5}, "variance_reason": "one note less"}
    with pytest.raises(RoleRequired):
        cage_shift_open(**short, actor="cash2")
    with pytest.raises(RoleRequired):  # nor with her own name as the verifier
        cage_shift_open(**short, approver="cash2", actor="cash2")
    assert "cash2" not in open_windows()


def test_the_same_count_as_handed_over_needs_no_reason_and_others_are_not_compared(clients):
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    matched = clients["cash2"].post("/api/cage/shifts/open", IMPREST, format="json")
    assert matched.status_code == 201 and matched.json()["handover_variance_cents"] == 0
    # super1 was handed nothing: his opening is compared with nothing.
    mine = cage_shift_open(cash={"50000": 10}, chips={}, actor="super1")
    assert mine["handover_variance_cents"] is None and mine["handover_event"] is None
    # cash2's next opening (after his own end-of-day close) is not compared again.
    cage_shift_close(**drawer_count(open_windows()["cash2"].data["window"]), actor="cash2")
    again = cage_shift_open(cash={"50000": 1}, chips={}, actor="cash2")
    assert again["handover_variance_cents"] is None


def test_the_drawer_is_frozen_while_the_handover_waits_and_serves_again_once_the_closing_is_withdrawn(clients):
    """A sale after the count would leave the count behind it (the signed close was then refused,
    and the incoming cashier's row could never succeed): nothing crosses the counter until the
    window closes or its closing is withdrawn."""
    from tests.conftest import make_patron

    asked = _ask_close(clients, handover_to="cash2")
    patron = make_patron()
    sale = {"patron": patron, "amount_cents": 1_000}
    refused = clients["cash1"].post("/api/cage/purchases", sale, format="json")
    assert (refused.status_code, refused.json()["field"]) == (409, "shift")
    assert "its closing waits for a signature: nothing crosses the counter until it closes" in refused.json()["detail"]
    assert Event.objects.filter(type="ChipsPurchased").count() == 0

    approval = asked.json()["approval"]["id"]
    withdrawn = clients["cash1"].post(f"/api/approvals/{approval}/reject", {"reason": "a patron came"}, format="json")
    assert withdrawn.status_code == 200, withdrawn.json()
    sold = clients["cash1"].post("/api/cage/purchases", sale, format="json")
    assert sold.status_code == 201, sold.json()
    assert "cash1" in open_windows()


def test_a_cash_shortage_hidden_by_a_chip_excess_is_two_variances_not_none(clients):
    from datetime import date

    from cashier.reports import variance_report

    uneven = {"cash": {"50000": 99}, "chips": {"1000000": 5, "50000": 1}}  # cash −500.00, chips +500.00
    closed = clients["cash1"].post("/api/cage/shifts/close", uneven | {"variance_reason": "counted"}, format="json")
    assert closed.status_code == 200, closed.json()
    assert closed.json()["variance_cents"] == 0
    (event,) = _closed()

    rows = variance_report(date.fromisoformat(str(event.gaming_day)), threshold_cents=100)["rows"]

    assert [(r["kind"], r["subject"], r["variance_cents"], r["investigate"]) for r in rows] == [
        ("cage_shift_cash", f"main window {event.data['window']}", -50_000, True),
        ("cage_shift_chips", f"main window {event.data['window']}", 50_000, True),
    ]


def test_the_window_report_shows_the_imprest_and_the_closing_count_piece_by_piece_and_the_incoming_signer(
    clients, django_user_model
):
    change = {"cash": {"50000": 90, "10000": 50}, "chips": {"1000000": 5}}  # the same total, other notes
    asked = clients["cash1"].post("/api/cage/shifts/close", change | {"handover_to": "cash2"}, format="json")
    approve(asked, clients["cash2"])
    opened = Event.objects.get(type="CageShiftOpened", actor="cash1").position
    html = _page_as("cash1", django_user_model).get(reverse("workstations:cage-shift", args=[opened])).content.decode()

    cash = html[html.index('aria-label="Cash by denomination"') :]
    cash = cash[: cash.index("</table>")]
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", cash)]
    assert [r for r in rows if r] == [
        ["500 EUR", "100", "50,000.00 EUR", "90", "45,000.00 EUR", "-5,000.00 EUR"],
        ["100 EUR", "0", "0.00 EUR", "50", "5,000.00 EUR", "5,000.00 EUR"],
    ]
    assert 'data-figure="variance">0.00 EUR' in html
    assert (
        '<div data-figure="incoming">Incoming cashier: cash2 (confirmed the closing count from his own login)</div>'
        in html
    )


def test_an_opening_off_the_handover_is_verified_by_a_cage_supervisor_from_the_cage_page(clients, django_user_model):
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    cashier = _page_as("cash2", django_user_model)
    typed = {"cash-50000": "98", "chips-1000000": "5", "variance_reason": "two notes kept in the main bank"}
    asked = cashier.post(reverse("workstations:cage-shift-open"), typed | {"idempotency_key": "o-1"}, follow=True)
    html = asked.content.decode()
    assert "a cage supervisor other than you verifies it from his own login; your window opens when he signs" in html
    assert 'data-section="opening-asked"' in html and 'data-form="open"' not in html
    assert "waiting for a cage supervisor to verify your count from his own login" in html

    supervisor = _page_as("super1", django_user_model)
    desk = supervisor.get(reverse("workstations:cage")).content.decode()
    assert (
        "Opening of cash2's window: counted 99,000.00 EUR against the 100,000.00 EUR cash1 handed over, "
        "<strong>difference -1,000.00 EUR</strong>" in desk
    )
    approval = Approval.objects.get(kind="cage_shift_open")
    signed = supervisor.post(
        reverse("workstations:cage-decide", args=[approval.id, "confirm"]), {"idempotency_key": "v-1"}, follow=True
    )
    assert (
        "Verified: window 2 of cash2 opened, counted 99,000.00 EUR, -1,000.00 EUR against the count handed over."
        in (signed.content.decode())
    )
    assert "cash2" in open_windows()
    opened = Event.objects.filter(type="CageShiftOpened", actor="cash2").get()
    assert opened.data["variance_verified_by"] == "super1"


def test_a_handover_to_a_cashier_whose_window_is_open_already_is_refused_and_her_window_stays_as_counted(clients):
    """She opened her own window before confirming the handover: her opening was compared with
    nothing, so the handover would never be; confirming it is refused, the window stays open."""
    asked = _ask_close(clients, handover_to="cash2")
    assert asked.status_code == 202
    assert (
        clients["cash2"].post("/api/cage/shifts/open", {"cash": {"50000": 1}, "chips": {}}, format="json").status_code
        == 201
    )
    confirmed = approve(asked, clients["cash2"])
    assert (confirmed.status_code, confirmed.json()["field"]) == (409, "handover_to")
    assert "cash2's own window is already open" in confirmed.json()["detail"]
    assert "cash1" in open_windows() and _closed() == []


def test_each_sides_difference_from_the_count_handed_over_is_kept_on_the_opening(clients):
    """The same total, other sides: the opening records each side's difference for the auditor."""
    approve(_ask_close(clients, handover_to="cash2"), clients["cash2"])
    swapped = {"cash": {"50000": 90}, "chips": {"1000000": 5, "100000": 5}}
    opened = clients["cash2"].post("/api/cage/shifts/open", swapped, format="json").json()
    event = Event.objects.get(position=opened["event"])
    assert (
        event.data["handover_variance_cents"],
        event.data["handover_variance_cash_cents"],
        event.data["handover_variance_chips_cents"],
    ) == (0, -500_000, 500_000)

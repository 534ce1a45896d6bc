"""The pages of markers and front money: on the cage page a marker's void asked with its reason
and signed by a cage supervisor from his own login, then shown with its reason and both names;
on the pit boss's table page a marker paid and front money drawn, a refusal naming the field."""

import re

import pytest
from django.urls import reverse

from approvals.models import Approval
from cashier.credit_models import Marker
from cashier.services.cage_shifts import open_windows, window_of
from cashier.services.credit import credit_line_set, front_money_deposit, marker_issue
from ledger import accounts, store
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(client, django_user_model):
    """Logs ``client`` in as the user it names (created with its role on first use)."""

    def as_user(username: str, role: str = Role.CASHIER):
        user = django_user_model.objects.filter(username=username).first()
        if user is None:
            user = django_user_model.objects.create_user(username=username, password="pw")
            grant(user, role)
        client.force_login(user)
        return client

    return as_user


@pytest.fixture
def patron(table, users):
    """An identified patron with a credit line of 5,000.00 EUR; cash1's window open."""
    users("cash1")
    users("super1", Role.CAGE_SUPERVISOR)
    users("pit1", Role.PIT_BOSS)
    hand_cage_to("cash1")
    code = patron_register(kind="identified", name="Jeanne Martin", document="ID-JM-1", actor=ACTOR)["patron"]
    credit_line_set(patron=code, limit_cents=500_000, actor="super1")
    return code


def _message(html: str) -> str:
    found = re.search(r'<ul class="messages" role="status">(.*?)</ul>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)).strip() if found else ""


def test_a_marker_void_asked_at_the_cage_page_is_signed_by_a_cage_supervisor_and_shown_with_both_names(users, patron):
    serial = marker_issue(patron=patron, amount_cents=150_000, actor="cash1")["serial"]
    cashier = users("cash1")
    page = cashier.get(reverse("workstations:cage")).content.decode()
    row = page[page.index(f'data-marker="{serial}"') :]
    assert "Jeanne Martin (P" in row and "1,500.00 EUR" in row and "Ask void" in row
    url = reverse("workstations:cage-marker-void", args=[serial])
    blank = cashier.post(url, {"reason": " "})
    assert blank.status_code == 400 and "Reason: Say why the marker was issued in error" in blank.content.decode()
    asked = cashier.post(url, {"reason": "written for the wrong patron"}, follow=True)
    assert f"Void of marker {serial} asked" in _message(asked.content.decode())
    assert "void asked by cash1 (written for the wrong patron): waiting for a cage supervisor" in (
        asked.content.decode()
    )
    approval = Approval.objects.get(kind="marker_void")
    own = cashier.post(reverse("workstations:cage-decide", args=[approval.id, "confirm"]))
    assert own.status_code == 403 and Marker.objects.get(serial=serial).state == "at_cage"

    supervisor = users("super1")
    desk = supervisor.get(reverse("workstations:cage")).content.decode()
    assert "Approve the void" in desk and f"Void of marker {serial}" in desk
    signed = supervisor.post(reverse("workstations:cage-decide", args=[approval.id, "confirm"]), follow=True)
    assert f"marker {serial} of patron {patron}, 1,500.00 EUR, is voided (written for the wrong patron)" in (
        _message(signed.content.decode())
    )
    assert "asked by cash1, signed by super1" in _message(signed.content.decode())
    html = users("cash1").get(reverse("workstations:cage")).content.decode()
    row = html[html.index(f'data-marker="{serial}"') :]
    row = row[: row.index("</tr>")]
    assert "voided " in row and "written for the wrong patron; asked by cash1, signed by super1" in row
    assert store.balance(accounts.patron_credit(patron)) == 0


def test_the_pit_boss_records_a_marker_payment_and_a_front_money_draw_at_his_table(users, patron):
    serial = marker_issue(patron=patron, amount_cents=100_000, table="R1", actor="pit1")["serial"]
    front_money_deposit(patron=patron, amount_cents=200_000, actor="cash1")
    boss = users("pit1")
    page = boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert f"{serial}: Jeanne Martin ({patron}), 1,000.00 EUR owed of 1,000.00 EUR" in page

    pay = reverse("dashboard:marker-payment", args=["R1"])
    over = boss.post(pay, {"serial": serial, "amount": "1000.01", "method": "chips", "idempotency_key": "k-over"})
    assert over.status_code == 400
    assert "Refused — <strong>Amount</strong>: marker" in over.content.decode()
    body = {"serial": serial, "amount": "400", "method": "chips", "idempotency_key": "k-pay"}
    paid = boss.post(pay, body, follow=True)
    assert f"Marker {serial} of Jeanne Martin ({patron}): 400.00 EUR paid in all, 600.00 EUR still owed." in (
        _message(paid.content.decode())
    )
    boss.post(pay, body, follow=True)  # sent twice: recorded once
    assert Event.objects.filter(type="MarkerPaidAtTable").count() == 1
    assert Marker.objects.get(serial=serial).outstanding_cents == 60_000

    draw = reverse("dashboard:front-money-draw", args=["R1"])
    too_much = boss.post(draw, {"patron": patron, "amount": "2000.01", "idempotency_key": "k-fm-over"})
    assert too_much.status_code == 400 and "2,000.00 EUR of front money" in too_much.content.decode()
    drawn = boss.post(draw, {"patron": patron, "amount": "500", "idempotency_key": "k-fm"}, follow=True)
    assert f"Front money drawn by Jeanne Martin ({patron}): 500.00 EUR in chips from the tray; " in _message(
        drawn.content.decode()
    )
    assert "1,500.00 EUR left at the cage." in _message(drawn.content.decode())
    assert store.balance(accounts.patron_deposit(patron)) == 150_000
    html = drawn.content.decode()
    assert f"marker {serial} paid in chips" in html and "front money drawn in chips" in html

    cashier = users("cash1")
    assert cashier.post(draw, {"patron": patron, "amount": "1"}).status_code == 403


def test_a_pit_boss_issues_a_marker_at_his_table_from_its_page_against_the_credit_line(users, patron):
    pit = users("pit1", Role.PIT_BOSS)
    page = pit.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert "Issue a marker" in page and 'data-form="marker-issue"' in page
    url = reverse("dashboard:marker-issue", args=["R1"])
    tray = store.balance(accounts.table_tray("R1"))

    over = pit.post(url, {"patron": patron, "amount": "5 000,01", "idempotency_key": "mi-over"})
    issued = pit.post(url, {"patron": patron, "amount": "1 200", "idempotency_key": "mi-1"}, follow=True)

    assert over.status_code == 409 and "remaining credit" in over.content.decode().lower()
    (marker,) = Marker.objects.filter(patron__code=patron)
    assert (marker.amount_cents, marker.state, marker.table_code) == (120_000, "at_table", "R1")
    said = _message(issued.content.decode())
    assert said == (
        f"Marker {marker.serial} issued to Jeanne Martin ({patron}): 1,200.00 EUR in chips from the tray, "
        "the marker into the drop box; 3,800.00 EUR of credit left."
    )
    assert store.balance(accounts.table_tray("R1")) == tray - 120_000
    again = pit.post(url, {"patron": patron, "amount": "1 200", "idempotency_key": "mi-1"})
    assert again.status_code == 302 and Marker.objects.filter(patron__code=patron).count() == 1


def test_the_cashier_takes_front_money_and_pays_it_back_from_the_cage_page(users, patron):
    cashier = users("cash1")
    deposit = reverse("workstations:cage-chips", args=["front-money-deposit"])
    withdraw = reverse("workstations:cage-chips", args=["front-money-withdrawal"])
    page = cashier.get(reverse("workstations:cage")).content.decode()
    assert 'data-form="deposit"' in page and 'data-form="withdraw"' in page

    taken = cashier.post(deposit, {"patron": patron, "amount": "3 000", "idempotency_key": "fm-in"}, follow=True)
    cashier.post(deposit, {"patron": patron, "amount": "3 000", "idempotency_key": "fm-in"})  # sent twice
    too_much = cashier.post(withdraw, {"patron": patron, "amount": "3000.01", "idempotency_key": "fm-over"})
    back = cashier.post(withdraw, {"patron": patron, "amount": "1 000", "idempotency_key": "fm-out"}, follow=True)

    said = _message(taken.content.decode())
    assert said.startswith(
        f"Front money: 3,000.00 EUR in cash deposited by patron {patron} (his deposit now 3,000.00 EUR)."
    )
    assert "transaction logged: cash in 3,000.00 EUR (front money deposited in cash at the cage)" in said
    assert too_much.status_code == 400
    refused = too_much.content.decode()
    assert "3,000.00 EUR of front money" in refused and 'id="withdraw-amount"' in refused
    assert 'value="3000.01" aria-invalid="true" autofocus' in refused  # the figure kept, the field marked
    assert _message(back.content.decode()) == (
        f"Front money: 1,000.00 EUR in cash paid back to patron {patron} (his deposit now 2,000.00 EUR)."
    )
    assert Event.objects.filter(type="FrontMoneyDeposited").count() == 1
    assert store.balance(accounts.patron_deposit(patron)) == 200_000
    found = cashier.get(reverse("workstations:cage"), {"q": "Jeanne"}).content.decode()
    row = found[found.index('aria-label="Patrons found"') :]
    row = row[: row.index("</tr>", row.index("<tbody>"))]
    assert '<td class="num" data-figure="front-money">2,000.00 EUR</td>' in row
    assert '<td data-figure="credit-line">limit 5,000.00 EUR, 0.00 EUR owed on markers</td>' in row


def test_a_marker_owed_at_the_cage_is_paid_from_its_row_in_cash_then_from_front_money(users, patron):
    serial = marker_issue(patron=patron, amount_cents=150_000, actor="cash1")["serial"]
    front_money_deposit(patron=patron, amount_cents=100_000, actor="cash1")
    cashier = users("cash1")
    page = cashier.get(reverse("workstations:cage")).content.decode()
    row = page[page.index(f'data-marker="{serial}"') :]
    assert 'data-form="marker-pay"' in row[: row.index("</tr>")] and 'placeholder="1500.00"' in row
    url = reverse("workstations:cage-marker-pay", args=[serial])
    window = window_of(open_windows()["cash1"])
    drawer = store.balance(accounts.window_cash(window))

    over = cashier.post(url, {"amount": "1500.01", "method": "cash", "idempotency_key": "mp-over"})
    cash = cashier.post(url, {"amount": "500", "method": "cash", "idempotency_key": "mp-1"}, follow=True)
    rest = cashier.post(url, {"amount": "1000", "method": "front_money", "idempotency_key": "mp-2"}, follow=True)

    assert over.status_code == 400
    assert "Amount: Marker " in re.sub(r"<[^>]+>", "", over.content.decode())
    assert _message(cash.content.decode()) == (
        f"Marker {serial} of patron {patron}: 500.00 EUR paid in cash; 1,000.00 EUR still owed."
    )
    assert _message(rest.content.decode()) == (
        f"Marker {serial} of patron {patron}: 1,000.00 EUR paid from his front money; the marker is settled."
    )
    assert Marker.objects.get(serial=serial).state == "paid"
    assert store.balance(accounts.patron_credit(patron)) == 0
    assert store.balance(accounts.patron_deposit(patron)) == 0
    assert store.balance(accounts.window_cash(window)) == drawer + 50_000  # the cash in her drawer, not the deposit


def test_a_cage_supervisor_sets_and_closes_a_credit_line_from_the_cage_page(users, patron):
    url = reverse("workstations:cage-credit-line")
    assert users("cash1").post(url, {"patron": patron, "limit": "100"}).status_code == 403
    supervisor = users("super1")
    assert 'data-form="credit-line"' in supervisor.get(reverse("workstations:cage")).content.decode()

    same = supervisor.post(url, {"patron": patron, "limit": "5 000", "idempotency_key": "cl-same"})
    raised = supervisor.post(url, {"patron": patron, "limit": "8 000", "idempotency_key": "cl-up"}, follow=True)
    closed = supervisor.post(url, {"patron": patron, "limit": "0", "idempotency_key": "cl-0"}, follow=True)

    assert same.status_code == 409 and "already 5,000.00 EUR" in same.content.decode()
    assert _message(raised.content.decode()) == (
        f"Credit line of patron {patron}: 8,000.00 EUR (before: 5,000.00 EUR); 0.00 EUR owed on his markers."
    )
    assert _message(closed.content.decode()) == (
        f"Credit line of patron {patron}: 0.00 EUR (before: 8,000.00 EUR); 0.00 EUR owed on his markers."
    )
    events = Event.objects.filter(type="CreditLineApproved").order_by("position")
    assert [(e.actor, e.data["after"]) for e in events] == [("super1", 500_000), ("super1", 800_000), ("super1", 0)]


def test_the_pit_boss_sees_a_patrons_credit_line_and_front_money_on_his_page_before_a_marker(users, patron):
    marker_issue(patron=patron, amount_cents=120_000, table="R1", actor="pit1")
    front_money_deposit(patron=patron, amount_cents=30_000, actor="cash1")
    boss = users("pit1")
    table = boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert 'aria-label="Check a patron\'s credit"' in table
    found = boss.get(reverse("dashboard:patron-lookup"), {"q": patron}, follow=True).content.decode()
    card = found[found.index('data-section="credit">') + len('data-section="credit">') :]
    cells = [cell.strip() for cell in re.split(r"<[^>]+>", card[: card.index("</dl>")])]
    assert [cell for cell in cells if cell] == [
        "Credit line",
        "5,000.00 EUR",
        "Owed on markers",
        "1,200.00 EUR",
        "Left for a marker",
        "3,800.00 EUR",
        "Front money at the cage",
        "300.00 EUR",
    ]
    unrated = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    anonymous = boss.get(reverse("dashboard:patron", args=[unrated]))
    assert anonymous.status_code == 200 and 'data-section="credit"' not in anonymous.content.decode()

"""The cage workstation through Django's test client: who may enter, and a shift's
forms calling the cashier services as the logged-in user (the browser test does the whole
shift; these pin the refusals and the reconciliation's figures)."""

import re
from html import unescape
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from approvals.models import Approval
from cashier.models import Slip
from cashier.services.cage import chips_purchase
from cashier.services.cage_shifts import cage_shift_open, last_shift_event
from cashier.services.credit import credit_line_set, front_money_deposit, marker_issue, marker_pay
from cashier.services.slips import slip_request
from ledger import accounts, store
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, hand_cage_to, make_patron
from workstations.templatetags.workstation_tags import data_value

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


def test_a_sale_with_no_window_open_is_refused_on_the_page_and_writes_nothing(as_role, cage_float):
    client = as_role("cash1", Role.CASHIER)
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    before = Event.objects.count()
    page = client.post(reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "100"})
    assert page.status_code == 409
    assert "Not recorded. Cashier window: no cashier window is open at cage main" in page.content.decode()
    assert Event.objects.count() == before


def test_a_count_off_the_drawer_asks_for_a_reason_keeping_the_count_then_the_window_report_reconciles(
    as_role, cage_float
):
    client = as_role("cash1", Role.CASHIER)
    # The float: 100,000.00 EUR of cash (200 × 500) and of chips (10 × 10,000), all counted in.
    opened = client.post(
        reverse("workstations:cage-shift-open"), {"cash-50000": "200", "chips-1000000": "10"}, follow=True
    )
    assert "Window 1 opened: imprest counted in 200,000.00 EUR." in opened.content.decode()
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "1,250.50"}, follow=True
    )
    assert f"Sold 1,250.50 EUR of chips, patron {patron}" in sold.content.decode()
    assert figure(sold.content.decode(), "drawer-total") == "200,000.00 EUR"
    # Closing 50.00 EUR short without a reason: the form comes back with its count, nothing written.
    # Drawer: cash 101,250.50, chips 98,749.50. Counted: cash 101,200.50, chips 98,749.50.
    short = {"cash-50000": "202", "cash-20000": "1", "cash-50": "1", "chips-1000000": "9", "chips-500000": "1"}
    short |= {"chips-100000": "3", "chips-10000": "7", "chips-2500": "1", "chips-500": "4"}
    short |= {"chips-250": "1", "chips-100": "2"}
    before = Event.objects.count()
    asked = client.post(reverse("workstations:cage-shift-close"), short)
    html = asked.content.decode()
    assert asked.status_code == 400 and "give the reason for the variance, then close again" in html
    assert "<strong>Reason for a variance</strong>: The count (199,950.00 EUR) differs from the drawer" in html
    assert (
        'id="close-cash-50000" name="cash-50000" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="202"'
        in html
    )
    assert 'name="variance_reason" rows="2" maxlength="500" aria-invalid="true"' in html
    assert Event.objects.count() == before
    closed = client.post(
        reverse("workstations:cage-shift-close"), short | {"variance_reason": "50 EUR note missing"}, follow=True
    )
    html = closed.content.decode()
    assert last_shift_event().data["variance_reason"] == "50 EUR note missing"
    assert figure(html, "opening-book") == "200,000.00 EUR"
    assert figure(html, "closing-book") == "200,000.00 EUR"  # a sale moves cash in and chips out
    assert (figure(html, "counted"), figure(html, "variance")) == ("199,950.00 EUR", "-50.00 EUR")
    assert '>Chip sales</a></td><td class="num">1,250.50 EUR</td><td class="num">-1,250.50 EUR</td>' in html
    # The sale behind the figure, with the patron by name and code second.
    transactions = re.search(r'data-section="transactions">(.*?)</table>', html, re.S).group(1)
    assert "Chip sale</td>" in transactions and f"<td>A B ({patron})</td>" in transactions
    assert (
        '<td class="num">1,250.50 EUR</td><td class="num">-1,250.50 EUR</td><td data-figure="by">cash1</td>'
        in transactions
    )
    assert figure(html, "reason") == "50 EUR note missing"
    assert "Opening book plus movements agrees with the ledger's book at closing." in html
    # The count went back to the main bank, the 50.00 EUR short to over/short.
    assert store.balance(accounts.CAGE_CASH) == 10_000_000 + 125_050 - 5_000
    assert store.balance(accounts.CAGE_OVER_SHORT) == 5_000


def _staff(django_user_model, **roles):
    for name, role in roles.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)


def test_a_fill_prepared_on_the_page_waits_for_the_runner_then_leaves_the_window_in_transit(
    as_role, table, django_user_model
):
    """The page asks the same approval as the API: no FillIssued until the runner confirms; then
    the chips leave the cashier's drawer (and the cage) for "in transit", and reach the tray when
    the table accepts them."""
    from cashier.services.slips import slip_accept

    _staff(django_user_model, pit1=Role.PIT_BOSS, pit2=Role.PIT_BOSS, run1=Role.RUNNER)
    client = as_role("cash1", Role.CASHIER)
    window = hand_cage_to("cash1")["window"]
    drawer, cage_chips = store.balance(accounts.window_chips(window)), store.balance(accounts.CAGE_CHIPS)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 30}, actor="pit1")["serial"]
    page = client.post(reverse("workstations:cage-issue", args=["fill", serial]), {"runner": "run1"}, follow=True)
    html = page.content.decode()
    assert f"Fill {serial} prepared: waiting for the runner run1 to confirm he carries it" in html
    assert Slip.objects.get(serial=serial).state == Slip.State.REQUESTED
    assert not Event.objects.filter(type="FillIssued").exists()
    row = re.search(rf'<tr data-serial="{serial}" data-kind="fill">(.*?)</tr>', html, re.S).group(1)
    assert "waiting for the runner run1 (asked by cash1" in row and "Prepare fill" not in row
    # Asking again (the page reloaded, or through the API) is refused: one issue per slip.
    again = client.post(reverse("workstations:cage-issue", args=["fill", serial]), {"runner": "run1"})
    assert (
        f"Fill {serial} not issued. Slip: carrying a slip&#x27;s chips was already asked by cash1 and waits for run1"
    ) in again.content.decode()
    api = APIClient()
    api.force_authenticate(django_user_model.objects.get(username="cash1"))
    assert api.post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json").status_code == 409
    assert Approval.objects.filter(kind="slip_issue").count() == 1
    runner = APIClient()
    runner.force_authenticate(django_user_model.objects.get(username="run1"))
    approval = Approval.objects.get(kind="slip_issue")
    signed = runner.post(f"/api/approvals/{approval.id}/confirm", {}, format="json")
    assert signed.status_code == 200 and signed.json()["state"] == "issued"
    issued = Event.objects.get(type="FillIssued")
    assert (issued.actor, issued.data["runner"], issued.data["window"]) == ("cash1", "run1", window)
    assert store.balance(accounts.window_chips(window)) == drawer - 300_000
    assert store.balance(accounts.CAGE_CHIPS) == cage_chips - 300_000
    assert store.balance(accounts.CHIPS_IN_TRANSIT) == 300_000
    html = client.get(reverse("workstations:cage")).content.decode()
    assert "issued by cash1, with run1 (chips in transit)" in html
    assert re.search(r"<td>Fill issued</td>\s*<td>slip ", html)
    tray = store.balance(accounts.table_tray("R1"))
    slip_accept(kind="fill", serial=serial, actor="pit2", count={"10000": 30})
    assert store.balance(accounts.CHIPS_IN_TRANSIT) == 0
    assert store.balance(accounts.table_tray("R1")) == tray + 300_000
    assert store.balance(accounts.window_chips(window)) == drawer - 300_000  # the drawer moved once


def test_a_credit_is_received_on_the_cage_page_by_a_count_that_must_be_the_slips(as_role, table, django_user_model):
    """The runner brings a credit's chips to the cage; the cashier counts them in on her page. A
    count that is not the slip's is refused, keeping what she typed; the right count moves the
    chips from the tray into her drawer, once, however often the form is sent."""
    from approvals.services import approval_confirm, approval_request

    _staff(django_user_model, pit1=Role.PIT_BOSS, run1=Role.RUNNER)
    client = as_role("cash1", Role.CASHIER)
    window = hand_cage_to("cash1")["window"]
    serial = slip_request(kind="credit", table="R1", denominations={"10000": 3, "2500": 4}, actor="pit1")["serial"]
    pending = approval_request(
        kind="slip_issue", payload={"kind": "credit", "serial": serial, "runner": "run1"}, actor="cash1"
    )
    approval_confirm(approval=pending["approval"]["id"], actor="run1")
    html = client.get(reverse("workstations:cage")).content.decode()
    row = re.search(rf'<tr data-serial="{serial}" data-kind="credit">(.*?)</details>', html, re.S).group(
        1
    )  # a count table inside
    assert "run1 brings the chips from the table" in row and f"Receive and count credit {serial}" in row
    drawer, tray = store.balance(accounts.window_chips(window)), store.balance(accounts.table_tray("R1"))
    head = store.head()
    url = reverse("workstations:cage-credit-receive", args=[serial])
    short = client.post(url, {f"count-{serial}-10000": "3", f"count-{serial}-2500": "3", "idempotency_key": "k1"})
    page = short.content.decode()
    assert short.status_code == 400 and store.head() == head
    assert "Chips counted: The count (375.00 EUR) is not the slip&#x27;s (400.00 EUR" in page
    assert "not received" not in page  # said once, beside the count
    assert f'name="count-{serial}-2500" inputmode="numeric" pattern="[0-9]*" autocomplete="off" value="3"' in page
    right = {f"count-{serial}-10000": "3", f"count-{serial}-2500": "4", "idempotency_key": "k2"}
    done = client.post(url, right, follow=True).content.decode()
    assert f"Credit {serial} from table R1 received and counted: 400.00 EUR of chips into your drawer." in done
    again = client.post(url, right, follow=True).content.decode()
    assert f"Already recorded: credit {serial} was already received" in again
    assert store.balance(accounts.window_chips(window)) == drawer + 40_000
    assert store.balance(accounts.table_tray("R1")) == tray - 40_000
    assert Event.objects.filter(type="CreditDelivered").count() == 1


def _slip_row(html: str, kind: str, serial: str) -> str:
    return re.search(rf'<tr data-serial="{serial}" data-kind="{kind}">(.*?)</tr>', html, re.S).group(1)


def _local(moment) -> str:
    return moment.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%Y-%m-%d %H:%M:%S %Z")


def test_a_fill_accepted_by_the_tables_dealer_shows_accepted_by_him_and_when_not_in_transit(
    as_role, table, django_user_model
):
    """The cage's row follows the slip: with the runner (chips in transit), then waiting for the
    dealer the pit asked to count it, then accepted at the table by that dealer at that time."""
    from approvals.services import approval_confirm, approval_request
    from cashier.services.slips import slip_issue
    from staff.services import dealer_assign

    _staff(django_user_model, pit1=Role.PIT_BOSS, run1=Role.RUNNER, dealer1=Role.DEALER)
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    dealer_assign(dealer="dealer1", table="R1", actor="pit1")
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 20}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor="cash1")
    row = _slip_row(client.get(reverse("workstations:cage")).content.decode(), "fill", serial)
    assert "issued by cash1, with run1 (chips in transit)" in row
    asked = approval_request(kind="slip_accept", payload={"kind": "fill", "serial": serial}, actor="pit1")
    row = _slip_row(client.get(reverse("workstations:cage")).content.decode(), "fill", serial)
    assert "at table R1, waiting for the dealer dealer1 to count and accept it" in row
    assert "in transit" not in row
    approval_confirm(approval=asked["approval"]["id"], actor="dealer1", count={"10000": 20})
    assert Slip.objects.get(serial=serial).state == Slip.State.DELIVERED
    accepted = Event.objects.get(type="FillDelivered", data__slip=serial)
    row = _slip_row(client.get(reverse("workstations:cage")).content.decode(), "fill", serial)
    assert f"accepted at table R1 by dealer1, {_local(accepted.occurred_at)}" in row
    assert "in transit" not in row and "<form" not in row


def test_a_credit_counted_in_shows_received_at_the_cage_by_whom_and_when(as_role, table, django_user_model):
    from cashier.services.slips import slip_accept, slip_issue

    _staff(django_user_model, pit1=Role.PIT_BOSS, run1=Role.RUNNER)
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    serial = slip_request(kind="credit", table="R1", denominations={"10000": 2}, actor="pit1")["serial"]
    slip_issue(kind="credit", serial=serial, runner="run1", actor="cash1")
    slip_accept(kind="credit", serial=serial, actor="cash1", count={"10000": 2})
    received = Event.objects.get(type="CreditDelivered", data__slip=serial)
    row = _slip_row(client.get(reverse("workstations:cage")).content.decode(), "credit", serial)
    assert f"received and counted at the cage by cash1, {_local(received.occurred_at)}" in row
    assert "brings the chips" not in row and "Receive and count" not in row


def test_a_fill_already_asked_through_the_api_shows_no_issue_button(as_role, table, django_user_model):
    _staff(django_user_model, pit1=Role.PIT_BOSS, run1=Role.RUNNER)
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    api = APIClient()
    api.force_authenticate(django_user_model.objects.get(username="cash1"))
    assert api.post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json").status_code == 202
    html = client.get(reverse("workstations:cage")).content.decode()
    row = re.search(rf'<tr data-serial="{serial}" data-kind="fill">(.*?)</tr>', html, re.S).group(1)
    assert "waiting for the runner run1" in row and "<form" not in row


def test_a_second_cashier_opens_her_own_window_beside_the_first_and_works_only_in_hers(
    as_role, cage_float, django_user_model
):
    """Two windows at once, each its own imprest out of the main bank: cashier's sale moves her
    drawer only, and she may not close shift-cashier's window (409, field shift)."""
    from tests.conftest import staff_user

    staff_user("shift-cashier", "cashier")
    first = cage_shift_open(cash={"50000": 100}, chips={"1000000": 5}, actor="shift-cashier")
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    client = as_role("cashier", Role.CASHIER)
    desk = client.get(reverse("workstations:cage")).content.decode()
    assert "My window: not open" in desk and "Window 1 (shift-cashier)" in desk and "Sell chips" not in desk
    opened = client.post(
        reverse("workstations:cage-shift-open"), {"cash-50000": "100", "chips-1000000": "5"}, follow=True
    )
    assert "Window 2 opened: imprest counted in 100,000.00 EUR." in opened.content.decode()
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "100"}, follow=True
    )
    html = sold.content.decode()
    assert f"Sold 100.00 EUR of chips, patron {patron}" in html
    assert (figure(html, "drawer-cash"), figure(html, "drawer-chips")) == ("50,100.00 EUR", "49,900.00 EUR")
    assert store.balance(accounts.window_cash(first["window"])) == 5_000_000  # the other drawer untouched
    assert figure(html, "main-bank") == "0.00 EUR" and figure(html, "book-total") == "200,000.00 EUR"
    api = APIClient()
    api.force_authenticate(django_user_model.objects.get(username="cashier"))
    before = Event.objects.count()
    count = {"cash": {"50000": 100}, "chips": {"1000000": 5}, "cashier": "shift-cashier"}
    closed = api.post("/api/cage/shifts/close", count, format="json")
    assert closed.status_code == 409 and closed.json()["field"] == "shift", closed.content
    assert "only shift-cashier or a cage supervisor closes it" in closed.json()["detail"]
    assert Event.objects.count() == before


def test_a_cage_supervisor_closes_a_cashiers_window_recorded_as_such(as_role, cage):
    client = as_role("cagesup", Role.CAGE_SUPERVISOR)
    desk = client.get(reverse("workstations:cage")).content.decode()
    assert "Close another cashier's window as cage supervisor" in desk and "Sell chips" not in desk
    # The fixture's float, counted as the drawer: 100,000.00 EUR of cash and of chips.
    closed = client.post(
        reverse("workstations:cage-shift-close"),
        {"cashier": "shift-cashier", "cash-50000": "200", "chips-1000000": "10"},
        follow=True,
    )
    html = closed.content.decode()
    event = last_shift_event()
    assert (event.type, event.actor, event.data["opened_by"], event.data["closed_by_supervisor"]) == (
        "CageShiftClosed",
        "cagesup",
        "shift-cashier",
        True,
    )
    assert "by cagesup (cage supervisor, closing shift-cashier's shift)" in figure(html, "closed")
    assert "<div>Cashier: shift-cashier</div><div>Cage supervisor: cagesup (closed the shift)</div>" in html


def test_a_refusal_names_the_fields_label_not_its_api_name(as_role, cage):
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    page = client.post(reverse("workstations:cage-chips", args=["redemption"]), {"patron": patron, "amount": "100"})
    html = page.content.decode()
    assert page.status_code == 400
    assert f"<strong>Amount</strong>: Patron {patron} holds 0.00 EUR of chips" in html
    assert "amount_cents" not in html
    # What was typed stays in the form, the amount marked as the field at fault.
    form = re.search(r'<form[^>]*data-form="redeem">(.*?)</form>', html, re.S).group(1)
    assert f'placeholder="P00001" required autocomplete="off" value="{patron}">' in form
    assert 'placeholder="1,500.00" required autocomplete="off" value="100" aria-invalid="true" autofocus>' in form


# --- amounts as a French cashier types them ---------------------------------------------------


def test_a_sale_typed_with_a_decimal_comma_sells_that_many_euros_and_cents(as_role, cage):
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    patron = patron_register(kind="identified", name="A B", document="ID-1", actor=ACTOR)["patron"]
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "12,5"}, follow=True
    )
    assert f"Sold 12.50 EUR of chips, patron {patron} (now holds 12.50 EUR)." in sold.content.decode()
    event = Event.objects.get(type="ChipsPurchased", actor="cash1")
    assert event.data["amount_cents"] == 1250
    assert store.balance(accounts.patron_chips(patron)) == 1250
    redeemed = client.post(
        reverse("workstations:cage-chips", args=["redemption"]), {"patron": patron, "amount": "2,50"}, follow=True
    )
    assert f"Redeemed 2.50 EUR of chips, patron {patron} (now holds 10.00 EUR)." in redeemed.content.decode()
    assert store.balance(accounts.patron_chips(patron)) == 1000


@pytest.mark.parametrize("operation", ["purchase", "redemption"])
def test_an_ambiguous_amount_is_refused_on_the_page_saying_how_to_type_it_and_writes_nothing(as_role, cage, operation):
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    patron = make_patron(500_000)
    before = Event.objects.count()
    page = client.post(reverse("workstations:cage-chips", args=[operation]), {"patron": patron, "amount": "1,000"})
    assert page.status_code == 400 and 'value="1,000" aria-invalid="true"' in page.content.decode()
    assert (
        "<strong>Amount</strong>: &quot;1,000&quot; is ambiguous "
        "(is its comma a thousands separator or the decimal mark?): "
        "type cents after a comma or a point, two digits at most (12,50 or 12.50), and thousands with a space or "
        "nothing (1 000,50 or 1000.50)"
    ) in page.content.decode()
    assert Event.objects.count() == before


# --- the AML identity threshold ---------------------------------------------------------------


def test_the_identity_prompt_shows_the_amount_formatted_and_sends_it_back_unambiguous(as_role, cage):
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    asked = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": nameless, "amount": "2 500,5"}
    )
    html = asked.content.decode()
    assert asked.status_code == 409
    assert f"Patron <strong>{nameless}</strong>, chip sale of <strong>2,500.50 EUR</strong>." in html
    assert '<input type="hidden" name="amount" value="2500.50">' in html
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]),
        {"patron": nameless, "amount": "2500.50", "identity_name": "Jeanne Martin", "identity_document": "FR 1"},
        follow=True,
    )
    assert f"Sold 2,500.50 EUR of chips, patron {nameless}" in sold.content.decode()
    assert store.balance(accounts.patron_chips(nameless)) == 250_050


def test_a_sale_that_takes_the_patrons_cash_over_a_threshold_warns_the_cashier_on_her_page(
    as_role, cage, django_user_model
):
    """9,000 EUR of front money and a 500 EUR marker paid in cash earlier that gaming day, then
    500.01 EUR of chips sold on the page: 10,000.01 EUR of cash in, over the report threshold."""
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    grant(django_user_model.objects.create_user(username="super1", password="x"), Role.CAGE_SUPERVISOR)
    patron = make_patron()
    front_money_deposit(patron=patron, amount_cents=900_000, actor="cash1")
    credit_line_set(patron=patron, limit_cents=50_000, actor="super1")
    serial = marker_issue(patron=patron, amount_cents=50_000, actor="cash1")["serial"]
    marker_pay(serial=serial, amount_cents=50_000, method="cash", actor="cash1")
    quiet = client.get(reverse("workstations:cage")).content.decode()
    assert 'class="warning"' not in quiet
    sold = client.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "500.01"}, follow=True
    )
    warnings = [
        unescape(re.sub(r"<[^>]+>", "", line))
        for line in re.findall(r'<li class="warning">(.*?)</li>', sold.content.decode(), re.S)
    ]
    assert warnings == [
        f"AML, patron {patron}: identity checked: cash in 500.01 EUR (chips bought at the cage), day's total "
        "10,000.01 EUR, threshold 2,000.00 EUR. His identity on file was checked: see that the document he shows "
        "is the one recorded.",
        f"AML, patron {patron}: total flagged for a report: cash in 500.01 EUR (chips bought at the cage), day's "
        "total 10,000.01 EUR, threshold 10,000.00 EUR. The patron is flagged for a report: the compliance officer "
        "sees it in the exception log.",
    ]
    assert Event.objects.filter(stream=f"aml/{patron}", type="AmlAggregateFlagged").count() == 1


@pytest.mark.parametrize(("operation", "verb"), [("purchase", "buy chips"), ("redemption", "redeem chips")])
def test_the_shared_anonymous_patron_over_the_threshold_is_told_to_register_the_person_with_no_identity_form(
    as_role, cage, operation, verb
):
    client = as_role("cash1", Role.CASHIER)
    hand_cage_to("cash1")
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    for _ in range(2):  # two strangers under the threshold each: 3,000.00 EUR of chips on anon
        chips_purchase(patron=anon, amount_cents=150_000, actor="cash1")
    page = client.post(reverse("workstations:cage-chips", args=[operation]), {"patron": anon, "amount": "2,500.00"})
    html = page.content.decode()
    assert page.status_code == 409
    assert (
        f"<strong>Patron code</strong>: The shared anonymous patron anon cannot {verb} for 2,500.00 EUR: "
        "2,000.00 EUR or more needs a registered patron (AML identity threshold, FR). "
        "Register the person as a patron of his own with his name and identity document, then use his own patron code."
    ) in html
    assert "Identity required" not in html and "identity_name" not in html
    assert store.balance(accounts.patron_chips(anon)) == 300_000  # nothing sold nor redeemed


# --- the shift report and the auditor's event page --------------------------------------------


def test_the_shift_report_words_front_money_and_markers_like_the_other_lines(as_role, cage, django_user_model):
    client = as_role("cash1", Role.CASHIER)
    grant(django_user_model.objects.create_user(username="super1", password="x"), Role.CAGE_SUPERVISOR)
    hand_cage_to("cash1")
    opened = last_shift_event().position
    patron = make_patron()
    front_money_deposit(patron=patron, amount_cents=50_000, actor="cash1")
    credit_line_set(patron=patron, limit_cents=100_000, actor="super1")
    serial = marker_issue(patron=patron, amount_cents=20_000, actor="cash1")["serial"]
    marker_pay(serial=serial, amount_cents=20_000, method="cash", actor="cash1")
    html = client.get(reverse("workstations:cage-shift", args=[opened])).content.decode()
    lines = re.findall(r'<tr><td><a href="#transactions">([^<]+)</a></td>', html)
    assert lines == ["Front money deposited", "Markers issued", "Markers paid"]
    assert '>Markers paid</a></td><td class="num">200.00 EUR</td><td class="num">0.00 EUR</td>' in html
    assert not re.search(r"FrontMoney|Marker[A-Z]", html)  # no event type's code name


def test_the_auditors_event_page_shows_a_count_by_denomination_in_currency_units(as_role, cage):
    client = as_role("aud1", Role.AUDITOR)
    event = Event.objects.get(type="CageShiftOpened")  # the float counted: 200 × 500 EUR, 10 × 10,000 EUR
    html = client.get(reverse("workstations:audit-event", args=[event.position])).content.decode()
    assert '<th scope="row">cash</th><td>200 × 500 EUR (total 100,000.00 EUR)</td>' in html
    assert '<th scope="row">chips</th><td>10 × 10,000 EUR (total 100,000.00 EUR)</td>' in html


def test_a_count_by_denomination_reads_in_currency_units_smallest_first():
    count = {"50000": 111, "5": 1, "10": 1, "20": 1, "200": 1, "1000": 1, "5000": 1, "20000": 2}
    assert data_value(count, "cash") == (
        "1 × 0.05 EUR, 1 × 0.10 EUR, 1 × 0.20 EUR, 1 × 2 EUR, 1 × 10 EUR, 1 × 50 EUR, 2 × 200 EUR, 111 × 500 EUR"
        " (total 55,962.35 EUR)"
    )
    assert data_value({"10000": 30}, "denominations") == "30 × 100 EUR (total 3,000.00 EUR)"
    assert data_value({"table": "R1"}, "cash") == "table: R1"  # not a count: name and value

"""A cashier's window through the cage pages (Django's test client): reversal of a line approved
by a cage supervisor from his own session, a form sent twice recorded once, patrons found and
registered; and the chips of fills and credits through the windows and "in transit"."""

import re

import pytest
from django.urls import reverse

from approvals.models import Approval
from approvals.services import approval_confirm, approval_request
from audit.exceptions import exception_log
from cashier.models import Slip
from cashier.services.cage_shifts import cage_shift_open, window_book
from cashier.services.slips import slip_accept, slip_request, slip_void
from ledger import accounts, store
from ledger.errors import InvalidInput
from ledger.models import Event, Posting
from patrons.models import Patron
from patrons.services.aml import identity_on_file
from staff.roles import Role, RoleRequired, grant
from tests.conftest import make_patron

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
def window(cage_float, users):
    """cash1's window 1: 50,000.00 EUR of cash and of chips out of the main bank."""
    users("cash1")
    return cage_shift_open(cash={"50000": 100}, chips={"1000000": 5}, actor="cash1")["window"]


def _message(html: str) -> str:
    found = re.search(r'<ul class="messages" role="status">(.*?)</ul>', html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)).strip() if found else ""


def test_a_sale_reversed_on_the_cashiers_request_once_a_cage_supervisor_approves_from_his_own_login(users, window):
    patron = make_patron()
    cashier = users("cash1")
    sold = cashier.post(
        reverse("workstations:cage-chips", args=["purchase"]), {"patron": patron, "amount": "150"}, follow=True
    )
    assert "Sold 150.00 EUR of chips" in _message(sold.content.decode())
    sale = Event.objects.get(type="ChipsPurchased")
    url = reverse("workstations:cage-reverse", args=[sale.position])
    # No reason: refused on the line, nothing asked.
    blank = cashier.post(url, {"reason": ""})
    assert blank.status_code == 400 and '<p class="field-error" role="alert">Reason: Say why the line is wrong' in (
        blank.content.decode()
    )
    assert not Approval.objects.exists()
    asked = cashier.post(url, {"reason": "typed 150 for 15"}, follow=True)
    assert "Reversal asked: a cage supervisor approves it from his own login" in _message(asked.content.decode())
    assert "reversal asked (typed 150 for 15): waiting for a cage supervisor" in asked.content.decode()
    approval = Approval.objects.get(kind="cage_transaction_reverse")
    # The cashier cannot sign her own request; the page says so and nothing is reversed.
    own = cashier.post(reverse("workstations:cage-decide", args=[approval.id, "confirm"]))
    assert own.status_code == 403 and "the second signature must be another user" in own.content.decode()
    assert not Event.objects.filter(type="ChipsPurchaseReversed").exists()
    supervisor = users("super1", Role.CAGE_SUPERVISOR)
    desk = supervisor.get(reverse("workstations:cage")).content.decode()
    assert "Approve reversal" in desk and "typed 150 for 15" in desk
    approved = supervisor.post(reverse("workstations:cage-decide", args=[approval.id, "confirm"]), follow=True)
    assert f"Approved: the sale of 150.00 EUR, patron {patron}, is reversed in window {window}." in _message(
        approved.content.decode()
    )
    reversal = Event.objects.get(type="ChipsPurchaseReversed")
    assert (reversal.actor, reversal.data["approved_by"], reversal.data["reverses"]) == (
        "cash1",
        "super1",
        sale.position,
    )
    legs = {(p.account, p.amount_cents) for p in Posting.objects.filter(event=reversal)}
    assert legs == {(p.account, -p.amount_cents) for p in Posting.objects.filter(event=sale)}
    assert window_book(window) == {"cash_cents": 5_000_000, "chips_cents": 5_000_000}
    assert store.balance(accounts.patron_chips(patron)) == 0
    html = users("cash1").get(reverse("workstations:cage")).content.decode()
    assert "reversed " in html and "approved by super1" in html and "Chip sale reversed" in html
    opened = Event.objects.get(type="CageShiftOpened").position
    report = cashier.get(reverse("workstations:cage-shift", args=[opened])).content.decode()
    assert '<a href="#transactions">Chip sales reversed</a>' in report
    # The auditor's exception log lists the reversal with both signatures and the patron.
    (row,) = [r for r in exception_log(reversal.gaming_day, kind="reversal")["rows"] if r["event"] == reversal.position]
    assert (row["person"], row["approver"], row["subject_person"], row["amount_cents"]) == (
        "cash1",
        "super1",
        patron,
        15_000,
    )
    assert row["what"] == f"chip sale, patron {patron}, window {window} reversed: typed 150 for 15"
    assert row["before"] == {"state": "recorded", "events": [sale.position]}


def test_a_sale_form_sent_twice_records_one_sale_and_the_page_says_it_was_already_recorded(users, window):
    patron = make_patron()
    cashier = users("cash1")
    form = {"patron": patron, "amount": "200", "idempotency_key": "cage-0b0e1c9a-key-of-one-rendered-form"}
    first = cashier.post(reverse("workstations:cage-chips", args=["purchase"]), form, follow=True)
    again = cashier.post(reverse("workstations:cage-chips", args=["purchase"]), form, follow=True)
    assert _message(first.content.decode()).startswith("Sold 200.00 EUR of chips")
    assert _message(again.content.decode()) == (
        f"Already recorded: the sale of 200.00 EUR of chips, patron {patron}. "
        "The form was sent more than once; it counts once."
    )
    assert Event.objects.filter(type="ChipsPurchased").count() == 1
    assert store.balance(accounts.patron_chips(patron)) == 20_000
    # Each rendered form carries its own key.
    keys = re.findall(r'name="idempotency_key" value="([^"]+)"', first.content.decode())
    assert len(keys) == len(set(keys)) >= 4


def test_a_patron_registered_with_his_identity_is_found_by_name_or_document(users, cage_float):
    cashier = users("cash1")
    missing = cashier.post(reverse("workstations:cage-patron-register"), {"name": "Jeanne Martin", "document": " "})
    html = missing.content.decode()
    assert missing.status_code == 400 and "<strong>Identity document</strong>: The identity document" in html
    assert 'value="Jeanne Martin"' in html and 'name="document" maxlength="100"' in html
    assert not Patron.objects.filter(name="Jeanne Martin").exists()
    done = cashier.post(
        reverse("workstations:cage-patron-register"),
        {"name": "Jeanne Martin", "document": "passport 12AB34567"},
        follow=True,
    )
    patron = Patron.objects.get(name="Jeanne Martin")
    assert f"Patron {patron.code} registered: Jeanne Martin, identity document on file." in _message(
        done.content.decode()
    )
    assert identity_on_file(patron)
    for query in ("martin", "12ab34", patron.code):
        found = cashier.get(reverse("workstations:cage"), {"q": query}).content.decode()
        rows = re.search(r'data-section="found">(.*?)</table>', found, re.S).group(1)
        assert f"<td>{patron.code}</td><td>Jeanne Martin</td><td>passport 12AB34567</td>" in rows, query
    nobody = cashier.get(reverse("workstations:cage"), {"q": "zz-nobody"}).content.decode()
    assert 'No patron matches "zz-nobody": register him below.' in nobody


def test_a_credit_is_counted_into_the_receiving_window_and_a_voided_fill_goes_to_the_main_bank(
    table, django_user_model
):
    """Fill issued: the drawer's chips go "in transit"; voided, they come back to the main bank
    (the window may have closed by then). Credit received: counted in at the cage, piece for
    piece, into the receiving cashier's drawer; the pit cannot receive it, a wrong count moves nothing."""
    for name, role in (
        ("pit1", Role.PIT_BOSS),
        ("pit2", Role.PIT_BOSS),
        ("run1", Role.RUNNER),
        ("cash1", Role.CASHIER),
    ):
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    grant(django_user_model.objects.create_user(username="super1", password="x"), Role.CAGE_SUPERVISOR)
    # The table fixture's cage: shift-cashier's window holds the whole float; cash1 gets nothing
    # from the main bank but opens an empty window to issue from once chips come back.
    own = cage_shift_open(cash={}, chips={}, actor="cash1")["window"]
    credit = slip_request(kind="credit", table="R1", denominations={"10000": 2}, actor="pit1")["serial"]
    pending = approval_request(
        kind="slip_issue", payload={"kind": "credit", "serial": credit, "runner": "run1"}, actor="cash1"
    )
    approval_confirm(approval=pending["approval"]["id"], actor="run1")
    with pytest.raises(RoleRequired, match="counted at the cage"):
        slip_accept(kind="credit", serial=credit, actor="pit2", count={"10000": 2})
    head = store.head()
    for wrong in ({}, {"10000": 1}, {"5000": 4}):  # nothing counted; one short; the right sum in other chips
        with pytest.raises(InvalidInput) as refused:
            slip_accept(kind="credit", serial=credit, actor="cash1", count=wrong)
        assert refused.value.field == "count"
    assert store.head() == head and Slip.objects.get(kind="credit", serial=credit).state == "issued"
    received = slip_accept(kind="credit", serial=credit, actor="cash1", count={"10000": 2})
    assert received["state"] == "delivered"
    assert window_book(own) == {"cash_cents": 0, "chips_cents": 20_000}
    event = Event.objects.get(position=received["event"])
    assert (event.type, event.data["counted"], event.data["accepted_by"]) == ("CreditDelivered", {"10000": 2}, "cash1")
    fill = slip_request(kind="fill", table="R1", denominations={"10000": 1}, actor="pit1")["serial"]
    pending = approval_request(
        kind="slip_issue", payload={"kind": "fill", "serial": fill, "runner": "run1"}, actor="cash1"
    )
    approval_confirm(approval=pending["approval"]["id"], actor="run1")
    assert window_book(own)["chips_cents"] == 10_000 and store.balance(accounts.CHIPS_IN_TRANSIT) == 10_000
    main_chips = store.balance(accounts.CAGE_CHIPS) + store.balance(accounts.CAGE_WINDOWS_CHIPS)
    slip_void(
        confirmation="VOID", kind="fill", serial=fill, reason="table closed early", approver="super1", actor="pit1"
    )
    assert store.balance(accounts.CHIPS_IN_TRANSIT) == 0
    assert store.balance(accounts.CAGE_CHIPS) + store.balance(accounts.CAGE_WINDOWS_CHIPS) == main_chips + 10_000
    assert window_book(own)["chips_cents"] == 10_000


def test_an_identity_refused_at_the_aml_prompt_comes_back_with_what_was_typed(users, window):
    from patrons.services.patrons import patron_register

    nameless = patron_register(kind="identified", name="No papers", actor="cash1")["patron"]
    cashier = users("cash1")
    sent = {"patron": nameless, "amount": "2500.00", "identity_name": "Jeanne Martin", "identity_document": " "}
    page = cashier.post(reverse("workstations:cage-chips", args=["purchase"]), sent)
    html = page.content.decode()
    assert page.status_code == 400
    assert "<strong>Identity document</strong>: An identity document reference" in html
    assert 'name="identity_name" required maxlength="200" autocomplete="off" value="Jeanne Martin">' in html
    assert (
        'name="identity_document" required maxlength="100" autocomplete="off" value=" " aria-invalid="true" autofocus>'
        in html
    )
    assert '<input type="hidden" name="amount" value="2500.00">' in html
    assert not Event.objects.filter(type="ChipsPurchased").exists()


def test_a_cashier_cannot_have_a_line_of_another_cashiers_window_reversed(users, window):
    from approvals.services import approval_confirm, approval_request
    from cashier.services.cage import chips_purchase
    from ledger.errors import StateConflict
    from tests.conftest import make_patron

    sale = chips_purchase(patron=make_patron(), amount_cents=15_000, actor="cash1")
    users("cash2")
    users("super1", Role.CAGE_SUPERVISOR)
    cage_shift_open(cash={"50000": 1}, chips={}, actor="cash2")
    with pytest.raises(StateConflict, match=f"this line is of window {window}, cash1's"):  # refused when asked
        approval_request(
            kind="cage_transaction_reverse", payload={"event": sale["event"], "reason": "not mine"}, actor="cash2"
        )
    assert not Event.objects.filter(type="ChipsPurchaseReversed").exists()
    own = approval_request(
        kind="cage_transaction_reverse", payload={"event": sale["event"], "reason": "keyed twice"}, actor="cash1"
    )
    approval_confirm(approval=own["approval"]["id"], actor="super1")
    assert Event.objects.get(type="ChipsPurchaseReversed").data["reverses"] == sale["event"]


def test_a_sale_with_no_patron_code_or_an_unknown_one_says_so_in_words(users, window):
    cashier = users("cash1")
    url = reverse("workstations:cage-chips", args=["purchase"])
    blank = cashier.post(url, {"patron": "", "amount": "20"}).content.decode()
    unknown = cashier.post(url, {"patron": "P09999", "amount": "20"}).content.decode()
    assert "A patron code is needed (P00001)" in blank and "&#x27;&#x27;" not in blank
    assert "No patron P09999" in unknown

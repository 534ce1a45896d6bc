"""A cashier's whole shift through the cage pages only, in a real browser, beside the demo's
background cashier who keeps his own window open: open her window with a count, register a
patron, sell and redeem chips, have a refused entry keep what she typed, double-click a sale
(one sale recorded), prepare a fill and a credit that the runner signs for on his own page,
count the credit in (a wrong count refused, kept), have a mistaken line reversed by the cage
supervisor from his own login, and close with a count that matches (variance 0), handed over to
the cage supervisor: the window stays open until he confirms the handover in his own browser
session, then he opens his window against the count handed over to him. After the fixture's
set-up nothing but the browser acts. Screenshots: var/artifacts/cashier_shift_NN_<step>.png."""

import re

import pytest
from playwright.sync_api import expect

from cashier.services.cage_shifts import cage_shift_open
from cashier.services.slips import slip_request
from games.services.tables import table_open
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import ACTOR

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "floor-secret"
# Her imprest: cash 20 × 500 + 50 × 100 = 15,000.00 EUR; chips 1 × 10,000 + 20 × 1,000 + 50 × 100 = 35,000.00 EUR.
IMPREST = {"cash": {"50000": 20, "10000": 50}, "chips": {"1000000": 1, "100000": 20, "10000": 50}}
# Her drawer at the close: 2,500 sold, 100 sold by a double click, that 100 reversed, 500 redeemed,
# a 2,000 fill out to R1, a 1,000 credit counted in from R1.
# Cash 15,000 + 2,500 + 100 − 100 − 500 = 17,000.00;
# chips 35,000 − 2,500 − 100 + 100 + 500 − 2,000 + 1,000 = 32,000.00.
CLOSING = {"cash": {"50000": 34}, "chips": {"1000000": 3, "100000": 2}}


class Shots:
    """Numbered full-page screenshots, one per step (of ``page``, or of another person's page)."""

    def __init__(self, page):
        self.page, self.n = page, 0

    def __call__(self, step: str, page=None) -> None:
        self.n += 1
        (page or self.page).screenshot(path=str(ARTIFACTS / f"cashier_shift_{self.n:02d}_{step}.png"), full_page=True)


def type_count(page, form: str, count: dict) -> None:
    for prefix in ("cash", "chips"):
        for denomination, pieces in count[prefix].items():
            page.locator(f"#{form}-{prefix}-{denomination}").fill(str(pieces))


def message(page):
    return page.locator("ul.messages")


def drawer(page, side: str) -> str:
    return page.locator(f'[data-figure="drawer-{side}"]').inner_text()


def log_out(page) -> None:
    page.get_by_role("button", name="Log out").click()
    expect(page).to_have_url(re.compile(r"/workstations/login/"))


@pytest.fixture
def floor(django_user_model, cage_float):
    """The cage with its float (100,000.00 EUR of cash and of chips), the demo's background
    cashier working his own window (half of it), table R1 open, a fill of 2,000.00 EUR and a
    credit of 1,000.00 EUR requested by the pit boss. Returns the two serials."""
    for name, role in (
        ("cashier", Role.CASHIER),
        ("demo-cashier", Role.CASHIER),
        ("cagesup", Role.CAGE_SUPERVISOR),
        ("pit1", Role.PIT_BOSS),
        ("run1", Role.RUNNER),
    ):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    cage_shift_open(cash={"50000": 100}, chips={"1000000": 5}, actor="demo-cashier")
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    fill = slip_request(kind="fill", table="R1", denominations={"10000": 20}, actor="pit1")["serial"]
    credit = slip_request(kind="credit", table="R1", denominations={"10000": 10}, actor="pit1")["serial"]
    return fill, credit


def test_a_cashier_works_a_whole_shift_at_her_own_window_through_the_pages(browser_page, dashboard_server, floor):
    page, shot, (serial, credit) = browser_page, Shots(browser_page), floor

    # --- log in: no window of hers yet; the background cashier's window is his ----------------
    log_in(page, dashboard_server.url, "cashier", PASSWORD, app="workstations")
    expect(page.get_by_role("heading", level=1)).to_have_text("Cage workstation")
    expect(page.locator("#window-title")).to_have_text("My window: not open")
    expect(page.locator('[data-section="cage-book"]')).to_contain_text("Window 1 (demo-cashier)")
    expect(page.locator('[data-figure="main-bank"]')).to_have_text("100,000.00 EUR")
    shot("logged_in")

    # --- open her window: the imprest counted by denomination ---------------------------------
    type_count(page, "open", IMPREST)
    shot("open_count")
    page.get_by_role("button", name="Open my window").click()
    expect(message(page)).to_contain_text("Window 2 opened: imprest counted in 50,000.00 EUR.")
    expect(page.locator("#window-title")).to_have_text("My window 2")
    assert (drawer(page, "cash"), drawer(page, "chips")) == ("15,000.00 EUR", "35,000.00 EUR")
    expect(page.locator('[data-figure="main-bank"]')).to_have_text("50,000.00 EUR")
    expect(page.locator('[data-figure="book-total"]')).to_have_text("200,000.00 EUR")
    shot("window_open")

    # --- register a patron: a document of blanks is refused, the name stays typed -------------
    page.get_by_label("Name, as on the document").fill("Jeanne Martin")
    page.get_by_label("Document type and number").fill("   ")
    page.get_by_role("button", name="Register patron").click()
    register = page.locator('[data-form="register"]')
    expect(register.locator(".field-error")).to_contain_text("Identity document: The identity document")
    expect(page.get_by_label("Name, as on the document")).to_have_value("Jeanne Martin")
    expect(page.get_by_label("Document type and number")).to_have_attribute("aria-invalid", "true")
    shot("register_refused")
    page.get_by_label("Document type and number").fill("passport 12AB34567")
    page.get_by_role("button", name="Register patron").click()
    expect(message(page)).to_contain_text("registered: Jeanne Martin, identity document on file.")
    patron = re.search(r"Patron (P\d+) registered", message(page).inner_text()).group(1)

    # --- find her by document -----------------------------------------------------------------
    page.get_by_label("Name, document or patron code").fill("12ab34")
    page.get_by_role("button", name="Find patron").click()
    found = page.locator('[data-section="found"]')
    expect(found).to_contain_text(f"{patron}Jeanne Martinpassport 12AB34567")
    shot("patron_found")

    # --- a sale typed ambiguously is refused with what was typed kept, then corrected ----------
    page.locator("#sell-patron").fill(patron)
    page.locator("#sell-amount").fill("2,500")
    page.get_by_role("button", name="Sell chips").click()
    sell = page.locator('[data-form="sell"]')
    expect(sell.locator(".field-error")).to_contain_text("Amount: ")
    expect(sell.locator(".field-error")).to_contain_text("is ambiguous")
    expect(page.locator("#sell-patron")).to_have_value(patron)
    expect(page.locator("#sell-amount")).to_have_value("2,500")
    expect(page.locator("#sell-amount")).to_have_attribute("aria-invalid", "true")
    shot("sale_refused_kept")
    page.locator("#sell-amount").fill("2 500")
    page.get_by_role("button", name="Sell chips").click()
    expect(message(page)).to_contain_text(f"Sold 2,500.00 EUR of chips, patron {patron}")
    assert (drawer(page, "cash"), drawer(page, "chips")) == ("17,500.00 EUR", "32,500.00 EUR")
    shot("sold")

    # --- a double click on a sale records one sale --------------------------------------------
    page.locator("#sell-patron").fill(patron)
    page.locator("#sell-amount").fill("100")
    page.get_by_role("button", name="Sell chips").dblclick()
    expect(message(page)).to_contain_text(re.compile(r"(Sold|Already recorded: the sale of) 100.00 EUR of chips"))
    page.wait_for_load_state("networkidle")
    assert Event.objects.filter(type="ChipsPurchased", actor="cashier", data__amount_cents=10_000).count() == 1
    # The same form sent again (its first answer lost): the page says it was already recorded.
    page.locator("#sell-patron").fill(patron)
    page.locator("#sell-amount").fill("50")
    page.evaluate(
        "() => { const f = document.querySelector('[data-form=sell]');"
        " return fetch(f.action, {method: 'POST', body: new FormData(f), credentials: 'same-origin'}); }"
    )
    page.get_by_role("button", name="Sell chips").click()
    expect(message(page)).to_contain_text(
        f"Already recorded: the sale of 50.00 EUR of chips, patron {patron}. The form was sent more than once; "
        "it counts once."
    )
    assert Event.objects.filter(type="ChipsPurchased", actor="cashier", data__amount_cents=5_000).count() == 1
    shot("double_click_once")

    # --- redeem 500.00 EUR --------------------------------------------------------------------
    page.locator("#redeem-patron").fill(patron)
    page.locator("#redeem-amount").fill("500")
    page.get_by_role("button", name="Redeem chips").click()
    expect(message(page)).to_contain_text(f"Redeemed 500.00 EUR of chips, patron {patron}")
    shot("redeemed")

    # --- prepare the fill for the runner ------------------------------------------------------
    row = page.locator(f'[data-section="queue"] tr[data-serial="{serial}"][data-kind="fill"]')
    expect(row).to_contain_text("20 × 100 EUR")
    row.get_by_label(f"Runner for fill {serial}").select_option("run1")
    row.get_by_role("button", name="Prepare fill").click()
    expect(message(page)).to_contain_text(f"Fill {serial} prepared: waiting for the runner run1")
    expect(row).to_contain_text("prepared, waiting for the runner run1 (asked by cashier")
    credit_row = page.locator(f'[data-section="queue"] tr[data-serial="{credit}"][data-kind="credit"]')
    credit_row.get_by_label(f"Runner for credit {credit}").select_option("run1")
    credit_row.get_by_role("button", name="Prepare credit").click()
    expect(message(page)).to_contain_text(f"Credit {credit} prepared: waiting for the runner run1")
    shot("fill_and_credit_prepared")

    # --- the runner signs for both on his own page --------------------------------------------
    log_out(page)
    log_in(page, dashboard_server.url, "run1", PASSWORD, app="workstations")
    for kind, number in (("fill", serial), ("credit", credit)):
        page.get_by_role("button", name=f"Confirm I carry {kind} {number}").click()
        expect(page.locator(".messages")).to_contain_text(number)
    shot("runner_signed")
    log_out(page)

    # --- the credit's chips reach the cage: she counts them in --------------------------------
    log_in(page, dashboard_server.url, "cashier", PASSWORD, app="workstations")
    assert (drawer(page, "cash"), drawer(page, "chips")) == ("17,150.00 EUR", "30,850.00 EUR")  # the fill left
    credit_row.get_by_text(f"Receive and count credit {credit}").click()
    credit_row.locator(f"#receive-count-{credit}-10000").fill("9")  # one chip short
    credit_row.get_by_role("button", name=f"Receive credit {credit}").click()
    expect(credit_row.locator(".field-error")).to_contain_text("Chips counted: The count (900.00 EUR) is not the slip")
    expect(credit_row.locator(f"#receive-count-{credit}-10000")).to_have_value("9")
    shot("credit_count_refused_kept")
    credit_row.locator(f"#receive-count-{credit}-10000").fill("10")
    credit_row.get_by_role("button", name=f"Receive credit {credit}").click()
    expect(message(page)).to_contain_text(f"Credit {credit} from table R1 received and counted: 1,000.00 EUR")
    assert drawer(page, "chips") == "31,850.00 EUR"
    shot("credit_received")

    # --- the two small sales were mistakes: ask their reversal --------------------------------
    lines = page.locator('[data-section="lines"]')
    for amount in ("100.00 EUR", "50.00 EUR"):
        line = lines.locator("tr", has_text="Chip sale").filter(has_text=f"-{amount}")
        line.get_by_placeholder("why it is wrong").fill("sold by mistake: the patron wanted none")
        line.get_by_role("button", name="Ask reversal").click()
        expect(message(page)).to_contain_text("Reversal asked: a cage supervisor approves it from his own login")
    expect(lines).to_contain_text(
        "reversal asked (sold by mistake: the patron wanted none): waiting for a cage supervisor"
    )
    shot("reversal_asked")

    # --- the cage supervisor approves from his own login --------------------------------------
    log_out(page)
    log_in(page, dashboard_server.url, "cagesup", PASSWORD, app="workstations")
    approvals = page.locator('[data-section="approvals"]')
    expect(approvals.get_by_role("button", name="Approve reversal")).to_have_count(2)
    shot("supervisor_sees_reversals")
    for _ in range(2):
        approvals.get_by_role("button", name="Approve reversal").first.click()
        expect(message(page)).to_contain_text("Approved: the sale of")
    shot("supervisor_approved")
    log_out(page)

    # --- back at her window: the lines reversed, the drawer as before them --------------------
    log_in(page, dashboard_server.url, "cashier", PASSWORD, app="workstations")
    expect(lines).to_contain_text("approved by cagesup")
    assert (drawer(page, "cash"), drawer(page, "chips")) == ("17,000.00 EUR", "32,000.00 EUR")
    shot("lines_reversed")

    # --- close with the drawer counted (variance 0), handed over to the cage supervisor --------
    type_count(page, "close", CLOSING)
    page.get_by_label("Counted with (incoming cashier)").select_option("cagesup")
    shot("close_count")
    page.get_by_role("button", name="Close my window").click()
    expect(message(page)).to_contain_text(
        "Closing asked, counted 49,000.00 EUR: the window stays open until cagesup confirms the handover"
    )
    waits = page.locator('[data-section="closing-waits"]')
    expect(waits).to_contain_text("waiting for cagesup's signature")
    expect(waits.get_by_role("button", name="Withdraw the closing")).to_be_visible()
    expect(page.locator("#window-title")).to_have_text("My window 2")  # still open: nobody signed
    assert not Event.objects.filter(type="CageShiftClosed").exists()
    shot("close_waits_for_the_incoming")

    # --- the incoming cage supervisor confirms from his own browser session -------------------
    incoming = second_person(page, dashboard_server.url, "cagesup", app="workstations")
    handovers = incoming.locator('[data-section="handovers"]')
    expect(handovers).to_contain_text("49,000.00 EUR")
    shot("incoming_sees_the_handover", incoming)
    handovers.get_by_role("button", name="Confirm: I counted it with cashier").click()
    expect(incoming.locator("ul.messages")).to_contain_text(
        "Signed: window 2 of cashier closed and handed over to you, counted 49,000.00 EUR."
    )
    # His opening is counted against what was handed over to him: the form says so.
    expect(incoming.locator('[data-figure="handed-over"]')).to_have_text("49,000.00 EUR")
    shot("incoming_signed", incoming)
    type_count(incoming, "open", CLOSING)
    incoming.get_by_role("button", name="Open my window").click()
    expect(incoming.locator("ul.messages")).to_contain_text(
        "Window 3 opened: imprest counted in 49,000.00 EUR, 0.00 EUR against the count handed over to you."
    )
    shot("incoming_window_open", incoming)
    incoming.context.close()

    # --- back at her page: the window closed, its report names who took it over ---------------
    page.reload()
    expect(page.locator("#window-title")).to_have_text("My window: not open")
    reports = page.locator('[aria-labelledby="shifts-title"] tbody tr')
    reports.filter(has=page.get_by_role("cell", name="cashier", exact=True)).get_by_role(
        "link", name="Reconciliation"
    ).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Window 2 report: cashier")
    expect(page.locator('[data-figure="closing-book"]')).to_have_text("49,000.00 EUR")
    expect(page.locator('[data-figure="counted"]')).to_have_text("49,000.00 EUR")
    expect(page.locator('[data-figure="variance"]')).to_have_text("0.00 EUR")
    expect(page.locator('[data-figure="book-agrees"]')).to_contain_text("agrees with the ledger's book at closing")
    expect(page.locator('[data-figure="closed"]')).to_contain_text("handed over to cagesup")
    shot("window_report")

    mine = list(
        Event.objects.filter(actor="cashier")
        .exclude(type__in=["StaffLoggedIn", "StaffLoggedOut"])
        .exclude(type__startswith="Aml")  # each exchange over the identity threshold is checked
        .order_by("position")
        .values_list("type", flat=True)
    )
    assert mine == [
        "CageShiftOpened",
        "PatronRegistered",
        "ChipsPurchased",
        "ChipsPurchased",
        "ChipsPurchased",
        "ChipsRedeemed",
        "ApprovalRequested",  # the fill, for the runner's signature
        "ApprovalRequested",  # the credit, for the runner's signature
        "FillIssued",  # made as hers, inside the runner's signature
        "CreditIssued",
        "CreditDelivered",  # counted in at her window
        "ApprovalRequested",
        "ApprovalRequested",
        "ChipsPurchaseReversed",  # made as hers, inside the supervisor's approval
        "ChipsPurchaseReversed",
        "ApprovalRequested",  # the close, for the incoming cashier's signature
        "CageShiftClosed",  # made as hers, inside his signature
    ]
    closed = Event.objects.get(type="CageShiftClosed")
    assert closed.data["handover_to"] == "cagesup"
    assert Event.objects.filter(type="ApprovalConfirmed", actor="cagesup", data__kind="cage_shift_close").exists()
    taken = Event.objects.get(type="CageShiftOpened", actor="cagesup")
    assert (taken.data["handover_event"], taken.data["handover_variance_cents"]) == (closed.position, 0)
    # 2,500.00 EUR is over the identity threshold: passed, her identity being on file.
    assert Event.objects.filter(type="AmlIdentityChecked", data__patron=patron).exists()
    assert not Event.objects.filter(type="AmlTransactionRefused").exists()

"""A cashier's whole shift at the cage workstation in a real browser: log in, count
the cage in, sell chips, redeem chips for a patron without identity (the AML prompt, the
identity recorded, the redemption made), issue a fill to a runner, count the cage out and
close; the ledger holds each step's event by the cashier. Screenshots in var/artifacts/."""

import re

import pytest
from playwright.sync_api import expect
from rest_framework.test import APIClient

from cashier.services.cage import chips_purchase
from cashier.services.cage_shifts import cage_shift_close
from cashier.services.slips import slip_request
from core.denominations import cash_denominations, chip_denominations, decompose
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from ledger import accounts, store
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, SHIFT_CASHIER, make_patron, open_cage_shift

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def screenshots(page, name: str) -> None:
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"cage-{name}-{width}x{height}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def book_count() -> dict:
    return {
        "cash": decompose(store.balance(accounts.CAGE_CASH), cash_denominations()),
        "chips": decompose(store.balance(accounts.CAGE_CHIPS), chip_denominations()),
    }


def type_count(page, form: str, count: dict) -> None:
    for prefix in ("cash", "chips"):
        for denomination, pieces in count[prefix].items():
            page.locator(f"#{form}-{prefix}-{denomination}").fill(str(pieces))


def test_a_cashier_does_a_whole_shift(browser_page, dashboard_server, django_user_model, cage_float):
    page = browser_page
    for name, role in {"cash1": Role.CASHIER, "pit1": Role.PIT_BOSS, "run1": Role.RUNNER}.items():
        grant(django_user_model.objects.create_user(username=name, password="cage-secret"), role)
    # --- before the shift: a night shift sold chips to a patron without papers, who won at R1 ---
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    open_cage_shift()
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    chips_purchase(patron=nameless, amount_cents=150_000, actor=SHIFT_CASHIER)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet = {"type": "chance_simple", "chance": "noir"}
    bet_place(round_id=coup, patron=nameless, stake_cents=100_000, bet=bet, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)  # 2 is black: he holds 2,500.00
    cage_shift_close(**book_count(), actor=SHIFT_CASHIER)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 30}, actor="pit1")["serial"]
    buyer = make_patron()

    # --- log in: the workstation's login sends a cashier to the cage -------------------------
    page.goto(f"{dashboard_server.url}/workstations/cage/")
    expect(page).to_have_url(re.compile(r"/workstations/login/\?next="))
    page.get_by_label("User name").fill("cash1")
    page.get_by_label("Password").fill("cage-secret")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Cage workstation")
    expect(page.locator("#window-title")).to_have_text("My window: not open")
    expect(page.locator('[data-section="queue"]')).to_contain_text("open your window first")

    # --- open: the cage counted by denomination -----------------------------------------------
    type_count(page, "open", book_count())
    screenshots(page, "open-count")
    page.get_by_role("button", name="Open my window").click()
    expect(page.locator(".messages")).to_contain_text("Window 2 opened: imprest counted in")
    expect(page.locator("#window-title")).to_have_text("My window 2")

    # --- sell 300.00 EUR of chips -----------------------------------------------------------
    page.locator("#sell-patron").fill(buyer)
    page.locator("#sell-amount").fill("300.00")
    page.get_by_role("button", name="Sell chips").click()
    expect(page.locator(".messages")).to_contain_text(f"Sold 300.00 EUR of chips, patron {buyer}")

    # --- redeem 2,500.00 EUR: the AML identity prompt, then the redemption ---------------------
    page.locator("#redeem-patron").fill(nameless)
    page.locator("#redeem-amount").fill("2,500.00")
    page.get_by_role("button", name="Redeem chips").click()
    prompt = page.get_by_role("heading", name="Identity required (anti-money-laundering)")
    expect(prompt).to_be_visible()
    expect(page.locator(".prompt [role=alert]")).to_contain_text(f"Patron {nameless} has no identity on file")
    screenshots(page, "identity-prompt")
    page.get_by_label("Full name (as on the document)").fill("Jeanne Martin")
    page.get_by_label("Identity document (type and number)").fill("FR-CNI 880492")
    page.get_by_role("button", name="Record identity and redeem").click()
    expect(page.locator(".messages")).to_contain_text(f"Redeemed 2,500.00 EUR of chips, patron {nameless}")

    # --- issue the fill to the runner ---------------------------------------------------------
    row = page.locator(f'[data-section="queue"] tr[data-serial="{serial}"]')
    expect(row).to_contain_text("30 × 100 EUR")
    row.get_by_label(f"Runner for fill {serial}").select_option("run1")
    row.get_by_role("button", name="Prepare fill").click()
    # Not issued yet: the runner signs that he carries it (the approval the API asks too).
    expect(page.locator(".messages")).to_contain_text(f"Fill {serial} prepared: waiting for the runner run1 to confirm")
    expect(row).to_contain_text("waiting for the runner run1 (asked by cash1")
    expect(row.get_by_role("button", name="Prepare fill")).to_have_count(0)
    assert not Event.objects.filter(type="FillIssued").exists()
    screenshots(page, "fill-waiting")
    runner = APIClient()
    runner.force_authenticate(django_user_model.objects.get(username="run1"))
    (approval,) = runner.get("/api/approvals/").json()["results"]
    assert runner.post(f"/api/approvals/{approval['id']}/confirm", {}, format="json").status_code == 200
    page.reload()
    expect(row).to_contain_text("issued by cash1, with run1")
    screenshots(page, "desk")

    # --- count out and close: the shift report reconciles -------------------------------------
    type_count(page, "close", book_count())  # her window holds the whole cage: the count is the book
    page.get_by_role("button", name="Close my window").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Window 2 report: cash1")
    expect(page.locator('[data-figure="variance"]')).to_have_text("0.00 EUR")
    expect(page.locator('[data-figure="book-agrees"]')).to_contain_text("agrees with the ledger's book at closing")
    screenshots(page, "shift-report")

    mine = list(Event.objects.filter(actor="cash1").order_by("position").values_list("type", flat=True))
    assert mine == [
        "StaffLoggedIn",
        "CageShiftOpened",
        "ChipsPurchased",
        "AmlTransactionRefused",  # the redemption refused until the identity was on file
        "PatronIdentityRecorded",
        "ChipsRedeemed",
        "AmlIdentityChecked",
        "ApprovalRequested",
        "FillIssued",  # as the issuing cashier, once the runner signed
        "CageShiftClosed",
    ]
    assert store.balance(accounts.patron_chips(nameless)) == 0


def test_another_cashier_finds_the_open_window_is_not_hers(
    browser_page, dashboard_server, django_user_model, cage_float
):
    """The open window is SHIFT_CASHIER's bank: a second cashier sees whose it is, gets no sale,
    redemption, issue or close in it, and a sale she forces is refused in words; a cage
    supervisor closes that window, recorded as his close."""
    page = browser_page
    grant(django_user_model.objects.create_user(username="cashier", password="cage-secret"), Role.CASHIER)
    grant(django_user_model.objects.create_user(username="cagesup", password="cage-secret"), Role.CAGE_SUPERVISOR)
    grant(django_user_model.objects.create_user(username="pit1", password="x"), Role.PIT_BOSS)
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    open_cage_shift()
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 5}, actor="pit1")["serial"]
    buyer = make_patron()
    before = Event.objects.exclude(type="StaffLoggedIn").count()
    log_in(page, dashboard_server.url, "cashier", "cage-secret", app="workstations")
    expect(page.locator("#window-title")).to_have_text("My window: not open")
    expect(page.locator('[data-section="cage-book"]')).to_contain_text(f"Window 1 ({SHIFT_CASHIER})")
    expect(page.get_by_role("button", name="Sell chips")).to_have_count(0)
    expect(page.get_by_role("button", name="Close my window")).to_have_count(0)
    expect(page.locator(f'tr[data-serial="{serial}"]')).to_contain_text("open your window first")
    screenshots(page, "not-my-window")
    # A sale posted anyway (an old form, a second tab) is refused, the field named in words.
    page.evaluate(
        """(buyer) => { const f = document.createElement('form'); f.method = 'post';
        f.action = '/workstations/cage/chips/purchase';
        for (const [n, v] of [['patron', buyer], ['amount', '100'],
             ['csrfmiddlewaretoken', document.querySelector('[name=csrfmiddlewaretoken]').value]]) {
          const i = document.createElement('input'); i.name = n; i.value = v; f.appendChild(i); }
        document.body.appendChild(f); f.submit(); }""",
        buyer,
    )
    expect(page.locator(".messages")).to_contain_text(
        f"Not recorded. Cashier window: cashier has no window open (open: {SHIFT_CASHIER}'s)"
    )
    screenshots(page, "not-my-window-refused")
    assert Event.objects.exclude(type="StaffLoggedIn").count() == before

    # --- a cage supervisor closes that window: recorded as his close --------------------------
    page.get_by_role("button", name="Log out").click()
    page.get_by_label("User name").fill("cagesup")
    page.get_by_label("Password").fill("cage-secret")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Close another cashier's window as cage supervisor")).to_be_visible()
    page.locator("#close-other-cashier").select_option(SHIFT_CASHIER)
    type_count(page, "close-other", book_count())
    page.get_by_role("button", name="Close that window").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Window 1 report: {SHIFT_CASHIER}")
    expect(page.locator('[data-figure="closed"]')).to_contain_text(
        f"by cagesup (cage supervisor, closing {SHIFT_CASHIER}'s shift)"
    )
    expect(page.locator('[data-figure="variance"]')).to_have_text("0.00 EUR")
    expect(page.locator(".signatures")).to_contain_text(f"Cashier: {SHIFT_CASHIER}")
    expect(page.locator(".signatures")).to_contain_text("Cage supervisor: cagesup (closed the shift)")
    screenshots(page, "closed-by-supervisor")


def test_a_cashier_types_amounts_the_french_way_and_is_told_what_anon_cannot_do(
    browser_page, dashboard_server, django_user_model, cage_float
):
    """ "12,5" sells 12.50 EUR; "1,000" is refused saying how to type it; 2,500.00 EUR for the
    shared anonymous patron is refused with what to do, no identity form; the shift report
    and the auditor's event page say the movements and the count in words and currency units."""
    page = browser_page
    grant(django_user_model.objects.create_user(username="cash1", password="cage-secret"), Role.CASHIER)
    grant(django_user_model.objects.create_user(username="aud1", password="cage-secret"), Role.AUDITOR)
    buyer = make_patron()
    anon = patron_register(kind="anonymous", actor=ACTOR)["patron"]
    log_in(page, dashboard_server.url, "cash1", "cage-secret", app="workstations")
    type_count(page, "open", book_count())
    page.get_by_role("button", name="Open my window").click()
    expect(page.locator(".messages")).to_contain_text("Window 1 opened")

    page.locator("#sell-patron").fill(buyer)
    page.locator("#sell-amount").fill("12,5")
    page.get_by_role("button", name="Sell chips").click()
    expect(page.locator(".messages")).to_have_text(f"Sold 12.50 EUR of chips, patron {buyer} (now holds 12.50 EUR).")
    assert Event.objects.get(type="ChipsPurchased", actor="cash1").data["amount_cents"] == 1250

    page.locator("#sell-patron").fill(buyer)
    page.locator("#sell-amount").fill("1,000")
    page.get_by_role("button", name="Sell chips").click()
    expect(page.locator('[data-form="sell"] .field-error')).to_have_text(
        'Amount: "1,000" is ambiguous (is its comma a thousands separator or the decimal mark?): '
        "type cents after a comma or a point, two digits at most (12,50 or 12.50), and thousands with a space "
        "or nothing (1 000,50 or 1000.50)"
    )
    screenshots(page, "ambiguous-amount")

    page.locator("#sell-patron").fill(anon)
    page.locator("#sell-amount").fill("2 500")
    page.get_by_role("button", name="Sell chips").click()
    expect(page.locator('[data-form="sell"] .field-error')).to_have_text(
        "Patron code: The shared anonymous patron anon cannot buy chips for 2,500.00 EUR: 2,000.00 EUR "
        "or more needs a registered patron (AML identity threshold, FR). Register the person as a patron of his "
        "own with his name and identity document, then use his own patron code."
    )
    expect(page.get_by_role("heading", name="Identity required (anti-money-laundering)")).to_have_count(0)
    screenshots(page, "anonymous-over-threshold")

    opened = Event.objects.get(type="CageShiftOpened", actor="cash1")
    page.get_by_role("button", name="Log out").click()
    log_in(page, dashboard_server.url, "aud1", "cage-secret", app="workstations")
    page.goto(f"{dashboard_server.url}/workstations/audit/events/{opened.position}/")
    data = page.get_by_role("table", name="Event data")
    row = data.locator("tr").filter(has=page.get_by_role("rowheader", name="cash", exact=True))
    expect(row.locator("td")).to_have_text("200 × 500 EUR (total 100,000.00 EUR)")
    page.screenshot(path=str(ARTIFACTS / "audit-event-cage-count-1280x800.png"), full_page=True)

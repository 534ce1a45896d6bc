"""A pit boss's whole shift in a real browser, through pages only (no API client, no admin):
each person logs in as himself in his own browser context.

The set-up (services, before any page) is what the shift finds: the cage open with its cashier's
shift, English roulette R1 open since the last shift with one coup played, the staff's logins.
Then: the pit boss opens R2 and B1 by counted openers, each dealer confirming from his own
login; changes R2's limits; requests a fill for R2, which the cashier issues on the cage page
to the runner, who confirms on his page, and which R2's dealer counts (a miscount refused, his
count kept) and accepts from his own page; voids a second fill with VOID typed, the second pit
boss signing, both shown among its signers; asks to reverse R1's coup, which the second pit
boss approves from his queue; rates a patron by hand; closes R2 with its dealer's
confirmation; opens R2 again, reading the difference with its last closer before he signs and
explaining it. A screenshot per step: var/artifacts/pit_boss_shift_NN_<step>.png."""

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from approvals.models import Approval
from cashier.services.cage import chips_purchase
from cashier.slip_models import Slip
from games.models import Table
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from ledger import projections
from ledger.models import Event
from patrons.services.patrons import patron_register
from staff.roles import Role, grant
from tests.conftest import ACTOR, open_cage_shift

from .conftest import ARTIFACTS, log_in, second_person
from .test_readable_floor_browser import assert_readable

pytestmark = pytest.mark.postgres

PEOPLE = {
    "pitboss": (Role.PIT_BOSS, Role.ADMIN),  # he also sets up the floor: R2 and B1 are new tables
    "pitboss2": Role.PIT_BOSS,
    "dealer1": Role.DEALER,
    "dealer2": Role.DEALER,
    "cashier": Role.CASHIER,
    "runner": Role.RUNNER,
}


class Shots:
    def __init__(self):
        self.n = 0

    def __call__(self, page, step: str) -> None:
        self.n += 1
        page.screenshot(path=str(ARTIFACTS / f"pit_boss_shift_{self.n:02d}_{step}.png"), full_page=True)


@pytest.fixture
def the_shift_finds(django_user_model, cage_float):
    """The staff's logins (password ``floor-secret``), the cashier's shift open, R1 open with one
    settled coup (Jeanne Martin's 20.00 EUR on noir, the ball on 2)."""
    for username, roles in PEOPLE.items():
        roles = roles if isinstance(roles, tuple) else (roles,)
        grant(django_user_model.objects.create_user(username=username, password="floor-secret"), *roles)
    open_cage_shift("cashier")
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = patron_register(kind="identified", name="Jeanne Martin", document="ID-JM-1", actor=ACTOR)["patron"]
    patron_register(kind="identified", name="Paul Martin", document="ID-PM-2", actor=ACTOR)
    chips_purchase(patron=patron, amount_cents=100_000, actor="cashier")
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=2_000, bet={"type": "chance_simple", "chance": "noir"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    projections.catch_up_all()
    return patron


def type_count(page, form: str, prefix: str, count: dict) -> None:
    for cents, pieces in count.items():
        page.locator(f"#{form}-{prefix}-{cents}").fill(str(pieces))


def dealer_confirms(page, url: str, dealer: str, what: str, shot, step: str) -> None:
    signer = second_person(page, url, dealer)
    expect(signer).to_have_url(re.compile(r"/dashboard/approvals/$"))
    row = signer.locator('[data-section="to-sign"] tbody tr', has_text=what)
    expect(row).to_have_count(1)
    shot(signer, f"{step}_dealer_sees_it")
    row.get_by_role("button", name="Approve").click()
    expect(signer.locator(".messages")).to_contain_text(f"Approved and done: {what}")
    shot(signer, f"{step}_dealer_confirmed")
    signer.context.close()


def test_a_pit_boss_does_his_whole_shift_from_his_pages(browser_page, dashboard_server, the_shift_finds):
    page, url, shot = browser_page, dashboard_server.url, Shots()

    # --- 1. he logs in: the floor -----------------------------------------------------------
    log_in(page, url, "pitboss")
    expect(page.get_by_role("heading", name="Floor", exact=True)).to_be_visible()
    assert_readable(page)
    shot(page, "floor_at_sign_in")

    # --- 2. he opens R2 and B1, each dealer confirming from his own login --------------------
    for code, (game, label), dealer, count in (
        ("R2", ("english_roulette", "English roulette"), "dealer1", {"100000": 20, "10000": 50, "2500": 40}),
        ("B1", ("baccarat", "Punto banco"), "dealer2", {"100000": 10, "10000": 30}),
    ):
        page.get_by_role("link", name="Open a table").click()
        page.get_by_label("Table", exact=True).select_option(label="A new table…")
        page.get_by_label("New table code").fill(code)
        page.get_by_label("Game of the new table").select_option(game)  # its label says its house edge too
        page.get_by_label("Dealer (confirms from his login)").select_option(dealer)
        type_count(page, "open", "opener", count)
        shot(page, f"open_{code}_typed")
        page.get_by_role("button", name="Sign the opener").click()
        expect(page.locator(".messages")).to_contain_text(
            f"Opening of table {code} signed by you, waiting for {dealer}"
        )
        assert Table.objects.filter(code=code, state="open").count() == 0
        total = sum(int(d) * n for d, n in count.items())
        what = f"Open table {code} ({label}) with an opener of {total // 100:,}.00 EUR"
        dealer_confirms(page, url, dealer, what, shot, f"open_{code}")
        assert Table.objects.get(code=code).state == "open"
        opened = Event.objects.get(type="TableOpened", data__table=code)
        assert (opened.data["opener_cents"], opened.data["dealer"], opened.data["pit_boss"]) == (
            total,
            dealer,
            "pitboss",
        )

    # A refused entry keeps the typed values and names the field at fault.
    page.get_by_role("link", name="Open a table").click()
    page.get_by_label("Table", exact=True).select_option(label="A new table…")
    page.get_by_label("New table code").fill("R2")
    page.get_by_label("Game of the new table").select_option("english_roulette")
    page.get_by_label("Dealer (confirms from his login)").select_option("dealer1")
    type_count(page, "open", "opener", {"10000": 5})
    page.get_by_role("button", name="Sign the opener").click()
    expect(page.locator(".refused")).to_contain_text(
        "Refused — New table code: table R2 exists already: choose it among the closed tables"
    )
    expect(page.locator("#open-opener-10000")).to_have_value("5")
    shot(page, "open_refused_keeps_what_was_typed")

    # --- 3. limits of R2 ---------------------------------------------------------------------
    page.goto(f"{url}/dashboard/tables/R2/")
    page.get_by_label("Maximum, numbers (EUR)").fill("500")
    page.locator("#limits").get_by_role("button", name="Change the limits").click()
    expect(page.locator(".messages")).to_contain_text("Limits of R2 changed and recorded: Maximum, numbers")
    expect(page.locator(".messages")).to_be_in_viewport()  # the page returned to #limits, further down
    expect(page.locator('[data-section="limits"]')).to_contain_text("500.00 EUR")
    changed = Event.objects.get(type="TableRulesChanged", data__table="R2")
    assert changed.data["after"]["max_bet_cents"] == 50_000 and changed.actor == "pitboss"
    shot(page, "limits_changed")

    # --- 4. a fill for R2: requested → prepared at the cage → carried → accepted ------------------
    page.locator("#request").get_by_label("Fill (chips from the cage)").check()
    type_count(page, "request", "slip", {"10000": 20, "2500": 40})
    page.get_by_role("button", name="Request", exact=True).click()
    slip = Slip.objects.get(table__code="R2")
    expect(page.locator(".messages")).to_contain_text(f"Fill {slip.serial} of 3,000.00 EUR requested")
    expect(page.locator(f'[data-serial="{slip.serial}"] [data-figure="slip-step"]')).to_have_text(
        "requested, waiting for the cage to prepare it"
    )
    shot(page, "fill_requested")

    cashier = second_person(page, url, "cashier", app="workstations")
    expect(cashier).to_have_url(re.compile(r"/workstations/cage/$"))
    cashier.get_by_label(f"Runner for fill {slip.serial}").select_option("runner")
    cashier.get_by_role("button", name="Prepare fill").click()
    expect(cashier.locator(".messages")).to_contain_text("waiting for the runner runner to confirm")
    shot(cashier, "fill_prepared_at_the_cage")
    cashier.context.close()

    page.reload()
    expect(page.locator(f'[data-serial="{slip.serial}"] [data-figure="slip-step"]')).to_have_text(
        "prepared at the cage, waiting for the runner runner to sign for it"
    )

    runner = second_person(page, url, "runner", app="workstations")
    expect(runner).to_have_url(re.compile(r"/workstations/runner/$"))
    expect(runner.locator(f'[data-section="to-sign"] [data-serial="{slip.serial}"]')).to_contain_text("3,000.00 EUR")
    shot(runner, "runner_sees_the_fill")
    runner.get_by_role("button", name=f"Confirm I carry fill {slip.serial}").click()
    expect(runner.locator(".messages")).to_contain_text(f"You carry fill {slip.serial} of 3,000.00 EUR to table R2")
    expect(runner.locator(f'[data-section="carrying"] [data-serial="{slip.serial}"]')).to_be_visible()
    shot(runner, "runner_carries_the_fill")
    runner.context.close()

    page.reload()
    row = page.locator(f'#slips [data-serial="{slip.serial}"]')
    expect(row.locator('[data-figure="slip-step"]')).to_have_text("prepared at the cage, carried by the runner")
    shot(page, "fill_at_the_table")
    # R2's dealer is asked without the pit boss choosing him: the one assigned to R2 (dealer1).
    row.get_by_role("button", name=f"Ask the dealer dealer1 to count and accept fill {slip.serial}").click()
    expect(page.locator(".messages")).to_contain_text(f"Fill {slip.serial}: waiting for dealer1 to sign")
    expect(page.locator(f'#slips [data-serial="{slip.serial}"] [data-figure="slip-step"]')).to_have_text(
        "at the table, waiting for the dealer dealer1 to count and accept it"
    )
    shot(page, "fill_waiting_for_the_dealer")

    # The dealer counts the chips himself, in his own browser: a miscount is refused, kept on his page.
    asked = Approval.objects.get(kind="slip_accept")
    dealer = second_person(page, url, "dealer1")
    expect(dealer).to_have_url(re.compile(r"/dashboard/approvals/$"))
    what = f"Count and accept fill {slip.serial} (3,000.00 EUR, table R2)"
    row = dealer.locator('[data-section="to-sign"] tbody tr', has_text=what)
    expect(row).to_have_count(1)
    type_count(dealer, "approval", f"count-{asked.id}", {"10000": 20, "2500": 39})
    shot(dealer, "fill_dealer_counts")
    row.get_by_role("button", name="Approve").click()
    expect(dealer.locator(".refused")).to_contain_text("Refused — Chips counted: the count (2,975.00 EUR) is not the")
    expect(dealer.locator(f"#approval-count-{asked.id}-2500")).to_have_value("39")
    shot(dealer, "fill_dealer_miscount_refused")
    assert Slip.objects.get(pk=slip.pk).state == "issued"
    dealer.locator(f"#approval-count-{asked.id}-2500").fill("40")
    dealer.locator('[data-section="to-sign"] tbody tr', has_text=what).get_by_role("button", name="Approve").click()
    expect(dealer.locator(".messages")).to_contain_text(f"Approved and done: {what}")
    shot(dealer, "fill_dealer_counted_and_accepted")
    dealer.context.close()
    page.reload()
    expect(page.locator(f'#slips [data-serial="{slip.serial}"] [data-figure="slip-step"]')).to_have_text(
        "accepted at the table"
    )
    shot(page, "fill_accepted_by_the_dealer")
    slip.refresh_from_db()
    assert (slip.state, slip.requested_by, slip.issued_by, slip.runner, slip.accepted_by) == (
        "delivered",
        "pitboss",
        "cashier",
        "runner",
        "dealer1",
    )

    # --- 4b. a second fill, refused at the table: VOID typed, a reason, the second pit boss signs --
    page.locator("#request").get_by_label("Fill (chips from the cage)").check()
    type_count(page, "request", "slip", {"10000": 1})
    page.get_by_role("button", name="Request", exact=True).click()
    second = Slip.objects.get(table__code="R2", state="requested")
    row = page.locator(f'#slips [data-serial="{second.serial}"]')
    row.get_by_text(f"Refuse (void) fill {second.serial}").click()
    row.get_by_label("Type VOID to confirm").fill("void")
    row.get_by_label("Reason").fill("asked twice")
    row.get_by_label("Second signature (signs from his login)").select_option("pitboss2")
    row.get_by_role("button", name="Ask to void").click()
    expect(page.locator(".refused")).to_contain_text("Refused — VOID: type VOID, in capitals, to confirm the void")
    row = page.locator(f'#slips [data-serial="{second.serial}"]')
    expect(row.get_by_label("Reason")).to_have_value("asked twice")
    shot(page, "void_refused_without_VOID")
    row.get_by_label("Type VOID to confirm").fill("VOID")
    row.get_by_role("button", name="Ask to void").click()
    expect(page.locator(".messages")).to_contain_text(f"Voiding fill {second.serial}: waiting for pitboss2")
    boss2 = second_person(page, url, "pitboss2")
    boss2.goto(f"{url}/dashboard/approvals/")
    boss2.locator('[data-section="to-sign"] tbody tr', has_text=f"Void fill {second.serial}").get_by_role(
        "button", name="Approve"
    ).click()
    expect(boss2.locator(".messages")).to_contain_text(f"Approved and done: Void fill {second.serial}")
    boss2.context.close()
    page.reload()
    signed = page.locator(f'#slips [data-serial="{second.serial}"] [data-figure="slip-signed"]')
    expect(signed).to_contain_text("voided pitboss, approved pitboss2")
    shot(page, "void_signed_by_both")

    # --- 5. a correction of R1's coup, approved from the second pit boss's queue -----------------
    page.goto(f"{url}/dashboard/tables/R1/")
    page.locator('[data-section="last-coups"]').get_by_role("link", name="audit trail of coup 1").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("coup 1 of the day at R1")
    page.get_by_text("Correct this coup").click()
    page.get_by_label("Reason").fill("ball read as 2, it fell in 20")
    page.get_by_label("Second signature (signs from his own login)").select_option("pitboss2")
    page.get_by_role("button", name="Ask to reverse the coup").click()
    expect(page.locator(".messages")).to_contain_text("Reversal of the coup asked, waiting for pitboss2")
    shot(page, "correction_asked")

    boss2 = second_person(page, url, "pitboss2")
    boss2.goto(f"{url}/dashboard/")
    expect(boss2.locator("#nav-approvals .badge")).to_have_text("1")  # his header counts what waits for him
    boss2.locator("#nav-approvals").click()
    row = boss2.locator('[data-section="to-sign"] tbody tr', has_text="Reverse coup 1 at table R1")
    expect(row).to_contain_text("ball read as 2, it fell in 20")
    shot(boss2, "approvals_queue")
    row.get_by_role("button", name="Approve").click()
    expect(boss2.locator(".messages")).to_contain_text("Approved and done: Reverse coup 1 at table R1")
    shot(boss2, "correction_approved")
    assert Event.objects.get(type="RoundReversed").actor == "pitboss"
    # The coup now reads reversed, with who and when, and offers no second correction.
    page.reload()
    expect(page.locator('[data-figure="coup-state"]')).to_contain_text("reversed by pitboss, approved by pitboss2, at ")
    expect(page.get_by_text("Correct this coup")).to_have_count(0)
    shot(page, "coup_reads_reversed")
    assert Approval.objects.get(kind="round_reverse").decided_by == "pitboss2"
    boss2.context.close()

    # --- 5b. he looks Jeanne Martin up by her name: two Martins, each by name, code second ------
    page.get_by_label("Patron", exact=True).fill("martin")
    page.get_by_role("button", name="Find").click()
    matches = page.locator('[data-section="patron-matches"] li')
    expect(matches).to_have_count(2)
    expect(matches.first).to_contain_text(f"Jeanne Martin ({the_shift_finds})")
    shot(page, "patrons_found_by_name")
    matches.first.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Jeanne Martin")
    expect(page.get_by_text("Timeline with ledger positions and hashes")).to_be_visible()

    # --- 6. rate Jeanne Martin by hand at R1 (no card read her) -------------------------------
    page.goto(f"{url}/dashboard/tables/R1/#rating")
    by_hand = page.locator("#rating")
    an_hour_ago = timezone.localtime(timezone.now(), ZoneInfo("Europe/Paris")) - timedelta(hours=1)
    by_hand.get_by_label("Patron code").fill(the_shift_finds)
    by_hand.get_by_label("Time in (hh:mm)").fill(f"{an_hour_ago:%H:%M}")
    by_hand.get_by_label("Minutes played").fill("40")
    by_hand.get_by_label("Average bet (EUR)").fill("20")
    by_hand.get_by_label("Buy-in (EUR)").fill("1000")
    page.get_by_role("button", name="Record the rating").click()
    expect(page.locator(".messages")).to_contain_text(
        f"Rating recorded for Jeanne Martin ({the_shift_finds}): 40 min, average bet 20.00 EUR."
    )
    expect(page.locator('[data-section="manual-ratings"]')).to_contain_text("Jeanne Martin")
    shot(page, "patron_rated_by_hand")
    # She sits down again: her rating is timed from now until she leaves.
    page.locator("#timed").get_by_label("Patron code").fill(the_shift_finds)
    page.get_by_role("button", name="Start rating").click()
    expect(page.locator(".messages")).to_contain_text(f"Rating started for Jeanne Martin ({the_shift_finds})")
    expect(page.locator('[data-section="running-ratings"]')).to_contain_text("Jeanne Martin")
    shot(page, "patron_rating_timed")

    # --- 7. close R2 with its closer; the dealer confirms; the drop box left for the drop team ----
    page.goto(f"{url}/dashboard/tables/R2/#close")
    expect(page.get_by_label("Dealer (confirms from his login)")).to_have_value("dealer1")  # R2's dealer
    type_count(page, "close", "closer", {"100000": 20, "10000": 70, "2500": 80})
    # Counted first, then compared with the book: nothing signed yet, the count kept.
    page.get_by_role("button", name="Compare with the book").click()
    check = page.locator('[data-section="closer-check"]')
    expect(check.locator('[data-figure="closer-count"]')).to_have_text("29,000.00 EUR")
    expect(check).to_contain_text("the tray by the book")
    shot(page, "close_compared_with_the_book")
    page.get_by_role("button", name="Sign the closer").click()
    expect(page.locator(".messages")).to_contain_text("Closing of table R2 signed by you, waiting for dealer1")
    shot(page, "close_signed_by_the_pit_boss")
    dealer_confirms(page, url, "dealer1", "Close table R2 with a closer of 29,000.00 EUR", shot, "close_R2")
    page.reload()
    expect(page.locator('[data-figure="drop-box"]')).to_have_text(
        "Drop box: locked, left on the table for the drop team."
    )
    assert Table.objects.get(code="R2").state == "closed"
    shot(page, "table_closed")

    # --- 7b. R2 opened again: the difference with its last closer, read before signing, explained
    page.get_by_role("link", name="Open a table").click()
    page.get_by_label("Table", exact=True).select_option("R2")  # a closed table: its own game
    page.get_by_label("Dealer (confirms from his login)").select_option("dealer1")
    type_count(page, "open", "opener", {"100000": 20, "10000": 70, "2500": 79})
    page.get_by_role("button", name="Compare with the last closer").click()
    expect(page.locator('[data-figure="last-closer"]')).to_have_text("29,000.00 EUR")
    expect(page.locator('[data-figure="opener-difference"]')).to_have_text("-25.00 EUR")
    shot(page, "reopen_R2_compared_with_the_last_closer")
    page.get_by_role("button", name="Sign the opener").click()
    expect(page.locator(".refused")).to_contain_text("Refused — Explanation of the difference")
    expect(page.locator("#open-opener-2500")).to_have_value("79")
    shot(page, "reopen_R2_refused_without_an_explanation")
    page.get_by_label("Explanation of the difference").fill("one 25.00 EUR chip found under the float after the close")
    page.get_by_role("button", name="Sign the opener").click()
    expect(page.locator(".messages")).to_contain_text("Opening of table R2 signed by you, waiting for dealer1")
    dealer_confirms(
        page, url, "dealer1", "Open table R2 (English roulette) with an opener of 28,975.00 EUR", shot, "reopen_R2"
    )
    reopened = Event.objects.filter(type="TableOpened", data__table="R2").latest("position")
    assert (reopened.data["variance_cents"], reopened.data["variance_reason"]) == (
        -2_500,
        "one 25.00 EUR chip found under the float after the close",
    )

    # --- 8. the floor at the end: one figure per label ------------------------------------------
    projections.catch_up_all()
    page.goto(f"{url}/dashboard/")
    assert_readable(page)
    shot(page, "floor_at_the_end")

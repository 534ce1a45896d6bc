"""A whole drop-and-count shift through the count room page only, in a real browser, each person
in his own session: the drop team removes R1's box (drop1 asks naming drop2, drop2 confirms
from his own login), the count team counts it by banknote (count1 asks naming count2, count2
confirms), the verifier recounts it blind (the page says only that it agrees), count1 and
count2 sign the master game report, and a tip box is counted by count1 and count2 with the pit
boss as manager, who confirms from his own login. After the fixture's set-up nothing but the
browser acts. Screenshots: var/artifacts/count_room_NN_<step>.png."""

import re

import pytest
from playwright.sync_api import expect

from games.services.tables import table_buy_in, table_open
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS, log_in, second_person

pytestmark = pytest.mark.postgres

PASSWORD = "floor-secret"


class Shots:
    def __init__(self):
        self.n = 0

    def __call__(self, page, step: str) -> None:
        self.n += 1
        page.screenshot(path=str(ARTIFACTS / f"count_room_{self.n:02d}_{step}.png"), full_page=True)


def session(page, url: str, username: str):
    """A new browser context (his own session) logged in to the workstations as ``username``."""
    return second_person(page, url, username, app="workstations", password=PASSWORD)


def message(page):
    return page.locator("ul.messages")


def box(page, table: str):
    return page.locator(f'[data-section="boxes"] tr[data-table="{table}"]')


@pytest.fixture
def floor(django_user_model, cage):
    """Table R1 open (by the fixtures' pit boss) with a cash buy-in of 300.00 EUR; the drop
    team, the count team and a pit boss of another pit."""
    for name, role in (
        ("drop1", Role.DROP_TEAM),
        ("drop2", Role.DROP_TEAM),
        ("count1", Role.COUNT_TEAM),
        ("count2", Role.COUNT_TEAM),
        ("count3", Role.COUNT_TEAM),
        ("pit2", Role.PIT_BOSS),
    ):
        grant(django_user_model.objects.create_user(username=name, password=PASSWORD), role)
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    table_buy_in(code="R1", patron=make_patron(), amount_cents=30_000, actor=ACTOR)


def test_the_drop_and_count_team_work_a_whole_shift_in_the_count_room(browser_page, dashboard_server, floor):
    page, url, shot = browser_page, dashboard_server.url, Shots()

    # --- the drop team: drop1 asks, naming drop2 ---------------------------------------------
    log_in(page, url, "drop1", PASSWORD, app="workstations")
    expect(page).to_have_url(re.compile(r"/workstations/count-room/"))
    expect(box(page, "R1")).to_contain_text("On the table")
    expect(page.locator('[data-form="count"]')).to_have_count(0)  # the drop team does not count
    shot(page, "drop1_landed")
    remove = page.locator('[data-form="remove"]')
    remove.get_by_label("Table").select_option("R1")
    remove.get_by_label("Second remover").fill("drop1")  # himself: refused, nothing written
    remove.get_by_role("button").click()
    expect(page.locator("p.refused")).to_contain_text("drop1 is already the first remover")
    shot(page, "removal_refused")
    remove = page.locator('[data-form="remove"]')
    remove.get_by_label("Second remover").fill("drop2")
    remove.get_by_role("button").click()
    expect(message(page)).to_contain_text("It is recorded when drop2 confirms from his own login.")
    expect(page.locator('[data-section="asked"]')).to_contain_text("Drop box removed by drop1 and drop2")
    expect(box(page, "R1")).to_contain_text("Removal waiting for drop2's signature")
    assert not Event.objects.filter(type="DropBoxRemoved").exists()
    shot(page, "removal_asked")

    drop2 = session(page, url, "drop2")
    to_sign = drop2.locator('[data-section="to-sign"]')
    expect(to_sign).to_contain_text("Drop box removed by drop1 and drop2")
    expect(to_sign).to_contain_text("R1")
    shot(drop2, "drop2_to_sign")
    to_sign.get_by_role("button", name="Confirm: I removed it with drop1").click()
    expect(message(drop2)).to_contain_text("is recorded removed.")
    expect(box(drop2, "R1")).to_contain_text("drop1 and drop2")
    shot(drop2, "removed")

    # --- the count team: count1 counts naming count2, who confirms -----------------------------
    count1 = session(page, url, "count1")
    count = count1.locator('[data-form="count"]')
    count.get_by_label("Table").select_option("R1")
    count.get_by_label("Second counter").fill("count2")
    count1.locator("#count-cash-20000").fill("1")
    count1.locator("#count-cash-10000").fill("1")
    shot(count1, "count_typed")
    count.get_by_role("button").click()
    expect(message(count1)).to_contain_text("the count of table R1's drop box, 300.00 EUR, counted by you and count2")
    count2 = session(page, url, "count2")
    to_sign = count2.locator('[data-section="to-sign"]')
    expect(to_sign).to_contain_text("Drop box counted by count1 and count2")
    expect(to_sign).to_contain_text("300.00 EUR")
    to_sign.get_by_role("button", name="Confirm: I counted it with count1").click()
    expect(message(count2)).to_contain_text("is recorded counted, 300.00 EUR.")
    assert Event.objects.get(type="DropCounted").data["counted_cents"] == 30_000

    # --- the verifier's blind recount --------------------------------------------------------
    count3 = session(page, url, "count3")
    expect(box(count3, "R1")).to_contain_text("shown after the recount")
    expect(box(count3, "R1")).not_to_contain_text("300.00")
    shot(count3, "verifier_blind")
    recount = count3.locator('[data-form="recount"]')
    recount.get_by_label("Table").select_option("R1")
    count3.locator("#recount-cash-20000").fill("1")
    count3.locator("#recount-cash-10000").fill("1")
    recount.get_by_role("button").click()
    expect(message(count3)).to_contain_text("agrees with its count: the count is verified.")
    expect(box(count3, "R1")).to_contain_text("Agrees (count3)")
    expect(box(count3, "R1")).to_contain_text("300.00 EUR")
    shot(count3, "recounted")

    # --- the master game report, signed by count1 and count2 -----------------------------------
    for signer in (count1, count2):
        signer.goto(f"{url}/workstations/count-room/")
        signer.locator('[data-form="sign"]').get_by_role("button").click()
        expect(message(signer)).to_contain_text("You signed the master game report of gaming day")
    expect(count2.locator('[data-section="master-game"]')).to_contain_text("Signed by the count team.")
    shot(count2, "master_game_signed")

    # --- the tips: count1 and count2 count R1's tip box, pit2 the manager ---------------------
    count1.goto(f"{url}/workstations/count-room/")
    tips = count1.locator('[data-form="tips"]')
    tips.get_by_label("Tip box").select_option("table:R1")
    tips.get_by_label("Second counter").fill("count2")
    tips.get_by_label("Manager").fill("pit2")
    count1.locator("#tips-cash-2000").fill("6")
    count1.locator("#tips-cash-1000").fill("3")
    shot(count1, "tips_typed")
    tips.get_by_role("button").click()
    expect(message(count1)).to_contain_text("the tip box of table R1, 150.00 EUR, counted by count1, count2")
    count2.goto(f"{url}/workstations/count-room/")
    count2.locator('[data-section="to-sign"]').get_by_role("button", name="Confirm: I counted it").click()
    expect(message(count2)).to_contain_text("Signed. Still waiting for pit2.")
    pit2 = session(page, url, "pit2")
    pit2.goto(f"{url}/workstations/count-room/")
    to_sign = pit2.locator('[data-section="to-sign"]')
    expect(to_sign).to_contain_text("Tip box of table R1 counted")
    expect(to_sign).to_contain_text("150.00 EUR")
    shot(pit2, "manager_to_sign")
    to_sign.get_by_role("button", name="Confirm: I watched this count").click()
    expect(message(pit2)).to_contain_text("is entered in the tips book.")
    expect(pit2.locator('[data-section="tips-book"]')).to_contain_text("150.00 EUR")
    event = Event.objects.get(type="TipsCounted")
    assert (event.data["total_cents"], event.data["counters"], event.data["manager"]) == (
        15_000,
        ["count1", "count2"],
        "pit2",
    )
    shot(pit2, "tips_counted")
    page.goto(f"{url}/workstations/count-room/")
    shot(page, "drop1_end_of_shift")

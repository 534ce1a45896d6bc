"""A pit boss reads each table's betting options on the floor and the table page: the chips a
stake must be made of (sheet 002) and English roulette's second variant (sheet 000), in words,
beside the limits. Screenshots go to var/artifacts/."""

import re

import pytest
from playwright.sync_api import expect

from games.services.tables import table_open
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_the_floor_and_the_table_page_show_the_chips_and_the_even_chance_variant(
    log_in_pit_boss, dashboard_server, cage, api
):
    rules = {"even_chances": "with_other_bets", "chip_cents": [200, 1_000, 5_000], "off_chips": "adjust"}
    table_open(code="R2", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules=rules)
    table_open(code="P1", game="baccarat", opener_cents=5_000_000, actor=ACTOR, rules={})
    table_open(code="T1", game="trente_quarante", opener_cents=5_000_000, actor=ACTOR, rules={})
    page = log_in_pit_boss()

    r2 = page.locator('article[data-table="R2"]')
    options = r2.locator("[data-option]")
    expect(options).to_have_text(
        [
            "in chips of 2.00, 10.00, 50.00 EUR; another amount is lowered to what they make",
            "even chances only beside another bet of the same patron (second variant)",
        ]
    )
    # baccarat's chips by default, the sheet's; a table without a chip list shows none
    expect(page.locator('article[data-table="P1"] [data-option]')).to_have_text(
        ["in chips of 1.00, 5.00, 25.00, 100.00, 500.00 EUR; another is refused"]
    )
    expect(page.locator('article[data-table="T1"] [data-option]')).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "dashboard-table-options-floor.png"), full_page=True)

    r2.get_by_role("link", name=re.compile("R2")).click()
    stakes = page.locator('[data-section="stake-rules"]')
    expect(stakes).to_contain_text("Stakes: in chips of 2.00, 10.00, 50.00 EUR; another amount is lowered")
    expect(stakes).to_contain_text("even chances only beside another bet of the same patron")

    # a rouge alone at R2: refused and listed with the floor's other refusals, in words
    patron = make_patron(100_000)
    coup = api.post("/api/tables/R2/rounds", {}, format="json").json()["round"]
    rouge = {"patron": patron, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "rouge"}}
    assert api.post(f"/api/rounds/{coup}/bets", rouge, format="json").status_code == 400
    page.reload()
    refused = page.locator("tr", has_text=patron)
    expect(refused).to_contain_text("even chance alone")
    expect(refused).to_contain_text("10.00 EUR")
    page.screenshot(path=str(ARTIFACTS / "dashboard-table-options-table.png"), full_page=True)

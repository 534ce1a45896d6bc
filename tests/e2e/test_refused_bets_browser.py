"""A pit boss reads every refused bet at a table under "Bets refused today", whatever refused
it: a bet beyond the patron's chips and one after rien ne va plus are listed beside a limit's,
in words, amounts in currency units. Screenshot in var/artifacts/."""

import pytest
from playwright.sync_api import expect

from games.services.tables import table_open
from tests.conftest import ACTOR, make_patron

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_the_table_page_lists_bets_refused_for_chips_and_after_betting_closed_in_words(
    log_in_pit_boss, dashboard_server, cage, api
):
    table_open(code="R2", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    broke, rich = make_patron(0), make_patron(100_000)
    coup = api.post("/api/tables/R2/rounds", {}, format="json").json()["round"]
    rouge = {"stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "rouge"}}
    assert api.post(f"/api/rounds/{coup}/bets", {**rouge, "patron": broke}, format="json").status_code == 400
    assert api.post(f"/api/rounds/{coup}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{coup}/bets", {**rouge, "patron": rich}, format="json").status_code == 409

    page = log_in_pit_boss()
    page.goto(f"{dashboard_server.url}/dashboard/tables/R2/")
    expect(page.get_by_text("Bets refused today (2)")).to_be_visible()
    chips = page.locator("tr", has_text=broke)
    expect(chips).to_contain_text("not enough chips")
    expect(chips).to_contain_text(f"{broke} holds 0.00 EUR of value chips, less than the 10.00 EUR staked")
    closed = page.locator("tr", has_text=rich)
    expect(closed).to_contain_text("after betting closed")
    expect(closed).to_contain_text("rien ne va plus")
    expect(page.locator("th", has_text="Refused for")).to_have_count(1)
    page.locator("text=Bets refused today").first.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-refused-bets-kinds.png"), full_page=True)

"""The live floor: with the background player at work, a pit boss watching the floor
sees a coup it plays within 5 seconds, and a table page shows a coup in play with its bets
and cards. Screenshots go to var/artifacts/."""

import random
import re

import pytest
from playwright.sync_api import expect

from demo.floor import FloorSimulator
from games.models import Round
from ledger import projections

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_the_floor_shows_a_coup_of_the_background_player_within_five_seconds(
    log_in_pit_boss, dashboard_server, committed_db
):
    floor = FloorSimulator(pace=0, rng=random.Random(8), out=lambda line: None)
    floor.run(coups=6)  # the floor opens: every table, one coup each
    projections.catch_up_all()
    page = log_in_pit_boss()
    b1 = page.locator('article[data-table="B1"]')
    expect(b1.locator('[data-figure="coups-today"]')).to_have_text("1")

    floor.play_coup("B1")  # the background player's next coup at B1
    projections.catch_up_all()  # eager Celery in the demo; CI has a broker and no worker here
    states = list(Round.objects.filter(table__code="B1").order_by("number").values_list("state", flat=True))
    assert states == ["settled", "settled"], states
    expect(b1.locator('[data-figure="coups-today"]')).to_have_text("2", timeout=5_000)
    page.screenshot(path=str(ARTIFACTS / "dashboard-live-floor.png"), full_page=True)

    # A coup in play at P1: its bets on the layout; after the deal, the hands and the winner.
    coup = floor.bets("P1")
    page.goto(f"{dashboard_server.url}/dashboard/tables/P1/")
    in_play = page.locator('[data-section="in-play"]')
    expect(in_play).to_contain_text("betting")
    expect(in_play.locator("table.data tbody tr").first).to_contain_text(" EUR")
    page.screenshot(path=str(ARTIFACTS / "dashboard-live-table-in-play.png"), full_page=True)
    floor.finish("P1", coup)
    projections.catch_up_all()
    number = Round.objects.get(pk=coup).number
    last = page.locator(f'[data-section="last-coups"] tr[data-coup="{number}"]')
    expect(last.locator('[data-section="result"]')).to_contain_text(
        re.compile(r"(Player|Banker) wins|Tie"), timeout=5_000
    )
    expect(in_play).to_contain_text("No coup in play.")
    page.screenshot(path=str(ARTIFACTS / "dashboard-live-table.png"), full_page=True)

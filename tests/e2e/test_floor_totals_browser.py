"""The pit's totals and the floor's filter in a real browser: after the live
floor's first coups, with one table closed, the totals block sums the cards to the cent, and
the filter by game and by open/closed shows only the matching tables, and keeps them across
the live refresh. Screenshots go to var/artifacts/."""

import random
import re

import pytest
from playwright.sync_api import expect

from demo.day import demo_table_close
from demo.floor import FloorSimulator
from ledger import projections

from .conftest import ARTIFACTS
from .test_readable_floor_browser import assert_readable

pytestmark = pytest.mark.postgres


def cents(text: str) -> int:
    match = re.match(r"(-?)([\d,]+)\.(\d\d) EUR\b", text.strip())  # "1,200.00 EUR recorded": the amount
    assert match, text
    sign, units, hundredths = match.groups()
    return (-1 if sign else 1) * (int(units.replace(",", "")) * 100 + int(hundredths))


def test_pit_boss_reads_the_totals_and_filters_the_floor(log_in_pit_boss, dashboard_server, committed_db):
    floor = FloorSimulator(pace=0, rng=random.Random(23), out=lambda line: None)
    floor.run(coups=18)  # every table opens and plays three coups
    demo_table_close("T1")
    projections.catch_up_all()
    page = log_in_pit_boss()

    # --- the totals: one row per game, the pit's row, each money figure the cards' sum ------
    totals = page.locator('[data-section="totals"]')
    expect(totals.get_by_role("heading")).to_have_text("Totals of the 6 tables shown")
    cards = page.locator("article.card")
    expect(cards).to_have_count(6)
    pit = totals.locator('tr[data-total="all"]')
    for name in ("drop", "win", "handle", "theoretical-win"):
        on_cards = [cents(t) for t in cards.locator(f'[data-figure="{name}"]').all_inner_texts()]
        by_game = [cents(t) for t in totals.locator(f'tbody [data-figure="{name}"]').all_inner_texts()]
        assert cents(pit.locator(f'[data-figure="{name}"]').inner_text()) == sum(on_cards) == sum(by_game), name
    # No drop box counted yet: no table's win is final.
    expect(totals.locator('[data-figure="final-tables"]')).to_contain_text("No win is final yet")
    assert_readable(page)
    page.screenshot(path=str(ARTIFACTS / "dashboard-floor-totals.png"), full_page=True)
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"dashboard-floor-totals-{width}x{height}.png"))
    page.set_viewport_size({"width": 1280, "height": 800})

    # --- the filter: English roulette, open tables; the live refresh keeps it ----------------
    page.get_by_label("Game").select_option(label="English roulette")
    page.get_by_label("Open or closed").select_option("open")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"/dashboard/\?game=english_roulette&state=open$"))
    expect(cards).to_have_count(1)
    expect(cards.first).to_have_attribute("data-table", "R1")
    expect(totals.get_by_role("heading")).to_have_text("Totals of the 1 table shown")
    r1_win = cards.first.locator('[data-figure="win"]').inner_text()
    expect(pit.locator('[data-figure="win"]')).to_have_text(r1_win)
    expect(page.locator('[data-figure="shown"]')).to_have_text("1 of 6 shown · English roulette · open")
    stamp = page.locator("#floor-live > p.meta")
    before = stamp.inner_text()
    expect(stamp).not_to_have_text(before, timeout=8_000)  # swapped by the poll
    expect(cards).to_have_count(1)
    assert_readable(page)
    page.screenshot(path=str(ARTIFACTS / "dashboard-floor-filtered.png"), full_page=True)

    # --- closed tables only: T1; then every table again -------------------------------------
    page.get_by_label("Game").select_option("")
    page.get_by_label("Open or closed").select_option("closed")
    page.get_by_role("button", name="Show").click()
    expect(cards).to_have_count(1)
    expect(cards.first).to_have_attribute("data-table", "T1")
    page.get_by_role("link", name="Show every table").click()
    expect(cards).to_have_count(6)

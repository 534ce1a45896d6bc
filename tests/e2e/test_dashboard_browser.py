"""The pit boss's evening in a real browser: log in, see the floor, watch a coup placed
through the API appear on the table view without a reload, open its audit trail, and check
the table's win on the page against the API. Screenshots of the floor and the table view at
1280×800 and 1024×768 go to var/artifacts/ (not committed)."""

import re

import pytest
from playwright.sync_api import expect

from dashboard.alerts import eur
from ledger import projections
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, grant

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def ok(response, status: int = 201) -> dict:
    body = response.json()
    assert response.status_code == status, body
    return body


def screenshots(page, name: str) -> None:
    for width, height in ((1280, 800), (1024, 768)):
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}-{width}x{height}.png"), full_page=False)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_pit_boss_watches_a_coup_live_and_audits_it(
    browser_page, dashboard_server, django_user_model, table, colour_patron, api
):
    page = browser_page
    boss = django_user_model.objects.create_user(username="boss", password="floor-secret")
    grant(boss, Role.PIT_BOSS)

    # --- log in: the dashboard sends an anonymous visitor to its login page ----------------
    page.goto(f"{dashboard_server.url}/dashboard/")
    expect(page).to_have_url(re.compile(r"/dashboard/login/\?next="))
    page.get_by_label("User name").fill("boss")
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()

    # --- the floor: R1's card, open, no coup in play ----------------------------------------
    card = page.locator('article[data-table="R1"]')
    expect(card.get_by_role("heading")).to_contain_text("R1 · English roulette")
    expect(card.locator('[data-figure="in-play"]')).to_have_text("no coup")

    # --- the table view, left open: a marker on window proves no reload happens -------------
    card.get_by_role("link", name=re.compile("R1")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Table R1 · English roulette")
    page.evaluate("window.__loadedOnce = true")
    expect(page.locator('[data-section="in-play"]')).to_contain_text("No coup in play.")

    # --- a coup through the API: 50.00 EUR of red chips en plein on 17, ball on 17 (35:1) ----
    patron = colour_patron
    coup = ok(api.post("/api/tables/R1/rounds", {}, format="json"))["round"]
    bet = {"patron": patron, "stake_cents": 5_000, "chips": "colour", "bet": {"type": "plein", "numbers": [17]}}
    ok(api.post(f"/api/rounds/{coup}/bets", bet, format="json"))
    in_play = page.locator('[data-section="in-play"]')
    expect(in_play.locator('[data-figure="coup-number"]')).to_have_text("1")
    expect(in_play.get_by_role("row", name=re.compile(patron))).to_contain_text("50.00 EUR")
    screenshots(page, "table")

    ok(api.post(f"/api/rounds/{coup}/close-bets", {}, format="json"), 200)
    ok(api.post(f"/api/rounds/{coup}/result", {"number": 17}, format="json"), 200)
    projections.catch_up_all()  # CI runs with a real broker and no worker: catch up here
    last = page.locator('[data-section="last-coups"] tr[data-coup="1"]')
    expect(last).to_contain_text("settled")
    expect(last).to_contain_text("-1,750.00 EUR")  # the house paid 35 × 50.00
    expect(page.locator('[data-section="last-numbers"] li').first).to_have_text("17")
    assert page.evaluate("window.__loadedOnce") is True  # the same document all along

    # --- a figure on the page against the API ------------------------------------------------
    stats = ok(api.get("/api/stats/tables/", {"gaming_day": current_gaming_day().isoformat()}), 200)
    (r1,) = [row for row in stats["results"] if row["table"] == "R1"]
    assert r1["win_cents"] == -175_000
    expect(page.locator('[data-section="figures"] [data-figure="win"]')).to_have_text(eur(r1["win_cents"]))

    # --- the coup's audit trail, one click away ---------------------------------------------
    last.get_by_role("link", name=re.compile("audit trail")).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Audit trail: coup 1 of the day at R1")
    events = ok(api.get("/api/events/", {"stream": f"round/{coup}"}), 200)["results"]
    assert [e["type"] for e in events][:2] == ["RoundOpened", "BetPlaced"]
    for event in events:
        row = page.locator(f'[data-section="audit"] tr[data-position="{event["position"]}"]')
        expect(row.locator("[data-hash]")).to_have_attribute("data-hash", event["hash"])
        expect(row.locator("[data-hash]")).to_have_text(event["hash"][:12] + "…")

    # --- back on the floor, the card shows the coup's figures --------------------------------
    page.get_by_role("link", name="Floor").click()
    expect(card.locator('[data-figure="win"]')).to_have_text("-1,750.00 EUR")
    screenshots(page, "floor")
    # The large payout's alert says when, and links to its coup's audit trail (no ledger position).
    payout = page.locator('[aria-labelledby="alerts-title"] li', has_text="won 1,750.00 EUR in one payout at")
    said = r"R1: P\d+ won 1,750\.00 EUR in one payout at \d\d:\d\d CES?T \(audit trail\)$"
    expect(payout).to_have_text(re.compile(said))
    payout.get_by_role("link", name="audit trail").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Audit trail: coup 1 of the day at R1")
    page.get_by_role("link", name="Floor").click()

    # --- keyboard focus survives the refresh (htmx refocuses the element with the same id) ----
    stamp = page.locator("#floor-live > p.meta")
    before = stamp.inner_text()
    page.focus("#open-R1")
    expect(stamp).not_to_have_text(before)  # the region was swapped
    assert page.evaluate("document.activeElement.id") == "open-R1"


# Each label of a card's list whose text (not its box: a label kept on one line overflows its
# box) runs into its value's box on the same line.
LABELS_UNDER_VALUES = """() => [...document.querySelectorAll('.card dl dt, dl.card dt')].filter((dt) => {
  const dd = dt.nextElementSibling;
  if (!dd || dd.tagName !== 'DD') return false;
  const words = document.createRange();
  words.selectNodeContents(dt);
  const [a, b] = [words.getBoundingClientRect(), dd.getBoundingClientRect()];
  return a.right > b.left + 0.5 && a.top < b.bottom && b.top < a.bottom;
}).map((dt) => dt.textContent.trim())"""


def test_the_cage_summarys_labels_never_run_under_their_values(
    browser_page, dashboard_server, django_user_model, table
):
    """ "Cashier windows" was wider than the cards' label column and ran under its value. The
    cage summary is the cage's book: a cage supervisor reads it."""
    grant(django_user_model.objects.create_user(username="sup1", password="floor-secret"), Role.CAGE_SUPERVISOR)
    log_in(browser_page, dashboard_server.url, "sup1")
    page = browser_page
    for width in (1280, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        page.goto(f"{dashboard_server.url}/dashboard/cage/")
        expect(page.locator('[data-figure="cage-shift"]')).to_contain_text("window 1 open")
        assert page.evaluate(LABELS_UNDER_VALUES) == [], width
        page.screenshot(path=str(ARTIFACTS / f"dashboard-cage-{width}.png"), full_page=False)

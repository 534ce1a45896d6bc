"""The pit boss reads a table page, a patron and the refusals in a real browser: R1 with colour
chips out shows its count-room win equal to the ledger's, today's coups only and the chart from
0; P1's pushed tie is a house win of 0.00 EUR and its shoe has a number, not an id; the coup in
play and the audit trail name the bets in words (a dozen counted from the first); the patron's
labels stand clear of their values at 1280 and 1024 px; a refused and an unknown page keep the
site's header and say why. Screenshots go to var/artifacts/ (not committed)."""

import re

import pytest
from playwright.sync_api import expect

from games.services.colour_chips import colour_chips_buy
from games.services.tables import table_buy_in
from ledger import projections
from staff.roles import Role, grant
from tests.conftest import ACTOR, make_patron, open_by_total

from .conftest import ARTIFACTS, log_in

pytestmark = pytest.mark.postgres


def ok(response, status: int = 201) -> dict:
    body = response.json()
    assert response.status_code == status, body
    return body


def shot(page, name: str, widths=(1280,)) -> None:
    for width in widths:
        page.set_viewport_size({"width": width, "height": 800 if width == 1280 else 768})
        page.screenshot(path=str(ARTIFACTS / f"pages-{name}-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def test_a_pit_boss_reads_table_pages_a_patron_and_the_refusals(
    browser_page, dashboard_server, django_user_model, table, api
):
    page, url = browser_page, dashboard_server.url
    for username, role in (("boss", Role.PIT_BOSS), ("till", Role.CASHIER)):
        grant(django_user_model.objects.create_user(username=username, password="floor-secret"), role)

    # R1: 300.00 EUR cash in the drop, 200.00 EUR of it in red chips; a plein on 17 wins (35:1).
    patron = make_patron()
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    colour_chips_buy(table="R1", patron=patron, chips=100, unit_value_cents=200, colour="red", actor=ACTOR)
    for number in (17, 4):
        coup = ok(api.post("/api/tables/R1/rounds", {}, format="json"))["round"]
        bet = {"patron": patron, "stake_cents": 1_000, "chips": "colour", "bet": {"type": "plein", "numbers": [17]}}
        ok(api.post(f"/api/rounds/{coup}/bets", bet, format="json"))
        ok(api.post(f"/api/rounds/{coup}/close-bets", {}, format="json"), 200)
        ok(api.post(f"/api/rounds/{coup}/result", {"number": number}, format="json"), 200)
    in_play = ok(api.post("/api/tables/R1/rounds", {}, format="json"))["round"]
    rouge = {
        "patron": patron,
        "stake_cents": 1_000,
        "chips": "colour",
        "bet": {"type": "chance_simple", "chance": "rouge"},
    }
    ok(api.post(f"/api/rounds/{in_play}/bets", rouge, format="json"))
    dozen = {**rouge, "bet": {"type": "douzaine", "which": 1}}  # which counts from 0: the second dozen
    ok(api.post(f"/api/rounds/{in_play}/bets", dozen, format="json"))
    # P1: a natural tie (9 against 9), the player and banker bets pushed.
    open_by_total("P1", "baccarat", rules={})
    ok(api.post("/api/tables/P1/shoes", {"mode": "reader"}, format="json"))
    tie = ok(api.post("/api/tables/P1/rounds", {}, format="json"))["round"]
    for who, bet in ((make_patron(10_000), "player"), (make_patron(10_000), "banker")):
        ok(
            api.post(
                f"/api/rounds/{tie}/baccarat-bets", {"patron": who, "bet": bet, "stake_cents": 1_000}, format="json"
            )
        )
    ok(api.post(f"/api/rounds/{tie}/close-bets", {}, format="json"), 200)
    ok(api.post(f"/api/rounds/{tie}/deal", {}, format="json"), 200)
    for card in ("4S", "4H", "5D", "5C"):
        ok(api.post(f"/api/rounds/{tie}/cards", {"card": card}, format="json"), 200)
    projections.catch_up_all()

    log_in(page, url, "boss")
    card = page.locator('article[data-table="R1"]')
    expect(card.locator('[data-figure="win"]')).to_have_text("-340.00 EUR")
    assert card.locator('[data-alert="variance"]').count() == 0

    page.goto(f"{url}/dashboard/tables/R1/")
    figures = page.locator('[data-section="figures"]')
    expect(figures.locator('[data-figure="win"]')).to_have_text("-340.00 EUR")
    expect(page.locator('[data-section="last-coups"] tr[data-coup]')).to_have_count(2)
    expect(page.locator('[data-section="play"]')).to_contain_text("on rouge (even chance)")
    expect(page.locator('[data-section="play"]')).to_contain_text("on second dozen (13-24)")
    expect(page.locator('[data-section="play"]')).not_to_contain_text("#")
    expect(page.locator("figure.chart svg")).to_be_visible()
    shot(page, "table-R1")

    page.goto(f"{url}/dashboard/tables/P1/")
    row = page.locator('[data-section="last-coups"] tr[data-coup="1"]')
    expect(row.locator("td.num").nth(2)).to_have_text("0.00 EUR")
    expect(page.locator('[data-section="shoe-name"]')).to_have_text(
        re.compile(r"^Shoe 1 of the day \(opened \d\d:\d\d CET\): 1 coup$")
    )
    expect(page.locator('[data-section="figures"] [data-figure="edge"]')).to_have_attribute(
        "title", re.compile(r"from the composition of the shoe \(8 decks\)")
    )
    shot(page, "table-P1")

    page.goto(f"{url}/dashboard/coups/{in_play}/audit/")
    expect(page.locator('[data-section="audit"]')).to_contain_text("on rouge (even chance) (colour chips)")
    expect(page.locator('[data-section="audit"]')).to_contain_text("on second dozen (13-24) (colour chips)")
    shot(page, "coup-audit")

    page.goto(f"{url}/dashboard/patrons/{patron}/")
    rating = page.locator('[data-section="rating"]')
    expect(rating).to_contain_text("Theoretical win (house)")
    expect(rating.locator('[data-figure="time-played"]')).to_have_text("under a minute")  # bets seconds apart
    for width in (1280, 1024):
        page.set_viewport_size({"width": width, "height": 800})
        for label in ("Actual win (house)", "Theoretical win (house)"):
            term = rating.locator("dt", has_text=label).bounding_box()
            value = rating.locator("dt", has_text=label).locator("xpath=following-sibling::dd[1]").bounding_box()
            assert term["x"] + term["width"] <= value["x"], (width, label)
    shot(page, "patron", widths=(1280, 1024))

    page.goto(f"{url}/dashboard/tables/X9/")
    expect(page.locator('[data-section="reason"]')).to_have_text("No table X9.")
    expect(page.locator("#landing")).to_have_text("Back to the floor")
    shot(page, "404")

    page.get_by_role("button", name="Log out").click()
    log_in(page, url, "till")  # the cashier lands on his own page, whichever form he used
    expect(page).to_have_url(re.compile(r"/workstations/cage/$"))
    page.goto(f"{url}/dashboard/")  # the floor is not the cashier's
    expect(page.locator('[data-section="reason"]')).to_have_text("The dashboard is for the pit boss role.")
    expect(page.locator("header.top")).to_contain_text("Cage workstation")
    shot(page, "403")
    page.locator("#landing").click()
    expect(page).to_have_url(re.compile(r"/workstations/cage/$"))

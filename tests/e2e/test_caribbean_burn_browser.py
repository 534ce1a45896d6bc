"""A Caribbean stud coup with a card burnt, exposed by mistake (sheet 001), as the pit boss reads
it on the table page: while the coup is in play its feed says each card burnt and replaced; once
settled, the box's hand holds the replacement and the coup's line names the burnt cards.
Screenshots to var/artifacts/ (not committed)."""

import re

import pytest
from playwright.sync_api import expect

from staff.roles import Role, grant
from tests.api.test_caribbean_cases import StudTable
from tests.conftest import make_patron

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres


def test_pit_boss_reads_a_burnt_card_in_the_last_coups(browser_page, dashboard_server, django_user_model, cage, api):
    page = browser_page
    boss = django_user_model.objects.create_user(username="boss", password="floor-secret")
    grant(boss, Role.PIT_BOSS)

    stud = StudTable(api)  # cards reported by the dealer's terminal: exactly these
    p = make_patron(10_000)
    stud.coup([(p, 1, 1_000)])

    def post(path, body, status=200):
        response = api.post(f"/api/rounds/{stud.round}/{path}", body, format="json")
        assert response.status_code == status, response.json()

    post("cards", {"card": "5S"})
    post("burnt-cards", {"card": "QD"})  # the dealer's first card shows as it comes off the deck
    for card in ("AS", "5H", "KH", "KC", "8C", "9D", "5D", "7S", "3C"):
        post("cards", {"card": card})
    post("burnt-cards", {"card": "9D"})  # the dealer flips the player's fourth card by mistake
    post("cards", {"card": "JH"})  # its replacement, the next card of the deck

    page.goto(f"{dashboard_server.url}/dashboard/")
    page.get_by_label("User name").fill("boss")
    page.get_by_label("Password").fill("floor-secret")
    page.get_by_role("button", name="Log in").click()
    page.goto(f"{dashboard_server.url}/dashboard/tables/C1/")
    # The coup in play, before the box decides: the feed says which card was burnt and that it was replaced.
    feed = page.locator('[data-section="play"]')
    expect(feed).to_contain_text("card burnt: Q♦ off the deck for dealer (exposed by mistake), replaced")
    expect(feed).to_contain_text("card burnt: 9♦ from box 1 (exposed by mistake), replaced")
    expect(feed.locator("li", has_text="card burnt")).to_have_count(2)
    # Game protection: the face-down cards are dealt, their values not shown, while the coup is in play.
    expect(feed.locator("li", has_text="card to dealer, face down")).to_have_count(4)
    expect(feed.locator("li", has_text="card to box 1, face down")).to_have_count(6)  # 9♦ burnt, J♥ after it
    for hidden in ("A♠", "K♥", "8♣", "5♦", "5♠", "5♥", "K♣", "7♠", "J♥"):
        expect(feed).not_to_contain_text(hidden)
    expect(feed).to_contain_text("dealer shows 3♣")
    feed.locator("li", has_text="9♦ from box 1").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-caribbean-burnt-card-in-play-1280x800.png"), full_page=False)

    post("caribbean-decisions", {"patron": p, "box": 1, "action": "raise"})
    page.goto(f"{dashboard_server.url}/dashboard/tables/C1/")
    last = page.locator('[data-section="last-coups"] tr[data-coup="1"]')
    expect(last).to_contain_text("burnt, exposed by mistake: Q♦ (off the deck, for the dealer), 9♦ (from box 1)")
    expect(last).to_contain_text(re.compile(r"Box 1 ✓\s*5♠\s*5♥\s*K♣\s*J♥\s*7♠"))
    last.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "dashboard-caribbean-burnt-card-1280x800.png"), full_page=False)

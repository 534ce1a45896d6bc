"""A pit boss reads a demo day in a real browser: the floor, each game's table page,
a coup's audit trail and a patron page. Cards are suit symbols in colour with totals and the
winner, times are the casino's, and no page shows a Python repr (``{'``, ``None``, ``True``,
``False``) or a full 64-character hash outside a details element. Screenshots go to
var/artifacts/."""

import io
import re

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from games.models import Bet, Round
from ledger import projections

from .conftest import ARTIFACTS

pytestmark = pytest.mark.postgres

GAMES = {
    "B1": "Black jack",
    "C1": "Caribbean stud",
    "P1": "Punto banco",
    "R1": "English roulette",
    "S1": "Classic five-card stud",
    "T1": "Trente-et-quarante",
}

# The page's visible text, without the details elements (full hashes live there) and the chart.
VISIBLE_TEXT = """() => {
  const copy = document.body.cloneNode(true);
  copy.querySelectorAll('details, svg, script').forEach(n => n.remove());
  return copy.innerText;
}"""


def assert_readable(page) -> None:
    text = page.evaluate(VISIBLE_TEXT)
    for repr_word in ("{'", "None", "True", "False"):
        assert repr_word not in text, (page.url, repr_word)
    assert not re.search(r"\b[0-9a-f]{64}\b", text), page.url
    assert not re.search(r"\b\w+=\w", text), page.url  # no key=value dumps


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"dashboard-{name}.png"), full_page=True)


def last_coup(code: str) -> Round:
    return Round.objects.filter(table__code=code, state="settled").order_by("-number").first()


@pytest.fixture
def demo_day(committed_db):
    call_command(
        "demo",
        spins=6,
        patrons=2,
        blackjack_coups=4,
        stud_coups=4,
        classic_stud_coups=2,
        baccarat_coups=4,
        tq_coups=4,
        seed=11,
        stdout=io.StringIO(),
    )
    projections.catch_up_all()


def test_a_pit_boss_reads_every_game_of_a_demo_day(log_in_pit_boss, dashboard_server, demo_day):
    page = log_in_pit_boss()

    # --- the floor: every figure names its basis; times in the casino's zone -----------------
    expect(page.locator('[data-figure="time-zone"]')).to_have_text("times in Europe/Paris")
    expect(page.locator("#floor-live > p.meta")).to_contain_text(re.compile(r"updated \d\d:\d\d:\d\d CES?T"))
    r1 = page.locator('article[data-table="R1"]')
    # One drop, one win, one hold, one theoretical win, one edge per card, each saying how it is computed.
    for name in ("drop", "win", "hold", "theoretical-win", "edge"):
        expect(r1.locator(f'[data-figure="{name}"]')).to_have_count(1)
        expect(r1.locator(f'[data-figure="{name}"]')).to_have_attribute("title", re.compile(r"\w"))
    expect(r1).to_contain_text("even chances: 5.00 EUR – 1,000.00 EUR")
    # The edge's tooltip names the table's own rule set's edge and how it was found.
    for code in ("C1", "T1", "B1"):
        expect(page.locator(f'article[data-table="{code}"] [data-figure="edge"]')).to_have_attribute(
            "title", re.compile("exact")
        )
    # Classic stud: the players play each other; the house's theory is the rake it took.
    expect(page.locator('article[data-table="S1"] [data-figure="edge"]')).to_have_attribute(
        "title", re.compile("rake 5 % of each pot, at most 5.00 EUR a hand")
    )
    # Its bets are capped round by round (10, 20, 40, 80 × the 2.00 EUR base stake), shown in money.
    expect(page.locator('article[data-table="S1"]')).to_contain_text(
        "bets in a round: 2.00 EUR – 160.00 EUR (round 1 up to 20.00 EUR, round 2 up to 40.00 EUR,"
        " round 3 up to 80.00 EUR, round 4 up to 160.00 EUR; ante 2.00 EUR)"
    )
    expect(page.locator('article[data-table="S1"]')).not_to_contain_text("no maximum")
    assert_readable(page)
    shot(page, "floor-demo-day")

    # --- each game's table page: the last coups as hands of cards with the winner ------------
    for code, game in GAMES.items():
        page.goto(f"{dashboard_server.url}/dashboard/tables/{code}/")
        expect(page.get_by_role("heading", level=1)).to_have_text(f"Table {code} · {game}")
        results = page.locator('[data-section="last-coups"] [data-section="result"]')
        expect(results.first).not_to_have_text("—")
        if code == "R1":
            expect(results.first).to_contain_text(str(last_coup(code).result["number"]))
        elif code == "S1" and not last_coup(code).result["showdown"]:
            # Classic stud: a hand the others folded shows no cards, and says so.
            expect(results.first).to_contain_text("no showdown: the others folded")
        else:
            # Cards drawn as suit symbols, hearts and diamonds in red.
            assert results.first.locator(".pc").count() >= 4
            red = page.locator('[data-section="last-coups"] .pc-red').first
            expect(red).to_have_text(re.compile(r"^(10|[2-9JQKA])[♥♦]$"))
            assert "rgb(179, 18, 27)" == red.evaluate("e => getComputedStyle(e).color")
        # The chart's time labels are distinct.
        labels = page.locator("figure.chart svg .axis.x .guides text").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
        labels = [t for t in labels if t and t.strip()]
        assert labels and len(labels) == len(set(labels)), (code, labels)
        assert_readable(page)
        shot(page, f"table-{code}")

    # --- a coup's audit trail: EUR, short hashes, the full one on demand -----------------------
    coup = Round.objects.filter(table__code="P1", state="settled").order_by("-number").first()
    page.goto(f"{dashboard_server.url}/dashboard/coups/{coup.id}/audit/")
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"Audit trail: coup {coup.number} of the day at P1")
    first_hash = page.locator('[data-section="audit"] code[data-hash]').first
    full = first_hash.get_attribute("data-hash")
    assert re.fullmatch(r"[0-9a-f]{64}", full) and first_hash.get_attribute("title") == full
    expect(first_hash).to_have_text(full[:12] + "…")
    expect(page.locator('[data-section="audit"]')).to_contain_text(" EUR")
    assert_readable(page)
    shot(page, "audit-P1")

    # --- a patron page ----------------------------------------------------------------------
    patron = Bet.objects.filter(round__table__code="B1").values_list("patron__code", flat=True).first()
    page.goto(f"{dashboard_server.url}/dashboard/patrons/{patron}/")
    expect(page.get_by_role("heading", level=1)).to_contain_text(f"({patron})")  # by name, the code second
    assert_readable(page)
    shot(page, "patron")

"""A table page reads as the pit boss speaks: only the gaming day's coups and numbers, the
shoe by its number of the day, the coup in play by its times (ledger positions stay on the
audit trail), bets in words, a pushed tie as a house win of 0.00 EUR, the win chart from 0."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse

from dashboard import table_reads
from dashboard.charts import win_chart
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from ledger import projections
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from tests.conftest import ACTOR, make_patron

from .test_baccarat_table import coup as baccarat_coup
from .test_baccarat_table import open_table as open_baccarat
from .test_baccarat_table import report as report_cards

pytestmark = pytest.mark.django_db


def section(html: str, name: str) -> str:
    start = html.index(f'data-section="{name}"')
    return html[start : html.index("</section>", start)]


def spin(patron: str, number: int, bet: dict, stake: int = 1_000, chips: str = "value") -> str:
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=patron, stake_cents=stake, bet=bet, chips=chips, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=number, actor=ACTOR)
    return coup


def test_the_last_coups_and_numbers_are_the_gaming_days_only(pit_boss, table, monkeypatch):
    patron = make_patron(100_000)
    for number in (2, 17):
        spin(patron, number, {"type": "chance_simple", "chance": "noir"})
    projections.catch_up_all()
    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert re.findall(r'data-coup="(\d+)"', page) == ["2", "1"]
    assert re.findall(r'<li class="n-\w+" aria-label="(\d+) ', page) == ["17", "2"]
    assert "Last numbers today" in page and "Last coups today" in page
    # The next gaming day, the table still open: yesterday's coups are not today's.
    tomorrow = current_gaming_day() + timedelta(days=1)
    monkeypatch.setattr(table_reads, "current_gaming_day", lambda *args: tomorrow)
    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert f"Gaming day {tomorrow:%Y-%m-%d}" in page
    assert "data-coup=" not in page and 'data-section="last-numbers"' not in page
    assert "No coup yet today." in page
    detail = table_reads.table_detail("R1", day=tomorrow)
    assert detail["last_coups"] == [] and detail["last_numbers"] == []


def test_the_audit_trail_and_the_coup_in_play_name_the_even_chances_in_words(pit_boss, table):
    patron = make_patron(100_000)
    settled = spin(patron, 17, {"type": "chance_simple", "chance": "rouge"})
    in_play = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=in_play, patron=patron, stake_cents=1_000, bet={"type": "chance_simple", "chance": "pair"}, actor=ACTOR
    )
    audit = pit_boss.get(reverse("dashboard:coup-audit", args=[settled])).content.decode()
    assert "on rouge (even chance) (value chips)" in audit and "rouge (even chance): lost" in audit
    assert "chance_simple" not in audit
    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    play = section(page, "in-play")
    assert "on pair (even chance) (value chips)" in play and "chance_simple" not in page
    # The coup in play by its times; its ledger positions only on the audit trail.
    positions = Event.objects.filter(stream=f"round/{in_play}").values_list("position", flat=True)
    assert positions and not any(f"#{p}" in page for p in positions)
    assert re.search(r'<li data-position="\d+"><span class="meta">\d\d:\d\d:\d\d</span>', play)


def test_the_table_page_and_the_audit_trail_name_columns_and_dozens_from_the_first(pit_boss, colour_patron):
    patron = colour_patron  # inside bets take colour chips at English roulette
    settled = spin(patron, 14, {"type": "douzaine", "which": 1}, chips="colour")  # 13-24: the second dozen wins
    in_play = round_open(table="R1", actor=ACTOR)["round"]
    for bet in ({"type": "colonne", "which": 0}, {"type": "douzaine_a_cheval", "which": 0}):
        bet_place(round_id=in_play, patron=patron, stake_cents=1_000, bet=bet, chips="colour", actor=ACTOR)
    audit = pit_boss.get(reverse("dashboard:coup-audit", args=[settled])).content.decode()
    assert "on second dozen (13-24) (colour chips)" in audit and "second dozen (13-24): won" in audit
    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    play = section(page, "in-play")
    assert "on first column (1, 4 … 34) (colour chips)" in play  # the play feed
    assert "<td>first column (1, 4 … 34)</td>" in play and "<td>first and second dozens (1-24)</td>" in play
    assert not re.search(r"(colonne|douzaine)(_a_cheval)? \d", page + audit)


def test_a_tie_with_every_bet_pushed_is_a_house_win_of_nil_and_the_shoe_has_its_number(api, cage, pit_boss):
    open_baccarat(api)
    player, banker = make_patron(10_000), make_patron(10_000)
    round_id = baccarat_coup(api, "P1", [(player, "player", 1_000), (banker, "banker", 1_000)])
    summary = report_cards(api, round_id, ["4S", "4H", "5D", "5C"])  # 9 against 9: a natural tie
    assert summary["state"] == "settled" and summary["result"]["winner"] == "tie"
    projections.catch_up_all()
    page = pit_boss.get(reverse("dashboard:table", args=["P1"])).content.decode()
    row = page[page.index('data-coup="1"') : page.index("</tr>", page.index('data-coup="1"'))]
    assert re.findall(r'<td class="num[^"]*">([^<]*)</td>', row) == ["2", "20.00 EUR", "0.00 EUR"]
    audit = pit_boss.get(reverse("dashboard:coup-audit", args=[round_id])).content.decode()
    assert "house win 0.00 EUR" in audit
    # The shoe by its number of the day and its opening time, not its id; the edge's basis in words.
    name = re.search(r'data-section="shoe-name">([^<]+)<', page).group(1)
    assert re.fullmatch(r"Shoe 1 of the day \(opened \d\d:\d\d CET\): 1 coup", name), name
    assert "games.rules" not in page and "from the composition of the shoe (8 decks)" in page


def test_the_win_chart_starts_at_nil_at_the_tables_opening_and_shows_nil_on_its_axis(table):
    patron = make_patron(100_000)
    spin(patron, 17, {"type": "chance_simple", "chance": "noir"}, stake=7_000)  # 17 is black: the house loses 70.00 EUR
    projections.catch_up_all()
    day = current_gaming_day()
    series = table_reads.win_series("R1", day=day)
    start = table_reads.day_start("R1", day=day)
    opened = Event.objects.get(stream="table/R1", type="TableOpened")
    assert start == opened.occurred_at < series[0][0] and [c for _, c in series] == [-7_000]
    svg = win_chart(series, table="R1", zone=opened.occurred_at.tzinfo, start=start)
    # Two points (nil at the opening, then the coup) and a y axis that reaches 0.00.
    assert svg.count("<circle ") == 2
    labels = [
        float(v.replace(",", "")) for v in re.findall(r'<text[^>]*class="[^"]*"[^>]*>(-?[\d,]+\.\d\d)</text>', svg)
    ]
    assert labels and max(labels) >= 0 and min(labels) <= -70


def test_coups_are_numbered_from_the_first_coup_the_ledger_stamped_with_the_day(pit_boss, table, settings):
    """The day a coup belongs to is the one its opening was stamped with, not its hour: coups
    played before the gaming day's start (here 23:59, so now is yesterday's day) are not
    counted in today's numbers once the day starts (00:00)."""
    patron = make_patron(100_000)
    settings.GAMING_DAY_START = "23:59"
    yesterday = current_gaming_day()
    for number in (2, 17):
        spin(patron, number, {"type": "chance_simple", "chance": "noir"})
    settings.GAMING_DAY_START = "00:00"
    if current_gaming_day() != yesterday + timedelta(days=1):
        pytest.skip("run in the minute from 23:59, when 23:59 is already today's start")
    spin(patron, 4, {"type": "chance_simple", "chance": "noir"})
    projections.catch_up_all()
    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert re.findall(r'data-coup="(\d+)"', page) == ["1"]  # the counter says 3: two coups were yesterday's

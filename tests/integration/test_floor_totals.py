"""The pit's totals and the floor's filters: the totals per game and in total are
the sums of the table cards' own figures to the cent; a filter by game or by open/closed shows
only the matching tables; the floor's query count does not grow with its tables; Caribbean
stud's theory is its edge per ante times the antes."""

import math
import re
from fractions import Fraction
from html import unescape

import pytest
from django.urls import reverse

from cashier.reports import hold_pct, table_figures
from dashboard import floor_cards, one_table
from dashboard.floor_reads import count_room_figures
from games.models import Table
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in, table_open
from games.theory import house_edge
from ledger import projections
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, TableDayStats
from tests.conftest import ACTOR, make_patron
from tests.integration.demo_days import play_small_demo_day

from .test_dashboard_figures import card_of, cents, figures

pytestmark = pytest.mark.django_db

# The money figures a total sums: the cards' and the totals' data-figure names are the same.
MONEY = ("drop", "win", "handle", "theoretical-win")


@pytest.fixture
def demo_day(pit_boss, monkeypatch):
    """The demo's tables played, closed and counted, the gaming day left open (tables open on it after)."""
    monkeypatch.setattr("demo.closing.gaming_day_close", lambda **kwargs: None)
    play_small_demo_day()
    projections.catch_up_all()
    return current_gaming_day()


def total_row(html: str, key: str) -> dict[str, str]:
    start = html.index(f'data-total="{key}"')
    return figures(html[start : html.index("</tr>", start)])


def card_codes(html: str) -> list[str]:
    return re.findall(r'<article class="card"[^>]*data-table="([A-Z0-9]+)"', html)


def test_pit_totals_are_the_sums_of_the_table_cards_to_the_cent_per_game_and_in_total(pit_boss, demo_day):
    # Two more tables open, so that a game has two cards and the pit has open and closed ones.
    table_open(code="R2", game="english_roulette", opener_cents=2_000_000, actor=ACTOR, rules={})
    table_open(code="R3", game="english_roulette", opener_cents=2_000_000, actor=ACTOR, rules={})
    patron = make_patron()
    table_buy_in(code="R2", patron=patron, amount_cents=30_000, actor=ACTOR)
    coup = round_open(table="R2", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=5_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)  # black: the house wins 50.00
    projections.catch_up_all()

    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    codes = card_codes(html)
    assert sorted(codes) == ["B1", "C1", "P1", "R1", "R2", "R3", "S1", "T1"]
    cards = {code: figures(card_of(html, code)) for code in codes}
    games = {t.code: t.game for t in Table.objects.all()}
    expected: dict[str, dict[str, int]] = {}
    for code, on_card in cards.items():
        for key in (games[code], "all"):
            sums = expected.setdefault(key, dict.fromkeys(MONEY, 0))
            for name in MONEY:
                sums[name] += cents(on_card[name])
    assert expected["english_roulette"]["win"] == sum(cents(cards[c]["win"]) for c in ("R1", "R2", "R3"))
    for key, sums in expected.items():
        row = total_row(html, key)
        assert {name: cents(row[name]) for name in MONEY} == sums, key
        assert int(row["tables"]) == (len(codes) if key == "all" else list(games.values()).count(key))
    # The percentages are the ratios of the sums, as the daily report rounds them.
    pit = floor_cards.floor()["totals"]["all"]
    row = total_row(html, "all")
    assert row["hold"] == f"{hold_pct(expected['all']['win'], expected['all']['drop'])} %"
    assert row["edge"] == f"{hold_pct(expected['all']['theoretical-win'], expected['all']['handle'])} %"
    assert (
        pit["figures"]["win_cents"] == expected["all"]["win"]
        and pit["theoretical_win_cents"] == expected["all"]["theoretical-win"]
    )
    # Final only where counted and closed (the demo's six), not R2, R3.
    assert "6 of 8 tables final; the others' wins still move." in html


def test_batched_count_room_figures_are_the_daily_reports_for_every_table(demo_day):
    table_open(code="R2", game="english_roulette", opener_cents=2_000_000, actor=ACTOR, rules={})
    table_buy_in(code="R2", patron=make_patron(), amount_cents=30_000, actor=ACTOR)
    codes = list(Table.objects.values_list("code", flat=True))
    batched = count_room_figures(codes, demo_day)
    for code in codes:
        one = {k: v for k, v in batched[code].items() if k != "live_count"}
        assert one == table_figures(code, demo_day, demo_day), code


def test_filters_show_only_the_matching_tables_and_a_bad_filter_is_400(pit_boss, demo_day):
    table_open(code="R2", game="english_roulette", opener_cents=2_000_000, actor=ACTOR, rules={})
    projections.catch_up_all()
    floor = reverse("dashboard:floor")

    def shown(**query) -> list[str]:
        response = pit_boss.get(floor, query)
        assert response.status_code == 200, query
        return sorted(card_codes(response.content.decode()))

    assert shown(game="english_roulette") == ["R1", "R2"]
    assert shown(state="open") == ["R2"]
    assert shown(state="closed") == ["B1", "C1", "P1", "R1", "S1", "T1"]
    assert shown(game="english_roulette", state="closed") == ["R1"]
    assert shown(game="baccarat", state="open") == []
    assert shown(game="", state="") == ["B1", "C1", "P1", "R1", "R2", "S1", "T1"]
    # The totals cover the tables shown; the live fragment keeps the filter when it polls.
    html = pit_boss.get(floor, {"game": "english_roulette"}).content.decode()
    assert total_row(html, "all")["tables"] == "2"
    assert 'hx-get="/dashboard/_live?game=english_roulette"' in html
    live = pit_boss.get(reverse("dashboard:floor-live"), {"state": "open"}).content.decode()
    assert sorted(card_codes(live)) == ["R2"]
    empty = pit_boss.get(floor, {"game": "baccarat", "state": "open"}).content.decode()
    assert "No table matches the filter." in empty
    for query, field in (({"game": "roulette"}, "game"), ({"state": "half-open"}, "state")):
        response = pit_boss.get(floor, query)
        assert response.status_code == 400
        assert response.content.decode().startswith(f"{field}: ")


def test_caribbean_theory_is_the_edge_per_ante_on_the_antes_and_labelled_so(pit_boss, demo_day):
    table = Table.objects.get(code="C1")
    edge, basis = house_edge(table.game, table.rules)
    assert "per ante" in basis
    antes = Event.objects.filter(type="BetSettled", gaming_day=demo_day, data__table="C1", data__line="ante")
    ante_cents = sum(antes.values_list("data__stake_cents", flat=True))
    card = next(c for c in floor_cards.floor()["tables"] if c["code"] == "C1")
    assert 0 < ante_cents < card["handle_cents"]  # the raises are in the handle, not in the edge's base
    assert card["theoretical_win_cents"] == math.floor(Fraction(edge) * ante_cents + Fraction(1, 2))
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    edge_title = re.search(r'data-figure="edge" title="([^"]*)"', card_of(html, "C1")).group(1)
    assert "of the ante" in unescape(edge_title)


def test_english_roulette_card_shows_the_even_chances_limits_apart(pit_boss, cage):
    table_open(
        code="R1",
        game="english_roulette",
        opener_cents=2_000_000,
        actor=ACTOR,
        rules={
            "min_bet_cents": 200,
            "max_bet_cents": 10_000,
            "even_chance_min_cents": 1_000,
            "even_chance_max_cents": 100_000,
        },
    )
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    limits = re.sub(r"<[^>]+>", " ", card_of(html, "R1").split("<dt>Limits</dt>")[1].split("</dd>")[0])
    limits = " ".join(limits.split())
    assert "numbers, dozens and columns: 2.00 EUR – 100.00 EUR" in limits
    assert "even chances: 10.00 EUR – 1,000.00 EUR" in limits


def _limits_text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def test_classic_stud_limits_show_each_rounds_cap_in_money_on_the_floor_and_the_table_page(pit_boss, cage):
    table_open(
        code="S1",
        game="classic_stud",
        opener_cents=500_000,
        actor=ACTOR,
        rules={"base_stake_cents": 250, "caps": [5, 10, 20, 40]},
    )
    expected = (
        "bets in a round: 2.50 EUR – 100.00 EUR (round 1 up to 12.50 EUR, round 2 up to 25.00 EUR,"
        " round 3 up to 50.00 EUR, round 4 up to 100.00 EUR; ante 2.50 EUR)"
    )
    floor = pit_boss.get(reverse("dashboard:floor")).content.decode()
    on_floor = _limits_text(card_of(floor, "S1").split("<dt>Limits</dt>")[1].split("</dd>")[0])
    assert on_floor == expected
    page = pit_boss.get(reverse("dashboard:table", args=["S1"])).content.decode()
    on_page = _limits_text(page.split('data-section="limits">')[1].split("</p>")[0])
    assert on_page == f"Limits: {expected}"
    assert "no maximum" not in on_floor + on_page


def test_classic_stud_limits_left_to_the_defaults_are_the_rule_sheets_caps(pit_boss, cage):
    table_open(code="S2", game="classic_stud", opener_cents=500_000, actor=ACTOR, rules={"ante": False})
    floor = pit_boss.get(reverse("dashboard:floor")).content.decode()
    assert _limits_text(card_of(floor, "S2").split("<dt>Limits</dt>")[1].split("</dd>")[0]) == (
        "bets in a round: 1.00 EUR – 80.00 EUR (round 1 up to 10.00 EUR, round 2 up to 20.00 EUR,"
        " round 3 up to 40.00 EUR, round 4 up to 80.00 EUR)"
    )


def _open_tables(count: int, start: int) -> None:
    """``count`` roulette tables, each with a buy-in and one settled coup."""
    patron = make_patron()
    for n in range(start, start + count):
        code = f"R{n}"
        table_open(code=code, game="english_roulette", opener_cents=1_000_000, actor=ACTOR, rules={})
        table_buy_in(code=code, patron=patron, amount_cents=10_000, actor=ACTOR)
        coup = round_open(table=code, actor=ACTOR)["round"]
        bet_place(
            round_id=coup,
            patron=patron,
            stake_cents=1_000,
            bet={"type": "chance_simple", "chance": "rouge"},
            actor=ACTOR,
        )
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=2, actor=ACTOR)
    projections.catch_up_all()


def test_the_floors_query_count_does_not_grow_with_its_tables(pit_boss, cage, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    pit_boss.get(reverse("dashboard:floor-live"))  # the floor has read the ledger once
    _open_tables(2, start=1)
    with CaptureQueriesContext(connection) as two:
        assert pit_boss.get(reverse("dashboard:floor-live")).status_code == 200
    _open_tables(8, start=3)
    with django_assert_max_num_queries(len(two.captured_queries)):
        response = pit_boss.get(reverse("dashboard:floor-live"))
    assert len(card_codes(response.content.decode())) == 10


def test_a_coup_settled_after_a_refresh_shows_on_the_next_one(pit_boss, colour_patron):
    """The floor reads only the events appended since its last refresh (``_day_tail``): the
    next refresh still counts the new coup and alerts on its payout."""
    floor = reverse("dashboard:floor-live")

    def r1() -> dict[str, str]:
        return figures(card_of(pit_boss.get(floor).content.decode(), "R1"))

    assert r1()["coups-hour"] == "0"
    for number, stake in ((17, 1_000), (17, 5_000)):  # 35 × 10.00, then 35 × 50.00 en plein
        coup = round_open(table="R1", actor=ACTOR)["round"]
        bet = {"type": "plein", "numbers": [17]}
        bet_place(round_id=coup, patron=colour_patron, stake_cents=stake, chips="colour", bet=bet, actor=ACTOR)
        round_close_bets(round_id=coup, actor=ACTOR)
        round_record_result(round_id=coup, number=number, actor=ACTOR)
        projections.catch_up_all()
        html = pit_boss.get(floor).content.decode()
        card = card_of(html, "R1")
        assert figures(card)["coups-hour"] == str(1 if stake == 1_000 else 2)
        assert ('data-alert="payout"' in card) is (stake == 5_000)


def test_without_recorded_edges_caribbean_theory_is_the_rule_set_edge_on_the_antes_not_the_handle():
    """Bets settled before the engines wrote their edge: the theory falls back on the rule
    set's edge, per ante, so on the antes (1,000.00 EUR of a 3,000.00 EUR handle, the rest raises)."""
    stats = TableDayStats(table="C1", handle_cents=300_000, theoretical_win="0")
    edge, _ = house_edge("caribbean_stud", {})
    theory, source = one_table.theory("caribbean_stud", {}, stats, 100_000)
    assert theory == Fraction(edge) * 100_000 and source.endswith("on the antes staked")
    # Roulette's edge is per unit staked: on the handle.
    theory, _ = one_table.theory("english_roulette", {}, TableDayStats(handle_cents=370_000), 0)
    assert theory == Fraction(house_edge("english_roulette", {})[0]) * 370_000


def test_classic_stud_theory_is_the_rake_taken_and_its_rule_reads_as_a_percentage_with_its_cap():
    """Players play each other: the card's theory is the rake the hands took (the engines'
    figures), else the rake rule on the handle; the rule reads 2.5 %, not the stored 5/2."""
    edge = one_table.edge("classic_stud", {"rake_pct": "5/2", "rake_cap_cents": 500})
    assert edge["short"] == "rake 2.5 % of each pot, at most 5.00 EUR a hand"
    assert one_table.edge("classic_stud", {"rake_pct": 10})["short"] == "rake 10 % of each pot"
    stats = TableDayStats(table="S1", handle_cents=10_000, theoretical_win="7/2")
    theory, source = one_table.theory("classic_stud", {"rake_pct": 5}, stats, 0)
    assert theory == Fraction(7, 2) and source.startswith("the rake taken")
    theory, source = one_table.theory("classic_stud", {"rake_pct": 5}, TableDayStats(handle_cents=10_000), 0)
    assert theory == 500 and "5 % of each pot" in source

"""The effective edge, theoretical win ÷ handle (``games.theory.EFFECTIVE_EDGE``), is one
figure: the daily report (per table, per game, in total), the API's table statistics and the
floor's card show the same string for the same bets. Constructed black jack coups through the
HTTP API (card-reading shoe, default rules: 6 decks, edge per initial bet E): a doubled 10.00
and 20.00 with 10.00 insured: handle 50.00, theory 30.00 × E + 10.00 × 23/311 (insurance,
six decks). Cents; percentages in % with two decimals."""

from datetime import UTC, datetime
from fractions import Fraction

import pytest

from cashier.reports import table_games_daily_report
from dashboard.floor_cards import table_card
from dashboard.one_table import projection_lag
from games.models import Table as TableRow
from games.rules.blackjack_table import BlackjackTableRules
from ledger import projections
from ledger.models import Event
from tests.api.test_blackjack_cases import Table
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db

E = BlackjackTableRules.from_dict({}).edge()


def test_the_daily_report_the_table_statistics_and_the_floor_show_one_effective_edge(api, cage):
    bj = Table(api)
    p = make_patron(100_000)
    bj.coup([(p, 1, 1_000, True)])
    bj.cards("6S", "9D", "5H")
    bj.decide(p, "double")
    assert bj.cards("TC", "8C")["state"] == "settled"
    bj.coup([(p, 1, 2_000, True)])
    bj.cards("TS", "AS", "9H")
    bj.decide(p, "insurance", amount_cents=1_000)
    bj.decide(p, "stand")
    assert bj.cards("7D")["state"] == "settled"
    projections.catch_up_all()

    theory = 3_000 * E + 1_000 * Fraction(23, 311)
    hundredths = int(theory * 10_000 / 5_000 + Fraction(1, 2))
    expected = {
        "handle_cents": 5_000,
        "theoretical_win_cents": int(theory + Fraction(1, 2)),
        "theoretical_edge_pct": f"{hundredths // 100}.{hundredths % 100:02d}",
    }
    assert expected["theoretical_edge_pct"] == "1.85"  # (18.708 + 73.955) / 5000 cents: not the table's 0.62

    day = Event.objects.filter(type="BetSettled").first().gaming_day
    report = table_games_daily_report(day)
    assert {"handle_cents", "theoretical_win_cents", "theoretical_edge_pct"} <= set(report["columns"])
    for level, key in (("table", "B1"), ("game", "blackjack"), ("total", "all")):
        row = next(r for r in report["rows"] if (r["level"], r["key"], r["period"]) == (level, key, "day"))
        assert {name: row[name] for name in expected} == expected, (level, row)

    (stats,) = api.get("/api/stats/tables/").json()["results"]
    assert {name: stats[name] for name in expected} == expected

    card = table_card(TableRow.objects.get(code="B1"), day=day, now=datetime.now(UTC), lag=projection_lag())
    assert card["theoretical_edge_pct"] == expected["theoretical_edge_pct"]
    assert card["theoretical_win_cents"] == expected["theoretical_win_cents"]

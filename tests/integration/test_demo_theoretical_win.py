"""Theoretical win on the demo day (issue 28's acceptance): every table of the day has a
non-zero ``theoretical_win_cents`` in ``GET /api/stats/tables/``, and for every game a patron
who played it has a non-zero theoretical win in ``GET /api/ratings/``."""

import io

import pytest
from django.core.management import call_command

from games.models import Table
from ledger import projections
from ledger.models import Event

pytestmark = pytest.mark.django_db


def test_every_table_and_every_patron_of_the_demo_day_has_a_theoretical_win(api):
    """One demo day (kept small: 3 coups a card table, 4 spins), then both read APIs."""
    call_command(
        "demo", spins=4, patrons=2, blackjack_coups=3, stud_coups=3, baccarat_coups=3, tq_coups=3, seed=7,
        stdout=io.StringIO(),
    )  # fmt: skip
    projections.catch_up_all()
    games = dict(Table.objects.values_list("code", "game"))
    assert set(games.values()) == {"blackjack", "caribbean_stud", "baccarat", "trente_quarante", "english_roulette"}
    theo = {row["table"]: row["theoretical_win_cents"] for row in api.get("/api/stats/tables/").json()["results"]}
    assert set(theo) == set(games) and all(cents > 0 for cents in theo.values()), theo

    played: dict[str, set[str]] = {}
    for data in Event.objects.filter(type="BetSettled").values_list("data", flat=True):
        played.setdefault(games[data["table"]], set()).add(data["patron"])
    assert set(played) == set(games.values())
    ratings = {
        r["patron"]: r["theoretical_win_cents"] for r in api.get("/api/ratings/", {"page_size": 500}).json()["results"]
    }
    for game, patrons in played.items():
        assert all(ratings[p] > 0 for p in patrons), (game, {p: ratings.get(p) for p in patrons})

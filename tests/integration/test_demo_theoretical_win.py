"""Theoretical win on the demo day : every table of the day has a
non-zero ``theoretical_win_cents`` in ``GET /api/stats/tables/``, and for every game a patron
who played it has a non-zero theoretical win in ``GET /api/ratings/``. At classic stud, where
the players play each other, the theory is the rake the house took: the table's, and spread
hand by hand over what each player put in the pot."""

from fractions import Fraction

import pytest

from games.models import Table
from ledger import projections
from ledger.models import Event, PatronDayRating
from tests.integration.demo_days import play_small_demo_day

pytestmark = pytest.mark.django_db


def test_every_table_and_every_patron_of_the_demo_day_has_a_theoretical_win(api):
    """One demo day (kept small: 2 or 3 coups a card table, 4 spins), then both read APIs."""
    play_small_demo_day()
    projections.catch_up_all()
    games = dict(Table.objects.values_list("code", "game"))
    assert set(games.values()) == {
        "blackjack", "caribbean_stud", "classic_stud", "baccarat", "trente_quarante", "english_roulette",
    }  # fmt: skip
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

    # Classic stud: the table's theory is the rake taken that day, to the cent ...
    rake = sum(e.data["rake_cents"] for e in Event.objects.filter(type="RakeTaken", data__table="S1"))
    assert rake > 0 and theo["S1"] == rake
    # ... and its players' theories, exact, add up to it (each hand's rake over what each put in).
    players = played["classic_stud"]
    assert len(players) == 3
    exact = {r.patron: Fraction(r.theoretical_win) for r in PatronDayRating.objects.filter(patron__in=players)}
    assert sum(exact.values()) == rake
    assert all(ratings[p] == int(exact[p] + Fraction(1, 2)) for p in players), (ratings, exact)

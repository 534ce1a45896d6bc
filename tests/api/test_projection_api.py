"""The read side over HTTP: projection status, audit trails, table statistics, ratings."""

import pytest

pytestmark = pytest.mark.django_db


def test_projection_status_lists_every_projector_with_its_lag(api, played):
    rows = api.get("/api/projections/").json()["projections"]
    assert {r["projection"] for r in rows} == {"balances", "audit", "table_stats", "ratings"}
    assert {r["lag"] for r in rows} == {0}


def test_audit_trail_of_a_patron(api, played):
    code, _ = played
    response = api.get(f"/api/audit/patron/{code}/")
    assert response.status_code == 200
    summaries = [row["summary"] for row in response.json()["results"]]
    assert summaries == [
        f"patron {code} registered (identified)",
        f"{code} bought 1,000.00 EUR of chips at the cage",
        f"{code} bets 20.00 EUR on noir (even chance) (value chips)",
        f"{code}'s 20.00 EUR on noir (even chance): won, returns 40.00 EUR",
    ]
    assert all(len(row["hash"]) == 64 and row["position"] > 0 for row in response.json()["results"])
    assert api.get("/api/audit/dealer/x/").status_code == 404


def test_table_statistics_of_the_day(api, played):
    (row,) = api.get("/api/stats/tables/").json()["results"]
    assert (row["table"], row["win_cents"], row["handle_cents"], row["bets"], row["coups"], row["patron_count"]) == (
        "R1",
        -2_000,
        2_000,
        1,
        1,
        1,
    )
    assert row["hold_pct"] is None and row["average_bet_cents"] == 2_000
    # la partage: 1/37 on numbers, 1/74 on the even chances; 2,000 on noir → 1000/37 ≈ 27.03 cents
    assert (row["house_edge"], row["theoretical_win_cents"]) == ("0.027027", 27)
    assert "1/74" in row["house_edge_basis"]
    assert api.get("/api/stats/tables/", {"gaming_day": "not-a-day"}).json()["field"] == "gaming_day"


def test_patron_rating_of_the_day(api, played):
    code, _ = played
    (row,) = api.get("/api/ratings/", {"patron": code}).json()["results"]
    # 2,000 on an even chance under la partage: theoretical win 2,000 / 74 = 1000/37 ≈ 27.03 cents
    assert (row["bets"], row["staked_cents"], row["actual_win_cents"]) == (1, 2_000, -2_000)
    assert row["theoretical_win_cents"] == 27
    assert "theoretical_win" not in row  # the exact fraction stays in the ledger, never a client's text


def _client(username: str, *roles: str):
    from rest_framework.test import APIClient

    from tests.conftest import staff_user

    client = APIClient()
    client.force_authenticate(staff_user(username, *roles))
    return client


def test_only_an_administrator_may_start_a_rebuild(played):
    for role in ("pit_boss", "auditor", "cashier"):
        response = _client(f"{role}1", role).post("/api/projections/rebuild", {}, format="json")
        assert response.status_code == 403, role
    assert _client("admin1", "admin").get("/api/projections/rebuild").status_code == 403  # nobody reads it


def test_a_rebuild_of_an_unknown_projection_is_refused_naming_the_field(played):
    response = _client("admin1", "admin").post("/api/projections/rebuild", {"projections": ["jackpots"]}, format="json")
    assert response.status_code == 400
    assert response.json()["field"] == "projections"


def test_a_second_rebuild_while_one_runs_is_a_conflict(played):
    from django.utils import timezone

    from ledger.models import ProjectionRebuild

    ProjectionRebuild.objects.create(name="table_stats", state="running", queued_at=timezone.now())
    response = _client("admin1", "admin").post("/api/projections/rebuild", {}, format="json")
    assert response.status_code == 409
    assert "table_stats is already running" in response.json()["detail"]

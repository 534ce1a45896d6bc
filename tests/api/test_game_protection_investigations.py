"""Game protection over the API and on the pit boss's pages: a table day far from theory in
exact standard deviations shows on the floor and in the exception log; its investigation is
opened, noted and closed by a second person (403 for another role or the opener, 409 twice)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games.services import investigations as inv
from ledger.gaming_day import current_gaming_day
from tests.conftest import make_patron, staff_user
from tests.integration.test_game_protection_by_exact_variance import COUPS, _play

pytestmark = pytest.mark.django_db

URL = "/api/protection/investigations/"


def _client(username: str, *roles: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff_user(username, *roles))
    return client


@pytest.fixture
def rigged(table) -> str:
    """R1's day: 12 straight-up hits in 120 coups (−4.93 SD); the patron's code."""
    patron = make_patron(1_000_000)
    _play(patron, hits=12)
    return patron


def test_the_days_figures_in_standard_deviations(rigged):
    body = _client("aud1", "auditor").get("/api/protection/fluctuations/").json()
    (row,) = body["tables"]
    assert body["z_limit"] == "3" and body["min_bets"] == 100
    assert row["table"] == "R1" and row["bets"] == COUPS and row["win_cents"] == -312_000
    assert row["theoretical_win_cents"] == "120000/37"
    assert row["z"] == "-4.9295" and row["alarm"] is True
    assert body["patrons"][0]["patron"] == rigged and body["patrons"][0]["alarm"] is True
    assert _client("dealer1", "dealer").get("/api/protection/fluctuations/").status_code == 403
    assert _client("aud1b", "auditor").get("/api/protection/fluctuations/?gaming_day=soon").status_code == 400


def test_open_note_and_close_by_a_second_person(rigged):
    boss, boss2 = _client("boss", "pit_boss"), _client("boss2", "pit_boss")
    opened = boss.post(URL, {"subject": "table", "code": "R1", "reason": "win far below theory"}, format="json")
    assert opened.status_code == 201, opened.json()
    key = opened.json()["investigation"]
    again = boss2.post(URL, {"subject": "table", "code": "R1", "reason": "same"}, format="json")
    assert again.status_code == 409
    assert _client("cash1", "cashier").post(f"{URL}{key}/notes", {"note": "x"}, format="json").status_code == 403
    assert _client("aud1", "auditor").post(f"{URL}{key}/close", {"finding": "x"}, format="json").status_code == 403
    assert boss.post(f"{URL}{key}/notes", {"note": ""}, format="json").status_code == 400
    noted = boss.post(f"{URL}{key}/notes", {"note": "camera: dealer signature on 17"}, format="json")
    assert noted.status_code == 201
    by_opener = boss.post(f"{URL}{key}/close", {"finding": "dealer moved"}, format="json")
    assert by_opener.status_code == 403
    closed = boss2.post(f"{URL}{key}/close", {"finding": "dealer moved to another pit"}, format="json")
    assert closed.status_code == 200 and closed.json()["state"] == "closed"
    twice = _client("adm1", "admin").post(f"{URL}{key}/close", {"finding": "again"}, format="json")
    assert twice.status_code == 409
    case = boss.get(f"{URL}{key}/").json()
    assert case["opened_by"] == "boss" and case["closed_by"] == "boss2"
    assert case["figures"]["z"] == "-4.93" and [n["by"] for n in case["notes"]] == ["boss"]
    assert boss.post(URL, {"subject": "wheel", "code": "R1", "reason": "x"}, format="json").status_code == 400
    assert boss.get(f"{URL}00000000-0000-4000-8000-000000000000/").status_code == 404


def test_the_exception_log_lists_the_alarm_and_its_investigation(rigged):
    day = current_gaming_day()
    (table_case, _patron_case) = sorted(inv.raise_alarms(day), key=lambda k: inv.investigation(k)["subject"] != "table")
    inv.note_investigation(key=table_case, actor="boss", note="rotor checked")
    inv.close_investigation(key=table_case, actor="boss2", finding="rotor levelled")
    log = _client("aud1", "auditor").get("/api/audit/exceptions/?kind=fluctuation").json()
    whats = [r["what"] for r in log["rows"] if r["table"] == "R1" and r["subject"].startswith("table")]
    assert whats == [
        "table R1: house win -3,120.00 EUR against 32.43 EUR in theory over 120 bets, -4.93 standard deviations, "
        "beyond ±3",
        f"investigation opened of table R1, gaming day {day} by the house's alarm, -4.93 standard deviations "
        "from theory: beyond the house's confidence",
        f"investigation of table R1, gaming day {day}: boss looked: rotor checked",
        f"investigation of table R1, gaming day {day} closed by boss2: rotor levelled",
    ]


def test_the_floor_shows_the_alarm_and_the_page_works_the_investigation(rigged, client):
    boss = staff_user("boss", "pit_boss")
    client.force_login(boss)
    floor = client.get(reverse("dashboard:floor")).content.decode()
    assert 'data-alert="fluctuation">house win -3,120.00 EUR against 32.43 EUR in theory over 120 bets: ' in floor
    assert "−4.93 SD, beyond ±3 SD of the bets&#x27; exact variance" in floor
    assert "open an investigation</a>" in floor
    page = client.get(reverse("dashboard:protection")).content.decode()
    assert "−4.93 SD" in page and "alarm" in page
    opened = client.post(reverse("dashboard:investigation-open"), {"subject": "table", "code": "R1", "reason": "far"})
    assert opened.status_code == 302
    key = opened["Location"].rstrip("/").split("/")[-1]
    assert client.post(reverse("dashboard:investigation-note", args=[key]), {"note": "looked"}).status_code == 302
    refused = client.post(reverse("dashboard:investigation-close", args=[key]), {"finding": "fine"})
    assert refused.status_code == 403 and "a second person closes it" in refused.content.decode()
    client.force_login(staff_user("boss2", "pit_boss"))
    assert client.post(reverse("dashboard:investigation-close", args=[key]), {"finding": "fine"}).status_code == 302
    shown = client.get(reverse("dashboard:investigation", args=[key])).content.decode()
    assert (
        "Closed by boss2" in shown
        and "“fine” — boss2" in shown
        and key not in shown.split("<main")[-1].replace(f"/protection/investigations/{key}/", "")
    )
    floor = client.get(reverse("dashboard:floor")).content.decode()
    assert "open an investigation</a>" in floor  # closed: the alarm stands, a new one may be opened
    dealer = APIClient()
    dealer.force_login(staff_user("dealer1", "dealer"))
    assert dealer.get(reverse("dashboard:protection")).status_code == 403


def test_an_auditor_reads_a_past_gaming_day_of_game_protection(rigged, client):
    today = current_gaming_day()
    client.force_login(staff_user("audit1", "auditor"))

    shown = client.get(reverse("dashboard:protection"), {"gaming_day": today.isoformat()}).content.decode()
    assert "−4.93 SD" in shown and f'value="{today.isoformat()}"' in shown

    before = today - timedelta(days=1)
    past = client.get(reverse("dashboard:protection"), {"gaming_day": before.isoformat()})
    assert past.status_code == 200
    page = past.content.decode()
    assert f"Game protection — gaming day {before.isoformat()} (closed or past)" in page
    assert "−4.93 SD" not in page and "No bet decided on this gaming day." in page

    assert client.get(reverse("dashboard:protection"), {"gaming_day": "06/12/2026"}).status_code == 404
    after = (today + timedelta(days=1)).isoformat()
    assert client.get(reverse("dashboard:protection"), {"gaming_day": after}).status_code == 404
    audit_day = client.get(reverse("workstations:audit-day", args=[today.isoformat()])).content.decode()
    assert f'/dashboard/protection/?gaming_day={today.isoformat()}">Game protection</a>' in audit_day

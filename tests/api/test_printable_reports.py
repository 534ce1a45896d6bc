"""Printable, signable reports: the daily table-games report, the cage
accountability and the variance report as HTML (print stylesheet) and PDF (WeasyPrint).
The PDF's text (pdftotext) holds the JSON report's totals to the cent; a page image
(pdftoppm) goes to var/artifacts/."""

import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from rest_framework.test import APIClient

from cashier.services.slips import slip_accept, slip_issue, slip_request
from dashboard.alerts import eur
from games.services.bets import bet_place
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_buy_in
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, grant
from tests.conftest import ACTOR, SHIFT_CASHIER, make_patron

pytestmark = pytest.mark.django_db
ARTIFACTS = Path(settings.BASE_DIR) / "var" / "artifacts"
needs_poppler = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils: scripts/setup.sh dev")


@pytest.fixture
def day_played(table, django_user_model):
    """R1: a 300.00 EUR buy-in at the table, a 3,000.00 EUR fill, a 20.00 EUR even-chance bet lost."""
    for name, role in {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "run1": Role.RUNNER}.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    patron = make_patron(10_000)
    table_buy_in(code="R1", patron=patron, amount_cents=30_000, actor=ACTOR)
    serial = slip_request(kind="fill", table="R1", denominations={"10000": 30}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=serial, runner="run1", actor=SHIFT_CASHIER)
    slip_accept(kind="fill", serial=serial, actor="pit2", count={"10000": 30})
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(
        round_id=coup, patron=patron, stake_cents=2_000, bet={"type": "chance_simple", "chance": "rouge"}, actor=ACTOR
    )
    round_close_bets(round_id=coup, actor=ACTOR)
    round_record_result(round_id=coup, number=2, actor=ACTOR)
    return current_gaming_day().isoformat()


@pytest.fixture
def supervisor(client, django_user_model):
    user = django_user_model.objects.create_user(username="super1", password="x")
    grant(user, Role.CAGE_SUPERVISOR)
    client.force_login(user)
    return client


def _json(report: str, day: str, user) -> dict:
    api = APIClient()
    api.force_authenticate(user)
    response = api.get(f"/api/reports/{report}", {"gaming_day": day})
    assert response.status_code == 200
    return response.json()


@needs_poppler
def test_the_daily_report_pdf_holds_the_json_totals_to_the_cent(supervisor, day_played, django_user_model, tmp_path):
    report = _json("table-games", day_played, django_user_model.objects.get(username="super1"))
    (total,) = [r for r in report["rows"] if r["level"] == "total" and r["period"] == "day"]
    response = supervisor.get(reverse("workstations:report-pdf", args=["table-games"]), {"gaming_day": day_played})
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pdf = tmp_path / "table-games.pdf"
    pdf.write_bytes(response.content)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    day_section = text[text.index("Day") : text.index("Month to date")]
    (line,) = [line for line in day_section.splitlines() if line.strip().startswith("All tables")]
    figures = ("opener_cents", "fills_cents", "credits_cents", "drop_cents", "closer_cents", "colour_out_cents")
    for figure in (*figures, "win_cents"):
        assert eur(total[figure]) in line, (figure, line)
    assert total["fills_cents"] == 300_000 and total["drop_cents"] == 30_000
    assert f"{total['hold_pct']} %" in line
    for words in ("Table games daily report", "Casino", f"gaming day {day_played}", "Pit manager", "Auditor (review)"):
        assert words in text, words
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", str(pdf), str(ARTIFACTS / "report-table-games")],
        check=True,
    )
    assert (ARTIFACTS / "report-table-games-1.png").exists()
    assert "English roulette" in " ".join(text.split())


def test_an_empty_day_says_no_activity_in_every_report(supervisor, cage_float):
    for slug in ("table-games", "cage-accountability", "variances"):
        html = supervisor.get(
            reverse("workstations:report", args=[slug]), {"gaming_day": "2001-01-01"}
        ).content.decode()
        assert "No activity" in html, slug
        assert "name, signature, date" in html and "version " in html


def test_the_cage_report_prints_the_shift_counts_and_its_signatures(supervisor, day_played):
    html = supervisor.get(reverse("workstations:report", args=["cage-accountability"])).content.decode()
    assert "<td>opening</td><td>shift-cashier</td>" in html
    assert "<div>Cashier<span>" in html and "<div>Cage supervisor<span>" in html


@needs_poppler
def test_the_cage_report_pdf_splits_cash_and_chip_movements_without_account_names(
    supervisor, day_played, django_user_model, tmp_path
):
    report = _json("cage-accountability", day_played, django_user_model.objects.get(username="super1"))
    (moved,) = [row for row in report["rows"] if row["line"] == "movements"]
    assert (moved["chip_sales_cents"], moved["chips_sold_cents"], moved["fills_cents"]) == (10_000, -10_000, -300_000)
    response = supervisor.get(
        reverse("workstations:report-pdf", args=["cage-accountability"]), {"gaming_day": day_played}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pdf = tmp_path / "cage.pdf"
    pdf.write_bytes(response.content)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "cage:cash" not in text and "cage:chips" not in text
    cash = text[text.index("Cash movements") : text.index("Chip movements")]
    chips = text[text.index("Chip movements") : text.index("name, signature, date")]
    line = {
        name: " ".join(next(ln for ln in part.splitlines() if name in ln).split())
        for part, name in (
            (cash, "Chip sales (cash in)"),
            (cash, "Float from the house bankroll"),
            (cash, "Total cash movements"),
            (chips, "Chips sold (chips out)"),
            (chips, "Fills to the tables"),
            (chips, "Total chip movements"),
        )
    }
    assert line["Chip sales (cash in)"].endswith("100.00 EUR")
    assert line["Float from the house bankroll"].endswith(eur(moved["bankroll_cash_cents"]))
    assert line["Total cash movements"].endswith(eur(moved["bankroll_cash_cents"] + 10_000))
    assert line["Chips sold (chips out)"].endswith("-100.00 EUR")
    assert line["Fills to the tables"].endswith("-3,000.00 EUR")
    assert line["Total chip movements"].endswith(eur(moved["bankroll_chips_cents"] - 10_000 - 300_000))
    assert "Fills" not in cash and "Chip sales" not in chips
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["pdftoppm", "-png", "-r", "80", "-f", "1", "-l", "1", str(pdf), str(ARTIFACTS / "report-cage-accountability")],
        check=True,
    )
    assert (ARTIFACTS / "report-cage-accountability-1.png").exists()


@pytest.mark.parametrize("role", [Role.DEALER, Role.RUNNER, Role.COUNT_TEAM])
def test_roles_that_sign_nothing_get_403(client, django_user_model, cage_float, role):
    user = django_user_model.objects.create_user(username="other", password="x")
    grant(user, role)
    client.force_login(user)
    assert client.get(reverse("workstations:report", args=["variances"])).status_code == 403
    assert client.get(reverse("workstations:report-pdf", args=["variances"])).status_code == 403


@pytest.mark.parametrize(
    ("role", "url", "name"),
    [
        (Role.PIT_BOSS, "/dashboard/", "the floor"),
        (Role.CASHIER, "/workstations/cage/", "the cage workstation"),
        (Role.CAGE_SUPERVISOR, "/workstations/cage/", "the cage workstation"),
        (Role.AUDITOR, "/workstations/audit/", "the audit workstation"),
    ],
)
def test_a_report_leads_back_to_its_readers_own_page(client, django_user_model, cage_float, role, url, name):
    user = django_user_model.objects.create_user(username="reader", password="x")
    grant(user, role)
    client.force_login(user)
    html = client.get(reverse("workstations:report", args=["table-games"])).content.decode()
    assert f'<a id="landing" href="{url}">Back to {name}</a>' in html
    assert client.get(url).status_code == 200  # the link opens, never a 403

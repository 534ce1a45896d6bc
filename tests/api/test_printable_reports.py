"""Printable, signable reports: the daily table-games report, the cage
accountability and the variance report as HTML (print stylesheet) and PDF (WeasyPrint).
The PDF's text (pdftotext) holds the JSON report's totals to the cent; a page image
(pdftoppm) goes to var/artifacts/."""

import re
import shutil
import subprocess
from datetime import timedelta
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
from workstations import printable

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


def test_the_cage_links_open_the_cage_report_of_the_day_being_played_not_the_last_closed(supervisor, day_played):
    from cashier.services.gaming_day import gaming_day_close
    from ledger.gaming_day import current_gaming_day

    today = current_gaming_day()
    gaming_day_close(gaming_day=(today - timedelta(days=1)).isoformat(), actor="super1")
    desk = supervisor.get(reverse("workstations:cage")).content.decode()
    link = reverse("workstations:report", args=["cage-accountability"]) + "?gaming_day=today"
    assert f'href="{link}"' in desk
    html = supervisor.get(link).content.decode()
    assert f'<option value="{today.isoformat()}" selected' in html or f"gaming day {today.isoformat()}" in html
    assert "<td>opening</td><td>shift-cashier</td>" in html  # today's shift, not the closed day's nothing


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
def test_the_cage_report_pdf_lays_out_cash_and_chips_as_opening_in_out_closing_without_account_names(
    supervisor, day_played, django_user_model, tmp_path
):
    report = _json("cage-accountability", day_played, django_user_model.objects.get(username="super1"))
    (moved,) = [row for row in report["rows"] if row["line"] == "movements"]
    assert (moved["chip_sales_cents"], moved["chips_sold_cents"], moved["fills_cents"]) == (10_000, -10_000, -300_000)
    assert report["opening"] == {"cage_cash_cents": 0, "cage_chips_cents": 0}  # the float came in this day
    response = supervisor.get(
        reverse("workstations:report-pdf", args=["cage-accountability"]), {"gaming_day": day_played}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    pdf = tmp_path / "cage.pdf"
    pdf.write_bytes(response.content)
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "cage:cash" not in text and "cage:chips" not in text
    cash = text[text.index("Cash") : text.index("Value chips")]
    chips = text[text.index("Value chips") : text.index("Cashier shifts")]
    line = {
        (side, name): " ".join(next(ln for ln in part.splitlines() if name in ln).split())
        for side, part in (("cash", cash), ("chips", chips))
        for name in ("Opening book", "Float from the house bankroll", "Total in", "Total out", "Closing book")
    }
    line |= {
        name: " ".join(next(ln for ln in part.splitlines() if name in ln).split())
        for part, name in (
            (cash, "Chip sales (cash in)"),
            (chips, "Chips sold (chips out)"),
            (chips, "Fills to the tables"),
        )
    }
    float_cash, float_chips = moved["bankroll_cash_cents"], moved["bankroll_chips_cents"]
    assert line["cash", "Opening book"].endswith("0.00 EUR")
    assert line["cash", "Float from the house bankroll"].endswith(eur(float_cash))
    assert line["Chip sales (cash in)"].endswith("100.00 EUR")
    assert line["cash", "Total in"] == f"+ Total in {eur(float_cash + 10_000)}"
    assert line["cash", "Closing book"].endswith(eur(report["book"]["cage_cash_cents"]))
    assert report["book"]["cage_cash_cents"] == float_cash + 10_000
    assert line["Chips sold (chips out)"].endswith(" 100.00 EUR")  # out of the cage: a positive line
    assert line["Fills to the tables"].endswith(" 3,000.00 EUR")
    assert line["chips", "Total out"] == f"− Total out {eur(310_000)}"
    assert line["chips", "Closing book"] == f"= Closing book (end of the day) {eur(float_chips - 310_000)}"
    assert report["book"]["cage_chips_cents"] == float_chips - 310_000
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


# --- the cage report adds up: opening + in − out = closing ---------------------------------------

# Two zones 26 hours apart: the same instant is on an earlier gaming day in the first.
EARLY_ZONE, LATE_ZONE = "Etc/GMT+12", "Etc/GMT-14"


def _cents(text: str) -> int:
    """``"61,103.05 EUR"`` → ``6110305``."""
    found = re.fullmatch(r"(-?)([\d,]+)\.(\d\d) EUR", re.sub(r"<[^>]+>", "", text).strip())
    assert found is not None, text
    sign, units, hundredths = found.groups()
    return (-1 if sign else 1) * (int(units.replace(",", "")) * 100 + int(hundredths))


@pytest.fixture
def two_cage_days(settings, django_user_model, supervisor):
    """A cage whose book carries over from one gaming day to the next. The first day (zone
    EARLY_ZONE): the float (100,000.00 EUR of cash and of chips), a window, table R1, a patron
    buying 2,500.00 EUR of chips. The next day (zone LATE_ZONE): the window handed over to cash1,
    who sells 4,760.50, redeems 1,200.00, has a 300.00 sale reversed, issues a 3,000.00 fill that
    the pit accepts, counts in a 400.00 credit and closes her window 10.00 short. Returns
    ``(day, opening)``: the later day and the book ``{"cash", "chips"}`` at the end of the first."""
    from cashier.services.cage import cage_open, chips_purchase, chips_redeem
    from cashier.services.cage_corrections import cage_transaction_reverse
    from cashier.services.cage_shifts import cage_shift_close
    from games.services.tables import table_open
    from ledger import accounts, store
    from tests.conftest import drawer_count, hand_cage_to, open_cage_shift

    staff = {"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "run1": Role.RUNNER, "cash1": Role.CASHIER}
    for name, role in staff.items():
        grant(django_user_model.objects.create_user(username=name, password="x"), role)
    settings.CASINO_TIMEZONE, settings.GAMING_DAY_START = EARLY_ZONE, "00:00"
    early = current_gaming_day()
    cage_open(cash_cents=10_000_000, chips_cents=10_000_000, actor=ACTOR)
    open_cage_shift()
    table_open(code="R1", game="english_roulette", opener_cents=5_000_000, actor=ACTOR, rules={})
    patron = make_patron(250_000)
    opening = {"cash": store.balance(accounts.CAGE_CASH), "chips": store.balance(accounts.CAGE_CHIPS)}

    settings.CASINO_TIMEZONE = LATE_ZONE
    day = current_gaming_day()
    assert day > early
    window = hand_cage_to("cash1")["window"]
    chips_purchase(patron=patron, amount_cents=476_050, actor="cash1")
    chips_redeem(patron=patron, amount_cents=120_000, actor="cash1")
    mistake = chips_purchase(patron=patron, amount_cents=30_000, actor="cash1")["event"]
    cage_transaction_reverse(event=mistake, reason="typed twice", approver="super1", actor="cash1")
    fill = slip_request(kind="fill", table="R1", denominations={"10000": 30}, actor="pit1")["serial"]
    slip_issue(kind="fill", serial=fill, runner="run1", actor="cash1")
    slip_accept(kind="fill", serial=fill, actor="pit2", count={"10000": 30})
    credit = slip_request(kind="credit", table="R1", denominations={"10000": 4}, actor="pit1")["serial"]
    slip_issue(kind="credit", serial=credit, runner="run1", actor="cash1")
    slip_accept(kind="credit", serial=credit, actor="cash1", count={"10000": 4})
    count = drawer_count(window)
    smallest = min(count["cash"], key=int)  # one note of it missing
    count["cash"][smallest] -= 1
    cage_shift_close(**count, actor="cash1", variance_reason="a note missing")
    return day, opening


def test_the_cage_report_adds_opening_plus_in_minus_out_up_to_the_closing_book_in_words(supervisor, two_cage_days):
    from ledger import accounts, store

    day, opening = two_cage_days
    html = supervisor.get(
        reverse("workstations:report", args=["cage-accountability"]), {"gaming_day": day.isoformat()}
    ).content.decode()
    # No internal key on the page: every movement in people's words.
    for key in ("reversals_cash", "reversals_chips", "window_cash_variances", "_cents", "bankroll_"):
        assert key not in html, key
    assert "Reversals (cash)" in html and "Reversals (chips)" in html
    assert "Cashier windows counted over or short (cash)" in html
    assert printable.OTHER_MOVEMENTS not in html  # every movement of the day has its kind
    closing = {"cash": store.balance(accounts.CAGE_CASH), "chips": store.balance(accounts.CAGE_CHIPS)}
    assert opening["cash"] > 0 and closing["cash"] != opening["cash"]
    for side in ("cash", "chips"):
        table = re.search(rf'data-section="book-{side}".*?</table>', html, re.S).group(0)
        figure = {
            name: _cents(re.search(rf'data-figure="{name}-{side}">(.*?)</td>', table, re.S).group(1))
            for name in ("opening", "in", "out", "book")
        }
        # Each line labelled; the lines of a part add up to its total.
        parts = re.split(r"Out: out of the cage this day", table)
        lines = [
            [_cents(amount) for amount in re.findall(r'<tr class="item">.*?<td class="num">(.*?)</td>', part, re.S)]
            for part in parts
        ]
        assert (sum(lines[0]), sum(lines[1])) == (figure["in"], figure["out"])
        assert figure["opening"] == opening[side]
        assert figure["opening"] + figure["in"] - figure["out"] == figure["book"] == closing[side]
    # What the day moved, as the cashier did it (cents): the cash side's lines.
    cash = re.search(r'data-section="book-cash".*?</table>', html, re.S).group(0)
    assert re.search(
        r"Chip sales \(cash in\)</th><td class=\"num\">5,060\.50 EUR", cash
    )  # the 300.00 reversed stays sold
    assert re.search(r"Reversals \(cash\)</th><td class=\"num\">300\.00 EUR", cash)


def test_every_cage_movement_has_its_label_in_words():
    from cashier.reports import CAGE_MOVEMENTS

    for name, _, _ in CAGE_MOVEMENTS:
        label = printable.CAGE_MOVEMENT_NAMES[name]
        assert "_" not in label and label[0].isupper(), name

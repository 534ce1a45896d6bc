"""Reports as spreadsheets: each CSV loads with ``csv.DictReader`` as a table whose
first row is the header, amounts in currency units with a currency column, booleans as
true/false, games as people write them; its metadata apart; the XLSX holds both."""

import csv
import io
from decimal import Decimal

import pytest
from openpyxl import load_workbook
from rest_framework.test import APIClient

from staff.roles import Role

from .test_printable_reports import day_played  # noqa: F401 - the fixture: a day of R1

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader(django_user_model):
    from staff.roles import grant

    user = django_user_model.objects.create_user(username="aud1", password="x")
    grant(user, Role.AUDITOR)
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_daily_report_csv_is_a_table_whose_total_matches_the_json(reader, day_played):  # noqa: F811
    report = reader.get("/api/reports/table-games", {"gaming_day": day_played}).json()
    (total,) = [r for r in report["rows"] if r["level"] == "total" and r["period"] == "day"]
    text = reader.get("/api/reports/table-games.csv", {"gaming_day": day_played}).content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0].startswith("level,key,game,opener (day),opener (month to date),")
    (line,) = [r for r in rows if r["level"] == "total"]
    assert Decimal(line["win (day)"]) * 100 == total["win_cents"]
    assert Decimal(line["drop (day)"]) == Decimal("300.00") and line["currency"] == "EUR"
    assert line["hold pct (day)"] == total["hold_pct"]
    (table,) = [r for r in rows if r["level"] == "table"]
    assert table["game"] == "English roulette"
    assert (table["open (day)"], table["drop counted (day)"]) == ("true", "false")


def test_the_cage_csv_carries_the_book_the_json_has(reader, day_played):  # noqa: F811
    report = reader.get("/api/reports/cage-accountability").json()
    rows = list(csv.DictReader(io.StringIO(reader.get("/api/reports/cage-accountability.csv").content.decode())))
    (book,) = [r for r in rows if r["line"] == "book_end_of_day"]
    assert Decimal(book["book cage cash"]) * 100 == report["book"]["cage_cash_cents"]
    assert Decimal(book["book cage chips"]) * 100 == report["book"]["cage_chips_cents"]


def test_the_xlsx_has_the_table_first_and_the_metadata_on_its_own_sheet(reader, day_played):  # noqa: F811
    response = reader.get("/api/reports/variances.xlsx", {"gaming_day": day_played, "threshold_cents": 0})
    assert response.status_code == 200
    book = load_workbook(io.BytesIO(response.content))
    assert book.sheetnames == ["Report", "About"]
    header = [c.value for c in next(book["Report"].iter_rows(max_row=1))]
    assert header == ["kind", "subject", "event", "occurred at", "actor", "variance", "investigate", "currency"]
    about = {row[0]: row[1] for row in book["About"].iter_rows(min_row=2, values_only=True)}
    assert about["title"] == "Variance list" and about["currency"] == "EUR"

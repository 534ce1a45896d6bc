"""The gaming-day export over HTTP (auditor's zip) and an AML refusal through the cage API."""

import csv
import io
import zipfile

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from cashier.services.cage import chips_purchase
from ledger.export.verify_export import verify
from ledger.gaming_day import current_gaming_day
from ledger.seal import seal_gaming_day
from patrons.services.patrons import patron_register
from staff.roles import grant
from tests.conftest import ACTOR, hand_cage_to, make_patron

pytestmark = pytest.mark.django_db


def _client(name: str, *roles: str) -> APIClient:
    user = get_user_model().objects.create_user(username=name, password="x")
    grant(user, *roles)
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def sealed_day(cage) -> str:
    """A day with an identified patron's 3,500 EUR purchase (identity checked and logged), sealed."""
    chips_purchase(patron=make_patron(), amount_cents=350_000, actor=ACTOR)
    day = current_gaming_day()
    seal_gaming_day(day=day, actor=ACTOR)
    return day.isoformat()


def _download(client: APIClient, day: str, tmp_path) -> tuple[object, dict[str, list[list[str]]]]:
    response = client.get(f"/api/exports/gaming-days/{day}.zip")
    if response.status_code != 200:
        return response, {}
    assert response.streaming and response["Content-Type"] == "application/zip"
    path = tmp_path / "day.zip"
    path.write_bytes(b"".join(response.streaming_content))
    assert verify(str(path)).ok, verify(str(path)).message
    with zipfile.ZipFile(path) as archive:
        files = {
            name: list(csv.reader(io.StringIO(archive.read(name).decode())))
            for name in archive.namelist()
            if name.endswith(".csv")
        }
    return response, files


def test_an_auditor_downloads_a_verifiable_zip_with_identities(sealed_day, tmp_path):
    response, files = _download(_client("aud", "auditor"), sealed_day, tmp_path)
    assert response.status_code == 200
    header, *rows = files["aml.csv"]
    records = [dict(zip(header, row, strict=True)) for row in rows]  # a plain table, the header first
    logged = next(r for r in records if r["record"] == "transaction_logged")
    assert (logged["amount"], logged["currency"], logged["threshold"]) == ("3500.00", "EUR", "3000.00")
    assert (logged["identity_status"], logged["identity_name"], logged["identity_document"]) == (
        "on_file",
        "Test Patron",
        "ID-TEST-000001",
    )
    assert [r["record"] for r in records].count("day_total") == 1


def test_an_admin_gets_the_export_with_identities_withheld(sealed_day, tmp_path):
    response, files = _download(_client("adm", "admin"), sealed_day, tmp_path)
    assert response.status_code == 200
    header, *rows = files["aml.csv"]
    status, name = header.index("identity_status"), header.index("identity_name")
    assert {row[status] for row in rows} == {"withheld"} and {row[name] for row in rows} == {""}


@pytest.mark.parametrize("roles", [("pit_boss",), ("cashier", "cage_supervisor"), ()])
def test_other_roles_are_refused(sealed_day, roles):
    assert _client("someone", *roles).get(f"/api/exports/gaming-days/{sealed_day}.zip").status_code == 403


def test_anonymous_requests_need_a_login(sealed_day):
    assert APIClient().get(f"/api/exports/gaming-days/{sealed_day}.zip").status_code == 401


def test_a_malformed_day_is_400_and_an_empty_day_404(cage):
    auditor = _client("aud", "auditor")
    bad = auditor.get("/api/exports/gaming-days/2026-13-45.zip")
    assert bad.status_code == 400 and bad.json()["field"] == "day"
    assert auditor.get("/api/exports/gaming-days/2001-01-01.zip").status_code == 404


def test_the_export_of_a_day_still_open_is_409_saying_why_until_it_is_sealed(cage, tmp_path):
    """As the auditor's pages offer exports only for sealed days: an open day's would be a
    partial range, changing with each event, that no seal signs."""
    chips_purchase(patron=make_patron(), amount_cents=10_000, actor=ACTOR)
    day = current_gaming_day().isoformat()
    auditor = _client("aud", "auditor")
    response = auditor.get(f"/api/exports/gaming-days/{day}.zip")
    assert response.status_code == 409 and not getattr(response, "streaming", False)
    body = response.json()
    assert (body["error"], body["field"]) == ("state_conflict", "day")
    assert (
        body["detail"]
        == f"no export of gaming day {day}: the day is open and not sealed (a day is sealed when it closes)"
    )

    seal_gaming_day(day=current_gaming_day(), actor=ACTOR)
    response, files = _download(auditor, day, tmp_path)
    assert response.status_code == 200 and "aml.csv" in files


def test_a_purchase_over_the_identity_threshold_is_refused_with_409_naming_it(cage):
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    cashier = _client("cash1", "cashier")
    hand_cage_to("cash1")  # the selling cashier's own shift
    response = cashier.post("/api/cage/purchases", {"patron": nameless, "amount_cents": 200_000}, format="json")
    assert response.status_code == 409
    body = response.json()
    assert body["error"] == "aml_identity_required" and body["field"] == "patron"
    assert "2,000.00 EUR or more" in body["detail"]
    ok = cashier.post("/api/cage/purchases", {"patron": nameless, "amount_cents": 199_999}, format="json")
    assert ok.status_code == 201


def test_the_cage_records_an_identity_then_the_purchase_passes(cage):
    nameless = patron_register(kind="identified", name="No papers", actor=ACTOR)["patron"]
    cashier = _client("cash1", "cashier")
    hand_cage_to("cash1")  # the selling cashier's own shift
    identity = {"name": "Jeanne Martin", "document": "FR-CNI 880492"}
    assert _client("pit", "pit_boss").post(f"/api/patrons/{nameless}/identity", identity).status_code == 403
    blank = cashier.post(f"/api/patrons/{nameless}/identity", {"name": "Jeanne Martin"}, format="json")
    assert blank.status_code == 400 and blank.json()["field"] == "document"
    recorded = cashier.post(f"/api/patrons/{nameless}/identity", identity, format="json")
    assert recorded.status_code == 201 and recorded.json()["patron"] == nameless
    response = cashier.post("/api/cage/purchases", {"patron": nameless, "amount_cents": 200_000}, format="json")
    assert response.status_code == 201
    unknown = cashier.post("/api/patrons/P99999/identity", identity, format="json")
    assert unknown.status_code == 404 and unknown.json()["field"] == "patron"

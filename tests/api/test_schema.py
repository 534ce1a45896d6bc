"""The published API description and the health endpoint."""

import pytest
import yaml
from rest_framework.test import APIClient

from ledger.models import Event
from ledger.projections import catch_up

pytestmark = pytest.mark.django_db

MAIN_PATHS = [
    "/api/patrons/",
    "/api/patrons/register",
    "/api/patrons/{code}/",
    "/api/cage/open",
    "/api/cage/purchases",
    "/api/cage/redemptions",
    "/api/tables/",
    "/api/tables/{code}/opener",
    "/api/tables/{code}/closer",
    "/api/tables/{code}/colour-chips",
    "/api/tables/{code}/change-inverse",
    "/api/tables/{code}/rounds",
    "/api/rounds/{id}/",
    "/api/rounds/{round_id}/bets",
    "/api/rounds/{round_id}/close-bets",
    "/api/rounds/{round_id}/result",
    "/api/rounds/{round_id}/void",
    "/api/events/",
    "/api/balances/",
    "/api/health/",
    "/api/audit/exceptions/",
]


def test_schema_lists_the_main_paths(api):
    """GET /api/schema/ is 200, an OpenAPI 3 document with every main path; the write
    commands are POSTs that take an Idempotency-Key header."""
    response = api.get("/api/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    missing = [p for p in MAIN_PATHS if p not in schema["paths"]]
    assert not missing, f"paths missing from the schema: {missing}"
    assert "/api/tables/{code}/open" not in schema["paths"]  # no endpoint opens on an uncounted total
    bets = schema["paths"]["/api/rounds/{round_id}/bets"]["post"]
    assert "Idempotency-Key" in [p["name"] for p in bets.get("parameters", [])]
    # The bet request names its fields; money is an integer (cents), never a number.
    ref = bets["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert {"patron", "stake_cents", "chips", "bet", "announce"} <= set(request["properties"])
    assert request["properties"]["stake_cents"]["type"] == "integer"


def test_schema_as_json(api):
    """?format=json gives the same document as JSON."""
    response = api.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    assert "/api/health/" in response.json()["paths"]


def test_docs_page(api):
    """GET /api/docs/ is 200: the Swagger UI page, pointing at the schema."""
    response = api.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger" in page.lower()
    assert "/api/schema/" in page


def test_health_reports_projection_lag(patron):
    """GET /api/health/ needs no login and reports each projection's lag: head minus
    checkpoint. The patron fixture appended events (cage opened, patron registered, chips
    bought) and no catch-up has run inside the test transaction, so lag == head; after a
    catch-up the lag is 0 and the checkpoint is the head."""
    head = Event.objects.order_by("-position").values_list("position", flat=True).first()
    # The shift cashier's account (StaffUserChanged, StaffRolesChanged), CageOpened,
    # CageShiftOpened (chips are sold inside a shift), PatronRegistered, ChipsPurchased
    assert head == Event.objects.count() == 6

    response = APIClient().get("/api/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    balances = {"projection": "balances", "checkpoint": 0, "head": 6, "lag": 6}
    assert balances in body["projections"]
    assert {row["projection"] for row in body["projections"]} == {"balances", "audit", "table_stats", "ratings"}

    assert catch_up("balances") == 6
    body = APIClient().get("/api/health/").json()
    assert {"projection": "balances", "checkpoint": 6, "head": 6, "lag": 0} in body["projections"]


def _operations(schema: dict):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


def test_every_operation_documents_406_414_429_500_and_each_write_413_and_415(api):
    """What any client can be answered, listed where it can happen: 414 and 500 are the
    server's pages (text/html); the others the API's error body. Each answer of a browsable
    view also comes as text/html when the Accept header asks for it."""
    schema = yaml.safe_load(api.get("/api/schema/").content)
    operations = list(_operations(schema))
    assert len(operations) >= 50
    for path, method, operation in operations:
        responses = operation["responses"]
        where = f"{method.upper()} {path}"
        assert {"406", "414", "500"} <= set(responses), where
        assert list(responses["500"]["content"]) == ["text/html"], where
        assert list(responses["414"]["content"]) == ["text/html"], where
        assert "application/json" in responses["406"]["content"], where
        if method == "post":
            assert {"413", "415"} <= set(responses), where
        if not path.startswith("/api/health/"):
            assert "429" in responses, where
    bets = schema["paths"]["/api/rounds/{round_id}/bets"]["post"]["responses"]
    assert {"application/json", "text/html"} <= set(bets["201"]["content"])


def test_the_documented_406_and_415_are_what_the_api_answers(api, table):
    refused = api.get("/api/tables/", HTTP_ACCEPT="application/xml")
    assert refused.status_code == 406 and refused.json()["error"] == "not_acceptable"
    text = api.generic("POST", "/api/tables/R1/rounds", "x", "text/plain")
    assert text.status_code == 415 and text.json()["error"] == "unsupported_media_type"


def test_the_schema_is_generated_once_per_process(api, monkeypatch):
    from drf_spectacular.generators import SchemaGenerator

    from core.schema_view import CachedSchemaView

    monkeypatch.setattr(CachedSchemaView, "_rendered", {})
    generated = []
    original = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        generated.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(SchemaGenerator, "get_schema", counted)
    first, second = api.get("/api/schema/"), api.get("/api/schema/")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first["Content-Type"] == second["Content-Type"]
    assert len(generated) == 1
    as_json = api.get("/api/schema/", {"format": "json"})
    assert as_json.json()["paths"] == yaml.safe_load(first.content)["paths"]
    assert len(generated) == 2  # another media type: rendered once too

"""The schema says what the API answers, and every 400 names its field.

Before: the schema listed each operation's success only (the pit boss's fuzzing got 15,794 of
25,102 answers with a status code it did not list), 400s came without ``field`` (a body that
is not JSON, a body that is not an object), and list endpoints took ``offset=null`` or
``limit=abc`` as the default page. The whole API is fuzzed per role against the schema in
tests/api/test_schemathesis.py; these are the contract's parts, one by one.
"""

import pytest
import yaml
from rest_framework.test import APIClient

# The HTTP contract (statuses, schema, fields named): the same whatever the backend; the
# second backend's pass (scripts/test.sh) leaves it out.
pytestmark = [pytest.mark.django_db, pytest.mark.first_backend_only]

WRITES = {"post", "put", "patch", "delete"}


@pytest.fixture
def schema(api) -> dict:
    return yaml.safe_load(api.get("/api/schema/").content)


def _operations(schema: dict):
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            yield path, method, operation


def _ref(response: dict) -> str:
    return response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]


def test_every_operation_documents_its_error_answers_with_the_error_shape(schema):
    """Each operation lists 400 and 401 (any request can carry a malformed query string or
    credentials that are not accepted), 403 (where it needs a role), 404 (where its path
    names a resource, or it writes) and 409 (where it writes), each with the error body; a
    400's body requires ``field``."""
    missing = []
    for path, method, operation in _operations(schema):
        responses = operation["responses"]
        public = path in ("/api/health/", "/api/health/live", "/api/health/ready")
        names_resource = "{" in path
        expected = (
            {"400", "401"}
            | (set() if public else {"403"})
            | ({"404"} if names_resource or method in WRITES else set())
            | ({"409"} if method in WRITES else set())
        )
        for code in sorted(expected - set(responses)):
            missing.append(f"{method.upper()} {path}: {code}")
        for code in expected & set(responses):
            assert _ref(responses[code]) == ("BadRequest" if code == "400" else "Error"), (path, method, code)
    assert not missing, f"error answers not documented: {missing}"

    components = schema["components"]["schemas"]
    assert set(components["Error"]["required"]) == {"error", "detail"}
    assert set(components["BadRequest"]["required"]) == {"error", "detail", "field"}
    assert set(components["BadRequest"]["properties"]) == {"error", "detail", "field", "errors"}


def test_a_write_documents_the_status_it_answers(schema):
    """Registering a patron answers 201 (the schema said 200), besides the errors any write can
    meet (a body too large or of another media type, a rate limit, a server error); opening a
    coup's bets to ``close-bets`` answers 200."""
    assert set(schema["paths"]["/api/patrons/register"]["post"]["responses"]) == {
        "201",
        "400",
        "401",
        "403",
        "404",
        "406",
        "409",
        "413",
        "414",
        "415",
        "429",
        "500",
    }
    assert "200" in schema["paths"]["/api/rounds/{round_id}/close-bets"]["post"]["responses"]


def test_a_body_that_is_not_json_is_a_400_naming_the_body(api, cage):
    response = api.post("/api/patrons/register", "{not json", content_type="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "parse_error"
    assert body["field"] == "body"
    assert body["errors"] == {"body": [body["detail"]]}
    assert body["detail"].startswith("JSON parse error")


@pytest.mark.parametrize("payload", [[], "a patron", 7])
def test_a_body_that_is_not_an_object_is_a_400_naming_non_field_errors(api, cage, payload):
    response = api.post("/api/patrons/register", payload, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "non_field_errors"
    assert body["error"] == "invalid"
    assert body["detail"].startswith("Invalid data. Expected a dictionary, but got")
    assert body["errors"] == {"non_field_errors": [body["detail"]]}


def test_a_field_error_names_its_field_and_its_message(api, cage):
    response = api.post("/api/patrons/register", {"kind": "regular"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == "kind"
    assert body["detail"] == '"regular" is not a valid choice.'
    assert body["errors"] == {"kind": ['"regular" is not a valid choice.']}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"offset": "null"}, "offset"),
        ({"offset": ""}, "offset"),
        ({"offset": "-1"}, "offset"),
        ({"offset": "٣"}, "offset"),  # Arabic-Indic three: a digit to Python, not to the API
        ({"offset": str(10**9 + 1)}, "offset"),
        ({"limit": "abc"}, "limit"),
        ({"limit": "0"}, "limit"),
        ({"limit": "1.5"}, "limit"),
        ({"limit": "null"}, "limit"),
    ],
)
def test_a_list_refuses_a_limit_or_offset_that_is_not_a_whole_number(api, patron, query, field):
    response = api.get("/api/patrons/", query)
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["field"] == field
    assert body["error"] == "invalid"


def test_a_list_pages_by_a_valid_limit_and_offset_and_clamps_a_huge_limit(api, cage):
    from tests.conftest import make_patron

    codes = sorted(make_patron() for _ in range(3))
    page = api.get("/api/patrons/", {"limit": "2", "offset": "1"}).json()
    assert page["count"] == 3
    assert len(page["results"]) == 2
    assert len(api.get("/api/patrons/", {"limit": "5000"}).json()["results"]) == 3  # at most 1000 a page
    assert sorted(row["code"] for row in api.get("/api/patrons/").json()["results"]) == codes


@pytest.mark.parametrize("limit", ["abc", "null", "0", "-5"])
def test_the_event_list_refuses_a_limit_that_is_not_a_whole_number(api, patron, limit):
    response = api.get("/api/events/", {"limit": limit})
    assert response.status_code == 400
    assert response.json()["field"] == "limit"
    page = api.get("/api/events/", {"limit": "2"}).json()
    assert [event["position"] for event in page["results"]] == [1, 2]


def test_an_unknown_resource_and_a_missing_login_answer_the_error_shape(api):
    """A 404 from a lookup and a 401 without login carry ``error`` and ``detail`` too."""
    missing = api.get("/api/patrons/P-NOPE/")
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"
    assert set(missing.json()) == {"error", "detail"}
    anonymous = APIClient().get("/api/patrons/")
    assert anonymous.status_code == 401
    assert anonymous.json() == {
        "error": "not_authenticated",
        "detail": "Authentication credentials were not provided.",
    }


def test_each_report_lists_only_the_query_parameters_it_reads(schema):
    """The schema listed ``gaming_day``, ``threshold_cents`` and ``year`` on every report, and
    each report ignored the ones that are not its own (a negative fuzzer's ``year=-5887`` on
    the table games report: 200)."""
    reports = {
        path: sorted(parameter["name"] for parameter in schema["paths"][path]["get"].get("parameters", []))
        for path in schema["paths"]
        if path.startswith("/api/reports/") and not path.endswith((".csv", ".xlsx"))
    }
    assert reports == {
        "/api/reports/table-games": ["gaming_day"],
        "/api/reports/cage-accountability": ["gaming_day"],
        "/api/reports/variances": ["gaming_day", "threshold_cents"],
        "/api/reports/tronc": ["gaming_day"],
        "/api/reports/unused-serials": ["year"],
        "/api/reports/tips-book": ["gaming_day"],
        "/api/reports/tronc-shares": ["gaming_day"],
        "/api/reports/credit-outstanding": ["gaming_day"],
        "/api/reports/master-game": ["gaming_day"],
    }


def test_a_host_django_refuses_is_a_json_400_naming_the_host_header(api):
    """Django answers a Host outside ALLOWED_HOSTS before any view: an HTML page, without a
    field, until ``handler400`` gave the API's body."""
    client = APIClient(raise_request_exception=False)
    response = client.get("/api/patrons/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert response.json() == {
        "error": "bad_request",
        "detail": "the Host header names no site served here",
        "field": "Host",
        "errors": {"Host": ["the Host header names no site served here"]},
    }

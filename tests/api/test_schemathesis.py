"""Hostile input and an honest schema: schemathesis generates
requests for every operation of the OpenAPI schema at /api/schema/ (valid and invalid bodies,
paths, query strings, headers) and sends them in-process through the WSGI application,
authenticated in turn as a pit boss, as a cashier (each reaching his own services as himself)
and as one holding every role (who gets furthest into the services). No answer may be a
500, every status code must be one the schema lists for the operation (so each 400, 401, 403,
404, 409 the API gives is documented: ``core.schema``), and every answer must match its schema
and content type (so every 400 names its ``field``: the ``BadRequest`` component requires it).
The number of examples is bounded (``MAX_EXAMPLES`` per operation and phase, derandomized, so
CI runs the same requests each time); the requests sent are counted per role and written to
``var/artifacts/schemathesis.json``.
"""

import base64
import json
from pathlib import Path

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from staff.roles import ALL_ROLES
from tests.conftest import make_patron, staff_user

# Examples per operation and phase: the user holding every role gets the most (he passes every
# permission and reaches every service, the auditor's and the admin's included); the pit boss
# and the cashier alone reach their own services as themselves (a window of one's own, a table
# of one's own), and are refused early elsewhere. The auditor and the admin alone were fuzzed
# too, about 40 s of a worker each, for answers decided before any query (their permission):
# the permission matrix checks those. Derandomized, so each run sends the same cases: about
# 3 minutes of a worker's time in all (README, "Where the time goes"); the hostile passes send
# far more.
MAX_EXAMPLES = {"every_role": 7, "pit_boss": 4, "cashier": 4}
ACTORS = {
    "every_role": sorted(ALL_ROLES),
    "pit_boss": ["pit_boss"],
    "cashier": ["cashier"],
}
USERNAME, PASSWORD = "fuzzer", "fuzz-password"
SENT: dict[str, dict] = {}


@pytest.fixture(params=sorted(ACTORS), ids=str)
def actor(request) -> str:
    return request.param


@pytest.fixture
def api_schema(db, table, settings, actor):
    """A seeded casino (cage, roulette table R1, a patron with chips), the fuzzer holding the
    actor's roles, and the schema, loaded through the WSGI application as a client would."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # Basic on every request
    user = staff_user(USERNAME, *ACTORS[actor])
    user.set_password(PASSWORD)
    user.save()
    make_patron(100_000)
    # The real WSGI handler closes the database connection when a request ends; the test's
    # transaction lives on it. Django's own test client unhooks the same receivers.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@pytest.fixture(scope="module", autouse=True)
def _report_requests():
    yield
    out = Path(django_settings.BASE_DIR) / "var" / "artifacts"
    out.mkdir(parents=True, exist_ok=True)
    report = {
        actor: {**sent, "operations": len(sent["operations"]), "max_examples": MAX_EXAMPLES[actor]}
        for actor, sent in SENT.items()
    }
    (out / "schemathesis.json").write_text(json.dumps(report, indent=2, sort_keys=True))


AUTH = {"Authorization": "Basic " + base64.b64encode(f"{USERNAME}:{PASSWORD}".encode()).decode()}
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, content_type_conformance]


def _fuzz(operation, mode: GenerationMode, sent: dict, max_examples: int) -> None:
    @settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def fuzz(case):
        response = case.call(headers=AUTH)
        sent["requests"] += 1
        sent["statuses"][str(response.status_code)] = sent["statuses"].get(str(response.status_code), 0) + 1
        case.validate_response(response, checks=CHECKS)

    try:
        fuzz()
    except Unsatisfiable:
        # Nothing to make invalid (negative mode on an operation without input): no request.
        sent["unsatisfiable"].append(f"{mode} {operation.method.upper()} {operation.path}")


# A fuzz of the HTTP contract (statuses and bodies): what the database does under it is what the
# other tests prove on both backends, so the second pass leaves its five minutes out.
@pytest.mark.first_backend_only
def test_no_operation_answers_500_or_outside_its_schema(api_schema, actor):
    """Every operation, valid data then invalid data (schemathesis's positive and negative
    modes), for one actor: every answer's status code is documented and its body conforms."""
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 50  # the whole API, not a schema that failed to load
    sent = SENT[actor] = {"requests": 0, "operations": set(), "statuses": {}, "unsatisfiable": []}
    for operation in operations:
        sent["operations"].add(f"{operation.method.upper()} {operation.path}")
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _fuzz(operation, mode, sent, MAX_EXAMPLES[actor])
    assert sent["requests"] >= len(operations)

"""HTTP Basic credentials holding a NUL byte are refused with 401, never a 500.

Found by schemathesis in a hostile-input pass: ``Authorization: Basic base64("u\\0x:pw")`` on any
endpoint reached django-axes' failure count, whose query on the attempt's username raised
``DataError: PostgreSQL text fields cannot contain NUL (0x00) bytes`` (500)."""

import base64

import pytest

pytestmark = pytest.mark.django_db


def _basic(userid: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{userid}:{password}".encode()).decode()


@pytest.mark.parametrize(("userid", "password"), [("u\x00x", "pw"), ("pit", "p\x00w")])
def test_basic_credentials_with_a_nul_byte_are_unauthorised(client, userid, password):
    response = client.get("/api/tables/", HTTP_AUTHORIZATION=_basic(userid, password))
    assert response.status_code == 401
    assert response.json()["error"] == "authentication_failed"


def test_basic_credentials_of_nobody_stay_unauthorised(client):
    response = client.get("/api/tables/", HTTP_AUTHORIZATION=_basic("nobody", "wrong"))
    assert response.status_code == 401

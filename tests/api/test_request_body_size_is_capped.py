"""The API reads a JSON body of at most DATA_UPLOAD_MAX_MEMORY_SIZE bytes (1 MiB by default):
a larger one is a 413 with the API's error body, refused by its Content-Length before it is
read; a batch of 1,000 bets stays well inside."""

import json

import pytest
from django.conf import settings

from core import parsers
from games.models import Bet
from games.services.rounds import round_open
from tests.conftest import ACTOR, make_patron

pytestmark = pytest.mark.django_db

ROUGE = {"type": "chance_simple", "chance": "rouge"}


def test_the_default_cap_is_one_mebibyte():
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 1_048_576


def test_a_body_over_the_cap_is_a_413_in_the_apis_error_form_and_places_nothing(api, table, monkeypatch):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    patron = make_patron(100_000)
    body = json.dumps({"bets": [{"patron": patron, "stake_cents": 1_000, "bet": ROUGE, "key": "x" * 150}] * 8_000})
    assert len(body) > 1_048_576  # the 50 MB of an attack, in small
    read = []
    monkeypatch.setattr(parsers, "_check_strings", lambda *a, **k: read.append(1))
    response = api.generic("POST", f"/api/rounds/{coup}/bet-batches", body, "application/json")
    assert response.status_code == 413, response.content
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "request_too_large", "detail": "the body is larger than 1,048,576 bytes"}
    assert read == [] and not Bet.objects.filter(round_id=coup).exists()


def test_a_body_is_read_no_further_than_its_content_length_declares(api, table, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 200
    coup = round_open(table="R1", actor=ACTOR)["round"]
    body = json.dumps({"bets": [{"patron": "P1", "stake_cents": 1_000, "bet": ROUGE, "key": "y" * 300}]})
    response = api.generic("POST", f"/api/rounds/{coup}/bet-batches", body, "application/json")
    assert response.status_code == 413
    short = api.generic(
        "POST", f"/api/rounds/{coup}/bet-batches", body, "application/json", CONTENT_LENGTH="150"
    )  # Django hands the parser the declared 150 bytes only: not JSON
    assert short.status_code == 400 and short.json()["field"] == "body"

import json, pytest
from tests.conftest import make_patron
from rest_framework.test import APIClient

def show(label, fn):
    try:
        r = fn()
        body = r.data if hasattr(r, "data") else r.content[:200]
        print(label, "->", r.status_code, json.dumps(body, default=str)[:300])
    except Exception as e:
        print(label, "-> EXC", type(e).__name__, str(e)[:200])

@pytest.mark.django_db
def test_probe(api, colour_patron, patron):
    rid = api.post("/api/tables/R1/rounds", {}, format="json").data["round"]
    show("result before close", lambda: api.post(f"/api/rounds/{rid}/result", {"number": 5}, format="json"))
    show("close", lambda: api.post(f"/api/rounds/{rid}/close-bets", {}, format="json"))
    show("close again", lambda: api.post(f"/api/rounds/{rid}/close-bets", {}, format="json"))
    show("bet after close", lambda: api.post(f"/api/rounds/{rid}/bets", {"patron": colour_patron, "stake_cents": 200, "chips": "colour", "bet": {"type": "plein", "numbers": [3]}}, format="json"))
    for n in [37, -1, "5", 5.0, True, None]:
        show(f"result {n!r}", lambda: api.post(f"/api/rounds/{rid}/result", {"number": n}, format="json"))
    show("result stale", lambda: api.post(f"/api/rounds/{rid}/result", {"number": 5, "expected_version": 1}, format="json"))
    show("result", lambda: api.post(f"/api/rounds/{rid}/result", {"number": 5}, format="json"))
    show("result again", lambda: api.post(f"/api/rounds/{rid}/result", {"number": 5}, format="json"))
    show("void settled", lambda: api.post(f"/api/rounds/{rid}/void", {"reason": "x"}, format="json"))
    show("unknown round", lambda: api.post("/api/rounds/00000000-0000-0000-0000-000000000000/bets", {"patron": patron, "stake_cents": 1000, "bet": {"type": "chance_simple", "chance": "rouge"}}, format="json"))
    show("unknown round get", lambda: api.get("/api/rounds/00000000-0000-0000-0000-000000000000/"))
    show("bad uuid", lambda: api.post("/api/rounds/xyz/bets", {}, format="json"))
    show("close table", lambda: api.post("/api/tables/R1/close", {}, format="json"))
    show("open R1 again", lambda: api.post("/api/tables/R1/open", {"game": "english_roulette", "opener_cents": 1}, format="json"))
    show("open R2 bad rules", lambda: api.post("/api/tables/R2/open", {"game": "english_roulette", "opener_cents": 1, "rules": {"zero_rule": {"a": 1}}}, format="json"))
    show("open R2 bad rules2", lambda: api.post("/api/tables/R2/open", {"game": "english_roulette", "opener_cents": 1, "rules": {"neighbours": 2.0}}, format="json"))
    show("open R-2", lambda: api.post("/api/tables/R-2/open", {"game": "english_roulette", "opener_cents": 1}, format="json"))
    show("colour buy unknown table", lambda: api.post("/api/tables/ZZ/colour-chips", {"patron": patron, "chips": 1, "unit_value_cents": 200}, format="json"))
    show("colour buy bad colour", lambda: api.post("/api/tables/R1/colour-chips", {"patron": patron, "chips": 1, "unit_value_cents": 200, "colour": "red"}, format="json"))
    show("colour buy too many", lambda: api.post("/api/tables/R1/colour-chips", {"patron": patron, "chips": 10**6, "unit_value_cents": 200}, format="json"))
    show("colour buy huge", lambda: api.post("/api/tables/R1/colour-chips", {"patron": patron, "chips": 2**62, "unit_value_cents": 2**62}, format="json"))
    show("change inverse no colour", lambda: api.post("/api/tables/R1/change-inverse", {"patron": patron}, format="json"))
    show("events bad day", lambda: api.get("/api/events/?gaming_day=xx"))
    show("events limit", lambda: api.get("/api/events/?limit=abc"))
    show("events cursor", lambda: api.get("/api/events/?cursor=abc"))
    show("patron 404", lambda: api.get("/api/patrons/NOPE/"))
    show("register anon", lambda: api.post("/api/patrons/register", {"kind": "anonymous"}, format="json"))
    show("register anon2", lambda: api.post("/api/patrons/register", {"kind": "anonymous"}, format="json"))
    show("idem long", lambda: api.post("/api/cage/purchases", {"patron": patron, "amount_cents": 100}, format="json", HTTP_IDEMPOTENCY_KEY="k"*300))
    show("idem 1", lambda: api.post("/api/cage/purchases", {"patron": patron, "amount_cents": 100}, format="json", HTTP_IDEMPOTENCY_KEY="k1"))
    show("idem 2", lambda: api.post("/api/cage/purchases", {"patron": patron, "amount_cents": 200}, format="json", HTTP_IDEMPOTENCY_KEY="k1"))
    show("idem 3 other endpoint", lambda: api.post("/api/cage/redemptions", {"patron": patron, "amount_cents": 100}, format="json", HTTP_IDEMPOTENCY_KEY="k1"))
    show("unauth", lambda: APIClient().post("/api/cage/purchases", {"patron": patron, "amount_cents": 100}, format="json"))
    show("unauth get", lambda: APIClient().get("/api/patrons/"))
    show("health unauth", lambda: APIClient().get("/api/health/"))
    show("balances", lambda: api.get("/api/balances/?prefix=patron:"))
    show("purchase form-encoded", lambda: api.post("/api/cage/purchases", {"patron": patron, "amount_cents": "100"}))
    show("bet body list", lambda: api.post(f"/api/rounds/{rid}/bets", [1, 2], format="json"))
    show("bet announce neighbours huge", lambda: api.post(f"/api/rounds/{rid}/bets", {"patron": patron, "stake_cents": 200, "announce": {"name": "voisins", "number": 5, "neighbours": 10**30}}, format="json"))
    show("table open huge opener", lambda: api.post("/api/tables/R3/open", {"game": "english_roulette", "opener_cents": 2**63}, format="json"))
    show("table open huge rules", lambda: api.post("/api/tables/R4/open", {"game": "english_roulette", "opener_cents": 1, "rules": {"max_bet_cents": 2**70}}, format="json"))

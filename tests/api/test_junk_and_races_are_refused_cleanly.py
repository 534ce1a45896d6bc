"""Bad input through the API is refused cleanly: junk bodies, extreme numbers, odd characters, state abuse
and races. Contract (core/errors.py, README §API): bad input is 400 naming the ``field`` at
fault, an unknown resource 404, a state or version conflict 409, never a 500; a refusal
appends nothing to the ledger; money is integer cents.

A test's docstring names the fault it guards against where the cause is not plain.
Tests marked ``postgres`` need real commits (``committed_db``) and are skipped on SQLite.
"""

import pytest
from rest_framework.test import APIClient

from cashier.services.cage import cage_open
from games.services.bets import bet_place
from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_close
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.projections import catch_up_all
from ledger.verify import verify_chain
from tests.conftest import (
    ACTOR,
    API_TEST_ROLES,
    TABLE_DEALER,
    client_as,
    make_patron,
    open_by_count,
    open_cage_shift,
    opener_body,
    staff_user,
)
from tests.integration.concurrency import run_concurrently

# Every test outside the races section is marked django_db one by one: a module-level mark
# would set the database up before ``committed_db``'s role reset and break its flush.

ROUGE = {"type": "chance_simple", "chance": "rouge"}
PLEIN_3 = {"type": "plein", "numbers": [3]}


# --- helpers ------------------------------------------------------------------------------


def events() -> int:
    return Event.objects.count()


def refused(response, status: int, field: str | None, before: int) -> dict:
    """``status`` in the project's error shape naming ``field``; the ledger did not grow."""
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert body["error"] and body["detail"], body
    assert body.get("field") == field, body
    assert events() == before, "a refused request appended events"
    return body


def raw_post(api, path: str, text: str, content_type: str = "application/json"):
    return api.post(path, data=text.encode("utf-8"), content_type=content_type)


@pytest.fixture
def round_id(table) -> str:
    return round_open(table="R1", actor=ACTOR)["round"]


def bet(api, round_id: str, **body):
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json")


# --- request bodies -----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, content_type, status",
    [
        ('{"patron": "P00001", "stake_cents": NaN, "bet": {}}', "application/json", 400),
        ('{"patron": "P00001", "stake_cents": Infinity, "bet": {}}', "application/json", 400),
        ('{"patron": "P00001", "stake_cents": 1e3, "bet": {}}', "application/json", 400),
        ("[]", "application/json", 400),
        ("null", "application/json", 400),
        ('"a string"', "application/json", 400),
        ('{"patron": "P00001", "stake_cents": 1000}', "text/plain", 415),
        ("<bet/>", "application/xml", 415),
    ],
    ids=["NaN", "Infinity", "1e3", "list", "null", "string", "text-plain", "xml"],
)
def test_junk_bodies_are_refused_without_a_trace(api, round_id, colour_patron, text, content_type, status):
    """Non-JSON numbers, non-object bodies and other media types: 4xx, nothing appended."""
    before = events()
    response = raw_post(api, f"/api/rounds/{round_id}/bets", text, content_type)
    assert response.status_code == status, response.content
    assert events() == before


@pytest.mark.django_db
def test_malformed_json_names_the_body_as_its_field(api, round_id, colour_patron):
    """A body that is not JSON is 400 naming ``body`` (no bogus ``field: "detail"``, the key of
    DRF's ParseError body; and not without a field: every 400 names one, as the error contract says)."""
    before = events()
    response = raw_post(api, f"/api/rounds/{round_id}/bets", "{not json")
    body = refused(response, 400, "body", before)
    assert body["errors"] == {"body": [body["detail"]]}


@pytest.mark.django_db
def test_deeply_nested_json_is_400_not_500(api, round_id, colour_patron):
    """100,000 nested ``[`` make json.loads raise RecursionError, which DRF's JSONParser alone
    does not turn into a ParseError (it catches ValueError only): a 400, not a 500 on every
    write endpoint."""
    before = events()
    nested = "[" * 100_000 + "]" * 100_000
    text = f'{{"patron": "{colour_patron}", "stake_cents": 200, "chips": "colour", "bet": {nested}}}'
    response = raw_post(api, f"/api/rounds/{round_id}/bets", text)
    assert response.status_code == 400, response.content[:300]
    assert events() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path, text, field",
    [
        ("bets", '{"patron": "%(p)s", "stake_cents": 200, "chips": "colour", "bet": {"type": "\\ud800"}}', "bet.type"),
        (
            "bets",
            '{"patron": "%(p)s", "stake_cents": 200, "chips": "colour",'
            ' "bet": {"type": "plein", "numbers": [3], "\\ud800": 1}}',
            "bet",
        ),
        (
            "bets",
            '{"patron": "%(p)s", "stake_cents": 200, "chips": "colour", "announce": {"name": "\\udfff"}}',
            "announce",
        ),
        (
            "opener",
            '{"game": "english_roulette", "opener": {"100000": 1}, "dealer": "croupier", "pit_boss": "dealer1",'
            ' "rules": {"\\ud800": 1}}',
            "rules",
        ),
    ],
    ids=["bet.type", "bet-key", "announce.name", "rules-key"],
)
def test_lone_surrogate_inside_a_dict_is_400(api, croupier, round_id, colour_patron, path, text, field):
    """A JSON ``\\ud800`` escape decodes to a lone surrogate. DRF's CharField refuses it at top
    level; inside the ``bet``/``announce``/``rules`` dicts it is a 400 too, not a 500 from
    ``ledger.hashing.fingerprint`` (str.encode → UnicodeEncodeError) or from an unknown rules
    key becoming an error ``field`` the JSON renderer cannot encode."""
    url = f"/api/rounds/{round_id}/bets" if path == "bets" else "/api/tables/R7/opener"
    before = events()
    response = raw_post(api, url, text % {"p": colour_patron})
    assert response.status_code == 400, response.content[:300]
    assert response.json()["field"].split(".")[0] == field.split(".")[0]
    assert events() == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "bet_body, field",
    [
        ({"type": "plein", "numbers": ["3"]}, "bet.numbers"),
        ({"type": "plein", "numbers": [[3]]}, "bet.numbers"),
        ({"type": "plein", "numbers": 3}, "bet.numbers"),
        ({"type": "plein", "numbers": [True]}, "bet.numbers"),
        ({"type": "plein", "numbers": [2**70]}, "bet.numbers"),
        ({"type": "plein", "numbers": [{"n": 3}]}, "bet.numbers"),
        ({"type": "plein", "numbers": [3, 3]}, "bet.numbers"),
        ({"numbers": [3]}, "bet.type"),
        ({"type": ["plein"], "numbers": [3]}, "bet.type"),
        ({"type": "PLEIN", "numbers": [3]}, "bet.type"),
        ({"type": "colonne", "which": "1"}, "bet.which"),
        ({"type": "colonne", "which": True}, "bet.which"),
        ({"type": "colonne", "which": 2**70}, "bet.which"),
        ({"type": "colonne", "which": [1]}, "bet.which"),
        ({"type": "colonne", "which": 1, "chance": "rouge"}, "bet.chance"),
        ({"type": "chance_simple", "chance": ["rouge"]}, "bet.chance"),
        ({"type": "plein", "numbers": [3], "stake": 1}, "bet"),
    ],
)
def test_junk_inside_the_bet_names_the_key(api, round_id, colour_patron, bet_body, field):
    """Numbers as strings, nested lists, booleans, 2**70, unknown keys: 400 on ``bet.<key>``."""
    before = events()
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=bet_body)
    refused(response, 400, field, before)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "announce, field",
    [
        ({}, "announce"),
        ({"name": "grand_voisins"}, "announce"),
        ({"name": ["voisins_du_zero"]}, "announce"),
        ({"name": None}, "announce"),
        ({"name": "x" * 10_000}, "announce"),
        ({"name": "voisins"}, "announce.number"),
        ({"name": "voisins", "number": "5"}, "announce.number"),
        ({"name": "voisins", "number": 37}, "announce.number"),
        ({"name": "voisins", "number": [5]}, "announce.number"),
        ({"name": "voisins", "number": 5, "neighbours": 0}, "announce.neighbours"),
        ({"name": "voisins", "number": 5, "neighbours": 19}, "announce.neighbours"),
        ({"name": "voisins", "number": 5, "neighbours": "2"}, "announce.neighbours"),
        ({"name": "voisins", "number": 5, "neighbours": None}, "announce.neighbours"),
        ({"name": "tiers_du_cylindre", "number": 5}, "announce.number"),
        ({"name": "tiers_du_cylindre", "extra": 1}, "announce"),
    ],
)
def test_junk_announces_are_refused(api, round_id, colour_patron, announce, field):
    before = events()
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", announce=announce)
    refused(response, 400, field, before)


@pytest.mark.django_db
def test_neighbours_on_a_fixed_announce_is_refused(api, round_id, colour_patron):
    """``neighbours`` means something on ``voisins`` only: on a fixed announce it is refused (even
    ``"junk"``), as a ``number`` there is ("tiers_du_cylindre takes no number"), not ignored (201)."""
    before = events()
    announce = {"name": "tiers_du_cylindre", "neighbours": "junk"}
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", announce=announce)
    refused(response, 400, "announce.neighbours", before)


@pytest.mark.django_db
@pytest.mark.parametrize("stake", [2**63, 10**30], ids=["2**63", "10**30"])
def test_huge_stake_is_refused_by_the_limit(api, round_id, patron, stake):
    before = events()
    refused(bet(api, round_id, patron=patron, stake_cents=stake, bet=ROUGE), 400, "stake_cents", before)


# --- integer columns ----------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["cash_cents", "chips_cents"])
@pytest.mark.parametrize("amount", [10**12 + 1, 2**63], ids=["cap+1", "2**63"])
def test_cage_count_beyond_the_cap_is_400(api, field, amount):
    """Counts above MAX_CENTS (10^12) are bad input, never a 64-bit overflow (500)."""
    body = {"cash_cents": 0, "chips_cents": 0, field: amount}
    before = events()
    refused(api.post("/api/cage/open", body, format="json"), 400, field, before)


@pytest.mark.django_db
@pytest.mark.parametrize("unit", [2**31, 10**12], ids=["2**31", "10**12"])
def test_colour_unit_value_beyond_the_column_is_400(api, table, patron, unit):
    """``ColourStack.unit_value_cents`` is a 32-bit PositiveIntegerField while CentsField lets up
    to 10^12 through: a unit value beyond the column is a 400, not PostgreSQL's DataError
    "integer out of range" (a 500) from a stack row inserted before the balance check. SQLite:
    400 insufficient_funds on chips."""
    before = events()
    response = api.post(
        "/api/tables/R1/colour-chips", {"patron": patron, "chips": 1, "unit_value_cents": unit}, format="json"
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["field"] in ("unit_value_cents", "chips")
    assert events() == before


@pytest.mark.django_db
def test_a_winning_number_can_always_be_recorded(api, croupier):
    """A plein of 1,000,000,000.00 EUR (max_bet_cents 10^12) would win 35:1, 3.5 x 10^12 cents,
    over ``ledger.store.MAX_CENTS``: ``POST /result {"number": 3}`` would be 400
    unbalanced_postings and the coup could only be settled on a losing number or voided. Either
    the table refuses such a maximum (400 on rules.max_bet_cents) or the win settles."""
    cage_open(cash_cents=10**12, chips_cents=10**12, actor=ACTOR)
    open_cage_shift()
    super1 = client_as(staff_user("super1", "cage_supervisor"))  # a large opener: the cage signs too
    opened = open_by_count(api, "R9", croupier, super1, opener_cents=10**12, rules={"max_bet_cents": 10**12})
    if opened.status_code == 400:
        assert opened.json()["field"] == "rules.max_bet_cents"
        return
    assert opened.status_code == 201, opened.json()
    code = make_patron(10**11)
    colour_chips_buy(table="R9", patron=code, chips=100, unit_value_cents=10**9, colour="red", actor=ACTOR)
    coup = round_open(table="R9", actor=ACTOR)["round"]
    placed = bet(api, coup, patron=code, stake_cents=10**11, chips="colour", bet=PLEIN_3)
    assert placed.status_code == 201, placed.json()
    round_close_bets(round_id=coup, actor=ACTOR)
    response = api.post(f"/api/rounds/{coup}/result", {"number": 3}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["returned_cents"] == 36 * 10**11


# --- reads: pagination, filters, path parameters -------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/patrons/", "/api/tables/", "/api/tables/R1/rounds/"])
def test_huge_page_limit_is_clamped_or_400(api, round_id, patron, path):
    """``?limit=99999999999999999999`` is clamped or a 400 on ``limit``. Unclamped in SQL LIMIT
    (LimitOffsetPagination has no max_limit) it would be PostgreSQL's 500 "bigint out of range"
    and SQLite's "datatype mismatch", an IntegrityError that core.errors maps to 409."""
    response = api.get(path, {"limit": "99999999999999999999"})
    assert response.status_code in (200, 400), response.content[:300]
    if response.status_code == 400:
        assert response.json()["field"] == "limit"


@pytest.mark.django_db
def test_event_filters_are_validated(api, patron):
    for query, field in [
        ({"gaming_day": "notadate"}, "gaming_day"),
        ({"gaming_day": "2026-02-30"}, "gaming_day"),
        ({"stream": "\x00"}, "stream"),
        ({"type": "x" * 81}, "type"),
    ]:
        response = api.get("/api/events/", query)
        assert response.status_code == 400, (query, response.content)
        assert response.json()["field"] == field
    # a limit that is not a whole number of at least 1 is refused (no silent
    # default); a large one is capped at the page size
    for limit in ("-1", "0", "abc", "99999999999999999999"):
        response = api.get("/api/events/", {"limit": limit})
        assert response.status_code == 400, (limit, response.content[:200])
        assert response.json()["field"] == "limit"
    response = api.get("/api/events/", {"limit": "5000"})
    assert response.status_code == 200
    assert len(response.json()["results"]) <= 1000


@pytest.mark.django_db
def test_garbage_cursor_is_400(api, patron):
    """A cursor that cannot be decoded is bad input, a 400 on ``cursor``: not DRF
    CursorPagination's 404 ``{"detail": "Invalid cursor"}`` (an unknown resource)."""
    response = api.get("/api/events/", {"cursor": "garbage"})
    assert response.status_code == 400, response.content
    assert response.json()["field"] == "cursor"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "method, path, body",
    [
        ("get", "/api/patrons/%00/", None),
        ("get", "/api/tables/%00/", None),
        ("get", "/api/tables/%00/rounds/", None),
        ("post", "/api/tables/%00/buy-ins", {"patron": "P00001", "amount_cents": 100}),
        ("post", "/api/tables/%00/rounds", {}),
        ("post", "/api/tables/%00/colour-chips", {"patron": "P00001", "chips": 1, "unit_value_cents": 200}),
        ("post", "/api/tables/%00/change-inverse", {"patron": "P00001"}),
        ("post", "/api/tables/%00/closer", {}),
    ],
)
def test_nul_in_a_path_code_is_404_not_500(api, patron, method, path, body):
    """A table or patron code from the URL holding a NUL is a 404 (or an empty round list) on
    both databases, not PostgreSQL's DataError "PostgreSQL text fields cannot contain NUL (0x00)
    bytes" (a 500)."""
    before = events()
    if method == "get":
        response = api.get(path)
    else:
        response = api.post(path, body, format="json")
    allowed = (404, 200) if path.endswith("rounds/") else (404,)  # a list of no rounds is fine too
    assert response.status_code in allowed, response.content[:300]
    assert events() == before


@pytest.mark.django_db
def test_nul_in_balance_prefix_is_not_500(api, patron):
    """A NUL in ``?prefix=`` is an empty list or a 400 on ``prefix``, not PostgreSQL's DataError (a 500)."""
    response = api.get("/api/balances/", {"prefix": "\x00"})
    assert response.status_code in (200, 400), response.content[:300]
    if response.status_code == 400:
        assert response.json()["field"] == "prefix"
    else:
        assert response.json()["results"] == []


@pytest.mark.django_db
def test_round_id_in_upper_case_finds_the_round(api, round_id):
    """RFC 4122: a UUID is case-insensitive on input (reads and commands)."""
    assert api.get(f"/api/rounds/{round_id}/").status_code == 200
    response = api.get(f"/api/rounds/{round_id.upper()}/")
    assert response.status_code == 200, response.status_code
    closed = api.post(f"/api/rounds/{round_id.upper()}/close-bets", {}, format="json")
    assert closed.status_code == 200 and closed.json()["round"] == round_id


@pytest.mark.django_db
@pytest.mark.parametrize("rid", ["not-a-uuid", "1", "00000000-0000-0000-0000-00000000000g", "%00", "a" * 3000])
def test_round_id_that_is_not_a_uuid_is_404(api, table, patron, rid):
    before = events()
    for suffix, body in [("bets", {"patron": patron, "stake_cents": 1000, "bet": ROUGE}), ("result", {"number": 1})]:
        response = api.post(f"/api/rounds/{rid}/{suffix}", body, format="json")
        assert response.status_code == 404, response.content[:200]
        assert response.json()["error"] == "not_found"
    assert api.get(f"/api/rounds/{rid}/").status_code == 404
    assert events() == before


# --- idempotency keys -----------------------------------------------------------------------


@pytest.mark.django_db
def test_idempotency_key_length(api, patron):
    """201 characters is 400 on idempotency_key; 200 works and replays once; an empty header
    is no key at all (two purchases)."""
    body = {"patron": patron, "amount_cents": 100}
    before = events()
    refused(
        api.post("/api/cage/purchases", body, format="json", HTTP_IDEMPOTENCY_KEY="k" * 201),
        400,
        "idempotency_key",
        before,
    )
    first = api.post("/api/cage/purchases", body, format="json", HTTP_IDEMPOTENCY_KEY="k" * 200)
    again = api.post("/api/cage/purchases", body, format="json", HTTP_IDEMPOTENCY_KEY="k" * 200)
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert events() == before + 1
    for _ in range(2):
        assert api.post("/api/cage/purchases", body, format="json", HTTP_IDEMPOTENCY_KEY="").status_code == 201
    assert events() == before + 3
    assert store.balance(accounts.patron_chips(patron)) == 100_000 + 300


# --- state abuse --------------------------------------------------------------------------


@pytest.mark.django_db
def test_cage_twice_and_purchase_before_opening(api):
    code = make_patron()
    before = events()
    refused(api.post("/api/cage/purchases", {"patron": code, "amount_cents": 100}, format="json"), 409, "cage", before)
    refused(
        api.post("/api/cage/redemptions", {"patron": code, "amount_cents": 100}, format="json"), 409, "cage", before
    )
    assert api.post("/api/cage/open", {"cash_cents": 100, "chips_cents": 100}, format="json").status_code == 201
    before = events()
    refused(api.post("/api/cage/open", {"cash_cents": 100, "chips_cents": 100}, format="json"), 409, "cage", before)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "rules, field",
    [
        ({"colour": "red"}, "rules.colour"),
        ({"min_bet_cents": "500"}, "rules.min_bet_cents"),
        ({"min_bet_cents": 2.5}, "rules.min_bet_cents"),
        ({"min_bet_cents": True}, "rules.min_bet_cents"),
        ({"min_bet_cents": 0}, "rules.min_bet_cents"),
        ({"min_bet_cents": 500, "max_bet_cents": 100}, "rules.min_bet_cents"),
        ({"even_chance_min_cents": 500, "even_chance_max_cents": 100}, "rules.even_chance_min_cents"),
        ({"zero_rule": "en_prisons"}, "rules.zero_rule"),
        ({"zero_rule": None}, "rules.zero_rule"),
        ({"zero_rule": ["lost"]}, "rules.zero_rule"),
        ({"max_colours": 9}, "rules.max_colours"),
        ({"neighbours": 19}, "rules.neighbours"),
        ([], "rules"),
        ("la_partage", "rules"),
    ],
)
def test_bad_table_rules_are_refused(api, cage, croupier, rules, field):
    before = events()
    body = opener_body(opener_cents=100, rules=rules)
    refused(api.post("/api/tables/R9/opener", body, format="json"), 400, field, before)


@pytest.mark.django_db
def test_standing_minimum_above_the_even_chance_maximum_is_refused(api, cage, croupier):
    """``standing_min_cents`` above ``even_chance_max_cents`` is refused, as min > max is for
    inside bets and even chances: otherwise the table would open and no standing player could
    ever bet (every value-chip stake under the minimum or over the maximum)."""
    before = events()
    body = opener_body(opener_cents=100, rules={"standing_min_cents": 200_000})
    refused(api.post("/api/tables/R9/opener", body, format="json"), 400, "rules.standing_min_cents", before)


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["R-1", "R 1", "A" * 21, "R1%3B", "%E2%80%8B"])
def test_bad_table_codes_are_refused(api, cage, code):
    """A path names a table only by 1 to 20 ASCII letters or digits (``core.converters``):
    anything else names nothing (404) and opens nothing."""
    before = events()
    response = api.post(f"/api/tables/{code}/opener", opener_body(opener_cents=100), format="json")
    refused(response, 404, None, before)


@pytest.mark.django_db
def test_closed_table_refuses_play(api, table, croupier):
    code = make_patron(10_000)
    assert api.post("/api/tables/R1/opener", opener_body(opener_cents=1), format="json").status_code == 409
    table_close(code="R1", actor=ACTOR)  # at the book: the API closes only with a counted closer
    before = events()
    with pytest.raises(StateConflict):
        table_close(code="R1", actor=ACTOR)
    refused(
        api.post("/api/tables/R1/buy-ins", {"patron": code, "amount_cents": 100}, format="json"), 409, "table", before
    )
    body = {"patron": code, "chips": 1, "unit_value_cents": 200}
    refused(api.post("/api/tables/R1/colour-chips", body, format="json"), 409, "table", before)
    refused(api.post("/api/tables/R1/rounds", {}, format="json"), 409, "table", before)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body, field",
    [
        ({"chips": 0, "unit_value_cents": 200}, "chips"),
        ({"chips": -1, "unit_value_cents": 200}, "chips"),
        ({"chips": 1.0, "unit_value_cents": 200}, "chips"),
        ({"chips": "1", "unit_value_cents": 200}, "chips"),
        ({"chips": True, "unit_value_cents": 200}, "chips"),
        ({"chips": 1, "unit_value_cents": 0}, "unit_value_cents"),
        ({"chips": 1, "unit_value_cents": 200.0}, "unit_value_cents"),
        ({"chips": 1}, "unit_value_cents"),
        ({"chips": 1, "unit_value_cents": 200, "colour": "brown"}, "colour"),  # 9th of the palette
        ({"chips": 1, "unit_value_cents": 200, "colour": "RED"}, "colour"),
        ({"chips": 1, "unit_value_cents": 200, "colour": ""}, "colour"),
        ({"chips": 1, "unit_value_cents": 200, "colour": None}, "colour"),
        ({"chips": 10**30, "unit_value_cents": 200}, "chips"),
    ],
)
def test_bad_colour_chip_purchases_are_refused(api, table, patron, body, field):
    before = events()
    response = api.post("/api/tables/R1/colour-chips", {"patron": patron, **body}, format="json")
    refused(response, 400, field, before)
    assert store.balance(accounts.patron_chips(patron)) == 100_000


@pytest.mark.django_db
def test_a_second_colour_or_another_unit_is_refused(api, colour_patron):
    other = make_patron(10_000)
    before = events()
    body = {"patron": colour_patron, "chips": 1}
    refused(api.post("/api/tables/R1/colour-chips", {**body, "colour": "blue"}, format="json"), 400, "colour", before)
    refused(
        api.post("/api/tables/R1/colour-chips", {**body, "unit_value_cents": 500}, format="json"),
        400,
        "unit_value_cents",
        before,
    )
    body = {"patron": other, "chips": 1, "unit_value_cents": 200, "colour": "red"}
    refused(api.post("/api/tables/R1/colour-chips", body, format="json"), 400, "colour", before)
    # the same colour at the same unit just adds chips
    more = api.post(
        "/api/tables/R1/colour-chips", {"patron": colour_patron, "chips": 1, "colour": "red"}, format="json"
    )
    assert more.status_code == 201 and more.json()["colour_cents"] == 20_200


@pytest.mark.django_db
def test_change_inverse_with_colour_on_the_layout_then_twice(api, round_id, colour_patron):
    """Refused (409) while his colour chips are on the layout of a coup in play, accepted once
    the coup is settled; a second change inverse is refused and credits nothing."""
    placed = bet(api, round_id, patron=colour_patron, stake_cents=400, chips="colour", bet=PLEIN_3)
    assert placed.status_code == 201, placed.json()
    before = events()
    refused(api.post("/api/tables/R1/change-inverse", {"patron": colour_patron}, format="json"), 409, "patron", before)
    round_close_bets(round_id=round_id, actor=ACTOR)
    refused(
        api.post("/api/tables/R1/change-inverse", {"patron": colour_patron}, format="json"), 409, "patron", before + 1
    )
    round_record_result(round_id=round_id, number=3, actor=ACTOR)  # 400 + 35 x 400 back
    first = api.post("/api/tables/R1/change-inverse", {"patron": colour_patron}, format="json")
    assert first.status_code == 201, first.json()
    assert first.json()["amount_cents"] == 20_000 - 400 + 400 * 36
    assert store.balance(accounts.patron_chips(colour_patron)) == 80_000 + 34_000
    assert store.balance(accounts.table_colour_issued("R1")) == 0
    before = events()
    second = api.post("/api/tables/R1/change-inverse", {"patron": colour_patron}, format="json")
    assert second.status_code in (400, 409), second.content
    assert second.json()["field"] == "patron"
    assert events() == before
    assert store.balance(accounts.patron_chips(colour_patron)) == 114_000
    # his colour is free again, and the table can close
    table_close(code="R1", actor=ACTOR)
    assert api.get("/api/tables/R1/").json()["state"] == "closed"


@pytest.mark.django_db
def test_colour_stake_not_a_multiple_of_the_unit_in_an_announce(api, round_id, colour_patron):
    """An announce's chip is the stake: 300 cents is not a whole number of 200-cent red chips."""
    before = events()
    response = bet(
        api, round_id, patron=colour_patron, stake_cents=300, chips="colour", announce={"name": "tiers_du_cylindre"}
    )
    refused(response, 400, "stake_cents", before)


@pytest.mark.django_db
def test_result_void_and_close_bets_out_of_order(api, round_id, colour_patron):
    before = events()
    refused(api.post(f"/api/rounds/{round_id}/void", {"reason": "   "}, format="json"), 400, "reason", before)
    assert api.post(f"/api/rounds/{round_id}/void", {"reason": "ball jumped out"}, format="json").status_code == 200
    before = events()
    refused(api.post(f"/api/rounds/{round_id}/void", {"reason": "again"}, format="json"), 409, "round", before)
    refused(api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json"), 409, "round", before)
    refused(api.post(f"/api/rounds/{round_id}/result", {"number": 3}, format="json"), 409, "round", before)
    refused(
        bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3), 409, "round", before
    )


# --- races (PostgreSQL, real commits) --------------------------------------------------------


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def dealer():
    return staff_user("racer", *API_TEST_ROLES)


@pytest.mark.postgres
def test_concurrent_bets_beyond_his_chips_never_go_negative(committed_db, table, dealer):
    """12 bets of 100.00 at once from a patron holding 1,000.00: exactly 10 pass."""
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    chances = ["rouge", "noir", "pair", "impair", "manque", "passe"] * 2

    def place(chance):
        body = {"patron": code, "stake_cents": 10_000, "bet": {"type": "chance_simple", "chance": chance}}
        return lambda: _client(dealer).post(f"/api/rounds/{coup}/bets", body, format="json").status_code

    outcomes = run_concurrently(*(place(c) for c in chances))
    assert sorted(outcomes) == [201] * 10 + [400] * 2, outcomes
    assert store.balance(accounts.patron_chips(code)) == 0
    assert Event.objects.filter(type="BetPlaced").count() == 10
    catch_up_all()
    assert verify_chain().ok


@pytest.mark.postgres
def test_bets_racing_rien_ne_va_plus(committed_db, table, dealer):
    """Bets and close-bets at once: every accepted bet comes before BettingClosed in the
    round's stream, every late one is 409, and settlement covers exactly the accepted ones."""
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]

    def place():
        body = {"patron": code, "stake_cents": 1_000, "bet": ROUGE}
        return _client(dealer).post(f"/api/rounds/{coup}/bets", body, format="json").status_code

    def close():
        return _client(dealer).post(f"/api/rounds/{coup}/close-bets", {}, format="json").status_code

    outcomes = run_concurrently(*([place] * 8), close, *([place] * 8))
    assert outcomes[8] == 200
    accepted = [s for i, s in enumerate(outcomes) if i != 8]
    assert set(accepted) <= {201, 409}, accepted
    stream = list(Event.objects.filter(stream=f"round/{coup}").order_by("version").values_list("type", flat=True))
    assert stream.index("BettingClosed") == len(stream) - 1
    assert stream.count("BetPlaced") == accepted.count(201)
    assert store.balance(accounts.patron_chips(code)) == 100_000 - 1_000 * accepted.count(201)
    result = round_record_result(round_id=coup, number=1, actor=ACTOR)  # rouge wins
    assert result["bets_settled"] == accepted.count(201)
    assert store.balance(accounts.patron_chips(code)) == 100_000 + 1_000 * accepted.count(201)


@pytest.mark.postgres
def test_two_different_results_at_once_settle_once(committed_db, table, dealer):
    code = make_patron(100_000)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_place(round_id=coup, patron=code, stake_cents=1_000, bet=ROUGE, actor=ACTOR)
    round_close_bets(round_id=coup, actor=ACTOR)

    def result(number):
        return lambda: _client(dealer).post(f"/api/rounds/{coup}/result", {"number": number}, format="json").status_code

    assert sorted(run_concurrently(result(1), result(2))) == [200, 409]
    assert Event.objects.filter(type="RoundSettled").count() == 1
    assert Event.objects.filter(type="BetSettled").count() == 1
    assert store.balance(accounts.patron_chips(code)) in (101_000, 99_000)


@pytest.mark.postgres
def test_change_inverse_racing_a_colour_bet(committed_db, table, dealer):
    """Either the bet lands first (change inverse 409) or the change inverse does (bet 400, no
    colour chips): never both, and no colour chips are lost or doubled."""
    code = make_patron(100_000)
    colour_chips_buy(table="R1", patron=code, chips=10, unit_value_cents=200, colour="red", actor=ACTOR)
    coup = round_open(table="R1", actor=ACTOR)["round"]

    def place():
        body = {"patron": code, "stake_cents": 400, "chips": "colour", "bet": PLEIN_3}
        return _client(dealer).post(f"/api/rounds/{coup}/bets", body, format="json").status_code

    def change():
        return _client(dealer).post("/api/tables/R1/change-inverse", {"patron": code}, format="json").status_code

    placed, changed = run_concurrently(place, change)
    assert (placed, changed) in ((201, 409), (400, 201)), (placed, changed)
    chips, colour = store.balance(accounts.patron_chips(code)), store.balance(accounts.patron_colour(code, "R1"))
    if placed == 201:
        assert (chips, colour) == (98_000, 1_600)
    else:
        assert (chips, colour) == (100_000, 0)


@pytest.mark.postgres
def test_two_change_inverses_at_once_credit_once(committed_db, colour_patron, dealer):
    def change():
        return (
            _client(dealer).post("/api/tables/R1/change-inverse", {"patron": colour_patron}, format="json").status_code
        )

    outcomes = run_concurrently(change, change)
    assert sorted(outcomes) in ([201, 400], [201, 409]), outcomes
    assert store.balance(accounts.patron_chips(colour_patron)) == 100_000
    assert Event.objects.filter(type="ColourChipsChangedBack").count() == 1


@pytest.mark.postgres
def test_two_patrons_grab_the_same_colour_at_once(committed_db, table, dealer):
    first, second = make_patron(10_000), make_patron(10_000)

    def buy(code):
        body = {"patron": code, "chips": 5, "unit_value_cents": 200, "colour": "blue"}
        return lambda: _client(dealer).post("/api/tables/R1/colour-chips", body, format="json").status_code

    assert sorted(run_concurrently(buy(first), buy(second))) == [201, 400]
    assert Event.objects.filter(type="ColourChipsBought").count() == 1
    assert store.balance(accounts.patron_chips(first)) + store.balance(accounts.patron_chips(second)) == 19_000


@pytest.mark.postgres
def test_first_opening_of_a_new_table_twice_at_once(committed_db, cage, dealer):
    """Two pit bosses each ask to open new table R8 with its counted opener; its dealer
    confirms both at once: one opens it, the other is 409."""
    croupier = staff_user(TABLE_DEALER, "dealer")
    body = opener_body(opener_cents=100_000, pit_boss="racer")
    asked = [_client(dealer).post("/api/tables/R8/opener", body, format="json") for _ in range(2)]
    assert [a.status_code for a in asked] == [202, 202], [a.content for a in asked]

    def confirm(approval):
        return lambda: _client(croupier).post(f"/api/approvals/{approval}/confirm", {}, format="json").status_code

    assert sorted(run_concurrently(*(confirm(a.json()["approval"]["id"]) for a in asked))) == [201, 409]
    assert Event.objects.filter(type="TableOpened", stream="table/R8").count() == 1
    assert store.balance(accounts.table_tray("R8")) == 100_000

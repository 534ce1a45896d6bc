"""Bad input through the API: the exact refusal, the field at fault, and no side effect.

Every refusal is checked three ways: the status (400 or 409, never a 500), the ``field`` of
the error body (``core.errors``: ``{"error", "detail", "field", "errors"}``), and that the
request changed nothing: the number of ledger events is the same before and after, and so
are the chips of every patron involved (value chips, and colour chips when they played them).

Setup (cage, table R1, patrons with chips) goes through the conftest fixtures; the refused
request itself always goes through the API. Table R1 has the default English roulette
limits: inside bets 2.00-100.00 EUR per position in colour chips only, even chances
5.00-1,000.00 EUR, and 10.00 EUR minimum for a standing player on value chips.
"""

import pytest
from rest_framework.test import APIClient

from games.services.colour_chips import colour_chips_buy
from games.services.rounds import round_open
from games.services.tables import table_close, table_open
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event
from tests.conftest import ACTOR, make_patron, opener_body

pytestmark = pytest.mark.django_db

PLEIN_3 = {"type": "plein", "numbers": [3]}
ROUGE = {"type": "chance_simple", "chance": "rouge"}
PAIR = {"type": "chance_simple", "chance": "pair"}


# --- helpers ------------------------------------------------------------------------------


class Snapshot:
    """The ledger size and the balances of some accounts, to show a refusal changed nothing."""

    def __init__(self, *accounts_to_watch: str):
        self.accounts = accounts_to_watch
        self.events = Event.objects.count()
        self.balances = {account: store.balance(account) for account in accounts_to_watch}

    def assert_unchanged(self) -> None:
        assert Event.objects.count() == self.events, "a refused request appended events"
        assert {a: store.balance(a) for a in self.accounts} == self.balances, "a refused request moved money"


def chips_of(patron: str) -> str:
    return accounts.patron_chips(patron)


def colour_of(patron: str, table: str = "R1") -> str:
    return accounts.patron_colour(patron, table)


def assert_refused(response, status: int, field: str | None, snapshot: Snapshot) -> dict:
    """The response is ``status`` naming ``field``, and the ledger and balances are untouched."""
    body = response.json()
    assert response.status_code == status, body
    assert body["field"] == field, body
    assert body["error"] and body["detail"], body
    if field is not None:
        assert field in body["errors"], body
    snapshot.assert_unchanged()
    return body


@pytest.fixture
def round_id(api, table) -> str:
    """A coup of R1 open for bets, opened through the API."""
    response = api.post("/api/tables/R1/rounds", {}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["round"]


def bet(api, round_id: str, **body):
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json")


# --- inside-bet geometry ------------------------------------------------------------------


def test_plein_on_37_is_refused(api, round_id, colour_patron):
    """A plein on 37 (single zero: the layout is 0-36) is 400 on bet.numbers; nothing staked."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(
        api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet={"type": "plein", "numbers": [37]}
    )
    assert_refused(response, 400, "bet.numbers", snap)


@pytest.mark.parametrize(
    "numbers",
    [
        pytest.param([1, 5], id="1-5-not-adjacent"),
        # 3 and 4 differ by one but 3 ends row 1-2-3 and 4 starts row 4-5-6: not side by side.
        pytest.param([3, 4], id="3-4-across-rows"),
    ],
)
def test_cheval_on_non_adjacent_numbers_is_refused(api, round_id, colour_patron, numbers):
    """A cheval needs two numbers side by side on the layout; 1-5 and 3-4 are not: 400 bet.numbers."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(
        api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet={"type": "cheval", "numbers": numbers}
    )
    assert_refused(response, 400, "bet.numbers", snap)


@pytest.mark.parametrize("numbers", [pytest.param([1, 5, 9], id="1-5-9"), pytest.param("1-9", id="string-1-9")])
def test_transversale_1_5_9_is_refused(api, round_id, colour_patron, numbers):
    """C09: a transversale on {1,5,9} (a diagonal, not a row of three), or the text "1-9",
    is refused with 400 on bet.numbers and nothing is taken."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(
        api,
        round_id,
        patron=colour_patron,
        stake_cents=1000,
        chips="colour",
        bet={"type": "transversale", "numbers": numbers},
    )
    assert_refused(response, 400, "bet.numbers", snap)


# --- the stake ----------------------------------------------------------------------------


def test_negative_stake_is_refused(api, round_id, patron):
    """A stake of -10.00 EUR is 400 on stake_cents (it must not credit the patron)."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=-1000, bet=ROUGE)
    assert_refused(response, 400, "stake_cents", snap)


def test_zero_stake_is_refused(api, round_id, patron):
    """A stake of 0 is 400 on stake_cents."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=0, bet=ROUGE)
    assert_refused(response, 400, "stake_cents", snap)


@pytest.mark.parametrize("stake", [10.5, 10.0, 1000.0])
def test_float_stake_is_refused(api, round_id, patron, stake):
    """Money is integer cents: a JSON float is 400 on stake_cents, even a whole one (10.0, and
    1000.0, which as an integer would be a valid 10.00 EUR on rouge)."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=stake, bet=ROUGE)
    assert_refused(response, 400, "stake_cents", snap)


@pytest.mark.parametrize(
    "stake", ["1000", "10.00", True, None, [1000]], ids=["str-int", "str-eur", "true", "null", "list"]
)
def test_non_integer_stake_is_refused(api, round_id, patron, stake):
    """A string ("1000", "10.00"), a boolean, null or a list as the stake is 400 on stake_cents."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=stake, bet=ROUGE)
    assert_refused(response, 400, "stake_cents", snap)


def test_stake_over_table_maximum_is_refused(api, round_id, colour_patron):
    """A plein of 102.00 EUR (51 red chips of 2.00, so a whole number of chips, and he holds
    200.00 EUR of them) is over the 100.00 EUR maximum per position: 400 on stake_cents."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=10_200, chips="colour", bet=PLEIN_3)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "maximum" in body["detail"]


def test_maximum_counts_what_is_already_on_the_position(api, round_id, colour_patron):
    """The maximum is per position and per patron for the coup: 100.00 EUR on plein 3 is
    accepted, 2.00 EUR more on plein 3 (102.00 in all) is 400 on stake_cents."""
    first = bet(api, round_id, patron=colour_patron, stake_cents=10_000, chips="colour", bet=PLEIN_3)
    assert first.status_code == 201, first.json()
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "maximum" in body["detail"]


def test_even_chance_under_minimum_in_colour_chips_is_refused(api, round_id, colour_patron):
    """4.00 EUR on pair (2 red chips of 2.00: a whole number of chips) is under the 5.00 EUR
    even-chance minimum: 400 on stake_cents, and the message says it is the minimum."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=400, chips="colour", bet=PAIR)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "minimum" in body["detail"]


def test_stake_not_a_whole_number_of_colour_chips_is_refused(api, round_id, colour_patron):
    """3.00 EUR in red chips of 2.00 EUR is not a whole number of chips: 400 on stake_cents
    (a different refusal from the limits: the message names the chips)."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=300, chips="colour", bet=PLEIN_3)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "chips" in body["detail"]


def test_standing_player_under_standing_minimum_is_refused(api, round_id, patron):
    """A standing player (value chips) on rouge for 5.00 EUR meets the even-chance minimum
    (5.00) but not the standing minimum (10.00): 400 on stake_cents."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=500, bet=ROUGE)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "minimum" in body["detail"]


def test_inside_bet_under_minimum_is_refused(api, round_id, patron):
    """With colour chips of 1.00 EUR, a plein of 1.00 EUR (one chip) is under the 2.00 EUR
    minimum of an inside bet: 400 on stake_cents."""
    colour_chips_buy(table="R1", patron=patron, chips=10, unit_value_cents=100, actor=ACTOR)
    snap = Snapshot(chips_of(patron), colour_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=100, chips="colour", bet=PLEIN_3)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert "minimum" in body["detail"]


def test_bet_larger_than_value_chips_is_refused(api, round_id, cage):
    """A patron holding 50.00 EUR of value chips bets 60.00 EUR on rouge (within the table
    limits): 400 insufficient_funds on stake_cents; he still holds 50.00 EUR."""
    poor = make_patron(5_000)
    snap = Snapshot(chips_of(poor))
    response = bet(api, round_id, patron=poor, stake_cents=6_000, bet=ROUGE)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert body["error"] == "insufficient_funds"
    assert store.balance(chips_of(poor)) == 5_000


def test_bet_larger_than_colour_chips_is_refused(api, round_id, colour_patron):
    """He holds 100 red chips of 2.00 = 200.00 EUR; 202.00 EUR (101 chips) on rouge is within
    the even-chance maximum of 1,000.00 but more than he holds: 400 on stake_cents. His
    800.00 EUR of value chips are not drawn on to make up the difference."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=20_200, chips="colour", bet=ROUGE)
    body = assert_refused(response, 400, "stake_cents", snap)
    assert body["error"] == "insufficient_funds"
    assert store.balance(colour_of(colour_patron)) == 20_000
    assert store.balance(chips_of(colour_patron)) == 80_000


# --- state of the coup --------------------------------------------------------------------


def test_bet_after_rien_ne_va_plus_is_refused(api, round_id, colour_patron):
    """Once betting is closed (rien ne va plus) a bet is 409 on round; nothing is staked."""
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3)
    assert_refused(response, 409, "round", snap)


def test_result_before_betting_closed_is_refused(api, round_id, colour_patron):
    """Recording the number while the coup still takes bets is 409 on round; the placed
    bet stays placed and unpaid (the patron's 2.00 EUR stays on the layout)."""
    placed = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3)
    assert placed.status_code == 201, placed.json()
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron), accounts.table_layout("R1"))
    response = api.post(f"/api/rounds/{round_id}/result", {"number": 3}, format="json")
    assert_refused(response, 409, "round", snap)
    coup = api.get(f"/api/rounds/{round_id}/").json()
    assert coup["state"] == "betting"
    assert [b["state"] for b in coup["bets"]] == ["placed"]


def test_settle_twice_is_refused(api, round_id, colour_patron):
    """C19 (sequential): the first result settles the coup (200); a second result, even the
    same number, is 409 on round and pays nothing again. Plein 3 for 2.00 EUR on 3 returns
    2.00 + 35 x 2.00 = 72.00 EUR once: 200.00 - 2.00 + 72.00 = 270.00 EUR of red chips."""
    assert bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3).status_code == 201
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    first = api.post(f"/api/rounds/{round_id}/result", {"number": 3}, format="json")
    assert first.status_code == 200, first.json()
    assert store.balance(colour_of(colour_patron)) == 27_000
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    again = api.post(f"/api/rounds/{round_id}/result", {"number": 3}, format="json")
    assert_refused(again, 409, "round", snap)
    other = api.post(f"/api/rounds/{round_id}/result", {"number": 17}, format="json")
    assert_refused(other, 409, "round", snap)
    assert store.balance(colour_of(colour_patron)) == 27_000


@pytest.mark.parametrize(
    "number",
    [37, -1, "5", 5.0, True, None],
    ids=["37", "minus-1", "string-5", "float-5.0", "true", "null"],
)
def test_result_outside_0_36_is_refused(api, round_id, colour_patron, number):
    """The winning number is a JSON integer 0-36: 37, -1, "5", 5.0, true and null are 400 on
    number; the coup stays closed for bets and the bet on it stays placed."""
    assert bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3).status_code == 201
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron), accounts.table_layout("R1"))
    response = api.post(f"/api/rounds/{round_id}/result", {"number": number}, format="json")
    assert_refused(response, 400, "number", snap)
    assert api.get(f"/api/rounds/{round_id}/").json()["state"] == "closed_for_bets"


def test_stale_expected_version_is_refused(api, round_id, colour_patron):
    """C17: the coup's stream is at version 2 (RoundOpened, one BetPlaced); a bet or a
    rien ne va plus that expects version 1 is 409 on expected_version and has no effect."""
    assert bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3).status_code == 201
    assert api.get(f"/api/rounds/{round_id}/").json()["version"] == 2
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    stale_bet = bet(
        api,
        round_id,
        patron=colour_patron,
        stake_cents=200,
        chips="colour",
        bet={"type": "plein", "numbers": [4]},
        expected_version=1,
    )
    assert_refused(stale_bet, 409, "expected_version", snap)
    stale_close = api.post(f"/api/rounds/{round_id}/close-bets", {"expected_version": 1}, format="json")
    assert_refused(stale_close, 409, "expected_version", snap)
    coup = api.get(f"/api/rounds/{round_id}/").json()
    assert (coup["state"], coup["version"], len(coup["bets"])) == ("betting", 2, 1)


# --- colour chips -------------------------------------------------------------------------


def test_ninth_colour_at_a_table_is_refused(api, table):
    """Eight patrons take the eight colours of R1; a ninth asking for colour chips is 400 on
    colour, and keeps his 100.00 EUR of value chips."""
    for _ in range(8):
        colour_chips_buy(table="R1", patron=make_patron(10_000), chips=10, unit_value_cents=100, actor=ACTOR)
    ninth = make_patron(10_000)
    snap = Snapshot(chips_of(ninth), colour_of(ninth))
    response = api.post(
        "/api/tables/R1/colour-chips", {"patron": ninth, "chips": 10, "unit_value_cents": 100}, format="json"
    )
    assert_refused(response, 400, "colour", snap)
    assert store.balance(chips_of(ninth)) == 10_000


def test_colour_chips_at_another_table_are_refused(api, table, colour_patron):
    """Colour chips are valid only at their table: with red chips at R1, a colour bet at R2
    is 400 on chips; neither his R1 colour chips nor his value chips move."""
    table_open(code="R2", game="english_roulette", opener_cents=1_000_000, actor=ACTOR)
    r2_round = round_open(table="R2", actor=ACTOR)["round"]
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron, "R1"), colour_of(colour_patron, "R2"))
    response = bet(api, r2_round, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_3)
    body = assert_refused(response, 400, "chips", snap)
    assert "R1" in body["detail"]


def test_value_chip_inside_bet_is_refused(api, round_id, patron):
    """English roulette: value chips only on the even chances. A plein of 10.00 EUR in value
    chips is 400 on chips (buy colour chips)."""
    snap = Snapshot(chips_of(patron))
    response = bet(api, round_id, patron=patron, stake_cents=1_000, bet=PLEIN_3)
    assert_refused(response, 400, "chips", snap)


def test_close_table_with_colour_chips_outstanding_is_refused(api, colour_patron):
    """R1 cannot close while a patron still holds colour chips there: 409 on table; the table
    stays open and his 200.00 EUR of red chips stay his."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron), accounts.table_tray("R1"))
    with pytest.raises(StateConflict) as refused:
        table_close(code="R1", actor=ACTOR)
    assert refused.value.field == "table"
    snap.assert_unchanged()
    assert api.get("/api/tables/R1/").json()["state"] == "open"


# --- the cage -----------------------------------------------------------------------------


def test_redemption_larger_than_chips_is_refused(api, patron):
    """He holds 1,000.00 EUR of chips; redeeming 1,000.01 is 400 on amount_cents; no cash leaves."""
    snap = Snapshot(chips_of(patron), accounts.CAGE_CASH)
    response = api.post("/api/cage/redemptions", {"patron": patron, "amount_cents": 100_001}, format="json")
    body = assert_refused(response, 400, "amount_cents", snap)
    assert body["error"] == "insufficient_funds"


def test_idempotency_key_reused_with_a_different_body_is_refused(api, patron):
    """C15: a purchase of 2.00 EUR with key K succeeds; the same key with 3.00 EUR is 409 on
    idempotency_key, and so is the same key on another endpoint; the patron keeps 1,002.00."""
    first = api.post(
        "/api/cage/purchases", {"patron": patron, "amount_cents": 200}, format="json", HTTP_IDEMPOTENCY_KEY="K-1"
    )
    assert first.status_code == 201, first.json()
    assert store.balance(chips_of(patron)) == 100_200
    snap = Snapshot(chips_of(patron), accounts.CAGE_CASH)
    other_amount = api.post(
        "/api/cage/purchases", {"patron": patron, "amount_cents": 300}, format="json", HTTP_IDEMPOTENCY_KEY="K-1"
    )
    assert_refused(other_amount, 409, "idempotency_key", snap)
    other_endpoint = api.post(
        "/api/cage/redemptions", {"patron": patron, "amount_cents": 200}, format="json", HTTP_IDEMPOTENCY_KEY="K-1"
    )
    assert_refused(other_endpoint, 409, "idempotency_key", snap)
    assert store.balance(chips_of(patron)) == 100_200


# --- unknown things, no credentials -------------------------------------------------------


@pytest.mark.parametrize(
    "path, body",
    [
        ("/api/rounds/{round}/bets", {"stake_cents": 1_000, "bet": ROUGE}),
        ("/api/cage/purchases", {"amount_cents": 1_000}),
        ("/api/cage/redemptions", {"amount_cents": 1_000}),
        ("/api/tables/R1/colour-chips", {"chips": 10, "unit_value_cents": 200}),
        ("/api/tables/R1/buy-ins", {"amount_cents": 1_000}),
    ],
    ids=["bet", "purchase", "redemption", "colour-chips", "buy-in"],
)
def test_unknown_patron_is_refused(api, round_id, patron, path, body):
    """A patron code nobody registered is 400 on patron, at every endpoint that takes one."""
    snap = Snapshot(chips_of("P99999"), chips_of(patron), accounts.CAGE_CASH, accounts.table_tray("R1"))
    response = api.post(path.format(round=round_id), {"patron": "P99999", **body}, format="json")
    assert_refused(response, 400, "patron", snap)


NO_SUCH_ROUND = "00000000-0000-4000-8000-000000000000"


@pytest.mark.parametrize(
    "suffix, body",
    [
        ("bets", {"stake_cents": 1_000, "bet": ROUGE}),
        ("close-bets", {}),
        ("result", {"number": 5}),
        ("void", {"reason": "wheel jammed"}),
    ],
)
def test_unknown_round_is_404(api, table, patron, suffix, body):
    """A well-formed round id that does not exist is 404 (not_found) for every coup command."""
    snap = Snapshot(chips_of(patron))
    response = api.post(f"/api/rounds/{NO_SUCH_ROUND}/{suffix}", {"patron": patron, **body}, format="json")
    assert response.status_code == 404, response.content
    assert response.json()["error"] == "not_found"
    snap.assert_unchanged()


def test_unknown_round_read_is_404(api, table):
    """GET of a round that does not exist is 404."""
    assert api.get(f"/api/rounds/{NO_SUCH_ROUND}/").status_code == 404


def test_unauthenticated_request_is_refused(patron):
    """Without credentials a write is refused (403 with session/basic auth; 401 allowed) and appends nothing."""
    snap = Snapshot(chips_of(patron), accounts.CAGE_CASH)
    response = APIClient().post("/api/cage/purchases", {"patron": patron, "amount_cents": 1_000}, format="json")
    assert response.status_code in (401, 403), response.content
    snap.assert_unchanged()
    assert APIClient().get("/api/patrons/").status_code in (401, 403)


# --- found while writing these tests (see the report) ---------------------------------------


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"bet": {"type": "plein", "numbers": [1.5]}}, "bet.numbers"),
        ({"bet": {"type": "colonne", "which": 1.0}}, "bet.which"),
        ({"announce": {"name": "voisins", "number": 5.0}}, "announce.number"),
        ({"announce": {"name": "voisins", "number": 5, "neighbours": 2.0}}, "announce.neighbours"),
    ],
    ids=["numbers-1.5", "which-1.0", "voisins-number-5.0", "neighbours-2.0"],
)
def test_float_inside_the_bet_is_400(api, round_id, colour_patron, payload, field):
    """A float anywhere in the bet (a pocket 1.5, which 1.0, an announce number 5.0) is bad
    input: 400 on the field at fault, never a 500 (a TypeError from the idempotency
    fingerprint)."""
    snap = Snapshot(chips_of(colour_patron), colour_of(colour_patron))
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", **payload)
    assert_refused(response, 400, field, snap)


def test_amount_beyond_64_bits_is_400(api, cage, croupier):
    """An opener counting 2**63 cents cannot be stored (BIGINT is 64-bit signed): 400 on opener."""
    snap = Snapshot(accounts.table_tray("R9"), accounts.HOUSE_BANKROLL)
    body = opener_body() | {"opener": {"1": 2**63}}
    response = api.post("/api/tables/R9/opener", body, format="json")
    assert_refused(response, 400, "opener", snap)


def test_cage_count_beyond_64_bits_is_400(api):
    """A cage count of 2**63 cents cannot be stored: 400 on cash_cents, and the cage stays closed."""
    snap = Snapshot(accounts.CAGE_CASH, accounts.HOUSE_BANKROLL)
    response = api.post("/api/cage/open", {"cash_cents": 2**63, "chips_cents": 0}, format="json")
    assert_refused(response, 400, "cash_cents", snap)

"""Stakes in the table's chip increments at every game, through the API (sheet 002: chips of
1, 5, 25, 100 and 500 EUR; ``games.rules.chips``).

A table opened with ``chip_cents`` refuses a stake its chips cannot make (400 on the stake, a
``chip_increment`` refusal recorded for the floor, nothing in the ledger) or, with
``off_chips = adjust``, takes the largest amount the chips make under it: only that leaves
the patron's chips, and the asked stake is recorded beside it (``adjusted_from_cents``).
"""

import pytest

from games.models import Bet, BetRefusal
from ledger import accounts, store
from ledger.models import Event
from tests.api.test_classic_stud_api import StudTable
from tests.conftest import make_patron, open_by_total

pytestmark = pytest.mark.django_db

CHIPS = [100, 500, 2_500]
# table code -> (game, bet endpoint, stake field, the rest of the body, a shoe?)
GAMES = {
    "R1": ("english_roulette", "bets", "stake_cents", {"bet": {"type": "chance_simple", "chance": "rouge"}}, False),
    "B1": ("blackjack", "blackjack-bets", "stake_cents", {"box": 1, "seated": True}, True),
    "C1": ("caribbean_stud", "antes", "ante_cents", {"box": 1}, False),
    "P1": ("baccarat", "baccarat-bets", "stake_cents", {"bet": "banker"}, True),
    "T1": ("trente_quarante", "trente-quarante-bets", "stake_cents", {"bet": "rouge"}, True),
}


def open_coup(api, code: str, **rules) -> str:
    game, *_, shoe = GAMES[code]
    open_by_total(code, game, 1_000_000, rules={"chip_cents": CHIPS, **rules})
    if shoe:
        assert api.post(f"/api/tables/{code}/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    response = api.post(f"/api/tables/{code}/rounds", {}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["round"]


def place(api, code: str, round_id: str, patron: str, stake: int):
    _, path, field, body, _ = GAMES[code]
    return api.post(f"/api/rounds/{round_id}/{path}", {**body, "patron": patron, field: stake}, format="json")


def chips_of(patron: str) -> int:
    return store.balance(accounts.patron_chips(patron))


@pytest.mark.parametrize("code", list(GAMES))
def test_the_tables_chips_are_shown_with_its_options(api, cage, code):
    open_coup(api, code, off_chips="adjust")
    rules = api.get(f"/api/tables/{code}/").json()["rules"]
    assert (rules["chip_cents"], rules["off_chips"]) == (CHIPS, "adjust")


@pytest.mark.parametrize("code", list(GAMES))
def test_a_stake_the_chips_cannot_make_is_refused_and_recorded_as_a_chip_increment(api, cage, code):
    round_id = open_coup(api, code)
    patron = make_patron(100_000)
    events = Event.objects.count()
    response = place(api, code, round_id, patron, 1_050)
    field = GAMES[code][2]
    assert (response.status_code, response.json()["field"]) == (400, field)
    assert response.json()["detail"] == "10.50 EUR cannot be made of the table's chips (1.00, 5.00, 25.00 EUR)"
    assert (Event.objects.count(), Bet.objects.count(), chips_of(patron)) == (events, 0, 100_000)
    (row,) = BetRefusal.objects.all()
    assert (row.table_code, str(row.round_id), row.patron_code) == (code, round_id, patron)
    assert (row.kind, row.stake_cents, row.message) == ("chip_increment", 1_050, response.json()["detail"])
    # 30 EUR is 25 + 5: taken as asked
    placed = place(api, code, round_id, patron, 3_000)
    assert placed.status_code == 201, placed.json()
    assert "adjusted_from_cents" not in placed.json()


@pytest.mark.parametrize("code", list(GAMES))
def test_adjust_takes_the_largest_amount_the_chips_make_and_records_the_asked_stake(api, cage, code):
    round_id = open_coup(api, code, off_chips="adjust")
    patron = make_patron(100_000)
    response = place(api, code, round_id, patron, 3_099)
    assert response.status_code == 201, response.json()
    body = response.json()
    taken = body["total_cents"] if code == "R1" else body[GAMES[code][2]]  # roulette: an announce's total
    assert (taken, body["adjusted_from_cents"]) == (3_000, 3_099)
    assert chips_of(patron) == 100_000 - 3_000  # the 0.99 EUR the chips cannot make is never taken
    assert store.balance(accounts.table_layout(code)) == 3_000
    (placed,) = Event.objects.filter(type="BetPlaced", data__patron=patron)
    assert (placed.data["stake_cents"], placed.data["adjusted_from_cents"]) == (3_000, 3_099)
    assert Bet.objects.get().stake_cents == 3_000
    assert not BetRefusal.objects.exists()


def test_an_adjusted_stake_under_the_minimum_is_refused_as_under_the_minimum(api, cage):
    """Black jack's minimum is 10 EUR: 12 EUR in chips of 7 EUR is 7 EUR, under it."""
    round_id = open_coup(api, "B1", chip_cents=[700], off_chips="adjust")
    patron = make_patron(100_000)
    response = place(api, "B1", round_id, patron, 1_200)
    assert (response.status_code, response.json()["field"]) == (400, "stake_cents")
    (row,) = BetRefusal.objects.all()
    assert (row.kind, row.stake_cents) == ("table_minimum", 700)
    assert chips_of(patron) == 100_000


def test_roulette_colour_chips_carry_the_patrons_own_value(api, cage):
    """English roulette: a colour chip is worth what the patron chose at buy-in (sheet 000), so
    the table's chips do not bound a stake in colour chips: 2.50 EUR chips are played."""
    round_id = open_coup(api, "R1")
    patron = make_patron(100_000)
    bought = {"patron": patron, "chips": 50, "unit_value_cents": 250, "colour": "red"}
    assert api.post("/api/tables/R1/colour-chips", bought, format="json").status_code == 201
    body = {"patron": patron, "stake_cents": 250, "chips": "colour", "announce": {"name": "tiers_du_cylindre"}}
    placed = api.post(f"/api/rounds/{round_id}/bets", body, format="json")
    assert (placed.status_code, placed.json()["total_cents"]) == (201, 6 * 250)
    assert not BetRefusal.objects.exists()


def test_a_classic_stud_bet_and_raise_are_in_the_tables_chips(api, cage):
    """Classic stud: a bet the chips cannot make is refused (recorded); with adjust a raise to
    7.50 EUR in chips of 1 and 5 EUR is a raise to 7.00 EUR, the engine checking it again."""
    table = StudTable(api, "S1", chip_cents=[100, 500])
    p1, p2 = make_patron(5_000), make_patron(5_000)
    table.hand((p1, 1), (p2, 2))
    table.cards("2C", "3D", "AS", "KH")  # hole cards, then seat 1's ace showing opens
    refused = table.act(1, "bet", 350, expect=400)
    assert refused["field"] == "amount_cents"
    assert BetRefusal.objects.get().kind == "chip_increment"
    table.act(1, "bet", 300)

    adjusting = StudTable(api, "S2", chip_cents=[100, 500], off_chips="adjust")
    p3, p4 = make_patron(5_000), make_patron(5_000)
    adjusting.hand((p3, 1), (p4, 2))
    adjusting.cards("2C", "3D", "AS", "KH")
    adjusting.act(1, "bet", 300)
    adjusting.act(2, "raise", 750)
    acted = Event.objects.filter(type="PlayerActed", data__action="raise").get()
    assert acted.data["amount_cents"] == 700
    assert chips_of(p4) == 5_000 - 100 - 700  # the ante and the raise to 7.00 EUR


def test_a_batch_checks_each_stake_against_the_chips_as_a_single_bet_would(api, cage):
    """The batch path uses the single placement's check: a roulette stake lowered to what the
    chips make says so; at baccarat (the sheet's chips, refused) 10.50 EUR is refused as a chip
    increment and recorded, through the game's own service."""
    round_id = open_coup(api, "R1", off_chips="adjust")
    patron = make_patron(100_000)
    bets = [{"patron": patron, "stake_cents": 3_099, "bet": {"type": "chance_simple", "chance": "rouge"}, "key": "a"}]
    body = api.post(f"/api/rounds/{round_id}/bet-batches", {"bets": bets}, format="json").json()
    (first,) = body["results"]
    assert (first["status"], first["total_cents"], first["adjusted_from_cents"]) == ("accepted", 3_000, 3_099)
    assert chips_of(patron) == 100_000 - 3_000

    baccarat = open_coup(api, "P1")
    body = api.post(
        f"/api/rounds/{baccarat}/bet-batches",
        {"bets": [{"patron": patron, "bet": "player", "stake_cents": 1_050}]},
        format="json",
    ).json()
    assert (body["results"][0]["status"], body["results"][0]["kind"]) == ("refused", "chip_increment")
    assert list(BetRefusal.objects.values_list("table_code", "kind", "stake_cents")) == [
        ("P1", "chip_increment", 1_050)
    ]


@pytest.mark.parametrize("off_chips", ["reject", "adjust"])
def test_a_black_jack_insurance_is_in_the_tables_chips(api, cage, off_chips):
    """Stake 20.00 EUR in chips of 5 and 10 EUR, the dealer shows an ace: insurance of 7.50 EUR
    is refused (recorded), or taken as 5.00 EUR; a replay of the coup makes the same call."""
    open_by_total("B2", "blackjack", rules={"chip_cents": [500, 1_000], "off_chips": off_chips})
    assert api.post("/api/tables/B2/shoes", {"mode": "reader"}, format="json").status_code == 201
    round_id = api.post("/api/tables/B2/rounds", {}, format="json").json()["round"]
    patron = make_patron(10_000)
    placed = {"patron": patron, "box": 1, "stake_cents": 2_000, "seated": True}
    assert api.post(f"/api/rounds/{round_id}/blackjack-bets", placed, format="json").status_code == 201
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").status_code == 200
    for card in ("TS", "AS", "9H"):
        assert api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json").status_code == 200
    insurance = {"patron": patron, "box": 1, "action": "insurance", "amount_cents": 750}
    response = api.post(f"/api/rounds/{round_id}/decisions", insurance, format="json")
    if off_chips == "reject":
        assert (response.status_code, response.json()["field"]) == (400, "amount_cents")
        assert list(BetRefusal.objects.values_list("kind", "stake_cents")) == [("chip_increment", 750)]
        assert chips_of(patron) == 8_000
        return
    assert response.status_code == 200, response.json()
    assert chips_of(patron) == 10_000 - 2_000 - 500
    (decided,) = Event.objects.filter(type="InsuranceDecided")
    assert (decided.data["call"]["args"]["amount_cents"], decided.data["call"]["adjusted_from_cents"]) == (500, 750)
    stand = {"patron": patron, "box": 1, "action": "stand"}
    assert api.post(f"/api/rounds/{round_id}/decisions", stand, format="json").status_code == 200  # replayed
    assert api.post(f"/api/rounds/{round_id}/cards", {"card": "KD"}, format="json").json()["state"] == "settled"
    assert chips_of(patron) == 10_000 - 2_000 - 500 + 3 * 500  # insurance 2:1 on 5.00 EUR, the bet lost

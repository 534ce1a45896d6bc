"""One evening at English roulette table R1, told through the API from the cage opening to
the table closing. Every amount is worked out by hand in the comments (RULES.md §Roulette:
plein 35:1, cheval 17:1, transversale 11:1, douzaine 2:1, chances simples 1:1; la partage
on zero gives back half an even-chance stake, rounded down to the cent).

The cast:
- Alice buys 1,000.00 EUR of chips, takes 50 red chips of 2.00 EUR at R1 (100.00 EUR);
- Bruno buys 500.00 EUR, takes 20 blue chips of 5.00 EUR (100.00 EUR);
- Chloé buys 300.00 EUR and plays standing, on the even chances with value chips.
"""

from collections import Counter

import pytest

from games.selectors import table_win_cents
from games.services.tables import table_close
from ledger import accounts, store
from ledger.models import Event
from tests.conftest import ACTOR, approve, opener_body

pytestmark = pytest.mark.django_db

RED = (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36)  # RULES.md §Roulette
EVEN = tuple(range(2, 37, 2))


def ok(response, status: int = 201) -> dict:
    body = response.json()
    assert response.status_code == status, body
    return body


def chips(api, patron: str) -> int:
    return ok(api.get(f"/api/patrons/{patron}/"), 200)["chips_cents"]


def place(api, round_id: str, patron: str, stake: int, *, chips: str = "value", bet=None, announce=None) -> dict:
    body = {"patron": patron, "stake_cents": stake, "chips": chips}
    body.update({"bet": bet} if bet is not None else {"announce": announce})
    return ok(api.post(f"/api/rounds/{round_id}/bets", body, format="json"))


def bets_of(round_body: dict) -> Counter:
    """The bets of a round as a multiset of (patron, type, numbers, stake, chips, announce, state, return)."""
    return Counter(
        (
            b["patron"],
            b["position"]["type"],
            tuple(b["position"]["numbers"]),
            b["stake_cents"],
            b["chips"],
            b["announce"],
            b["state"],
            b["return_cents"],
        )
        for b in round_body["bets"]
    )


def assert_round_stream(api, round_id: str, expected_types: list[str]) -> list[dict]:
    """GET /api/events/?stream=round/<id>: the round's events in order, versions 1..n, and the
    postings of every event sum to zero."""
    events = ok(api.get("/api/events/", {"stream": f"round/{round_id}"}), 200)
    assert events["next"] is None
    rows = events["results"]
    assert [e["type"] for e in rows] == expected_types
    assert [e["version"] for e in rows] == list(range(1, len(expected_types) + 1))
    positions = [e["position"] for e in rows]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    for event in rows:
        assert event["stream"] == f"round/{round_id}"
        assert sum(p["amount_cents"] for p in event["postings"]) == 0, event
    # Each stake goes to the layout when placed and leaves it when settled.
    layout = accounts.table_layout("R1")
    assert sum(p["amount_cents"] for e in rows for p in e["postings"] if p["account"] == layout) == 0
    return rows


def test_an_evening_at_r1(api, croupier):
    # --- the cage opens with 100,000.00 EUR of cash and 100,000.00 EUR of chips ----------
    ok(api.post("/api/cage/open", {"cash_cents": 10_000_000, "chips_cents": 10_000_000}, format="json"))
    counted = {"cash": {"50000": 200}, "chips": {"1000000": 10}}  # the cashier counts the cage in
    ok(api.post("/api/cage/shifts/open", counted, format="json"))

    # --- three patrons are registered ---------------------------------------------------
    alice = ok(api.post("/api/patrons/register", {"kind": "identified", "name": "Alice"}, format="json"))["patron"]
    bruno = ok(api.post("/api/patrons/register", {"kind": "identified", "name": "Bruno"}, format="json"))["patron"]
    chloe = ok(api.post("/api/patrons/register", {"kind": "identified", "name": "Chloé"}, format="json"))["patron"]
    assert len({alice, bruno, chloe}) == 3

    # --- they buy chips; Alice's purchase is retried with the same key (C15) ------------
    purchase = {"patron": alice, "amount_cents": 100_000}
    first = ok(api.post("/api/cage/purchases", purchase, format="json", HTTP_IDEMPOTENCY_KEY="alice-buy-1"))
    events_after_first = Event.objects.count()
    retry = ok(api.post("/api/cage/purchases", purchase, format="json", HTTP_IDEMPOTENCY_KEY="alice-buy-1"))
    assert retry == first  # same transaction id, same event position, same chips_cents
    assert Event.objects.count() == events_after_first  # the retry appended nothing
    assert first["chips_cents"] == 100_000 and chips(api, alice) == 100_000  # not 2,000.00
    ok(api.post("/api/cage/purchases", {"patron": bruno, "amount_cents": 50_000}, format="json"))
    ok(api.post("/api/cage/purchases", {"patron": chloe, "amount_cents": 30_000}, format="json"))

    # --- table R1 opens with a 50,000.00 EUR float counted; default rules (la partage) ---
    asked = api.post("/api/tables/R1/opener", opener_body(), format="json")
    assert asked.status_code == 202, asked.json()  # the dealer confirms the count from his own login
    opened = ok(approve(asked, croupier))
    assert opened["rules"]["zero_rule"] == "la_partage"
    opened_at = opened["event"]

    # --- colour chips: 50 x 2.00 = 100.00 EUR for Alice, 20 x 5.00 = 100.00 EUR for Bruno -
    red = ok(
        api.post("/api/tables/R1/colour-chips", {"patron": alice, "chips": 50, "unit_value_cents": 200}, format="json")
    )
    assert (red["colour"], red["amount_cents"], red["colour_cents"]) == ("red", 10_000, 10_000)
    blue = ok(
        api.post(
            "/api/tables/R1/colour-chips",
            {"patron": bruno, "chips": 20, "unit_value_cents": 500, "colour": "blue"},
            format="json",
        )
    )
    assert (blue["colour"], blue["amount_cents"]) == ("blue", 10_000)
    assert chips(api, alice) == 90_000  # 1,000.00 - 100.00
    assert chips(api, bruno) == 40_000  # 500.00 - 100.00

    # === coup 1: the ball lands on 8 =====================================================
    coup1 = ok(api.post("/api/tables/R1/rounds", {}, format="json"))
    assert (coup1["number"], coup1["state"]) == (1, "betting")
    r1 = coup1["round"]
    # Alice: transversale 7-8-9 for 10.00 (5 red chips), C09.
    place(api, r1, alice, 1_000, chips="colour", bet={"type": "transversale", "numbers": [7, 8, 9]})
    # Alice: voisins du zéro announced, one chip = 2.00: 2 on 0-2-3, 1 on each of five
    # chevaux, 2 on the carré 25-26-28-29 -> 9 chips = 18.00 EUR in 7 component bets.
    voisins = place(api, r1, alice, 200, chips="colour", announce={"name": "voisins_du_zero"})
    assert voisins["total_cents"] == 1_800 and len(voisins["bets"]) == 7
    # Alice: plein 8 for 2.00.
    place(api, r1, alice, 200, chips="colour", bet={"type": "plein", "numbers": [8]})
    # Bruno: cheval 8-11 (8 above 11) for 5.00, douzaine 1-12 (which 0) for 10.00,
    # colonne 3-6-...-36 (which 2) for 5.00.
    place(api, r1, bruno, 500, chips="colour", bet={"type": "cheval", "numbers": [11, 8]})
    place(api, r1, bruno, 1_000, chips="colour", bet={"type": "douzaine", "which": 0})
    place(api, r1, bruno, 500, chips="colour", bet={"type": "colonne", "which": 2})
    # Chloé, standing, value chips: pair 10.00 (the standing minimum), rouge 20.00.
    place(api, r1, chloe, 1_000, bet={"type": "chance_simple", "chance": "pair"})
    place(api, r1, chloe, 2_000, bet={"type": "chance_simple", "chance": "rouge"})
    # Stakes: Alice 10 + 18 + 2 = 30.00, Bruno 5 + 10 + 5 = 20.00, Chloé 10 + 20 = 30.00.
    assert chips(api, chloe) == 27_000  # 300.00 - 30.00 on the layout

    ok(api.post(f"/api/rounds/{r1}/close-bets", {}, format="json"), 200)
    settled1 = ok(api.post(f"/api/rounds/{r1}/result", {"number": 8}, format="json"), 200)
    # Returns on 8 (black, even, 1-12, column 2-5-8-...):
    #   transversale 7-8-9: 10 + 11 x 10 = 120.00     voisins: 8 is not among its 17 numbers: 0
    #   plein 8: 2 + 35 x 2 = 72.00                    cheval 8-11: 5 + 17 x 5 = 90.00
    #   douzaine 1-12: 10 + 2 x 10 = 30.00             colonne 3-...-36: 0
    #   pair: 10 + 10 = 20.00                          rouge: 0
    # staked 80.00, returned 120 + 72 + 90 + 30 + 20 = 332.00, house -252.00
    assert (settled1["state"], settled1["result"]) == ("settled", {"number": 8})
    assert settled1["bets_settled"] == 14  # 1 + 7 + 1 + 3 + 2
    assert (settled1["staked_cents"], settled1["returned_cents"], settled1["house_win_cents"]) == (
        8_000,
        33_200,
        -25_200,
    )

    round1 = ok(api.get(f"/api/rounds/{r1}/"), 200)
    assert round1["state"] == "settled" and round1["result"] == {"number": 8}
    dozen_1 = tuple(range(1, 13))
    column_3 = tuple(range(3, 37, 3))
    assert bets_of(round1) == Counter(
        {
            (alice, "transversale", (7, 8, 9), 1_000, "colour", "", "won", 12_000): 1,  # C09
            (alice, "transversale", (0, 2, 3), 400, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "cheval", (4, 7), 200, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "cheval", (12, 15), 200, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "cheval", (18, 21), 200, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "cheval", (19, 22), 200, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "cheval", (32, 35), 200, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "carre", (25, 26, 28, 29), 400, "colour", "voisins_du_zero", "lost", 0): 1,
            (alice, "plein", (8,), 200, "colour", "", "won", 7_200): 1,
            (bruno, "cheval", (8, 11), 500, "colour", "", "won", 9_000): 1,
            (bruno, "douzaine", dozen_1, 1_000, "colour", "", "won", 3_000): 1,
            (bruno, "colonne", column_3, 500, "colour", "", "lost", 0): 1,
            (chloe, "chance_simple", EVEN, 1_000, "value", "", "won", 2_000): 1,
            (chloe, "chance_simple", RED, 2_000, "value", "", "lost", 0): 1,
        }
    )
    # The seven voisins components share one announce group.
    assert len({b["announce_group"] for b in round1["bets"] if b["announce"] == "voisins_du_zero"}) == 1

    # RoundOpened, 14 BetPlaced, BettingClosed, ResultRecorded, 14 BetSettled, RoundSettled.
    stream1 = assert_round_stream(
        api,
        r1,
        ["RoundOpened"]
        + ["BetPlaced"] * 14
        + ["BettingClosed", "ResultRecorded"]
        + ["BetSettled"] * 14
        + ["RoundSettled"],
    )
    assert stream1[-1]["data"]["house_win_cents"] == -25_200
    # Chloé after coup 1: 270.00 + 20.00 (pair won) = 290.00.
    assert chips(api, chloe) == 29_000

    # === coup 2: the ball lands on 0 (C08) ===============================================
    coup2 = ok(api.post("/api/tables/R1/rounds", {}, format="json"))
    assert coup2["number"] == 2
    r2 = coup2["round"]
    # C08: Alice 10.00 on pair in colour chips; zero is not even: la partage returns 5.00.
    place(api, r2, alice, 1_000, chips="colour", bet={"type": "chance_simple", "chance": "pair"})
    # Bruno: plein 0 for 5.00 -> 5 + 35 x 5 = 180.00.
    place(api, r2, bruno, 500, chips="colour", bet={"type": "plein", "numbers": [0]})
    # Chloé: rouge 10.01 in value chips -> half of 10.01 rounded down = 5.00 back, house 5.01.
    place(api, r2, chloe, 1_001, bet={"type": "chance_simple", "chance": "rouge"})
    ok(api.post(f"/api/rounds/{r2}/close-bets", {}, format="json"), 200)
    settled2 = ok(api.post(f"/api/rounds/{r2}/result", {"number": 0}, format="json"), 200)
    # staked 10.00 + 5.00 + 10.01 = 25.01; returned 5.00 + 180.00 + 5.00 = 190.00; house -164.99
    assert (settled2["staked_cents"], settled2["returned_cents"], settled2["house_win_cents"]) == (
        2_501,
        19_000,
        -16_499,
    )
    round2 = ok(api.get(f"/api/rounds/{r2}/"), 200)
    assert bets_of(round2) == Counter(
        {
            (alice, "chance_simple", EVEN, 1_000, "colour", "", "half_lost", 500): 1,  # C08
            (bruno, "plein", (0,), 500, "colour", "", "won", 18_000): 1,
            (chloe, "chance_simple", RED, 1_001, "value", "", "half_lost", 500): 1,
        }
    )
    assert_round_stream(
        api,
        r2,
        ["RoundOpened"]
        + ["BetPlaced"] * 3
        + ["BettingClosed", "ResultRecorded"]
        + ["BetSettled"] * 3
        + ["RoundSettled"],
    )

    # --- the table's win equals what the bets lost (stake - return over every bet) ------
    all_bets = round1["bets"] + round2["bets"]
    net = sum(b["stake_cents"] - b["return_cents"] for b in all_bets)
    assert net == -25_200 - 16_499 == -41_699
    # table_win_cents sums tray + drop + colour_issued; the window starts after TableOpened,
    # whose 50,000.00 EUR stocking of the tray from the bankroll is not a win.
    assert table_win_cents("R1", after=opened_at) == -41_699

    # --- change inverse: the colour chips go back into value chips ----------------------
    # Alice's red: 100.00 - 30.00 + 120.00 + 72.00 (coup 1) - 10.00 + 5.00 (coup 2) = 257.00
    back_a = ok(api.post("/api/tables/R1/change-inverse", {"patron": alice}, format="json"))
    assert (back_a["colour"], back_a["amount_cents"], back_a["chips_cents"]) == ("red", 25_700, 115_700)  # 900 + 257
    # Bruno's blue: 100.00 - 20.00 + 90.00 + 30.00 (coup 1) - 5.00 + 180.00 (coup 2) = 375.00
    back_b = ok(api.post("/api/tables/R1/change-inverse", {"patron": bruno}, format="json"))
    assert (back_b["colour"], back_b["amount_cents"], back_b["chips_cents"]) == ("blue", 37_500, 77_500)  # 400 + 375
    assert store.balance(accounts.patron_colour(alice, "R1")) == 0
    assert store.balance(accounts.patron_colour(bruno, "R1")) == 0

    # --- Alice redeems 157.00 EUR at the cage -------------------------------------------
    redeemed = ok(api.post("/api/cage/redemptions", {"patron": alice, "amount_cents": 15_700}, format="json"))
    assert redeemed["chips_cents"] == 100_000

    # --- R1 closes; the tray by the book ------------------------------------------------
    # 50,000.00 + 200.00 colour chips sold + Chloé's value-chip result for the house
    # (-10.00 pair, +20.00 rouge, +5.01 partage = +15.01) - 632.00 changed back = 49,583.01
    closed = table_close(code="R1", actor=ACTOR)  # by the book: the API closes only a counted closer
    assert closed["closer_cents"] == 4_958_301
    table = ok(api.get("/api/tables/R1/"), 200)
    assert (table["state"], table["rounds_played"]) == ("closed", 2)
    assert store.balance(accounts.table_colour_issued("R1")) == 0  # every colour chip is back
    assert store.balance(accounts.table_layout("R1")) == 0  # nothing left on the layout

    # --- the patrons at the end of the evening ------------------------------------------
    assert chips(api, alice) == 100_000  # 115,700 - 15,700 redeemed
    assert chips(api, bruno) == 77_500
    assert chips(api, chloe) == 28_499  # 290.00 - 10.01 + 5.00
    # The cage: 100,000.00 + 1,800.00 sold - 157.00 redeemed = 101,643.00 of cash.
    assert store.balance(accounts.CAGE_CASH) == 10_164_300
    # Whatever the patrons won, the house lost: 1,000 + 500 + 300 bought - 157 redeemed
    # = 1,643.00 sold net; they hold 1,000.00 + 775.00 + 284.99 = 2,059.99; difference 416.99.
    assert (100_000 + 77_500 + 28_499) - (180_000 - 15_700) == 41_699

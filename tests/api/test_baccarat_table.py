"""Punto banco at the table through the HTTP API (RULES.md §Baccarat): case C07, the baccarat
vectors end to end, the commission's postings, below_minimum, reshuffling, the history."""

import pytest

from games.models import BetRefusal, Shoe
from games.selectors import settlements_net_cents, table_win_cents
from ledger import accounts, store
from ledger.models import Event, Posting
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import make_patron, open_by_total
from tests.vectors import cents, load

pytestmark = pytest.mark.django_db


def chips(code):
    return store.balance(accounts.patron_chips(code))


def open_table(api, code="P1", **rules):
    open_by_total(code, "baccarat", rules=rules)


def coup(api, table, bets, mode="reader"):
    if not Shoe.objects.filter(table__code=table, state="in_play").exists():
        assert api.post(f"/api/tables/{table}/shoes", {"mode": mode}, format="json").status_code == 201
    round_id = api.post(f"/api/tables/{table}/rounds", {}, format="json").json()["round"]
    for patron, bet, stake in bets:
        response = api.post(
            f"/api/rounds/{round_id}/baccarat-bets", {"patron": patron, "bet": bet, "stake_cents": stake}, format="json"
        )
        assert response.status_code == 201, response.json()
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").status_code == 200
    return round_id


def report(api, round_id, cards):
    for card in cards:
        response = api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json")
        assert response.status_code == 200, (card, response.json())
    return response.json()


def test_c07_a_ten_valued_third_card_and_the_banker_stands_on_4(api, cage):
    """Player 2,3 = 5 draws K → 5; banker 2,2 = 4 stands (4 draws only on a third card 2–7):
    player wins 5–4; a player bet of 10 returns 20; banker and tie lose; no sixth card."""
    open_table(api)
    p, b, t = make_patron(10_000), make_patron(10_000), make_patron(10_000)
    round_id = coup(api, "P1", [(p, "player", 1_000), (b, "banker", 1_000), (t, "tie", 1_000)])
    summary = report(api, round_id, ["2S", "2H", "3D", "2C", "KC"])
    assert summary["state"] == "settled" and summary["result"]["winner"] == "player"
    assert (chips(p), chips(b), chips(t)) == (11_000, 9_000, 9_000)
    late = api.post(f"/api/rounds/{round_id}/cards", {"card": "9D"}, format="json")
    assert late.status_code == 409
    assert verify_chain().ok and replay_check() == []


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in load("baccarat")])
def test_vector_through_the_ledger(api, cage, vector):
    """10 EUR on each bet; banker at 5 % commission; every return as the vector says."""
    open_table(api)
    patrons = {bet: make_patron(10_000) for bet in ("player", "banker", "tie")}
    round_id = coup(api, "P1", [(code, bet, 1_000) for bet, code in patrons.items()])
    expected = vector["expected"]
    used = len(expected["player_cards"]) + len(expected["banker_cards"])
    report(api, round_id, vector["input"]["shoe"][:used])
    returns = expected["return_eur"]
    assert chips(patrons["player"]) == 9_000 + cents(returns["player"])
    assert chips(patrons["banker"]) == 9_000 + cents(returns["banker_095"])
    assert chips(patrons["tie"]) == 9_000 + cents(returns["tie_8to1"])
    assert table_win_cents("P1") == settlements_net_cents("P1")["house_win"]


def test_the_commission_is_taken_back_as_its_own_postings_and_rounded_down(api, cage):
    """10.10 EUR on banker, banker wins at 5 %: paid 1:1 (+10.10) then commission 0.51 back to
    the tray (exactly 0.505: the half cent is recorded, never paid). Chips of 10 cents here."""
    open_table(api, chip_cents=[10])
    b = make_patron(10_000)
    round_id = coup(api, "P1", [(b, "banker", 1_010)])
    summary = report(api, round_id, ["2S", "7H", "3D", "2C"])  # player 5, banker 9: a natural
    assert summary["state"] == "settled" and summary["result"]["winner"] == "banker"
    settled = Event.objects.get(type="BetSettled")
    assert settled.data["outcome"] == "won"
    assert (settled.data["winnings_cents"], settled.data["commission_cents"]) == (959, 51)
    assert settled.data["unpaid_fraction_cents"] == "1/2"
    assert chips(b) == 10_000 + 959
    legs = sorted(Posting.objects.filter(event=settled).values_list("account", "amount_cents"))
    assert (accounts.table_tray("P1"), 51) in legs and (accounts.patron_chips(b), -51) in legs


def test_below_minimum_raise_takes_the_minimum(api, cage):
    open_table(api, below_minimum="raise")
    p = make_patron(10_000)
    round_id = api.post("/api/tables/P1/rounds", {}, format="json")
    assert round_id.status_code == 409  # no shoe yet
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    placed = api.post(
        f"/api/rounds/{round_id}/baccarat-bets", {"patron": p, "bet": "player", "stake_cents": 100}, format="json"
    ).json()
    assert (placed["stake_cents"], placed["raised_from"]) == (500, 100)
    assert chips(p) == 9_500


def test_below_minimum_reject_and_over_maximum(api, cage):
    open_table(api)
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    p = make_patron(100_000)
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    for stake in (100, 30_100):
        response = api.post(
            f"/api/rounds/{round_id}/baccarat-bets", {"patron": p, "bet": "tie", "stake_cents": stake}, format="json"
        )
        assert (response.status_code, response.json()["field"]) == (400, "stake_cents")
    assert Event.objects.count() == events and chips(p) == 100_000


def test_reshuffle_every_coup_and_the_shoe_history(api, cage):
    open_table(api, reshuffle_every_coup=True)
    p = make_patron(100_000)
    for _ in range(3):
        coup(api, "P1", [(p, "banker", 1_000)], mode="shuffled")
    shoes = list(Shoe.objects.filter(table__code="P1"))
    assert len(shoes) == 3 and {s.state for s in shoes} == {"closed"}
    history = api.get(f"/api/shoes/{shoes[0].id}/history").json()
    assert history["coups"] == 1 and history["bead_plate"][0][0] in ("B", "J", "-")
    assert table_win_cents("P1") == settlements_net_cents("P1")["house_win"]
    assert replay_check() == [] and verify_chain().ok


def test_a_live_shoe_keeps_its_history(api, cage):
    open_table(api)
    p = make_patron(100_000)
    for _ in range(8):
        coup(api, "P1", [(p, "player", 1_000)], mode="shuffled")
    shoe = Shoe.objects.get(table__code="P1")
    history = api.get(f"/api/shoes/{shoe.id}/history").json()
    winners = list(Event.objects.filter(type="CoupResult").order_by("position").values_list("data__winner", flat=True))
    assert history["coups"] == 8
    assert sum(len(col) for col in history["bead_plate"]) == 8
    assert [mark for col in history["bead_plate"] for mark in col] == [
        {"banker": "B", "player": "J", "tie": "-"}[w] for w in winners
    ]


def test_a_stake_the_chips_cannot_make_is_refused_or_adjusted_by_option(api, cage):
    """Sheet 002: chips of 1, 5, 25, 100 and 500 EUR. 10.50 EUR is refused (400 on stake_cents,
    nothing in the ledger, a ``chip_increment`` refusal for the floor); with ``off_chips =
    adjust`` it is taken as 10.00 EUR."""
    open_table(api)
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    p = make_patron(100_000)
    round_id = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    body = {"patron": p, "bet": "player", "stake_cents": 1_050}
    response = api.post(f"/api/rounds/{round_id}/baccarat-bets", body, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "stake_cents")
    assert Event.objects.count() == events and chips(p) == 100_000
    assert list(BetRefusal.objects.values_list("kind", "stake_cents")) == [("chip_increment", 1_050)]
    open_table(api, code="P2", off_chips="adjust")
    api.post("/api/tables/P2/shoes", {"mode": "shuffled"}, format="json")
    round_id = api.post("/api/tables/P2/rounds", {}, format="json").json()["round"]
    placed = api.post(f"/api/rounds/{round_id}/baccarat-bets", body, format="json")
    assert (placed.status_code, placed.json()["stake_cents"]) == (201, 1_000)
    # lowered by the chips, not raised to a minimum
    assert (placed.json()["adjusted_from_cents"], placed.json()["raised_from"]) == (1_050, None)
    assert chips(p) == 99_000

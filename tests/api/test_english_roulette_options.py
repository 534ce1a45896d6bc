"""English roulette through the API (sheet 000, RULES.md §Roulette): the second variant, where
the even chances are played only as part of several bets (table option ``even_chances``), and
every finale à cheval placed, settled and posted."""

import pytest

from games.models import Bet, BetRefusal
from games.rules.roulette import FINALES_A_CHEVAL
from ledger import accounts, store
from ledger.models import Event
from tests.conftest import make_patron, open_by_total, opener_body

pytestmark = pytest.mark.django_db

ROUGE = {"type": "chance_simple", "chance": "rouge"}
PAIR = {"type": "chance_simple", "chance": "pair"}
PLEIN_17 = {"type": "plein", "numbers": [17]}
LONE = (
    "at this table the even chances are played only as part of several bets: "
    "place a bet on a number, a line, a column or a dozen first"
)


def ok(response, status: int = 201) -> dict:
    assert response.status_code == status, response.json()
    return response.json()


def open_coup(api, rules: dict) -> str:
    open_by_total("R2", rules=rules)
    return ok(api.post("/api/tables/R2/rounds", {}, format="json"))["round"]


def with_colour(api, chips: int = 100, unit: int = 200) -> str:
    patron = make_patron(100_000)
    ok(
        api.post(
            "/api/tables/R2/colour-chips", {"patron": patron, "chips": chips, "unit_value_cents": unit}, format="json"
        )
    )
    return patron


def bet(api, round_id, patron, stake, chips="colour", **body):
    return api.post(
        f"/api/rounds/{round_id}/bets", {"patron": patron, "stake_cents": stake, "chips": chips, **body}, format="json"
    )


def test_the_table_shows_its_even_chance_option(api, cage, croupier):
    open_coup(api, {"even_chances": "with_other_bets"})
    assert api.get("/api/tables/R2/").json()["rules"]["even_chances"] == "with_other_bets"
    body = opener_body(rules={"even_chances": "sometimes"})
    response = api.post("/api/tables/R3/opener", body, format="json")
    assert (response.status_code, response.json()["field"]) == (400, "rules.even_chances")


def test_an_even_chance_alone_is_refused_and_recorded_then_accepted_beside_a_plein(api, cage):
    round_id = open_coup(api, {"even_chances": "with_other_bets"})
    patron = with_colour(api)
    events = Event.objects.count()
    refused = bet(api, round_id, patron, 1_000, bet=ROUGE)
    assert (refused.status_code, refused.json()["field"], refused.json()["detail"]) == (400, "bet", LONE)
    assert (Event.objects.count(), Bet.objects.count()) == (events, 0)
    (row,) = BetRefusal.objects.all()
    assert (row.table_code, str(row.round_id), row.patron_code) == ("R2", round_id, patron)
    assert (row.kind, row.stake_cents, row.message) == ("lone_even_chance", 1_000, LONE)
    # two even chances are still one kind of bet
    assert bet(api, round_id, patron, 1_000, bet=PAIR).status_code == 400
    ok(bet(api, round_id, patron, 400, bet=PLEIN_17))
    ok(bet(api, round_id, patron, 1_000, bet=ROUGE))
    ok(bet(api, round_id, patron, 1_000, bet=PAIR))
    assert Bet.objects.count() == 3 and BetRefusal.objects.count() == 2
    # another patron's plein does not make this one's rouge part of several bets
    other = with_colour(api)
    assert bet(api, round_id, other, 1_000, bet=ROUGE).status_code == 400


def test_a_standing_player_without_another_bet_cannot_play_the_even_chances_under_the_variant(api, cage):
    round_id = open_coup(api, {"even_chances": "with_other_bets"})
    standing = make_patron(100_000)
    refused = bet(api, round_id, standing, 1_000, chips="value", bet=ROUGE)
    assert (refused.status_code, refused.json()["field"]) == (400, "bet")
    assert BetRefusal.objects.get().kind == "lone_even_chance"


def test_by_default_an_even_chance_alone_is_taken(api, cage):
    round_id = open_coup(api, {})
    assert api.get("/api/tables/R2/").json()["rules"]["even_chances"] == "any"
    ok(bet(api, round_id, with_colour(api), 1_000, bet=ROUGE))


def test_the_batch_checks_the_variant_bet_by_bet_in_its_order(api, cage):
    """A batch places as if one bet followed the other: a rouge sent before the patron's plein
    is refused, the one sent after it is taken."""
    round_id = open_coup(api, {"even_chances": "with_other_bets"})
    patron = with_colour(api)
    bets = [
        {"patron": patron, "stake_cents": 1_000, "chips": "colour", "bet": ROUGE, "key": "a"},
        {"patron": patron, "stake_cents": 400, "chips": "colour", "bet": PLEIN_17, "key": "b"},
        {"patron": patron, "stake_cents": 1_000, "chips": "colour", "bet": ROUGE, "key": "c"},
    ]
    body = ok(api.post(f"/api/rounds/{round_id}/bet-batches", {"bets": bets}, format="json"))
    assert [(r["status"], r.get("kind")) for r in body["results"]] == [
        ("refused", "lone_even_chance"),
        ("accepted", None),
        ("accepted", None),
    ]
    assert body["results"][0]["detail"] == LONE
    assert BetRefusal.objects.get().kind == "lone_even_chance"


@pytest.mark.parametrize(("a", "b"), sorted(FINALES_A_CHEVAL))
def test_every_finale_a_cheval_is_placed_settled_and_posted(api, cage, a, b):
    """Placed as one announce of 2.00 EUR chips: one bet per cheval; the ball on the highest
    number of its chevaux settles each component on its own (cheval 17:1, the others lost), and
    the patron's colour chips move by exactly that. 7-10, 8-11, 9-12 at a table that offers them."""
    round_id = open_coup(api, {"finales_a_cheval_7_10_8_11_9_12": True} if b >= 10 else {})
    patron = with_colour(api, chips=100, unit=200)
    colour = accounts.patron_colour(patron, "R2")
    before = store.balance(colour)
    placed = ok(bet(api, round_id, patron, 200, announce={"name": f"finale_a_cheval_{a}_{b}"}))
    components = FINALES_A_CHEVAL[(a, b)]
    assert [p["position"]["numbers"] for p in placed["bets"]] == [list(c.numbers) for c, _ in components]
    assert placed["total_cents"] == 200 * len(components)
    result = max(n for c, _ in components for n in c.numbers)
    ok(api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json"), 200)
    ok(api.post(f"/api/rounds/{round_id}/result", {"number": result}, format="json"), 200)
    settled = ok(api.get(f"/api/rounds/{round_id}/"), 200)["bets"]
    winner = next(c for c, _ in components if result in c.numbers)
    expected = {tuple(c.numbers): (("won", 200 * 18) if c == winner else ("lost", 0)) for c, _ in components}
    assert {tuple(s["position"]["numbers"]): (s["state"], s["return_cents"]) for s in settled} == expected
    assert store.balance(colour) == before - 200 * len(components) + 200 * 18
    assert store.balance(accounts.table_layout("R2")) == 0


def test_finale_7_10_is_refused_at_a_table_without_its_option(api, cage):
    """Sheet 000 lists five finales à cheval; 7-10 only where the table option is on."""
    round_id = open_coup(api, {})
    patron = with_colour(api, chips=100, unit=200)
    events = Event.objects.count()
    refused = bet(api, round_id, patron, 200, announce={"name": "finale_a_cheval_7_10"})
    assert (refused.status_code, refused.json()["field"]) == (400, "announce")
    assert "finales_a_cheval_7_10_8_11_9_12" in refused.json()["detail"]
    assert Event.objects.count() == events


def test_the_bet_beside_the_even_chances_is_withdrawn_after_them_not_before(api, cage):
    round_id = open_coup(api, {"even_chances": "with_other_bets"})
    patron = with_colour(api)
    plein = ok(bet(api, round_id, patron, 400, bet=PLEIN_17))["bets"][0]["bet"]
    rouge = ok(bet(api, round_id, patron, 1_000, bet=ROUGE))["bets"][0]["bet"]
    events = Event.objects.count()
    refused = api.post(f"/api/bets/{plein}/withdraw", {"patron": patron}, format="json")
    assert (refused.status_code, refused.json()["field"]) == (409, "bet")
    assert Event.objects.count() == events
    ok(api.post(f"/api/bets/{rouge}/withdraw", {"patron": patron}, format="json"), 200)
    ok(api.post(f"/api/bets/{plein}/withdraw", {"patron": patron}, format="json"), 200)
    assert Event.objects.filter(type="BetWithdrawn").count() == 2

"""Trente-et-quarante at the table through the HTTP API (RULES.md §Trente-et-quarante, §Prison
bets): the vectors end to end, refait, un après to prison and out, refusals."""

import pytest

from games.models import Bet, Shoe
from games.selectors import settlements_net_cents, table_win_cents
from ledger import accounts, store
from ledger.models import Event
from ledger.replay import replay_check
from ledger.verify import verify_chain
from tests.conftest import make_patron, open_by_total
from tests.vectors import load

pytestmark = pytest.mark.django_db
BETS = ("rouge", "noir", "couleur", "inverse")


def chips(code):
    return store.balance(accounts.patron_chips(code))


def open_table(api, code="T1", **rules):
    open_by_total(code, "trente_quarante", rules=rules)
    assert api.post(f"/api/tables/{code}/shoes", {"mode": "reader"}, format="json").status_code == 201


def coup(api, bets, cards, table="T1"):
    round_id = api.post(f"/api/tables/{table}/rounds", {}, format="json").json()["round"]
    for patron, bet, stake in bets:
        response = api.post(
            f"/api/rounds/{round_id}/trente-quarante-bets",
            {"patron": patron, "bet": bet, "stake_cents": stake},
            format="json",
        )
        assert response.status_code == 201, response.json()
    assert api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json").status_code == 200
    assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").status_code == 200
    for card in cards:
        response = api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json")
        assert response.status_code == 200, (card, response.json())
    return response.json()


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["name"]) for v in load("trente_et_quarante")])
def test_vector_through_the_ledger(api, cage, vector):
    """10 EUR on each of the four chances; the result and every return as the vector says."""
    open_table(api)
    patrons = {bet: make_patron(10_000) for bet in BETS}
    expected = vector["expected"]
    used = len(expected["noir_row"]) + len(expected["rouge_row"])
    summary = coup(api, [(code, bet, 1_000) for bet, code in patrons.items()], vector["input"]["cards"][:used])
    assert summary["state"] == "settled" and summary["result"]["result"] == expected["result"]
    for bet, code in patrons.items():
        if expected["result"] == "apres":
            assert chips(code) == 9_000 and Bet.objects.get(patron__code=code).state == "imprisoned"
        elif expected["result"] == "refait":
            assert chips(code) == 10_000
        else:
            won = bet in (expected["result"], expected["couleur_inverse"])
            assert chips(code) == (11_000 if won else 9_000), bet
    assert table_win_cents("T1") == settlements_net_cents("T1")["house_win"]
    assert replay_check() == [] and verify_chain().ok


APRES = ["TS", "TC", "TH", "AS", "TD", "TH", "TS", "AD"]  # noir 31 (black), rouge 31: un après
ROUGE_WINS = ["TS", "TC", "TH", "5S", "TD", "TH", "TS", "AD"]  # noir 35, rouge 31: rouge, inverse


def test_un_apres_sends_every_bet_to_prison_and_the_next_coup_decides(api, cage):
    open_table(api)
    red, black = make_patron(10_000), make_patron(10_000)
    coup(api, [(red, "rouge", 1_000), (black, "noir", 1_000)], APRES)
    assert store.balance(accounts.table_prison("T1")) == 2_000
    coup(api, [], ROUGE_WINS)  # rouge wins: the rouge prisoner is released (no winnings), noir lost
    assert (chips(red), chips(black)) == (10_000, 9_000)
    assert store.balance(accounts.table_prison("T1")) == 0
    assert table_win_cents("T1") == settlements_net_cents("T1")["house_win"] == 1_000
    assert replay_check() == []


def test_a_tie_bet_and_a_bet_after_the_first_card_are_refused(api, cage):
    open_table(api)
    p = make_patron(10_000)
    round_id = api.post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    response = api.post(
        f"/api/rounds/{round_id}/trente-quarante-bets", {"patron": p, "bet": "tie", "stake_cents": 1_000}, format="json"
    )
    assert (response.status_code, response.json()["field"]) == (400, "bet")
    api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json")
    api.post(f"/api/rounds/{round_id}/deal", {}, format="json")
    api.post(f"/api/rounds/{round_id}/cards", {"card": "TS"}, format="json")
    late = api.post(
        f"/api/rounds/{round_id}/trente-quarante-bets",
        {"patron": p, "bet": "rouge", "stake_cents": 1_000},
        format="json",
    )
    assert late.status_code == 409
    assert chips(p) == 10_000 and Event.objects.filter(type="BetPlaced").count() == 0
    assert Event.objects.count() > events  # the round's own events, none from the refused bets


def test_a_shuffled_shoe_plays_and_balances(api, cage):
    open_by_total("T2", "trente_quarante")
    api.post("/api/tables/T2/shoes", {"mode": "shuffled"}, format="json")
    p = make_patron(100_000)
    for _ in range(10):
        round_id = api.post("/api/tables/T2/rounds", {}, format="json").json()["round"]
        api.post(
            f"/api/rounds/{round_id}/trente-quarante-bets",
            {"patron": p, "bet": "rouge", "stake_cents": 1_000},
            format="json",
        )
        api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json")
        assert api.post(f"/api/rounds/{round_id}/deal", {}, format="json").json()["state"] == "settled"
    assert Shoe.objects.get(table__code="T2").state == "in_play"
    assert table_win_cents("T2") == settlements_net_cents("T2")["house_win"]
    assert replay_check() == [] and verify_chain().ok


REFAIT = ["TS", "TC", "TH", "2S", "TD", "TH", "TS", "2D"]  # noir 32, rouge 32: refait


def test_a_prison_bet_survives_a_refait_and_cannot_be_withdrawn_or_moved(api, cage):
    open_table(api)
    p = make_patron(10_000)
    coup(api, [(p, "rouge", 1_000)], APRES)
    prisoner = Bet.objects.get(state="imprisoned")
    coup(api, [], REFAIT)  # a void coup leaves it in prison
    assert Bet.objects.get(pk=prisoner.pk).state == "imprisoned"
    events = Event.objects.count()
    for action, body in (("withdraw", {"patron": p}), ("move", {"patron": p, "to": "noir"})):
        response = api.post(f"/api/bets/{prisoner.id}/{action}", body, format="json")
        assert (response.status_code, response.json()["field"]) == (409, "bet"), action
    assert Event.objects.count() == events and chips(p) == 9_000


def test_a_free_bet_may_be_moved_or_withdrawn_while_betting_is_open(api, cage):
    open_table(api)
    p = make_patron(10_000)
    round_id = api.post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    first = api.post(
        f"/api/rounds/{round_id}/trente-quarante-bets",
        {"patron": p, "bet": "noir", "stake_cents": 1_000},
        format="json",
    ).json()["bet"]
    second = api.post(
        f"/api/rounds/{round_id}/trente-quarante-bets",
        {"patron": p, "bet": "couleur", "stake_cents": 2_000},
        format="json",
    ).json()["bet"]
    assert chips(p) == 7_000
    moved = api.post(f"/api/bets/{first}/move", {"patron": p, "to": "rouge"}, format="json")
    assert moved.status_code == 200 and moved.json()["position"]["bet"] == "rouge"
    assert api.post(f"/api/bets/{second}/withdraw", {"patron": p}, format="json").status_code == 200
    assert chips(p) == 9_000
    assert api.post(f"/api/bets/{first}/move", {"patron": p, "to": "tie"}, format="json").json()["field"] == "to"
    api.post(f"/api/rounds/{round_id}/close-bets", {}, format="json")
    api.post(f"/api/rounds/{round_id}/deal", {}, format="json")
    for card in ROUGE_WINS:
        api.post(f"/api/rounds/{round_id}/cards", {"card": card}, format="json")
    assert chips(p) == 11_000  # the moved bet won on rouge
    assert api.post(f"/api/bets/{first}/withdraw", {"patron": p}, format="json").status_code == 409
    assert replay_check() == [] and verify_chain().ok


def test_ratings_and_table_statistics_give_the_theoretical_win_of_the_prison_rule(api, cage):
    """10,000 on rouge under double prison ``lose``: the line's edge is the bet's exact
    edge spread over the bets settled, edge / (1 − P(après)); theory rounded half up to cents."""
    from fractions import Fraction

    from games.theory import settled_line_edge
    from ledger import projections

    open_table(api, double_prison="lose")
    red = make_patron(20_000)
    coup(api, [(red, "rouge", 10_000)], ROUGE_WINS)
    projections.catch_up_all()
    expected = Fraction(settled_line_edge("trente_quarante", {"double_prison": "lose"})) * 10_000
    assert expected == Fraction(2291839, 20000)  # 1.1208 % / (1 − 2.1891 %) of 100 EUR ≈ 114.59 cents
    (rating,) = api.get("/api/ratings/", {"patron": red}).json()["results"]
    assert rating["theoretical_win_cents"] == 115
    (row,) = api.get("/api/stats/tables/").json()["results"]
    assert row["house_edge"] == "0.011208" and "prison" in row["house_edge_basis"]
    assert row["theoretical_win_cents"] == rating["theoretical_win_cents"]


def test_the_dealers_call_is_recorded_with_the_coup(api, cage):
    """Sheet 003: the units of each row's point, then the winning chances, as the dealer says it."""
    open_table(api)
    coup(api, [], ROUGE_WINS)  # noir 35, rouge 31: rouge, the first card (spades) black → inverse
    (result,) = Event.objects.filter(type="CoupResult")
    assert result.data["announcement"] == {
        "noir": "cinq",
        "rouge": "un",
        "winners": "Rouge et Inverse",
        "text": "cinq … un : Rouge et Inverse",
    }


def test_the_table_page_shows_the_dealers_call(api, cage):
    from dashboard.play import play_line

    open_table(api)
    coup(api, [], ROUGE_WINS)
    (result,) = Event.objects.filter(type="CoupResult")
    line = play_line("CoupResult", result.data, lambda t, d: t)
    assert line.endswith('the dealer calls "cinq … un : Rouge et Inverse"')


def test_a_trente_et_quarante_shoes_history_is_a_404_in_words_not_a_baccarat_road(api, cage):
    """The bead plate and big road are punto banco's: asked of a trente-et-quarante shoe, they
    once answered 400 about a field ("winners") nobody sent."""
    open_table(api)
    shoe = Shoe.objects.get(table__code="T1")
    answer = api.get(f"/api/shoes/{shoe.id}/history")
    assert answer.status_code == 404
    assert answer.json()["detail"] == (
        f"shoe {shoe.id} is a shoe of table T1 (Trente-et-quarante): the bead plate and big road are punto banco's"
    )
    assert api.get("/api/shoes/00000000-0000-0000-0000-000000000000/history").status_code == 404
    assert api.get("/api/shoes/not-a-shoe/history").status_code == 404

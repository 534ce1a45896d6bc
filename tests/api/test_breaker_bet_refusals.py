"""Breaking the refused-bet record of issue 9: bad input on every game's bet endpoint, retries,
a refusal that is not the reason the bet fails, and the dashboard with hostile text."""

import pytest
from django.urls import reverse

from games.models import Bet, BetRefusal
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import make_patron

pytestmark = pytest.mark.django_db

PLEIN_17 = {"type": "plein", "numbers": [17]}


@pytest.fixture
def coups(api, cage) -> dict:
    """One coup in betting at a table of each game with a limit check (R1 comes from ``table``)."""
    api.post("/api/tables/R1/open", {"game": "english_roulette", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/B1/open", {"game": "blackjack", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/B1/shoes", {"mode": "shuffled"}, format="json")
    api.post("/api/tables/C1/open", {"game": "caribbean_stud", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/P1/open", {"game": "baccarat", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    api.post("/api/tables/T1/open", {"game": "trente_quarante", "opener_cents": 1_000_000}, format="json")
    api.post("/api/tables/T1/shoes", {"mode": "shuffled"}, format="json")
    made = {}
    for code in ("R1", "B1", "C1", "P1", "T1"):
        response = api.post(f"/api/tables/{code}/rounds", {}, format="json")
        assert response.status_code == 201, (code, response.json())
        made[code] = response.json()["round"]
    return made


ENDPOINTS = {
    "R1": ("bets", "stake_cents", {"bet": {"type": "chance_simple", "chance": "rouge"}}),
    "B1": ("blackjack-bets", "stake_cents", {"box": 1, "seated": True}),
    "C1": ("antes", "ante_cents", {"box": 1}),
    "P1": ("baccarat-bets", "stake_cents", {"bet": "banker"}),
    "T1": ("trente-quarante-bets", "stake_cents", {"bet": "rouge"}),
}
BAD_STAKES = ["10000000", True, 1.5, 1e20, -(10**13), 10**13, 2**63, None, [], {"cents": 1}, -1, 0]


@pytest.mark.parametrize("table", list(ENDPOINTS))
@pytest.mark.parametrize("stake", BAD_STAKES, ids=repr)
def test_a_stake_that_is_no_stake_is_a_400_and_records_no_refusal(api, coups, table, stake):
    patron = make_patron(1_000_000)
    path, field, body = ENDPOINTS[table]
    events = Event.objects.count()
    response = api.post(f"/api/rounds/{coups[table]}/{path}", {**body, "patron": patron, field: stake}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field
    assert (Event.objects.count(), Bet.objects.count(), BetRefusal.objects.count()) == (events, 0, 0)


@pytest.mark.parametrize("table", list(ENDPOINTS))
def test_an_unknown_patron_or_coup_over_the_limit_records_no_refusal(api, coups, table):
    path, field, body = ENDPOINTS[table]
    over = {**body, field: 10**12}
    response = api.post(f"/api/rounds/{coups[table]}/{path}", {**over, "patron": "P99999"}, format="json")
    assert response.status_code in (400, 404) and response.json().get("field") in ("patron", None)
    for coup in ("00000000-0000-0000-0000-000000000000", "not-a-uuid"):
        response = api.post(f"/api/rounds/{coup}/{path}", {**over, "patron": make_patron(10)}, format="json")
        assert response.status_code in (400, 404)
    assert not BetRefusal.objects.exists()


@pytest.mark.parametrize("table", list(ENDPOINTS))
def test_a_bet_over_the_maximum_is_recorded_once_per_game_and_nothing_reaches_the_ledger(api, coups, table):
    patron = make_patron(1_000_000)
    path, field, body = ENDPOINTS[table]
    events = Event.objects.count()
    response = api.post(f"/api/rounds/{coups[table]}/{path}", {**body, "patron": patron, field: 10**12}, format="json")
    assert response.status_code == 400 and response.json()["field"] == field
    (row,) = BetRefusal.objects.all()
    assert (row.table_code, str(row.round_id), row.patron_code) == (table, coups[table], patron)
    assert row.stake_cents == 10**12
    assert row.kind in ("table_maximum", "box_maximum")
    assert (Event.objects.count(), Bet.objects.count()) == (events, 0)


def test_a_bet_on_a_closed_coup_over_the_maximum_is_a_409_and_no_refusal(api, coups):
    patron = make_patron(1_000_000)
    assert api.post(f"/api/rounds/{coups['R1']}/close-bets", {}, format="json").status_code == 200
    body = {"patron": patron, "stake_cents": 10**9, "bet": {"type": "chance_simple", "chance": "rouge"}}
    assert api.post(f"/api/rounds/{coups['R1']}/bets", body, format="json").status_code == 409
    assert not BetRefusal.objects.exists()


def test_a_caribbean_ante_on_a_box_already_taken_is_no_limit_refusal(api, coups):
    """The box is taken: that is why the ante is refused, whatever its size. The floor must not
    count it as a patron trying to bet over the table's maximum."""
    first, second = make_patron(1_000_000), make_patron(1_000_000)
    ante = {"box": 1, "ante_cents": 1_000}
    assert api.post(f"/api/rounds/{coups['C1']}/antes", {**ante, "patron": first}, format="json").status_code == 201
    response = api.post(
        f"/api/rounds/{coups['C1']}/antes", {"box": 1, "ante_cents": 10**8, "patron": second}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["field"] == "box", response.json()
    assert not BetRefusal.objects.exists()


def test_the_dashboard_escapes_what_it_shows_of_a_refusal_and_a_dealer_gets_403(api, coups, client, django_user_model):
    from games.services.refusals import bet_refusal_record
    from ledger.errors import BetRefused

    hostile = "<script>alert('x')</script>&amp;"
    bet_refusal_record(
        BetRefused(hostile, kind="table_maximum", stake_cents=10**12, table="R1", round_id=coups["R1"], patron=""),
        actor="<b>dealer</b>",
    )
    boss = django_user_model.objects.create_user(username="boss", password="pw")
    grant(boss, Role.PIT_BOSS)
    client.force_login(boss)
    for page in (reverse("dashboard:floor"), reverse("dashboard:table", args=["R1"])):
        html = client.get(page).content.decode()
        assert "<script>alert" not in html and "<b>dealer</b>" not in html
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&amp;amp;" in html
    dealer = django_user_model.objects.create_user(username="dealer9", password="pw")
    grant(dealer, Role.DEALER)
    client.force_login(dealer)
    for name, args in (("floor", []), ("floor-live", []), ("table", ["R1"]), ("table-live", ["R1"])):
        assert client.get(reverse(f"dashboard:{name}", args=args)).status_code == 403

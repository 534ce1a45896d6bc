"""Bets refused over limits, recorded for the pit boss's floor outside the ledger.

A bet over the table's maximum, under its minimum, over a black jack box's maximum or over the
patron's own self-limit is a 400, as before, and the ledger gets nothing; the API records one
``games.BetRefusal`` row (kind, stake in cents, table, coup, patron, who sent it) after the
command rolled back, and the floor shows it. Other bad input is not a limit and records nothing.
"""

import logging
import re

import pytest
from django.db import DatabaseError
from django.urls import reverse
from rest_framework.test import APIClient

from basis.errors import LimitRefused, RuleError
from games.models import Bet, BetRefusal, Round
from games.rules.baccarat import BaccaratRules, check_stake
from games.rules.caribbean_stud import CaribbeanRules
from games.rules.tq_table import TrenteQuaranteTableRules
from games.services.blackjack import blackjack_bet_place
from games.services.refusals import bet_refusal_record
from games.services.rounds import round_open
from games.services.shoes import shoe_start
from games.services.tables import table_open
from ledger.errors import BetRefused
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role, grant
from tests.conftest import ACTOR, API_TEST_ROLES, make_patron, open_by_total, set_self_limit, staff_user
from tests.integration.concurrency import run_concurrently

PLEIN_17 = {"type": "plein", "numbers": [17]}
PAIR = {"type": "chance_simple", "chance": "pair"}
ROUGE = {"type": "chance_simple", "chance": "rouge"}


@pytest.fixture(autouse=True)
def _database(request):
    """The database for every test; the real-commit test takes ``committed_db`` alone."""
    if "committed_db" not in request.fixturenames:
        request.getfixturevalue("db")


@pytest.fixture
def round_id(api, table) -> str:
    response = api.post("/api/tables/R1/rounds", {}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["round"]


def bet(api, round_id: str, **body):
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json")


def invalid_body(message: str, field: str = "stake_cents") -> dict:
    """The 400 body every invalid input gets (core.errors): unchanged for a refused bet."""
    return {"error": "invalid", "detail": message, "field": field, "errors": {field: [message]}}


def only_refusal() -> BetRefusal:
    (row,) = BetRefusal.objects.all()
    return row


# --- the API: the same 400, one row, nothing in the ledger ----------------------------------


def test_a_bet_over_the_table_maximum_is_the_same_400_and_one_refusal_row(api, round_id, colour_patron):
    events, bets = Event.objects.count(), Bet.objects.count()
    response = bet(api, round_id, patron=colour_patron, stake_cents=20_000, chips="colour", bet=PLEIN_17)
    assert response.status_code == 400
    over = "over the table maximum: 200.00 EUR on this position, the maximum is 100.00 EUR"
    assert response.json() == invalid_body(over)
    assert (Event.objects.count(), Bet.objects.count()) == (events, bets)  # the ledger and the coup untouched
    assert Round.objects.get(pk=round_id).version == 1  # RoundOpened only
    row = only_refusal()
    assert (row.table_code, str(row.round_id), row.patron_code) == ("R1", round_id, colour_patron)
    assert (row.kind, row.stake_cents, row.actor) == ("table_maximum", 20_000, "dealer1")
    assert row.message == over
    assert row.gaming_day == current_gaming_day(row.created_at)
    assert row.created_at.utcoffset().total_seconds() == 0


def test_the_maximum_counts_what_is_already_on_the_position(api, round_id, colour_patron):
    assert bet(api, round_id, patron=colour_patron, stake_cents=10_000, chips="colour", bet=PLEIN_17).status_code == 201
    events = Event.objects.count()
    response = bet(api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet=PLEIN_17)
    assert response.status_code == 400
    assert Event.objects.count() == events
    row = only_refusal()
    assert (row.kind, row.stake_cents) == ("table_maximum", 200)  # the stake refused, not the position's total
    assert "102.00 EUR on this position" in row.message


def test_a_refused_bet_retried_with_its_idempotency_key_is_recorded_once(api, round_id, colour_patron):
    """A refused command appends nothing, so its key is free and the retry is refused again: the
    floor must still count one refused bet, not one per attempt."""
    body = {"patron": colour_patron, "stake_cents": 20_000, "chips": "colour", "bet": PLEIN_17}
    answers = [
        api.post(f"/api/rounds/{round_id}/bets", body, format="json", HTTP_IDEMPOTENCY_KEY=key)
        for key in ("retry-1", "retry-1", "retry-1", "retry-2")
    ]
    assert [a.status_code for a in answers] == [400, 400, 400, 400]
    assert len({str(a.json()) for a in answers}) == 1  # every attempt reads the same 400
    rows = list(BetRefusal.objects.order_by("id").values_list("idempotency_key", "kind", "stake_cents"))
    assert rows == [("retry-1", "table_maximum", 20_000), ("retry-2", "table_maximum", 20_000)]
    # without a key, each attempt is a refusal of its own (nothing tells a retry from a new bet)
    for _ in range(2):
        assert bet(api, round_id, **body).status_code == 400
    assert BetRefusal.objects.filter(idempotency_key=None).count() == 2


@pytest.mark.parametrize("key", ["", "k" * 201, "nul\x00key"])
def test_a_key_the_ledger_would_refuse_is_not_kept_and_the_refusal_still_recorded(table, key):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    refusal = BetRefused("over", kind="table_maximum", stake_cents=5, table="R1", round_id=coup)
    first = bet_refusal_record(refusal, actor="x", idempotency_key=key)
    assert first is not None and first["retry"] is False
    assert list(BetRefusal.objects.values_list("idempotency_key", flat=True)) == [None]


def test_the_retry_gets_the_first_refusals_summary(table):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    refusal = BetRefused("over", kind="table_maximum", stake_cents=5, table="R1", round_id=coup, patron="P00001")
    first = bet_refusal_record(refusal, actor="x", idempotency_key="k1")
    again = bet_refusal_record(refusal, actor="x", idempotency_key="k1")
    assert first == {**again, "retry": False} and again["retry"] is True
    assert (first["table"], first["round"], first["patron"], first["stake_cents"]) == ("R1", coup, "P00001", 5)
    assert BetRefusal.objects.count() == 1


def test_a_bet_under_the_table_minimum_is_recorded_as_such(api, round_id, colour_patron):
    events = Event.objects.count()
    response = bet(api, round_id, patron=colour_patron, stake_cents=400, chips="colour", bet=PAIR)
    assert response.status_code == 400 and response.json()["field"] == "stake_cents"
    assert Event.objects.count() == events
    row = only_refusal()
    assert (row.kind, row.stake_cents, row.patron_code) == ("table_minimum", 400, colour_patron)
    assert row.message == response.json()["detail"]


def test_a_bet_over_the_self_limit_is_the_same_400_and_one_refusal_row(api, round_id, patron):
    set_self_limit(patron, 10_000)
    events, bets = Event.objects.count(), Bet.objects.count()
    response = bet(api, round_id, patron=patron, stake_cents=15_000, bet=ROUGE)  # inside the table's limits
    message = f"a bet of 150.00 EUR is over patron {patron}'s own limit of 100.00 EUR (responsible gaming self-limit)"
    assert response.status_code == 400
    assert response.json() == invalid_body(message)
    assert (Event.objects.count(), Bet.objects.count()) == (events, bets)
    row = only_refusal()
    assert (row.table_code, str(row.round_id), row.patron_code) == ("R1", round_id, patron)
    assert (row.kind, row.stake_cents, row.message, row.actor) == ("self_limit", 15_000, message, "dealer1")
    # at the limit the bet goes through, and nothing more is recorded
    assert bet(api, round_id, patron=patron, stake_cents=10_000, bet=ROUGE).status_code == 201
    assert BetRefusal.objects.count() == 1


def test_a_baccarat_bet_over_the_table_maximum_is_recorded(api, cage):
    open_by_total("P1", "baccarat", rules={})
    assert api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json").status_code == 201
    code = make_patron(100_000)
    coup = api.post("/api/tables/P1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    over = {"patron": code, "bet": "banker", "stake_cents": 30_001}  # the sheet's maximum: 300.00 EUR
    response = api.post(f"/api/rounds/{coup}/baccarat-bets", over, format="json")
    assert response.status_code == 400
    assert response.json() == invalid_body("over the table maximum: 300.01 EUR, the maximum is 300.00 EUR")
    assert Event.objects.count() == events
    row = only_refusal()
    assert (row.table_code, str(row.round_id), row.kind, row.stake_cents) == ("P1", coup, "table_maximum", 30_001)


def test_bad_input_that_is_no_limit_records_nothing(api, round_id, colour_patron, patron):
    assert (
        bet(
            api, round_id, patron=colour_patron, stake_cents=200, chips="colour", bet={"type": "plein", "numbers": [37]}
        ).status_code
        == 400
    )
    assert bet(api, round_id, patron=patron, stake_cents=0, bet=ROUGE).status_code == 400
    assert bet(api, round_id, patron=patron, stake_cents=200_000, bet=ROUGE).status_code == 400  # over the max...
    assert BetRefusal.objects.count() == 1  # ...is a limit; a plein on 37 and a zero stake are not
    assert only_refusal().kind == "table_maximum"


def test_a_failure_to_record_keeps_the_400(api, round_id, colour_patron, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise DatabaseError("disk full")

    monkeypatch.setattr(BetRefusal.objects, "create", broken)
    with caplog.at_level(logging.ERROR, logger="games.services.refusals"):
        response = bet(api, round_id, patron=colour_patron, stake_cents=20_000, chips="colour", bet=PLEIN_17)
    assert response.status_code == 400 and response.json()["field"] == "stake_cents"
    assert "could not record a bet refusal at R1" in caplog.text
    assert not BetRefusal.objects.exists()


def test_the_refusal_is_committed_on_its_own_while_the_command_rolled_back(committed_db, api, table, colour_patron):
    """Real commits (PostgreSQL): the refused command's transaction is gone, the refusal row is
    committed in its own, and the ledger holds no trace of the bet."""
    from django.db import connection

    coup = api.post("/api/tables/R1/rounds", {}, format="json").json()["round"]
    events = Event.objects.count()
    response = bet(api, coup, patron=colour_patron, stake_cents=20_000, chips="colour", bet=PLEIN_17)
    assert response.status_code == 400
    assert not connection.in_atomic_block
    assert Event.objects.count() == events
    assert not Event.objects.filter(type="BetPlaced", correlation_id=coup).exists()
    assert BetRefusal.objects.filter(round_id=coup, kind="table_maximum", stake_cents=20_000).count() == 1


# --- the services and the engines --------------------------------------------------------------


def test_a_black_jack_box_over_its_maximum_is_a_box_maximum_refusal(cage):
    table_open(code="B1", game="blackjack", opener_cents=5_000_000, actor=ACTOR, rules={})
    shoe_start(table="B1", actor=ACTOR)
    coup = round_open(table="B1", actor=ACTOR)["round"]
    code = make_patron(300_000)
    with pytest.raises(BetRefused) as refused:
        blackjack_bet_place(round_id=coup, patron=code, box=1, stake_cents=100_001, seated=True, actor=ACTOR)
    error = refused.value
    assert (error.kind, error.stake_cents, error.table, error.round_id, error.patron) == (
        "box_maximum",
        100_001,
        "B1",
        coup,
        code,
    )
    assert (error.field, error.status, error.code) == ("stake_cents", 400, "invalid")
    assert not Bet.objects.exists()
    # the service raises; only the API records (once, after the rollback)
    assert not BetRefusal.objects.exists()
    recorded = bet_refusal_record(error, actor="dealer7")
    assert recorded is not None and (recorded["table"], recorded["kind"], recorded["stake_cents"]) == (
        "B1",
        "box_maximum",
        100_001,
    )


def test_a_refusal_naming_only_its_coup_finds_the_table(table):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    error = BetRefused("over", kind="self_limit", stake_cents=5, round_id=coup, patron="P00001")
    assert bet_refusal_record(error, actor="x")["table"] == "R1"
    assert bet_refusal_record(BetRefused("over", kind="self_limit", stake_cents=5), actor="x") is None
    assert BetRefusal.objects.count() == 1


def test_a_recorded_refusal_is_never_changed_or_deleted(table):
    coup = round_open(table="R1", actor=ACTOR)["round"]
    bet_refusal_record(BetRefused("over", kind="table_maximum", stake_cents=5, table="R1", round_id=coup), actor="x")
    row = only_refusal()
    row.stake_cents = 1
    with pytest.raises(ValueError, match="never changed"):
        row.save()
    with pytest.raises(ValueError, match="never deleted"):
        row.delete()
    assert only_refusal().stake_cents == 5


@pytest.mark.parametrize(
    ("check", "kind"),
    [
        (lambda: check_stake(BaccaratRules(), 499), "table_minimum"),
        (lambda: check_stake(BaccaratRules(), 30_001), "table_maximum"),
        (lambda: TrenteQuaranteTableRules.from_dict({}).check_stake(1), "table_minimum"),
        (lambda: TrenteQuaranteTableRules.from_dict({}).check_stake(10**9), "table_maximum"),
        (lambda: CaribbeanRules().check_ante(999), "table_minimum"),
        (lambda: CaribbeanRules().check_ante(100_001), "table_maximum"),
    ],
)
def test_the_engines_name_the_limit_they_refuse(check, kind):
    with pytest.raises(LimitRefused) as refused:
        check()
    assert refused.value.kind == kind
    assert refused.value.field in ("stake_cents", "ante_cents")


@pytest.mark.parametrize(
    "check",
    [
        lambda: TrenteQuaranteTableRules.from_dict({}).check_stake(0),
        lambda: TrenteQuaranteTableRules.from_dict({}).check_stake(-5),
        lambda: CaribbeanRules().check_ante(0),
        lambda: CaribbeanRules().check_ante(True),
    ],
)
def test_a_stake_that_is_not_one_is_bad_input_not_a_limit(check):
    with pytest.raises(RuleError) as refused:
        check()
    assert not isinstance(refused.value, LimitRefused)


# --- the floor and the table view ----------------------------------------------------------------


def test_the_floor_card_alerts_and_the_table_view_lists_the_refusals(api, round_id, patron, colour_patron, pit_boss):
    set_self_limit(patron, 10_000)
    assert bet(api, round_id, patron=colour_patron, stake_cents=20_000, chips="colour", bet=PLEIN_17).status_code == 400
    assert bet(api, round_id, patron=patron, stake_cents=15_000, bet=ROUGE).status_code == 400
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    card = html[html.index('data-table="R1"') : html.index("</article>", html.index('data-table="R1"'))]
    assert re.search(
        r'class="alert alert-warning" data-alert="refused">2 bets refused today '
        rf"\(1 table maximum, 1 self-limit\); last: {patron}, 150\.00 EUR, a bet of 150\.00 EUR is over "
        rf"patron {patron}&#x27;s own limit of 100\.00 EUR \(responsible gaming self-limit\)<",
        card,
    )
    assert "2 bets refused" in html[: html.index('data-table="R1"')]  # and in the floor's list of alerts

    page = pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()
    assert "Bets refused today (2)" in page
    section = page[
        page.index('data-section="refusals"') : page.index("</table>", page.index('data-section="refusals"'))
    ]
    rows = re.findall(r'<tr data-refusal="(\w+)">(.*?)</tr>', section, re.S)
    assert [kind for kind, _ in rows] == ["self_limit", "table_maximum"]  # newest first
    self_limit, maximum = (re.sub(r"<[^>]+>", "|", cells) for _, cells in rows)
    assert re.search(rf"\|1\|.*\|{patron}\|.*150\.00 EUR\|.*\|self-limit\|.*\|dealer1\|", self_limit, re.S)
    assert re.search(rf"\|{colour_patron}\|.*200\.00 EUR\|.*\|table maximum\|", maximum, re.S)
    assert f'href="{reverse("dashboard:coup-audit", args=[round_id])}"' in section


def test_another_days_refusals_are_not_on_the_floor(api, round_id, colour_patron, pit_boss):
    from datetime import timedelta

    assert bet(api, round_id, patron=colour_patron, stake_cents=20_000, chips="colour", bet=PLEIN_17).status_code == 400
    BetRefusal.objects.update(gaming_day=current_gaming_day() - timedelta(days=1))  # as if recorded yesterday
    html = pit_boss.get(reverse("dashboard:floor")).content.decode()
    assert 'data-alert="refused"' not in html
    assert "Bets refused today (0)" in pit_boss.get(reverse("dashboard:table", args=["R1"])).content.decode()


# --- every game's bet endpoint: bad input, unknown patrons and coups, closed coups, taken boxes ------


@pytest.fixture
def coups(api, cage) -> dict:
    """One coup in betting at a table of each game with a limit check (R1 comes from ``table``)."""
    open_by_total("R1", "english_roulette", 1_000_000)
    open_by_total("B1", "blackjack", 1_000_000)
    api.post("/api/tables/B1/shoes", {"mode": "shuffled"}, format="json")
    open_by_total("C1", "caribbean_stud", 1_000_000)
    open_by_total("P1", "baccarat", 1_000_000)
    api.post("/api/tables/P1/shoes", {"mode": "shuffled"}, format="json")
    open_by_total("T1", "trente_quarante", 1_000_000)
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


def test_a_bet_on_a_closed_coup_over_the_maximum_is_a_409_recorded_as_betting_closed(api, coups):
    patron = make_patron(1_000_000)
    assert api.post(f"/api/rounds/{coups['R1']}/close-bets", {}, format="json").status_code == 200
    body = {"patron": patron, "stake_cents": 10**9, "bet": {"type": "chance_simple", "chance": "rouge"}}
    response = api.post(f"/api/rounds/{coups['R1']}/bets", body, format="json")
    assert (response.status_code, response.json()["error"], response.json()["field"]) == (
        409,
        "state_conflict",
        "round",
    )
    # closed betting is checked first: one refusal, for that, not for the limit
    (row,) = BetRefusal.objects.all()
    assert (row.kind, row.patron_code, row.stake_cents, str(row.round_id)) == (
        "betting_closed",
        patron,
        10**9,
        coups["R1"],
    )


@pytest.mark.parametrize("table", list(ENDPOINTS))
def test_a_bet_beyond_the_patrons_chips_is_recorded_with_its_message_in_currency_units(api, coups, table):
    patron = make_patron(500)
    path, field, body = ENDPOINTS[table]
    response = api.post(f"/api/rounds/{coups[table]}/{path}", {**body, "patron": patron, field: 2_000}, format="json")
    assert (response.status_code, response.json()["error"]) == (400, "insufficient_funds"), response.json()
    detail = response.json()["detail"]
    assert "cents" not in detail and " EUR" in detail
    (row,) = BetRefusal.objects.all()
    assert (row.table_code, row.kind, row.patron_code, row.stake_cents) == (table, "insufficient_chips", patron, 2_000)
    assert row.message == detail


@pytest.mark.parametrize("table", list(ENDPOINTS))
def test_a_request_that_is_no_bet_on_a_closed_coup_is_a_409_and_records_nothing(api, coups, table):
    patron = make_patron(100_000)
    path, field, body = ENDPOINTS[table]
    if table == "R1":
        assert api.post(f"/api/rounds/{coups['R1']}/close-bets", {}, format="json").status_code == 200
    else:
        assert api.post(f"/api/rounds/{coups[table]}/void", {"reason": "no play"}, format="json").status_code == 200
    url = f"/api/rounds/{coups[table]}/{path}"

    answers = [
        api.post(url, {**body, "patron": "ghost", field: 1_000}, format="json"),
        api.post(url, {**body, "patron": patron, field: -5}, format="json"),
        api.post(url, {**body, "patron": patron, field: "1000"}, format="json"),
    ]
    real = api.post(url, {**body, "patron": patron, field: 1_000}, format="json")

    # refused as malformed (400) where the game reads the body first, else as closed (409): never recorded
    assert {a.status_code for a in answers} <= {400, 409}, [a.json() for a in answers]
    assert real.status_code == 409
    (row,) = BetRefusal.objects.all()
    assert (row.patron_code, row.stake_cents, row.kind) == (patron, 1_000, "betting_closed")
    if table != "R1":
        number = Round.objects.get(id=coups[table]).number
        assert real.json()["detail"] == f"coup {number} of {table} is voided: it takes no more bets"


def test_a_batch_on_a_closed_coup_records_each_of_its_bets_as_refused(api, coups):
    rich = make_patron(100_000)
    assert api.post(f"/api/rounds/{coups['R1']}/close-bets", {}, format="json").status_code == 200
    bets = [
        {"patron": rich, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "rouge"}, "key": "k1"},
        {"patron": rich, "stake_cents": 2_000, "bet": {"type": "chance_simple", "chance": "noir"}},
        "not a bet",
    ]
    response = api.post(f"/api/rounds/{coups['R1']}/bet-batches", {"bets": bets}, format="json")
    assert response.status_code == 409
    rows = BetRefusal.objects.order_by("stake_cents")
    assert [(r.kind, r.stake_cents, r.patron_code) for r in rows] == [
        ("betting_closed", 1_000, rich),
        ("betting_closed", 2_000, rich),
    ]


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


# --- refused bets retried with an Idempotency-Key: odd keys, reused keys, two senders, races ----


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _over(api, round_id, patron, key=None, stake=20_000):
    body = {"patron": patron, "stake_cents": stake, "chips": "colour", "bet": PLEIN_17}
    extra = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return api.post(f"/api/rounds/{round_id}/bets", body, format="json", **extra)


@pytest.mark.parametrize(
    "key",
    ["k" * 150, "clé-🎰-\u2028-\"'\\", "   ", "\t", "ｋｅｙ", "a\u0301", "\U0010ffff"],
    ids=["150", "unicode", "spaces", "tab", "fullwidth", "combining", "max-codepoint"],
)
def test_odd_keys_are_recorded_once(api, round_id, colour_patron, key):
    answers = [_over(api, round_id, colour_patron, key) for _ in range(3)]
    assert [a.status_code for a in answers] == [400] * 3, [a.content for a in answers]
    assert list(BetRefusal.objects.values_list("idempotency_key", flat=True)) == [key]


def test_a_bet_key_longer_than_a_bet_takes_is_refused_naming_it_and_nothing_is_recorded(api, round_id, colour_patron):
    """A bet's key is stored with its coup (``bet:<round>:<key>``) within the ledger's 200
    characters: 150 is the longest a bet takes."""
    answer = _over(api, round_id, colour_patron, "k" * 151)
    assert answer.status_code == 400 and answer.json()["field"] == "idempotency_key"
    assert not BetRefusal.objects.exists()


@pytest.mark.parametrize(
    "key",
    [
        "k" * 201,
        "a\x00b",  # PostgreSQL text cannot hold a NUL: checking the length alone is not enough
    ],
    ids=["201", "nul"],
)
def test_keys_the_ledger_refuses_are_400_never_500_and_never_kept(api, round_id, colour_patron, key):
    answers = [_over(api, round_id, colour_patron, key) for _ in range(2)]
    assert [a.status_code for a in answers] == [400] * 2, [a.content for a in answers]
    assert not BetRefusal.objects.exclude(idempotency_key=None).exists()


def test_a_refused_key_later_used_for_a_successful_bet(api, round_id, colour_patron):
    assert _over(api, round_id, colour_patron, "later-ok").status_code == 400
    ok = _over(api, round_id, colour_patron, "later-ok", stake=1_000)
    assert ok.status_code == 201, ok.json()
    again = _over(api, round_id, colour_patron, "later-ok", stake=1_000)
    assert again.status_code == 201 and again.json() == ok.json()
    # the refused request retried now: the key belongs to another request
    retry = _over(api, round_id, colour_patron, "later-ok")
    assert retry.status_code in (400, 409, 422), retry.json()
    assert BetRefusal.objects.count() == 1


def test_a_reused_key_on_a_different_refused_bet_is_not_swallowed(api, round_id, colour_patron):
    assert _over(api, round_id, colour_patron, "reused").status_code == 400
    assert _over(api, round_id, colour_patron, "reused", stake=30_000).status_code in (400, 409, 422)
    # either a second row (a different refusal) or the key refused as reused: never a silent merge
    assert BetRefusal.objects.count() == 2 or _over(api, round_id, colour_patron, "reused", 30_000).status_code != 400


def test_the_same_key_from_two_senders_records_both(api, round_id, colour_patron, django_user_model):
    other = _client(staff_user("dealer2", *API_TEST_ROLES))
    assert _over(api, round_id, colour_patron, "shared").status_code == 400
    assert _over(other, round_id, colour_patron, "shared").status_code == 400
    assert sorted(BetRefusal.objects.values_list("actor", flat=True)) == ["dealer1", "dealer2"]


@pytest.mark.postgres
def test_concurrent_retries_with_one_key_record_one_row(committed_db, table, django_user_model):
    patron = make_patron(100_000)
    user = staff_user("dealer1", *API_TEST_ROLES)
    coup = round_open(table="R1", actor=ACTOR)["round"]
    body = {"patron": patron, "stake_cents": 10_000_000, "bet": PAIR}

    def attempt():
        client = _client(user)
        answer = client.post(f"/api/rounds/{coup}/bets", body, format="json", HTTP_IDEMPOTENCY_KEY="race")
        return answer.status_code

    outcomes = run_concurrently(*[attempt] * 6)
    assert outcomes == [400] * 6, outcomes
    assert BetRefusal.objects.filter(idempotency_key="race").count() == 1
    assert BetRefusal.objects.count() == 1


def test_one_key_on_two_tables_endpoints_records_two_refusals():
    from games.services.refusals import bet_refusal_record
    from ledger.errors import BetRefused

    first = BetRefused("over", kind="table_maximum", stake_cents=20_000, table="R1", round_id=None, patron="P1")
    second = BetRefused("over", kind="table_minimum", stake_cents=10, table="B1", round_id=None, patron="P2")
    assert bet_refusal_record(first, actor="dealer1", idempotency_key="k")["retry"] is False
    summary = bet_refusal_record(second, actor="dealer2", idempotency_key="k")
    assert summary["table"] == "B1" and summary["retry"] is False, summary

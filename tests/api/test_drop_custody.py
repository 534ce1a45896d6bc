"""The drop box removed by two people independent of the table's pit shift, the
count verified by a blind recount (a differing recount is a variance, not an overwrite), and
the master game report signed by the count team."""

import pytest

from cashier.services.pit_shift import table_shift
from ledger import store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, Posting
from tests.conftest import approve, staff_clients, staff_user

pytestmark = pytest.mark.django_db

STAFF = {
    "pit1": "pit_boss",
    "pit2": "pit_boss",
    "dealer1": "dealer",
    "drop1": "drop_team",
    "drop2": "drop_team",
    "count1": "count_team",
    "count2": "count_team",
    "count3": "count_team",
}


@pytest.fixture
def floor(cage, patron):
    clients = staff_clients(STAFF)
    body = {"game": "english_roulette", "opener": {"100000": 50}, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    opened = approve(clients["pit1"].post("/api/tables/T1/opener", body, format="json"), clients["dealer1"])
    assert opened.status_code == 201, opened.content
    buy_in = clients["pit1"].post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 30_000}, format="json")
    assert buy_in.status_code == 201, buy_in.content
    clients["day"] = current_gaming_day().isoformat()
    return clients


def _remove(floor, who="drop1", removers=("drop1", "drop2")):
    """``who`` asks; the other remover confirms from his own session (``approvals``)."""
    asked = floor[who].post(
        "/api/tables/T1/drop-removal", {"gaming_day": floor["day"], "removers": list(removers)}, format="json"
    )
    return approve(asked, *(floor[name] for name in removers if name != who and name in floor))


def _count(floor):
    body = {"gaming_day": floor["day"], "cash": {"20000": 1, "10000": 1}, "counters": ["count1", "count2"]}
    response = approve(floor["count1"].post("/api/tables/T1/drop-count", body, format="json"), floor["count2"])
    assert response.status_code == 201, response.content


def test_the_tables_own_pit_boss_or_dealer_may_not_remove_its_drop_box(floor):
    assert table_shift("T1", current_gaming_day()) == {"dealer1": "dealer", "pit1": "pit boss"}
    before = store.head()
    alone = floor["drop1"].post("/api/tables/T1/drop-removal", {"gaming_day": floor["day"]}, format="json")
    assert alone.status_code == 400 and alone.json()["field"] == "removers"  # never one person
    own = _remove(floor, who="pit1", removers=("pit1", "drop1"))
    assert own.status_code == 403 and "pit boss of table T1" in own.json()["detail"]
    assert store.head() == before
    with_pit = _remove(floor, removers=("drop1", "pit1"))
    assert with_pit.status_code == 403 and "pit1 is the pit boss of table T1" in with_pit.json()["detail"]
    # A dealer who also holds the drop team's role, assigned to the table that day.
    staff_user("dealer2", "dealer", "drop_team")
    assert (
        floor["pit2"].post("/api/staff/assignments", {"dealer": "dealer2", "table": "T1"}, format="json").status_code
        == 201
    )
    with_dealer = _remove(floor, removers=("drop1", "dealer2"))
    assert with_dealer.status_code == 403 and "dealer2 is the dealer of table T1" in with_dealer.json()["detail"]
    assert not Event.objects.filter(type="DropBoxRemoved").exists()


def test_a_drop_box_is_removed_by_two_independent_people(floor):
    assert _remove(floor, removers=("drop1", "drop1")).status_code == 403
    assert _remove(floor, who="drop1", removers=("drop2", "count3")).status_code == 403  # the actor is not one
    removed = _remove(floor)
    assert removed.status_code == 201, removed.content
    event = Event.objects.get(type="DropBoxRemoved")
    assert event.data["removers"] == ["drop1", "drop2"] and event.actor == "drop1"


def test_a_second_remover_named_in_the_request_records_nothing_until_he_confirms_himself(floor):
    body = {"gaming_day": floor["day"], "removers": ["drop1", "drop2"]}
    asked = floor["drop1"].post("/api/tables/T1/drop-removal", body, format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]
    assert approval["waiting_for"] == [
        {"slot": "second_remover", "roles": ["pit_boss", "count_team", "drop_team"], "user": "drop2"}
    ]
    assert not Event.objects.filter(type="DropBoxRemoved").exists()
    for other in ("drop1", "count3", "pit2"):  # the maker, and people not named: 403
        assert floor[other].post(f"/api/approvals/{approval['id']}/confirm").status_code == 403
    assert not Event.objects.filter(type="DropBoxRemoved").exists()
    confirmed = floor["drop2"].post(f"/api/approvals/{approval['id']}/confirm")
    assert confirmed.status_code == 201, confirmed.content
    event = Event.objects.get(type="DropBoxRemoved")
    assert (event.actor, event.data["removers"]) == ("drop1", ["drop1", "drop2"])


def test_an_agreeing_blind_recount_verifies_the_count(floor):
    _remove(floor)
    _count(floor)
    recount = floor["count3"].post(
        "/api/tables/T1/drop-recount", {"gaming_day": floor["day"], "cash": {"10000": 1, "20000": 1}}, format="json"
    )
    assert recount.status_code == 201, recount.content
    body = recount.json()
    assert body["agrees"] is True and "first_counted_cents" not in body and "counted_cents" not in body
    assert Event.objects.get(type="DropCountVerified").data["difference_cents"] == 0


def test_a_differing_recount_is_a_variance_and_the_first_count_stands(floor):
    _remove(floor)
    _count(floor)
    own = floor["count1"].post(
        "/api/tables/T1/drop-recount", {"gaming_day": floor["day"], "cash": {"20000": 1}}, format="json"
    )
    assert own.status_code == 403  # a counter does not verify his own count
    postings_before = Posting.objects.count()
    recount = floor["count3"].post(
        "/api/tables/T1/drop-recount", {"gaming_day": floor["day"], "cash": {"20000": 1}}, format="json"
    )
    assert recount.status_code == 201 and recount.json()["agrees"] is False
    variance = Event.objects.get(type="DropRecountVariance")
    assert (variance.data["first_counted_cents"], variance.data["recounted_cents"]) == (30_000, 20_000)
    assert variance.data["difference_cents"] == -10_000
    assert Posting.objects.count() == postings_before  # nothing overwritten, nothing posted
    counted = Event.objects.get(type="DropCounted")
    assert counted.data["counted_cents"] == 30_000
    again = floor["count3"].post(
        "/api/tables/T1/drop-recount", {"gaming_day": floor["day"], "cash": {"20000": 1}}, format="json"
    )
    assert again.status_code == 409

    report = floor["count2"].get("/api/reports/master-game").json()
    assert [
        (r["table"], r["removed_by"], r["counted_cents"], r["recount"], r["recount_difference_cents"])
        for r in report["rows"]
    ] == [("T1", "drop1;drop2", 30_000, "variance", -10_000)]


def test_the_master_game_report_is_signed_by_the_count_team(floor):
    nothing = floor["count1"].post(
        "/api/count-room/master-game/signatures", {"gaming_day": floor["day"]}, format="json"
    )
    assert nothing.status_code == 409
    _remove(floor)
    _count(floor)
    assert (
        floor["pit2"]
        .post("/api/count-room/master-game/signatures", {"gaming_day": floor["day"]}, format="json")
        .status_code
        == 403
    )
    for name in ("count1", "count2"):
        signed = floor[name].post("/api/count-room/master-game/signatures", {"gaming_day": floor["day"]}, format="json")
        assert signed.status_code == 201, signed.content
    twice = floor["count1"].post("/api/count-room/master-game/signatures", {"gaming_day": floor["day"]}, format="json")
    assert twice.status_code == 409
    report = floor["count3"].get("/api/reports/master-game").json()
    assert report["signed_by_count_team"] is True
    assert [(s["signer"], s["current"]) for s in report["signatures"]] == [("count1", True), ("count2", True)]
    # A recount after the signatures changes the rows: the signatures no longer cover them.
    floor["count3"].post(
        "/api/tables/T1/drop-recount", {"gaming_day": floor["day"], "cash": {"20000": 1, "10000": 1}}, format="json"
    )
    assert floor["count3"].get("/api/reports/master-game").json()["signed_by_count_team"] is False

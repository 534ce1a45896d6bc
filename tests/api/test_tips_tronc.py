"""Tip boxes counted by two employees or more with a manager into the tronc and
the tips book, the pool shared out by points, the book and the shares by day and month.

Each counter and the manager sign from his own session (``approvals``): a name in the request
is who is to sign, not a signature; the count is recorded when the last one confirms."""

import csv
import io

import pytest

from cashier.services.tronc import tips_count, tronc_share
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event, Posting
from staff.roles import RoleRequired
from tests.conftest import client_as, staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(table):
    return {
        "count1": staff_user("count1", "count_team"),
        "count2": staff_user("count2", "count_team"),
        "pit": staff_user("pit1", "pit_boss"),
        "super": staff_user("super1", "cage_supervisor"),
        "dealer": staff_user("dealer7", "dealer"),
        "dealer2": staff_user("dealer8", "dealer"),
    }


def _count(**overrides) -> dict:
    body = {
        "box": {"table": "R1"},
        "gaming_day": current_gaming_day().isoformat(),
        "chips": {"500": 3, "100": 2},
        "cash": {"1000": 1},
        "counters": ["count1", "count2"],
        "manager": "pit1",
    }
    return {**body, **overrides}


def _counted(people: dict, maker: str, **overrides):
    """``maker`` asks for the count; every other named person confirms. The last answer."""
    body = _count(**overrides)
    response = client_as(staff_user_of(people, maker)).post("/api/tronc/counts", body, format="json")
    assert response.status_code == 202, response.content
    approval = response.json()["approval"]["id"]
    for name in [*body["counters"], body["manager"]]:
        if name != maker:
            response = client_as(staff_user_of(people, name)).post(f"/api/approvals/{approval}/confirm")
    return response


def staff_user_of(people: dict, username: str):
    return next(user for user in people.values() if user.username == username)


def test_a_tip_box_counted_by_two_with_a_manager_goes_to_the_tronc_and_the_book(people):
    asked = client_as(people["count1"]).post("/api/tronc/counts", _count(), format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]
    assert [(w["slot"], w["user"]) for w in approval["waiting_for"]] == [("counter_2", "count2"), ("manager", "pit1")]
    assert not Event.objects.filter(type="TipsCounted").exists()
    signed = client_as(people["count2"]).post(f"/api/approvals/{approval['id']}/confirm")
    assert signed.status_code == 202 and not Event.objects.filter(type="TipsCounted").exists()
    response = client_as(people["pit"]).post(f"/api/approvals/{approval['id']}/confirm")
    assert response.status_code == 201, response.content
    assert response.json()["total_cents"] == 2_700
    event = Event.objects.get(type="TipsCounted")
    assert event.actor == "count1" and event.data["counters"] == ["count1", "count2"]
    assert {(p.account, p.amount_cents) for p in Posting.objects.filter(event=event)} == {
        ("patron:anon:chips", -1_700),
        ("external:cash", -1_000),
        ("tronc", 2_700),
    }
    assert store.balance(accounts.TRONC) == 2_700

    book = client_as(people["super"]).get("/api/reports/tips-book").json()
    assert [(r["box"], r["total_cents"], r["counters"], r["manager"]) for r in book["rows"]] == [
        ("table R1", 2_700, "count1;count2", "pit1")
    ]
    assert book["totals"]["day"]["counted_cents"] == 2_700
    assert book["totals"]["month_to_date"]["pool_cents"] == 2_700


@pytest.mark.parametrize(
    ("change", "status", "field_or_words"),
    [
        ({"counters": ["count1"]}, 400, "counters"),
        ({"counters": ["count1", "count1"]}, 403, "distinct"),
        ({"manager": "count2"}, 403, None),  # not a manager's role
        ({"manager": "super1", "counters": ["count1", "super1"]}, 403, "counts nothing"),
        ({"counters": ["count2", "dealer8"]}, 403, "counter or the manager"),  # count1 enters it
        ({"box": {"dealer": "dealer7"}, "counters": ["count1", "dealer7"]}, 403, "own toke"),
        ({"box": {"table": "ZZ9"}}, 404, "no such table"),
        ({"chips": {}, "cash": {}}, 400, "chips"),
        ({"cash": {"1000": -1}}, 400, "cash"),
    ],
)
def test_a_tips_count_that_breaks_the_rules_is_refused(people, change, status, field_or_words):
    before = store.head()
    response = client_as(people["count1"]).post("/api/tronc/counts", _count(**change), format="json")
    assert response.status_code == status, response.content
    body = response.json()
    if field_or_words and status == 400:
        assert body["field"] == field_or_words or field_or_words in str(body)
    elif field_or_words:
        assert field_or_words in body["detail"]
    assert store.head() == before


def test_a_box_is_counted_once_a_gaming_day(people):
    client = client_as(people["pit"])
    asked = client.post("/api/tronc/counts", _count(), format="json")
    waiting = client.post("/api/tronc/counts", _count(), format="json")
    assert waiting.status_code == 409 and "already asked by pit1" in waiting.json()["detail"]
    client_as(people["count1"]).post(f"/api/approvals/{asked.json()['approval']['id']}/confirm")
    assert (
        client_as(people["count2"]).post(f"/api/approvals/{asked.json()['approval']['id']}/confirm").status_code == 201
    )
    again = client.post("/api/tronc/counts", _count(), format="json")
    assert again.status_code == 409 and again.json()["field"] == "box"
    toke = _counted(people, "pit1", box={"dealer": "dealer7"})
    assert toke.status_code == 201, toke.content
    assert store.balance(accounts.TRONC) == 5_400


def test_the_pool_is_shared_by_points_and_the_rounding_stays_in_the_pool(people, settings):
    settings.CASINO_TRONC_POINTS_BY_ROLE = {"dealer": 10, "pit_boss": 12}
    tips_count(**_count(cash={"1000": 10}, chips={}), actor="count1")  # 100.00 EUR
    response = client_as(people["super"]).post(
        "/api/tronc/shares",
        {
            "staff": [
                {"username": "dealer7"},
                {"username": "dealer8"},
                {"username": "pit1"},
                {"username": "count1", "points": 3},
            ]
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    # 35 points: 10_000 × 10 // 35 = 2_857, × 12 // 35 = 3_428, × 3 // 35 = 857.
    assert body["total_points"] == 35
    assert {line["username"]: line["share_cents"] for line in body["shares"]} == {
        "count1": 857,
        "dealer7": 2_857,
        "dealer8": 2_857,
        "pit1": 3_428,
    }
    assert (body["shared_cents"], body["carried_cents"]) == (9_999, 1)
    assert store.balance(accounts.TRONC) == 1

    shares = client_as(people["count1"]).get("/api/reports/tronc-shares.csv")
    assert shares.status_code == 200
    lines = list(csv.reader(io.StringIO(shares.content.decode())))
    # Spreadsheet-ready: the share in currency units, the currency named.
    assert lines[0] == ["period", "from", "to", "username", "points", "share", "currency"]
    assert ["day", "dealer7", "10", "28.57", "EUR"] in [[r[0], r[3], r[4], r[5], r[6]] for r in lines[1:]]
    book = client_as(people["count1"]).get("/api/reports/tips-book").json()
    assert book["totals"]["day"] == {**book["totals"]["day"], "counted_cents": 10_000, "shared_cents": 9_999}
    tronc = client_as(people["count1"]).get("/api/reports/tronc").json()
    day = next(row for row in tronc["rows"] if row["period"] == "day")
    assert (day["tronc_cents"], day["shared_cents"]) == (10_000, 9_999)


def test_only_a_cage_supervisor_shares_the_tronc_and_never_an_empty_one(people):
    with pytest.raises(RoleRequired):
        tronc_share(staff=[{"username": "dealer7"}], actor="pit1")
    empty = client_as(people["super"]).post("/api/tronc/shares", {"staff": [{"username": "dealer7"}]}, format="json")
    assert empty.status_code == 409
    tips_count(**_count(), actor="count1")
    nobody = client_as(people["super"]).post("/api/tronc/shares", {"staff": [{"username": "ghost"}]}, format="json")
    assert nobody.status_code == 404
    zero = client_as(people["super"]).post(
        "/api/tronc/shares", {"staff": [{"username": "dealer7", "points": 0}]}, format="json"
    )
    assert zero.status_code == 400 and zero.json()["field"] == "staff"


def test_a_phantom_co_counter_named_in_the_request_records_nothing_until_he_confirms_himself(people):
    """The 500 EUR tronc paid out on a count its second counter never made: count1 names count2
    and the manager; nothing is recorded, nobody else can sign in their place, and the manager
    refusing ends it."""
    before = store.head()
    asked = client_as(people["count1"]).post("/api/tronc/counts", _count(cash={"50000": 1}, chips={}), format="json")
    assert asked.status_code == 202, asked.content
    approval = asked.json()["approval"]["id"]
    assert client_as(people["count1"]).post(f"/api/approvals/{approval}/confirm").status_code == 403  # the maker
    assert client_as(people["super"]).post(f"/api/approvals/{approval}/confirm").status_code == 403  # not named
    assert client_as(people["dealer2"]).post(f"/api/approvals/{approval}/confirm").status_code == 403
    assert not Event.objects.filter(type="TipsCounted").exists() and store.balance(accounts.TRONC) == 0
    refused = client_as(people["pit"]).post(
        f"/api/approvals/{approval}/reject", {"reason": "no such count"}, format="json"
    )
    assert refused.status_code == 200 and refused.json()["approval"]["state"] == "rejected"
    assert not Event.objects.filter(type="TipsCounted").exists() and store.balance(accounts.TRONC) == 0
    assert set(Event.objects.filter(position__gt=before[0]).values_list("type", flat=True)) == {
        "ApprovalRequested",
        "ApprovalRejected",
    }


def test_a_counter_who_does_not_exist_is_refused_at_once(people):
    before = store.head()
    response = client_as(people["count1"]).post(
        "/api/tronc/counts", _count(counters=["count1", "ghost"]), format="json"
    )
    assert response.status_code == 403 and "ghost holds no role" in response.json()["detail"]
    assert store.head() == before


def test_the_real_co_counters_confirming_from_their_own_sessions_record_the_count(people):
    response = _counted(people, "count2", cash={"50000": 1}, chips={})
    assert response.status_code == 201, response.content
    event = Event.objects.get(type="TipsCounted")
    assert (event.actor, event.data["counters"], event.data["manager"]) == ("count2", ["count1", "count2"], "pit1")
    confirmed = Event.objects.get(type="ApprovalConfirmed")
    signed = Event.objects.filter(type="ApprovalSigned").values_list("data__by", flat=True)
    assert (confirmed.actor, sorted([*signed, confirmed.data["by"]])) == ("pit1", ["count1", "pit1"])
    assert store.balance(accounts.TRONC) == 50_000

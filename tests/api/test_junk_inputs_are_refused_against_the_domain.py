"""Junk is refused against the domain and never stored (it once was).

A shift count keyed " 1000" (read as 1,000 cents) closed the shift; a drop box was removed for
gaming day 2099-12-30 and a gaming day 2000-01-01 was closed; a fill of 10^12 cents (ten
billion euros) was requested. Inputs are now checked against the domain: a count's keys are
exactly the configured denominations; a gaming day is the open one or the previous one; an
amount is under its operation's ceiling (``CASINO_CEILING_CENTS``). Junk is 400 naming the
field (409 for a day that has not begun) and appends nothing.
"""

from datetime import timedelta

import pytest

from ledger import store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from staff.roles import Role
from tests.conftest import open_counted_table, remove_drop_box, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {
    "pit1": Role.PIT_BOSS,
    "dealer1": Role.DEALER,
    "cash1": Role.CASHIER,
    "super1": Role.CAGE_SUPERVISOR,
    "drop1": Role.DROP_TEAM,
    "drop2": Role.DROP_TEAM,
    "count1": Role.COUNT_TEAM,
    "count2": Role.COUNT_TEAM,
}


@pytest.fixture
def clients(cage_float):
    # The cage without a cashier shift: the shift-count tests open one themselves.
    made = staff_clients(STAFF)
    opened = open_counted_table(made)
    assert opened.status_code == 201, opened.json()
    return made


def refused(response, status, field, before):
    assert response.status_code == status, response.content[:400]
    assert response.json()["field"] == field, response.json()
    assert store.head() == before


@pytest.mark.parametrize("key", [" 1000", "1000 ", "\t1000", "1000\n", "\uff11\uff10\uff10\uff10"])
@pytest.mark.parametrize("count", ["cash", "chips"])
def test_a_shift_count_keyed_with_a_padded_denomination_is_400(clients, key, count):
    cashier = clients["cash1"]
    assert cashier.post("/api/cage/shifts/open", {"cash": {}, "chips": {}}, format="json").status_code == 201
    before = store.head()
    body = {"cash": {}, "chips": {}, count: {key: 1}}
    refused(cashier.post("/api/cage/shifts/close", body, format="json"), 400, count, before)
    assert not Event.objects.filter(type="CageShiftClosed").exists()


def test_a_slip_or_an_opener_keyed_with_a_padded_denomination_is_400(clients):
    before = store.head()
    body = {"kind": "fill", "denominations": {" 10000": 1}}
    refused(clients["pit1"].post("/api/tables/T1/slips", body, format="json"), 400, "denominations", before)
    body = {"game": "english_roulette", "opener": {"10000 ": 1}, "dealer": "dealer1", "pit_boss": "pit1"}
    refused(clients["pit1"].post("/api/tables/T2/opener", body, format="json"), 400, "opener", before)


def test_a_drop_box_cannot_be_removed_for_a_day_that_has_not_begun(clients):
    before = store.head()
    response = remove_drop_box(clients, "T1", "2099-12-30")
    refused(response, 409, "gaming_day", before)
    assert not Event.objects.filter(type="DropBoxRemoved").exists()


def test_a_drop_box_is_removed_for_the_open_gaming_day_or_the_previous_one_only(clients):
    today = current_gaming_day()
    before = store.head()
    for day in (today - timedelta(days=2), today.replace(year=2000)):
        response = remove_drop_box(clients, "T1", day.isoformat())
        refused(response, 400, "gaming_day", before)
    count = {"gaming_day": (today - timedelta(days=2)).isoformat(), "cash": {}, "counters": ["count1", "count2"]}
    refused(clients["count1"].post("/api/tables/T1/drop-count", count, format="json"), 400, "gaming_day", before)
    yesterday = remove_drop_box(clients, "T1", (today - timedelta(days=1)).isoformat())
    assert yesterday.status_code == 201, yesterday.json()
    removed = remove_drop_box(clients, "T1", today.isoformat())
    assert removed.status_code == 201, removed.json()


def test_a_gaming_day_long_past_cannot_be_closed(clients):
    before = store.head()
    response = clients["super1"].post("/api/cage/gaming-days/close", {"gaming_day": "2000-01-01"}, format="json")
    refused(response, 400, "gaming_day", before)
    assert not Event.objects.filter(type="GamingDayClosed").exists()


def test_a_gaming_day_can_be_closed_the_day_after(clients):
    yesterday = (current_gaming_day() - timedelta(days=1)).isoformat()
    response = clients["super1"].post("/api/cage/gaming-days/close", {"gaming_day": yesterday}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["tables"] == []  # the table opened today


def test_a_fill_of_ten_billion_euros_is_400(clients):
    before = store.head()
    body = {"kind": "fill", "denominations": {"1000000": 1_000_000}}  # 10^12 cents
    refused(clients["pit1"].post("/api/tables/T1/slips", body, format="json"), 400, "denominations", before)
    assert not Event.objects.filter(type="SlipRequested").exists()


def test_each_operation_has_its_ceiling_from_the_settings(clients, settings, patron):
    settings.CASINO_CEILING_CENTS = settings.CASINO_CEILING_CENTS | {
        "fill": 100_000,
        "credit": 100_000,
        "buy_in": 50_000,
        "chips_purchase": 50_000,
    }
    pit, cashier = clients["pit1"], clients["cash1"]
    before = store.head()
    for kind in ("fill", "credit"):
        over = {"kind": kind, "denominations": {"100000": 1, "100": 1}}  # 1,001 EUR
        refused(pit.post("/api/tables/T1/slips", over, format="json"), 400, "denominations", before)
    buy_in = {"patron": patron, "amount_cents": 50_001}
    refused(pit.post("/api/tables/T1/buy-ins", buy_in, format="json"), 400, "amount_cents", before)
    refused(cashier.post("/api/cage/purchases", buy_in, format="json"), 400, "amount_cents", before)
    at_the_ceiling = {"kind": "fill", "denominations": {"100000": 1}}
    assert pit.post("/api/tables/T1/slips", at_the_ceiling, format="json").status_code == 201


def test_an_opener_over_its_ceiling_is_400(clients, settings):
    settings.CASINO_CEILING_CENTS = settings.CASINO_CEILING_CENTS | {"opener": 1_000_000}
    before = store.head()
    counted = {"game": "english_roulette", "opener": {"1000000": 2}, "dealer": "dealer1", "pit_boss": "pit1"}
    refused(clients["pit1"].post("/api/tables/T2/opener", counted, format="json"), 400, "opener", before)


def test_every_operation_checked_has_its_ceiling_in_the_settings(settings):
    from core.ceilings import ceiling_cents

    movements = ("fill", "credit", "buy_in", "chips_purchase", "chips_redeem")
    counts = ("opener", "closer", "drop_count")
    assert set(settings.CASINO_CEILING_CENTS) == {*movements, *counts}
    assert [ceiling_cents(op) for op in movements] == [1_000_000_000] * 5  # 10,000,000.00
    assert [ceiling_cents(op) for op in counts] == [10_000_000_000] * 3  # 100,000,000.00

"""Bad input against the cage and table accounting, AML, export and dashboard endpoints:
junk is 400 naming the field and appends nothing, a wrong state is 409,
a wrong role or one user in two segregated steps is 403, an unknown id is 404; never a 500."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from ledger import store
from ledger.gaming_day import current_gaming_day
from staff.roles import Role, grant
from tests.conftest import (
    CAGE_STAFF,
    OPENER,
    approve,
    hand_cage_to,
    open_counted_table,
    remove_drop_box,
    staff_clients,
    staff_user,
)

pytestmark = pytest.mark.django_db

STAFF = {**CAGE_STAFF, "aud1": Role.AUDITOR}


@pytest.fixture
def clients(cage):
    clients = staff_clients(STAFF)
    hand_cage_to("cash1")  # the issuing cashier's own shift
    return clients


@pytest.fixture
def opened(clients):
    response = open_counted_table(clients)
    assert response.status_code == 201, response.json()
    return clients


def _post(client, path, body):
    if isinstance(body, str):
        return client.generic("POST", path, body, content_type="application/json")
    return client.post(path, body, format="json")


def refused(response, status, field, before):
    assert response.status_code == status, response.content[:400]
    if field is not None:
        assert response.json().get("field") == field, response.json()
    assert store.head() == before


def _request_fill(clients, count=None, kind="fill"):
    response = clients["pit1"].post(
        "/api/tables/T1/slips", {"kind": kind, "denominations": count or {"10000": 1}}, format="json"
    )
    response = approve(response, clients["super1"])  # a large fill: the cage supervisor signs too
    assert response.status_code == 201, response.json()
    return response.json()["serial"]


def _issue(clients, serial, kind="fill"):
    response = clients["cash1"].post(f"/api/cage/slips/{kind}/{serial}/issue", {"runner": "run1"}, format="json")
    response = approve(response, clients["run1"])  # the runner signs for what he carries
    assert response.status_code == 200, response.json()


BAD_COUNTS = [
    {"abc": 1},
    {"-100": 1},
    {"1e3": 1},
    {"100.0": 1},
    {"": 1},
    {"0100": 1},
    {"+100": 1},
    {"1_00": 1},
    {"１００": 1},
    {"1" * 5000: 1},
    {"100": -1},
    {"100": 1.0},
    {"100": 1.5},
    {"100": True},
    {"100": "1"},
    {"100": None},
    {"100": [1]},
    {"100": {"n": 1}},
    {"100": 10**30},
    {"1000000": 10**12},
    [],
    [["100", 1]],
    "100",
    5,
    True,
    None,
]


@pytest.mark.parametrize("count", BAD_COUNTS, ids=[repr(c)[:30] for c in BAD_COUNTS])
@pytest.mark.parametrize(
    ("user", "path", "field", "body"),
    [
        ("pit1", "/api/tables/T1/slips", "denominations", lambda c: {"kind": "fill", "denominations": c}),
        (
            "pit1",
            "/api/tables/T2/opener",
            "opener",
            lambda c: {"game": "english_roulette", "opener": c, "dealer": "dealer1", "pit_boss": "pit2"},
        ),
        ("pit1", "/api/tables/T1/closer", "closer", lambda c: {"closer": c, "dealer": "dealer1", "pit_boss": "pit2"}),
        ("cash1", "/api/cage/shifts/open", "cash", lambda c: {"cash": c, "chips": {}}),
        ("cash1", "/api/cage/shifts/open", "chips", lambda c: {"cash": {}, "chips": c}),
        (
            "count1",
            "/api/tables/T1/drop-count",
            "cash",
            lambda c: {"gaming_day": current_gaming_day().isoformat(), "cash": c, "counters": ["count1", "count2"]},
        ),
    ],
    ids=["slip", "opener", "closer", "shift-cash", "shift-chips", "drop-count"],
)
def test_a_bad_count_is_400_naming_the_field(opened, user, path, field, body, count):
    if "drop-count" in path:
        day = current_gaming_day().isoformat()
        assert remove_drop_box(opened, "T1", day).status_code == 201
    before = store.head()
    refused(_post(opened[user], path, body(count)), 400, field, before)


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/api/tables/T1/slips", {"kind": "FILL", "denominations": {"100": 1}}, "kind"),
        ("/api/tables/T1/slips", {"kind": "", "denominations": {"100": 1}}, "kind"),
        ("/api/tables/T1/slips", {"kind": ["fill"], "denominations": {"100": 1}}, "kind"),
        ("/api/tables/T1/slips", {"kind": "fill", "denominations": {}}, "denominations"),
        ("/api/tables/T1/slips", {"kind": "fill", "denominations": {"100": 0}}, "denominations"),
        ("/api/tables/T1/slips", {"kind": "fill"}, "denominations"),
        ("/api/tables/T1/slips", '{"kind": "\\ud800", "denominations": {"100": 1}}', "kind"),
        (
            "/api/tables/T1/slips",
            '{"kind": "fill", "denominations": {"100": 1, "100": 2, "\\udc00": 1}}',
            "denominations",
        ),
        ("/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": ["pit2"]}, "pit_boss"),
        ("/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1"}, "pit_boss"),
        ("/api/tables/T1/closer", '{"closer": {"100": 1}, "dealer": "\\ud800", "pit_boss": "pit2"}', "dealer"),
        ("/api/tables/T1/drop-removal", {"gaming_day": "2026-02-30", "removers": ["drop1", "drop2"]}, "gaming_day"),
        ("/api/tables/T1/drop-removal", {"gaming_day": 20261129, "removers": ["drop1", "drop2"]}, "gaming_day"),
        ("/api/tables/T1/drop-removal", {"gaming_day": "99999-01-01", "removers": ["drop1", "drop2"]}, "gaming_day"),
        ("/api/tables/T1/drop-removal", {"gaming_day": None, "removers": ["drop1", "drop2"]}, "gaming_day"),
        ("/api/tables/T1/drop-removal", {"removers": ["drop1", "drop2"]}, "gaming_day"),
        ("/api/tables/T1/drop-removal", {"gaming_day": "2026-01-01"}, "removers"),
        ("/api/tables/T1/drop-removal", {"gaming_day": "2026-01-01", "removers": ["drop1"]}, "removers"),
        (
            "/api/tables/T1/drop-count-reversal",
            {"gaming_day": "2026-01-01", "reason": "   ", "approver": "pit1"},
            "reason",
        ),
        ("/api/tables/T1/drop-count-reversal", {"gaming_day": "2026-01-01", "reason": "x"}, "approver"),
        ("/api/cage/gaming-days/close", {"gaming_day": "yesterday"}, "gaming_day"),
        ("/api/cage/gaming-days/close", {"gaming_day": True}, "gaming_day"),
        ("/api/cage/shifts/close", {"cash": {}, "chips": {}, "handover_to": ""}, "handover_to"),
        ("/api/cage/shifts/close", {"cash": {}, "chips": {}, "handover_to": "x" * 151}, "handover_to"),
    ],
)
def test_junk_fields_are_400_naming_the_field(opened, path, body, field):
    user = {"slips": "pit1", "closer": "pit1", "drop-removal": "drop1", "drop-count-reversal": "count1"}
    who = next((u for key, u in user.items() if f"/{key}" in path), "super1")
    if "shifts" in path:
        who = "cash1"
    before = store.head()
    refused(_post(opened[who], path, body), 400, field, before)


# --- slips: wrong state, wrong user, unknown serial -------------------------------------------


def test_a_voided_slip_cannot_be_issued_accepted_or_reversed(opened):
    serial = _request_fill(opened)
    base = f"/api/cage/slips/fill/{serial}"
    voided = approve(
        opened["pit1"].post(
            f"{base}/void", {"confirmation": "VOID", "reason": "typo", "approver": "super1"}, format="json"
        ),
        opened["super1"],
    )
    assert voided.status_code == 200
    before = store.head()
    refused(opened["cash1"].post(f"{base}/issue", {"runner": "run1"}, format="json"), 409, "serial", before)
    refused(opened["pit2"].post(f"{base}/accept", {}, format="json"), 409, "serial", before)
    refused(
        opened["pit1"].post(
            f"{base}/void", {"confirmation": "VOID", "reason": "x", "approver": "super1"}, format="json"
        ),
        409,
        "serial",
        before,
    )


@pytest.mark.parametrize(
    ("kind", "serial", "status"),
    [
        ("fill", "2026-999999", 404),
        ("fill", "..", 404),
        ("fill", "x" * 5000, 404),
        ("fill", "2026-000001 ", 404),
        ("credit", "2026-000001", 404),
        ("FILL", "2026-000001", 400),
        ("abc", "2026-000001", 400),
    ],
)
def test_an_unknown_slip_is_404_and_an_unknown_kind_400(opened, kind, serial, status):
    _request_fill(opened)
    before = store.head()
    for user, step, body in (
        ("cash1", "issue", {"runner": "run1"}),
        ("cash1" if kind == "credit" else "pit2", "accept", {}),  # a credit is received at the cage
        ("pit1", "void", {"confirmation": "VOID", "reason": "x", "approver": "super1"}),
        ("super1", "reverse", {"reason": "x", "approver": "pit1"}),
    ):
        response = opened[user].post(f"/api/cage/slips/{kind}/{serial}/{step}", body, format="json")
        # A serial that is not YYYY-NNNNNN is no path at all (``core.converters``): 404, no field.
        well_formed = re.fullmatch("[0-9]{4}-[0-9]{6}", serial) is not None
        refused(response, status, "kind" if status == 400 else "serial" if well_formed else None, before)


def test_the_requester_cannot_accept_his_own_fill(opened):
    """Each step of a slip by a different user (segregation of duties)."""
    serial = _request_fill(opened)
    _issue(opened, serial)
    before = store.head()
    response = opened["pit1"].post(f"/api/cage/slips/fill/{serial}/accept", {}, format="json")
    refused(response, 403, None, before)
    assert "requester" in response.json()["detail"]


def test_the_same_user_cannot_sign_and_approve_a_void_or_reversal(opened):
    serial = _request_fill(opened)
    before = store.head()
    same = opened["pit1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "x", "approver": "pit1"},
        format="json",
    )
    refused(same, 403, None, before)
    runner = opened["run1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "x", "approver": "pit1"},
        format="json",
    )
    refused(runner, 403, None, before)
    not_approver = opened["pit1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "x", "approver": "cash1"},
        format="json",
    )
    refused(not_approver, 403, None, before)


def test_the_runner_must_be_a_runner_other_than_the_requester_and_issuer(opened, django_user_model):
    grant(django_user_model.objects.get(username="pit1"), Role.RUNNER)
    grant(django_user_model.objects.get(username="cash1"), Role.RUNNER)
    serial = _request_fill(opened)
    before = store.head()
    for runner in ("pit1", "cash1", "pit2", "nobody"):
        response = opened["cash1"].post(f"/api/cage/slips/fill/{serial}/issue", {"runner": runner}, format="json")
        refused(response, 403, None, before)
    # A name no login can have (not ASCII) is bad input, not a person without the role.
    response = opened["cash1"].post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "\u00e9"}, format="json")
    refused(response, 400, "runner", before)


def test_a_fill_the_cage_cannot_cover_is_refused_at_issue(opened):
    serial = _request_fill(opened, {"1000000": 11})  # 110,000 EUR; the cage holds 100,000 EUR of chips
    before = store.head()
    response = opened["cash1"].post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json")
    refused(response, 400, "denominations", before)


def test_a_credit_the_tray_no_longer_holds_is_refused_at_acceptance(opened, patron):
    serial = _request_fill(opened, {"1000000": 4}, kind="credit")  # 40,000 of the tray's 50,000 EUR
    _issue(opened, serial, kind="credit")
    bought = opened["pit1"].post("/api/tables/T1/buy-ins", {"patron": patron, "amount_cents": 1_500_000}, format="json")
    assert bought.status_code == 201, bought.json()
    before = store.head()
    response = opened["cash1"].post(f"/api/cage/slips/credit/{serial}/accept", {"count": {"1000000": 4}}, format="json")
    refused(response, 400, "denominations", before)
    assert store.balance("table:T1:tray") == 3_500_000


def test_a_slip_for_a_closed_or_unknown_table(opened):
    before = store.head()
    refused(
        opened["pit1"].post("/api/tables/NOPE/slips", {"kind": "fill", "denominations": {"100": 1}}, format="json"),
        404,
        "table",
        before,
    )
    closed = approve(
        opened["pit1"].post(
            "/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit2"}, format="json"
        ),
        opened["dealer1"],
        opened["pit2"],
    )
    assert closed.status_code == 200, closed.json()
    before = store.head()
    refused(
        opened["pit1"].post("/api/tables/T1/slips", {"kind": "fill", "denominations": {"100": 1}}, format="json"),
        409,
        "table",
        before,
    )
    again = opened["pit1"].post(
        "/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit2"}, format="json"
    )
    refused(again, 409, "table", before)


# --- drop boxes, counts, gaming days -----------------------------------------------------------


def test_a_drop_box_is_removed_and_counted_once(opened):
    day = current_gaming_day().isoformat()
    count = {"gaming_day": day, "cash": {}, "counters": ["count1", "count2"]}
    before = store.head()
    refused(opened["count1"].post("/api/tables/T1/drop-count", count, format="json"), 409, "table", before)
    assert remove_drop_box(opened, "T1", day).status_code == 201
    before = store.head()
    refused(remove_drop_box(opened, "T1", day), 409, "table", before)
    counted = approve(opened["count1"].post("/api/tables/T1/drop-count", count, format="json"), opened["count2"])
    assert counted.status_code == 201
    before = store.head()
    refused(opened["count2"].post("/api/tables/T1/drop-count", count, format="json"), 409, "table", before)
    reversal = {"gaming_day": day, "reason": "recount", "approver": "pit1"}
    reversed_ = approve(
        opened["count1"].post("/api/tables/T1/drop-count-reversal", reversal, format="json"), opened["pit1"]
    )
    assert reversed_.status_code == 201
    before = store.head()
    refused(opened["count1"].post("/api/tables/T1/drop-count-reversal", reversal, format="json"), 409, "table", before)
    refused(remove_drop_box(opened, "NOPE", day), 404, "table", before)
    refused(
        opened["dealer1"].post(
            "/api/tables/T1/drop-removal", {"gaming_day": day, "removers": ["drop1", "drop2"]}, format="json"
        ),
        403,
        None,
        before,
    )
    refused(opened["pit1"].post("/api/tables/T1/drop-count", count, format="json"), 403, None, before)


def test_a_gaming_day_closes_once(opened):
    day = current_gaming_day().isoformat()
    closed = approve(
        opened["pit1"].post(
            "/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit2"}, format="json"
        ),
        opened["dealer1"],
        opened["pit2"],
    )
    assert closed.status_code == 200
    before = store.head()
    refused(
        opened["super1"].post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json"),
        409,
        "gaming_day",
        before,
    )
    remove_drop_box(opened, "T1", day)
    count = {"gaming_day": day, "cash": {}, "counters": ["count1", "count2"]}
    counted = approve(opened["count1"].post("/api/tables/T1/drop-count", count, format="json"), opened["count2"])
    assert counted.status_code == 201
    assert opened["super1"].post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json").status_code == 200
    before = store.head()
    refused(
        opened["pit1"].post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json"),
        409,
        "gaming_day",
        before,
    )
    refused(opened["cash1"].post("/api/cage/gaming-days/close", {"gaming_day": day}, format="json"), 403, None, before)


def test_a_gaming_day_that_has_not_begun_cannot_be_closed(opened):
    tomorrow = current_gaming_day().toordinal() + 1
    from datetime import date

    before = store.head()
    for day in (date.fromordinal(tomorrow), date(9999, 12, 31)):
        response = opened["super1"].post("/api/cage/gaming-days/close", {"gaming_day": day.isoformat()}, format="json")
        refused(response, 409, "gaming_day", before)


# --- coup reversal -------------------------------------------------------------------------------


def _settled_coup(clients, patron):
    pit = clients["pit1"]
    coup = pit.post("/api/tables/T1/rounds", {}, format="json").json()["round"]
    placed = pit.post(
        f"/api/rounds/{coup}/bets",
        {"patron": patron, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": "rouge"}},
        format="json",
    )
    assert placed.status_code == 201, placed.json()
    assert pit.post(f"/api/rounds/{coup}/close-bets", {}, format="json").status_code in (200, 201)
    result = pit.post(f"/api/rounds/{coup}/result", {"number": 1}, format="json")
    assert result.status_code in (200, 201), result.json()
    return coup


@pytest.mark.parametrize("round_id", ["not-a-uuid", "0" * 5000, "00000000-0000-0000-0000-000000000000", ".."])
def test_reversing_an_unknown_coup_is_404(opened, round_id):
    before = store.head()
    response = opened["pit1"].post(
        f"/api/rounds/{round_id}/reversal", {"reason": "x", "approver": "super1"}, format="json"
    )
    well_formed = round_id == "00000000-0000-0000-0000-000000000000"  # others are no path (core.converters)
    refused(response, 404, "round" if well_formed else None, before)


def test_a_coup_is_reversed_once_and_only_by_two_supervisors(opened, patron):
    coup = _settled_coup(opened, patron)
    url = f"/api/rounds/{coup}/reversal"
    before = store.head()
    refused(opened["pit1"].post(url, {"reason": "x", "approver": "pit1"}, format="json"), 403, None, before)
    refused(opened["pit1"].post(url, {"reason": "x", "approver": "cash1"}, format="json"), 403, None, before)
    refused(opened["pit1"].post(url, {"reason": " ", "approver": "pit2"}, format="json"), 400, "reason", before)
    refused(opened["dealer1"].post(url, {"reason": "x", "approver": "pit2"}, format="json"), 403, None, before)
    reversed_ = approve(
        opened["pit1"].post(url, {"reason": "wrong number", "approver": "pit2"}, format="json"), opened["pit2"]
    )
    assert reversed_.status_code == 200
    before = store.head()
    refused(opened["pit2"].post(url, {"reason": "again", "approver": "super1"}, format="json"), 409, "round", before)


# --- reports, exports, identities, dashboard -----------------------------------------------------


@pytest.mark.parametrize("name", ["table-games", "cage-accountability", "variances", "tronc", "unused-serials"])
@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ("gaming_day=0001-01-01", 200, None),
        ("gaming_day=9999-12-31", 200, None),
        ("gaming_day=2026-11-29T00:00", 400, "gaming_day"),
        ("gaming_day=..%2F..%2Fetc%2Fpasswd", 400, "gaming_day"),
        ("gaming_day=2026-11-29%00", 400, "gaming_day"),
        ("gaming_day=%ED%A0%80", 400, "gaming_day"),
        ("threshold_cents=-1&year=2026", None, "threshold_cents"),
        ("threshold_cents=1e3", None, "threshold_cents"),
        ("threshold_cents=99999999999999999999", None, "threshold_cents"),
        ("year=1999", None, "year"),
        ("year=0x7e7", None, "year"),
        ("year=%C2%B2", None, "year"),  # "²": str.isdigit() says yes, int() says no
        ("threshold_cents=%C2%B2", None, "threshold_cents"),
        ("threshold_cents=%D9%A3", None, "threshold_cents"),  # an Arabic-Indic 3
    ],
)
@pytest.mark.parametrize("csv", [False, True])
def test_report_parameters(clients, name, query, status, field, csv):
    applies = {"threshold_cents": "variances", "year": "unused-serials"}
    key = query.split("=")[0]
    if key == "gaming_day" and name == "unused-serials" and "%00" not in query:
        status, field = 200, None  # by year, not by day
    if status is None:
        status = 400 if applies.get(key) == name else 200
        field = field if status == 400 else None
    response = clients["aud1"].get(f"/api/reports/{name}{'.csv' if csv else ''}?{query}")
    assert response.status_code == status, response.content[:300]
    if status == 400:
        assert response.json()["field"] == field


@pytest.mark.parametrize(
    ("day", "status"),
    [
        ("2001-01-01", 404),
        ("9999-12-31", 404),
        ("0001-01-01", 404),
        ("2026-13-01", 400),  # YYYY-MM-DD but no date: 400 naming the day
        ("..", 404),  # not YYYY-MM-DD: no path at all (core.converters)
        ("....%2F....%2Fetc%2Fpasswd", 404),
        ("..%5C..%5Cwindows", 404),
        ("2026-11-29%00", 404),
        ("%ED%A0%80", 404),
        ("x" * 3000, 404),
        ("\uff12\uff10\uff12\uff16-11-29", 404),  # fullwidth digits
    ],
)
def test_export_of_a_bad_or_empty_day(clients, day, status):
    response = clients["aud1"].get(f"/api/exports/gaming-days/{day}.zip")
    assert response.status_code == status, response.content[:300]
    assert not getattr(response, "streaming", False)


@pytest.mark.parametrize("user", ["pit1", "cash1", "super1", "count1", "run1", "dealer1"])
def test_the_export_zip_is_for_auditors_and_admins_only(clients, user):
    chips = clients["super1"]  # noqa: F841 - the cage fixture made the day's first events
    response = clients[user].get(f"/api/exports/gaming-days/{current_gaming_day().isoformat()}.zip")
    assert response.status_code == 403
    assert not getattr(response, "streaming", False)


@pytest.mark.parametrize(
    ("code", "body", "status", "field"),
    [
        ("{patron}", {"name": " ", "document": "X1"}, 400, "name"),
        ("{patron}", {"name": "A B", "document": "   "}, 400, "document"),
        ("{patron}", {"name": "A B"}, 400, "document"),
        ("{patron}", {"name": ["A"], "document": "X1"}, 400, "name"),
        ("{patron}", '{"name": "\\ud800", "document": "X1"}', 400, "name"),
        ("{patron}", {"name": "A" * 201, "document": "X1"}, 400, "name"),
    ],
)
def test_identity_recording_refuses_junk(clients, patron, code, body, status, field):
    before = store.head()
    response = _post(clients["cash1"], f"/api/patrons/{code.format(patron=patron)}/identity", body)
    refused(response, status, field, before)


def test_identity_recording_is_for_the_cage(clients, patron):
    before = store.head()
    for user in ("pit1", "dealer1", "aud1", "count1", "run1"):
        response = clients[user].post(f"/api/patrons/{patron}/identity", {"name": "A", "document": "B"}, format="json")
        refused(response, 403, None, before)


@pytest.mark.parametrize("code", ["P999999", "nobody", "P%00", "%C3%A9", "x" * 300])
def test_identity_of_an_unknown_patron_is_404(django_user_model, cage, code):
    client = APIClient()
    client.force_authenticate(staff_user("comp1", "cashier", "cage_supervisor"))
    url = f"/api/patrons/{code}/identity"
    for key in ("id-1", "id-1", None):
        extra = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
        answer = client.post(url, {"document": "ID-1", "name": "X"}, format="json", **extra)
        assert answer.status_code == 404, (code, answer.status_code, answer.content)
        assert answer.json()["error"] == "not_found", answer.json()


@pytest.fixture
def pit_browser(client, django_user_model, cage):
    user = django_user_model.objects.create_user(username="floorboss", password="x")
    grant(user, Role.PIT_BOSS)
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "path",
    [
        "/dashboard/tables/NOPE/",
        "/dashboard/tables/NOPE/_live",
        "/dashboard/tables/..%2F..%2Fetc/",
        "/dashboard/tables/%ED%A0%80/",
        "/dashboard/tables/" + "x" * 3000 + "/",
        "/dashboard/coups/not-a-uuid/audit/",
        "/dashboard/coups/00000000-0000-0000-0000-000000000000/audit/",
        "/dashboard/coups/" + "0" * 3000 + "/audit/",
        "/dashboard/patrons/P99999/",
        "/dashboard/patrons/%ED%A0%80/",
        "/dashboard/patrons/%00/",
    ],
)
def test_dashboard_pages_for_things_that_do_not_exist_are_404(pit_browser, path):
    assert pit_browser.get(path).status_code == 404


@pytest.mark.parametrize("code", ["a/b", "../..", "%2F", "P0001?x=1", "#", "\u00e9", " ", "x" * 50])
def test_the_patron_lookup_never_fails(pit_browser, code):
    response = pit_browser.get(reverse("dashboard:patron-lookup"), {"code": code})
    assert response.status_code in (302, 404), response.status_code

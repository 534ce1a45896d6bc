"""Maker-checker: a second signature is the signer's own authenticated act.

Naming a supervisor, a dealer, a pit boss or a counter in a request signs nothing: the request
waits (202) until each named user confirms from his own session; a large opener or fill waits
for a cage supervisor. The maker never signs for himself, a user without the role never signs,
and a decided or expired approval cannot be confirmed again.
"""

import pytest

from approvals.models import Approval
from approvals.replay import check_approvals
from cashier.services.count_room import drop_box_remove
from cashier.services.slips import slip_request
from games.models import Round, Table
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from ledger import accounts, store
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.projections import catch_up_all
from staff.roles import Role, RoleRequired, grant
from tests.conftest import OPENER, approve, hand_cage_to, staff_clients

pytestmark = pytest.mark.django_db

STAFF = {
    "pit1": Role.PIT_BOSS,
    "pit2": Role.PIT_BOSS,
    "dealer1": Role.DEALER,
    "cash1": Role.CASHIER,
    "super1": Role.CAGE_SUPERVISOR,
    "super2": Role.CAGE_SUPERVISOR,
    "drop1": Role.DROP_TEAM,
    "drop2": Role.DROP_TEAM,
    "count1": Role.COUNT_TEAM,
    "count2": Role.COUNT_TEAM,
    "count3": Role.COUNT_TEAM,
    "run1": Role.RUNNER,
}


@pytest.fixture
def clients(cage):
    return staff_clients(STAFF)


@pytest.fixture
def table_t1(clients):
    return table_open(code="T1", game="english_roulette", opener_cents=5_000_000, actor="pit1", rules={})


def confirm(client, response):
    return client.post(f"/api/approvals/{response.json()['approval']['id']}/confirm", {}, format="json")


def types_since(position: int) -> list[str]:
    return list(Event.objects.filter(position__gt=position).order_by("position").values_list("type", flat=True))


def settled_coup() -> str:
    coup = round_open(table="T1", actor="pit1")["round"]
    round_close_bets(round_id=coup, actor="pit1")
    round_record_result(round_id=coup, number=7, actor="pit1")
    return coup


def test_a_pit_boss_naming_an_approver_does_not_reverse_a_coup_until_the_approver_confirms(clients, table_t1):
    coup = settled_coup()
    before = store.head()[0]
    asked = clients["pit1"].post(
        f"/api/rounds/{coup}/reversal", {"reason": "wrong number", "approver": "pit2"}, format="json"
    )
    assert asked.status_code == 202, asked.json()
    waiting = asked.json()["approval"]
    assert waiting["state"] == "pending" and waiting["maker"] == "pit1"
    assert waiting["waiting_for"] == [{"slot": "approver", "roles": ["pit_boss", "cage_supervisor"], "user": "pit2"}]
    assert types_since(before) == ["ApprovalRequested"]
    assert Round.objects.get(id=coup).state == Round.State.SETTLED

    done = confirm(clients["pit2"], asked)
    assert done.status_code == 200, done.json()
    assert done.json()["round"] == coup and done.json()["approval"]["state"] == "confirmed"
    assert types_since(before) == ["ApprovalRequested", "RoundReversed", "ApprovalConfirmed"]
    reversal = Event.objects.get(type="RoundReversed")
    assert (reversal.actor, reversal.data["approved_by"]) == ("pit1", "pit2")
    assert Event.objects.get(type="ApprovalConfirmed").actor == "pit2"
    catch_up_all()
    trail = clients["pit2"].get(f"/api/audit/round/{coup}/").json()["results"]
    lines = [line["summary"] for line in trail if line["type"].startswith("Approval")]
    assert lines == [
        "pit1 asked for round_reverse, waiting for pit2",
        "pit2 signed round_reverse: it ran",
    ]


def test_a_cashier_naming_a_supervisor_does_not_void_a_slip_until_the_supervisor_confirms(clients, table_t1):
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 1}, actor="pit1")["serial"]
    asked = clients["cash1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "typo", "approver": "super1"},
        format="json",
    )
    assert asked.status_code == 202, asked.json()
    listed = {s["serial"]: s["state"] for s in clients["pit1"].get("/api/cage/slips/").json()["results"]}
    assert listed == {serial: "requested"}
    done = confirm(clients["super1"], asked)
    assert done.status_code == 200 and done.json()["state"] == "voided"
    slip = clients["pit1"].get("/api/cage/slips/").json()["results"][0]
    assert (slip["state"], slip["voided_by"], slip["void_approved_by"]) == ("voided", "cash1", "super1")


def test_a_counted_opener_and_closer_wait_for_each_named_confirmation(clients):
    body = {"game": "english_roulette", "opener": OPENER, "dealer": "dealer1", "pit_boss": "pit1", "rules": {}}
    asked = clients["pit1"].post("/api/tables/T1/opener", body, format="json")
    assert asked.status_code == 202, asked.json()
    assert [w["user"] for w in asked.json()["approval"]["waiting_for"]] == ["dealer1"]  # pit1 asked: his own
    assert not Table.objects.filter(code="T1", state=Table.State.OPEN).exists()
    opened = confirm(clients["dealer1"], asked)
    assert opened.status_code == 201 and opened.json()["opener_cents"] == 5_000_000
    assert Event.objects.get(type="TableOpened").data["dealer"] == "dealer1"

    closing = clients["pit1"].post(
        "/api/tables/T1/closer", {"closer": OPENER, "dealer": "dealer1", "pit_boss": "pit2"}, format="json"
    )
    assert closing.status_code == 202
    assert [w["user"] for w in closing.json()["approval"]["waiting_for"]] == ["dealer1", "pit2"]
    half = confirm(clients["pit2"], closing)
    assert half.status_code == 202 and [w["user"] for w in half.json()["approval"]["waiting_for"]] == ["dealer1"]
    assert Table.objects.get(code="T1").state == Table.State.OPEN
    closed = confirm(clients["dealer1"], closing)
    assert closed.status_code == 200 and closed.json()["closer_cents"] == 5_000_000
    assert Table.objects.get(code="T1").state == Table.State.CLOSED
    data = Event.objects.get(type="TableClosed").data
    assert (data["dealer"], data["pit_boss"]) == ("dealer1", "pit2")
    assert check_approvals() == []  # the approvals replay from their events


def test_the_counters_of_a_drop_count_each_confirm_themselves(clients, table_t1):
    day = current_gaming_day().isoformat()
    drop_box_remove(table="T1", gaming_day=day, actor="drop1", removers=["drop1", "drop2"])
    count = {"gaming_day": day, "cash": {"5000": 1}, "counters": ["count1", "count2"]}
    # A count-team member who counted nothing names two others: both must sign.
    asked = clients["count3"].post("/api/tables/T1/drop-count", count, format="json")
    assert asked.status_code == 202, asked.json()
    assert [w["user"] for w in asked.json()["approval"]["waiting_for"]] == ["count1", "count2"]
    assert not Event.objects.filter(type="DropCounted").exists()
    assert confirm(clients["count1"], asked).status_code == 202
    counted = confirm(clients["count2"], asked)
    assert counted.status_code == 201 and counted.json()["counted_cents"] == 5_000
    assert Event.objects.get(type="DropCounted").data["counters"] == ["count1", "count2"]


def test_the_runner_named_at_issue_signs_for_the_slip_himself(clients, table_t1):
    hand_cage_to("cash1")  # the issuing cashier's own shift
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 1}, actor="pit1")["serial"]
    asked = clients["cash1"].post(f"/api/cage/slips/fill/{serial}/issue", {"runner": "run1"}, format="json")
    assert asked.status_code == 202, asked.json()
    assert asked.json()["approval"]["waiting_for"] == [{"slot": "runner", "roles": ["runner"], "user": "run1"}]
    assert clients["pit1"].get("/api/cage/slips/").json()["results"][0]["state"] == "requested"
    issued = confirm(clients["run1"], asked)
    assert issued.status_code == 200 and issued.json()["state"] == "issued"
    slip = clients["pit1"].get("/api/cage/slips/").json()["results"][0]
    assert (slip["issued_by"], slip["runner"]) == ("cash1", "run1")


def counted(opener: dict, dealer: str = "dealer1", pit_boss: str = "pit1") -> dict:
    return {"game": "english_roulette", "opener": opener, "dealer": dealer, "pit_boss": pit_boss, "rules": {}}


def test_a_pit_boss_and_the_dealer_cannot_open_a_table_with_a_million_euro_opener(clients):
    bankroll = store.balance(accounts.HOUSE_BANKROLL)
    asked = clients["pit1"].post("/api/tables/BIG/opener", counted({"1000000": 100}), format="json")
    assert asked.status_code == 202, asked.json()
    assert asked.json()["approval"]["waiting_for"] == [
        {"slot": "dealer", "roles": ["dealer"], "user": "dealer1"},
        {"slot": "approver", "roles": ["cage_supervisor"], "user": None},
    ]
    assert confirm(clients["dealer1"], asked).status_code == 202  # the count confirmed: the cage still signs
    assert store.balance(accounts.HOUSE_BANKROLL) == bankroll
    assert not Table.objects.filter(code="BIG", state=Table.State.OPEN).exists()
    assert confirm(clients["pit2"], asked).status_code == 403  # another pit boss is not the cage
    opened = confirm(clients["super1"], asked)
    assert opened.status_code == 201 and opened.json()["opener_cents"] == 100_000_000
    assert Event.objects.get(type="TableOpened", data__table="BIG").data["approved_by"] == "super1"
    assert store.balance(accounts.HOUSE_BANKROLL) == bankroll - 100_000_000


def test_no_endpoint_opens_a_table_on_one_pit_boss_s_uncounted_total(clients):
    """The opener is counted, signed by dealer and pit boss: ``/open`` with a plain total is
    gone (404) and opens nothing."""
    before = store.head()
    body = {"game": "english_roulette", "opener_cents": 5_000_000, "rules": {}}
    assert clients["pit1"].post("/api/tables/T1/open", body, format="json").status_code == 404
    assert store.head() == before
    assert not Table.objects.filter(code="T1").exists()
    assert not Approval.objects.exists()


def test_the_service_refuses_a_large_opener_without_a_second_signature(cage):
    with pytest.raises(RoleRequired, match="second signature"):
        table_open(code="BIG", game="english_roulette", opener_cents=10_000_001, actor="pit1", rules={})


def test_an_opener_at_the_threshold_needs_no_cage_signature_and_the_threshold_is_a_setting(clients, settings):
    at = clients["pit1"].post("/api/tables/T1/opener", counted({"1000000": 10}), format="json")
    assert at.status_code == 202, at.json()
    assert [w["slot"] for w in at.json()["approval"]["waiting_for"]] == ["dealer"]
    opened = confirm(clients["dealer1"], at)
    assert opened.status_code == 201 and opened.json()["opener_cents"] == 10_000_000
    assert "approved_by" not in Event.objects.get(type="TableOpened", data__table="T1").data
    settings.CASINO_LARGE_OPENER_CENTS = 1_000
    asked = clients["pit1"].post("/api/tables/T2/opener", counted({"1000": 1, "1": 1}, pit_boss="pit2"), format="json")
    assert asked.status_code == 202
    slots = [w["slot"] for w in asked.json()["approval"]["waiting_for"]]
    assert slots == ["dealer", "pit_boss", "approver"]


def test_a_large_fill_waits_for_a_cage_supervisor(clients, table_t1):
    asked = clients["pit1"].post(
        "/api/tables/T1/slips", {"kind": "fill", "denominations": {"1000000": 6}}, format="json"
    )
    assert asked.status_code == 202, asked.json()
    assert not Event.objects.filter(type="FillRequested").exists()
    assert confirm(clients["cash1"], asked).status_code == 403
    done = confirm(clients["super1"], asked)
    assert done.status_code == 201 and done.json()["amount_cents"] == 6_000_000
    assert Event.objects.get(type="FillRequested").data["approved_by"] == "super1"
    small = clients["pit1"].post(
        "/api/tables/T1/slips", {"kind": "fill", "denominations": {"1000000": 5}}, format="json"
    )
    assert small.status_code == 201


def test_the_maker_cannot_confirm_his_own_request(clients, table_t1, django_user_model):
    asked = clients["pit1"].post("/api/tables/BIG/opener", counted({"1000000": 100}), format="json")
    assert confirm(clients["dealer1"], asked).status_code == 202  # the cage's signature still waits
    grant(django_user_model.objects.get(username="pit1"), Role.CAGE_SUPERVISOR)  # holds the role, still the maker
    before = store.head()
    refused = confirm(clients["pit1"], asked)
    assert refused.status_code == 403 and "another user" in refused.json()["detail"]
    assert store.head() == before


def test_only_the_named_signer_or_a_holder_of_the_role_confirms(clients, table_t1):
    coup = settled_coup()
    asked = clients["pit1"].post(f"/api/rounds/{coup}/reversal", {"reason": "x", "approver": "pit2"}, format="json")
    before = store.head()
    for name in ("super1", "dealer1", "cash1"):
        refused = confirm(clients[name], asked)
        assert refused.status_code == 403 and "waits for pit2" in refused.json()["detail"], name
    assert store.head() == before
    named_without_role = clients["pit1"].post(
        f"/api/rounds/{coup}/reversal", {"reason": "x", "approver": "cash1"}, format="json"
    )
    assert named_without_role.status_code == 403 and store.head() == before


def test_a_decided_approval_is_409(clients, table_t1):
    coup = settled_coup()
    asked = clients["pit1"].post(f"/api/rounds/{coup}/reversal", {"reason": "x", "approver": "pit2"}, format="json")
    assert confirm(clients["pit2"], asked).status_code == 200
    before = store.head()
    again = confirm(clients["pit2"], asked)
    assert again.status_code == 409 and again.json()["field"] == "approval"
    rejected = clients["pit2"].post(f"/api/approvals/{asked.json()['approval']['id']}/reject", {}, format="json")
    assert rejected.status_code == 409 and store.head() == before


def test_a_rejected_approval_never_runs(clients, table_t1):
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 1}, actor="pit1")["serial"]
    asked = clients["cash1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "typo", "approver": "super1"},
        format="json",
    )
    approval = asked.json()["approval"]["id"]
    assert clients["pit2"].post(f"/api/approvals/{approval}/reject", {}, format="json").status_code == 403
    rejected = clients["super1"].post(f"/api/approvals/{approval}/reject", {"reason": "not a typo"}, format="json")
    assert rejected.status_code == 200
    assert (rejected.json()["approval"]["state"], rejected.json()["approval"]["reason"]) == ("rejected", "not a typo")
    assert confirm(clients["super1"], asked).status_code == 409
    assert clients["pit1"].get("/api/cage/slips/").json()["results"][0]["state"] == "requested"
    assert Event.objects.filter(type="ApprovalRejected").get().actor == "super1"


def test_an_expired_approval_is_409_and_recorded_as_expired(clients, table_t1, settings):
    settings.CASINO_APPROVAL_TTL_MINUTES = 0
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 1}, actor="pit1")["serial"]
    asked = clients["cash1"].post(
        f"/api/cage/slips/fill/{serial}/void",
        {"confirmation": "VOID", "reason": "typo", "approver": "super1"},
        format="json",
    )
    assert clients["super1"].get("/api/approvals/?state=pending").json()["results"] == []
    listed = clients["super1"].get("/api/approvals/?state=expired").json()["results"]
    assert [(a["state"], a["waiting_for"]) for a in listed] == [("expired", [])]
    late = confirm(clients["super1"], asked)
    assert late.status_code == 409 and "expired" in late.json()["detail"]
    assert Approval.objects.get().state == Approval.State.EXPIRED
    assert Event.objects.filter(type="ApprovalExpired").count() == 1
    assert check_approvals() == []
    assert clients["pit1"].get("/api/cage/slips/").json()["results"][0]["state"] == "requested"
    assert confirm(clients["super1"], asked).status_code == 409


def test_a_request_the_act_would_refuse_is_refused_at_once(clients, table_t1):
    before = store.head()
    missing = clients["pit1"].post(
        "/api/rounds/00000000-0000-0000-0000-000000000000/reversal", {"reason": "x", "approver": "pit2"}, format="json"
    )
    assert missing.status_code == 404 and store.head() == before
    assert not Approval.objects.exists()


def test_the_placeholder_of_a_missing_signature_cannot_be_named(clients, table_t1):
    coup = settled_coup()
    body = {"reason": "x", "approver": "(awaiting signature)"}
    refused = clients["pit1"].post(f"/api/rounds/{coup}/reversal", body, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "approver"
    assert not Approval.objects.exists()


def test_an_act_refused_at_confirmation_writes_nothing_and_stays_pending(clients, table_t1):
    coup = settled_coup()
    body = {"reason": "wrong number", "approver": "pit2"}
    first = clients["pit1"].post(f"/api/rounds/{coup}/reversal", body, format="json")
    second = clients["pit1"].post(f"/api/rounds/{coup}/reversal", body, format="json")
    assert confirm(clients["pit2"], first).status_code == 200
    before = store.head()
    late = confirm(clients["pit2"], second)
    assert late.status_code == 409, late.json()
    assert store.head() == before
    assert Approval.objects.get(id=second.json()["approval"]["id"]).state == Approval.State.PENDING


def test_a_slip_asked_to_be_voided_cannot_be_asked_again_while_the_first_waits(clients, table_t1):
    serial = slip_request(kind="fill", table="T1", denominations={"10000": 1}, actor="pit1")["serial"]
    body = {"confirmation": "VOID", "reason": "typo", "approver": "super1"}
    assert clients["cash1"].post(f"/api/cage/slips/fill/{serial}/void", body, format="json").status_code == 202
    before = store.head()
    again = clients["pit1"].post(f"/api/cage/slips/fill/{serial}/void", body, format="json")
    assert again.status_code == 409 and again.json()["field"] == "serial"
    assert "already asked by cash1" in again.json()["detail"] and store.head() == before


def test_the_approvals_are_listed_for_their_signers(clients, table_t1):
    coup = settled_coup()
    asked = clients["pit1"].post(f"/api/rounds/{coup}/reversal", {"reason": "x", "approver": "pit2"}, format="json")
    listed = clients["pit2"].get("/api/approvals/?state=pending").json()["results"]
    assert [(a["id"], a["kind"], a["maker"]) for a in listed] == [
        (asked.json()["approval"]["id"], "round_reverse", "pit1")
    ]
    detail = clients["pit2"].get(f"/api/approvals/{asked.json()['approval']['id']}")
    assert detail.status_code == 200 and detail.json()["waiting_for"][0]["user"] == "pit2"
    assert clients["pit2"].get("/api/approvals/not-an-id").status_code == 404


def test_the_helper_confirms_in_order(clients, table_t1):
    coup = settled_coup()
    asked = clients["pit1"].post(f"/api/rounds/{coup}/reversal", {"reason": "x", "approver": "pit2"}, format="json")
    assert approve(asked, clients["pit2"]).status_code == 200

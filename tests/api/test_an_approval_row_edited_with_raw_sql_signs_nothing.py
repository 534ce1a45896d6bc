"""Someone holding the database credentials (not ``SECRET_KEY``) edits a pending approval's row
with raw SQL: makes another pit boss its maker and himself its signer, so that he confirms his own
coup reversal; names another signer; changes the act's arguments; or sets a confirmed approval
back to pending. The row is checked against the approval's sealed events before anything is
signed, refused or run: 409, nothing appended, the coup untouched, and ``ledger replay-check``
names the field (``approvals.replay``)."""

import json

import pytest
from django.db import connection

from approvals.models import Approval
from approvals.replay import check_approvals
from games.models import Round
from games.services.rounds import round_close_bets, round_open, round_record_result
from games.services.tables import table_open
from ledger import store
from ledger.models import Event
from staff.roles import Role
from tests.conftest import staff_clients

pytestmark = pytest.mark.django_db

APPROVER = {"slot": "approver", "roles": ["pit_boss", "cage_supervisor"]}


@pytest.fixture
def clients(cage):
    return staff_clients({"pit1": Role.PIT_BOSS, "pit2": Role.PIT_BOSS, "pit3": Role.PIT_BOSS})


@pytest.fixture
def asked(clients) -> Approval:
    """pit1 asks to reverse a settled coup at T1, naming pit2 as the second signature."""
    table_open(code="T1", game="english_roulette", opener_cents=5_000_000, actor="pit1", rules={})
    coup = round_open(table="T1", actor="pit1")["round"]
    round_close_bets(round_id=coup, actor="pit1")
    round_record_result(round_id=coup, number=7, actor="pit1")
    body = {"reason": "wrong number", "approver": "pit2"}
    response = clients["pit1"].post(f"/api/rounds/{coup}/reversal", body, format="json")
    assert response.status_code == 202, response.json()
    return Approval.objects.get(id=response.json()["approval"]["id"])


def _sql_update(approval: Approval, **columns) -> None:
    """``UPDATE approvals_approval SET <columns>`` around the application (JSON columns as text)."""
    jsonb = "::jsonb" if connection.vendor == "postgresql" else ""
    assignments, params = [], []
    for name, value in columns.items():
        if isinstance(value, list | dict):
            assignments.append(f"{name} = %s{jsonb}")
            value = json.dumps(value)
        else:
            assignments.append(f"{name} = %s")
        params.append(value)
    params.append(Approval._meta.pk.get_db_prep_value(approval.id, connection))
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE approvals_approval SET {', '.join(assignments)} WHERE id = %s", params)


def _confirm(client, approval: Approval):
    return client.post(f"/api/approvals/{approval.id}/confirm", {}, format="json")


def _differences() -> list[tuple[str, object, object]]:
    return [(d.field, d.live, d.replayed) for d in check_approvals()]


def test_a_pit_boss_made_signer_of_his_own_request_by_raw_sql_reverses_nothing(clients, asked):
    coup = asked.payload["round_id"]
    _sql_update(asked, maker="pit2", signatures=[APPROVER | {"user": "pit1", "by": None, "at": None}])
    head = store.head()

    confirmed = _confirm(clients["pit1"], asked)

    assert confirmed.status_code == 409, confirmed.json()
    assert "differs from its ledger events (maker, signatures)" in json.dumps(confirmed.json())
    assert store.head() == head
    assert not Event.objects.filter(type__in=("RoundReversed", "ApprovalConfirmed")).exists()
    assert Round.objects.get(id=coup).state == Round.State.SETTLED
    assert Approval.objects.get(id=asked.id).state == Approval.State.PENDING
    assert ("maker", "pit2", "pit1") in _differences()


def test_the_maker_swapped_by_raw_sql_cannot_withdraw_the_request(clients, asked):
    _sql_update(asked, maker="pit3")
    head = store.head()
    withdrawn = clients["pit3"].post(f"/api/approvals/{asked.id}/reject", {"reason": "mine"}, format="json")
    assert withdrawn.status_code == 409, withdrawn.json()
    assert store.head() == head
    assert Approval.objects.get(id=asked.id).state == Approval.State.PENDING


def test_another_signer_named_by_raw_sql_signs_nothing(clients, asked):
    _sql_update(asked, signatures=[APPROVER | {"user": "pit3", "by": None, "at": None}])
    assert _confirm(clients["pit3"], asked).status_code == 409
    assert not Event.objects.filter(type="RoundReversed").exists()
    assert _differences() == []  # the replay check compares the signers who signed: none yet
    # The signer the events name is refused as well until the row is what they made it.
    assert _confirm(clients["pit2"], asked).status_code == 409


def test_the_acts_arguments_changed_by_raw_sql_run_nothing(clients, asked):
    payload = asked.payload | {"reason": "the ball jumped"}
    _sql_update(asked, payload=payload)
    assert _confirm(clients["pit2"], asked).status_code == 409
    assert not Event.objects.filter(type="RoundReversed").exists()
    assert ("payload", payload, asked.payload) in _differences()


def test_a_confirmed_approval_set_back_to_pending_runs_its_act_no_second_time(clients, asked):
    assert _confirm(clients["pit2"], asked).status_code == 200
    done = Approval.objects.get(id=asked.id)
    signatures = [each | {"by": None, "at": None} for each in done.signatures]
    _sql_update(done, state="pending", signatures=signatures, version=1)
    assert _confirm(clients["pit2"], asked).status_code == 409
    assert Event.objects.filter(type="RoundReversed").count() == 1
    assert {d.field for d in check_approvals()} == {"state", "version", "signed_by"}


def test_an_untouched_row_is_confirmed_by_its_named_signer(clients, asked):
    confirmed = _confirm(clients["pit2"], asked)
    assert confirmed.status_code == 200, confirmed.json()
    reversal = Event.objects.get(type="RoundReversed")
    assert (reversal.actor, reversal.data["approved_by"]) == ("pit1", "pit2")
    assert check_approvals() == []


def test_an_edited_row_is_shown_marked_and_offered_to_nobody(clients, asked, client):
    """The API's read and the approvals page name the fields the ledger did not make, wait for
    nobody and offer no Approve button; an untouched row shows none of that."""
    untouched = clients["pit2"].get(f"/api/approvals/{asked.id}").json()
    assert untouched["differs_from_ledger"] == [] and untouched["waiting_for"] != []
    _sql_update(asked, maker="pit3")
    shown = clients["pit2"].get(f"/api/approvals/{asked.id}").json()
    assert (shown["maker"], shown["differs_from_ledger"], shown["waiting_for"]) == ("pit3", ["maker"], [])
    listed = clients["pit2"].get("/api/approvals/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    assert [row["differs_from_ledger"] for row in rows if row["id"] == str(asked.id)] == [["maker"]]

    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.get(username="pit2"))
    page = client.get("/dashboard/approvals/").content.decode()
    assert "This request's record differs from the ledger (maker)" in page
    assert f"/dashboard/approvals/{asked.id}/approve" not in page

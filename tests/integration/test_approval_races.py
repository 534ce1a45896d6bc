"""Two signers confirming one approval at the same moment (PostgreSQL, real commits): the act
runs once; the other confirmation is a 409 and writes nothing."""

import pytest

from approvals.models import Approval
from approvals.services import approval_confirm, approval_request
from ledger import accounts, store
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.verify import verify_chain
from tests.conftest import staff_user

from .concurrency import run_concurrently

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("same_signer", [False, True], ids=["two-supervisors", "one-supervisor-twice"])
def test_two_confirmations_at_once_run_the_act_once(committed_db, cage, same_signer):
    staff_user("pit1", "pit_boss")
    staff_user("super1", "cage_supervisor")
    staff_user("super2", "cage_supervisor")
    staff_user("dealer1", "dealer")
    opener = {"1000000": 100}  # 1,000,000.00 EUR: over the large opener, a cage supervisor signs too
    asked = approval_request(
        kind="table_open_counted",
        payload={"code": "BIG", "game": "english_roulette", "opener": opener, "dealer": "dealer1", "pit_boss": "pit1"},
        actor="pit1",
    )
    approval = asked["approval"]["id"]
    assert approval_confirm(approval=approval, actor="dealer1")["approval"]["state"] == "pending"
    bankroll = store.balance(accounts.HOUSE_BANKROLL)
    second = "super1" if same_signer else "super2"
    outcomes = run_concurrently(
        lambda: approval_confirm(approval=approval, actor="super1"),
        lambda: approval_confirm(approval=approval, actor=second),
    )
    won = [o for o in outcomes if isinstance(o, dict)]
    lost = [o for o in outcomes if isinstance(o, StateConflict)]
    assert len(won) == 1 and len(lost) == 1, outcomes
    assert won[0]["opener_cents"] == 100_000_000 and "already confirmed" in lost[0].message
    assert Event.objects.filter(type="TableOpened", data__table="BIG").count() == 1
    assert Event.objects.filter(type="ApprovalConfirmed").count() == 1
    assert Approval.objects.get(id=approval).state == Approval.State.CONFIRMED
    assert store.balance(accounts.HOUSE_BANKROLL) == bankroll - 100_000_000
    assert verify_chain().ok

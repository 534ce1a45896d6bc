"""An event INSERTed around the application (no seal, or a seal of the forger's making) is left
out of every read once a page is asked for: the tronc's balance and its share-out report, the
projections' balances; the chain's keepers (``Event.chain``: verify, the store's head) still see
it, so the next genuine event chains after it and ``ledger verify`` names it."""

import pytest
from django.test import Client

from cashier.services.tronc import SHARES_STREAM
from cashier.tronc_reports import tronc_shares
from ledger import accounts, disowned, projections, store
from ledger.models import AccountBalance, Event
from ledger.store import Leg, NewEvent
from ledger.verify import verify_chain
from tests.integration.forgery import forge

pytestmark = pytest.mark.django_db

FORGED_CENTS = 500_000


def _forged_share_out(**seal) -> int:
    data = {
        "shares": [{"username": "cashier2", "points": 1, "share_cents": FORGED_CENTS}],
        "shared_cents": FORGED_CENTS,
    }
    legs = [(accounts.TRONC, -FORGED_CENTS, "EUR"), (accounts.EXTERNAL_CASH, FORGED_CENTS, "EUR")]
    return forge("TroncShared", data, SHARES_STREAM, legs=legs, **seal)


def _a_page_is_read() -> None:
    assert Client().get("/api/auth/login/").status_code == 200


@pytest.mark.parametrize("seal", [None, "ab" * 32], ids=["no seal", "a seal of the forger's making"])
def test_a_forged_share_out_is_in_neither_the_tronc_balance_nor_the_share_out_report(cage, seal):
    tronc_before = store.balance(accounts.TRONC)
    position = _forged_share_out(seal=seal)
    day = Event.chain.get(position=position).gaming_day
    assert store.balance(accounts.TRONC) == tronc_before - FORGED_CENTS  # before anyone looked

    _a_page_is_read()

    assert disowned.positions() == {position}
    assert store.balance(accounts.TRONC) == tronc_before
    assert not Event.objects.filter(position=position).exists()
    assert Event.chain.filter(position=position).exists()
    assert [row["username"] for row in tronc_shares(day)["rows"]] == []
    result = verify_chain()
    assert (result.ok, result.first_bad_position) == (False, position)


def _projected(account: str) -> int:
    rows = AccountBalance.objects.filter(account=account, currency="EUR").values_list("balance_cents", flat=True)
    return rows.first() or 0


def test_the_projections_never_fold_in_a_forged_event(cage):
    projections.catch_up_all()
    tronc, cash = _projected(accounts.TRONC), _projected(accounts.EXTERNAL_CASH)
    _forged_share_out()
    projections.catch_up_all()
    assert (_projected(accounts.TRONC), _projected(accounts.EXTERNAL_CASH)) == (tronc, cash)
    assert store.balance(accounts.TRONC) == tronc


def test_the_next_genuine_event_chains_after_a_forged_one_and_is_read(cage):
    forged = _forged_share_out()
    _a_page_is_read()
    stream = "test/after-a-forgery"
    legs = [Leg("test:a", 1), Leg("test:b", -1)]
    noted = NewEvent("TestNoted", {"n": 1}, legs)
    (event,) = store.append(stream=stream, expected_version=0, events=[noted], actor="pit1")
    assert event.position == forged + 1
    assert event.prev_hash == Event.chain.get(position=forged).hash
    _a_page_is_read()
    assert disowned.positions() == {forged}
    assert Event.objects.filter(position=event.position).exists()

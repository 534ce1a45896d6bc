"""The account balances are a projection of the postings: a balance row changed with raw SQL
(cage cash +1,000 EUR, cage chips −1,000 EUR: balanced, so no sum check of the book sees it) is
named by ``ledger replay-check``; a projection merely behind the ledger is not a difference."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cashier.services.cage import chips_purchase
from ledger import projections
from ledger.accounts import CAGE_CASH, CAGE_CHIPS
from ledger.balance_check import check_balances
from ledger.models import AccountBalance
from tests.conftest import make_patron
from tests.integration.test_anchored_chain import _Out

pytestmark = pytest.mark.django_db


@pytest.fixture
def sold(cage):
    patron = make_patron(0)
    for amount in (10_000, 25_000):
        chips_purchase(patron=patron, amount_cents=amount, actor="tester")
    projections.catch_up_all()
    return patron


def test_balances_applied_by_the_projection_match_the_postings(sold):
    assert check_balances() == []
    chips_purchase(patron=sold, amount_cents=5_000, actor="tester")  # not applied yet: not a difference
    assert check_balances() == []
    call_command("ledger", "replay-check", stdout=_Out())


def test_a_balance_row_changed_with_raw_sql_is_named_by_replay_check(sold):
    cash = AccountBalance.objects.get(account=CAGE_CASH).balance_cents
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE ledger_accountbalance SET balance_cents = balance_cents + 100000 WHERE account = %s", [CAGE_CASH]
        )
        cursor.execute(
            "UPDATE ledger_accountbalance SET balance_cents = balance_cents - 100000 WHERE account = %s", [CAGE_CHIPS]
        )
    found = {(d.id.split()[0], d.field, d.live, d.replayed) for d in check_balances()}
    assert (CAGE_CASH, "balance_cents", cash + 100_000, cash) in found
    assert {d[0] for d in found} == {CAGE_CASH, CAGE_CHIPS}
    with pytest.raises(CommandError, match="2 difference"):
        call_command("ledger", "replay-check", stdout=_Out())


def test_a_balance_row_planted_or_deleted_is_named(sold):
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO ledger_accountbalance (account, currency, balance_cents, last_position) "
            "VALUES ('patron:P99999:chips', 'EUR', 500000, 1)"
        )
        cursor.execute("DELETE FROM ledger_accountbalance WHERE account = %s", [CAGE_CHIPS])
    found = {(d.id, d.live, d.replayed) for d in check_balances()}
    assert ("patron:P99999:chips EUR", "exists", "no events") in found
    assert (f"{CAGE_CHIPS} EUR", "missing", "has events") in found

"""``ledger replay-check``: the account balances projection against the postings it sums.

A balance row is a projection: nothing in the hash chain covers it, and a raw ``UPDATE`` of
``ledger_accountbalance`` would serve false figures to every page and API that reads balances.
The postings are covered by the chain (``ledger verify``); here each balance must be their sum
up to the position the projection has applied. Read in one snapshot (PostgreSQL: repeatable
read, when the check opens the transaction), so that a catch-up committing meanwhile is not a
difference.
"""

from collections.abc import Iterable

from django.db import connection, transaction
from django.db.models import Sum

from .models import AccountBalance, Posting, ProjectionCheckpoint
from .replay import Difference, compare, register


@register
def check_balances() -> Iterable[Difference]:
    """Each ``AccountBalance`` row whose ``balance_cents`` is not the sum of its account's
    postings (cents, per currency) up to the balances projection's checkpoint; a row with no
    postings, or postings with no row, is a difference too."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        upto = ProjectionCheckpoint.objects.filter(name="balances").values_list("position", flat=True).first() or 0
        summed = (
            Posting.objects.filter(event_id__lte=upto)
            .values("account", "currency")
            .annotate(total=Sum("amount_cents"))
            .values_list("account", "currency", "total")
        )
        replayed = {f"{account} {currency}": {"balance_cents": total} for account, currency, total in summed}
        live = {
            f"{account} {currency}": {"balance_cents": balance}
            for account, currency, balance in AccountBalance.objects.values_list("account", "currency", "balance_cents")
        }
    return list(compare("account balance", live, replayed))

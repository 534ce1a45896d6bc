"""Account balances, in cents, for every account of the chart (DESIGN.md §Chart of accounts)."""

from django.db.models import Sum

from ..models import AccountBalance
from . import Batch, register


class Balances:
    name = "balances"

    def apply(self, batch: Batch) -> None:
        # Summed in the database: a batch of thousands of events is one GROUP BY.
        totals = {
            (row["account"], row["currency"]): row["total"]
            for row in batch.postings().values("account", "currency").annotate(total=Sum("amount_cents"))
        }
        existing = {
            (row.account, row.currency): row
            for row in AccountBalance.objects.select_for_update().filter(account__in={a for a, _ in totals})
        }
        rows = []
        for (account, currency), amount in totals.items():
            row = existing.get((account, currency)) or AccountBalance(account=account, currency=currency)
            row.balance_cents += amount
            row.last_position = batch.upto
            rows.append(row)
        # One upsert (INSERT … ON CONFLICT UPDATE) for the whole batch.
        AccountBalance.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["account", "currency"],
            update_fields=["balance_cents", "last_position"],
            batch_size=1000,
        )

    def reset(self) -> None:
        AccountBalance.objects.all().delete()


register(Balances())

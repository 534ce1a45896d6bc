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
        changed, created = [], []
        for (account, currency), amount in totals.items():
            row = existing.get((account, currency))
            if row is None:
                created.append(
                    AccountBalance(account=account, currency=currency, balance_cents=amount, last_position=batch.upto)
                )
            else:
                row.balance_cents += amount
                row.last_position = batch.upto
                changed.append(row)
        AccountBalance.objects.bulk_create(created)
        AccountBalance.objects.bulk_update(changed, ["balance_cents", "last_position"], batch_size=1000)

    def reset(self) -> None:
        AccountBalance.objects.all().delete()


register(Balances())

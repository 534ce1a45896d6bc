"""Account balances, in cents, for every account of the chart (DESIGN.md §Chart of accounts)."""

from ..models import AccountBalance
from .registry import Batch, register, truncate


class Balances:
    name = "balances"

    def apply(self, batch: Batch) -> None:
        totals = batch.account_totals()
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

    def rebuilder(self) -> "_Rebuild":
        return _Rebuild()

    def reset(self) -> None:
        truncate(AccountBalance)


class _Rebuild:
    """``apply``'s sums, kept in memory across the batches and inserted once at the end."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], AccountBalance] = {}

    def read(self, batch: Batch) -> None:
        batch.account_totals()

    def feed(self, batch: Batch) -> None:
        for (account, currency), amount in batch.account_totals().items():
            row = self.rows.get((account, currency))
            if row is None:
                row = self.rows[account, currency] = AccountBalance(account=account, currency=currency)
            row.balance_cents += amount
            row.last_position = batch.upto

    def finish(self) -> None:
        AccountBalance.objects.bulk_create(self.rows.values(), batch_size=1000)


register(Balances())

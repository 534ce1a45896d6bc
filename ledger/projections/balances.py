"""Account balances, in cents, for every account of the chart (DESIGN.md §Chart of accounts)."""

from collections import defaultdict
from collections.abc import Sequence

from ..models import AccountBalance, Event
from . import register


class Balances:
    name = "balances"

    def apply(self, events: Sequence[Event]) -> None:
        totals: dict[tuple[str, str], int] = defaultdict(int)
        for event in events:
            for posting in event.postings.all():
                totals[(posting.account, posting.currency)] += posting.amount_cents
        last = events[-1].position
        existing = {
            (row.account, row.currency): row
            for row in AccountBalance.objects.select_for_update().filter(account__in={a for a, _ in totals})
        }
        changed, created = [], []
        for key, amount in totals.items():
            row = existing.get(key)
            if row is None:
                created.append(
                    AccountBalance(account=key[0], currency=key[1], balance_cents=amount, last_position=last)
                )
            else:
                row.balance_cents += amount
                row.last_position = last
                changed.append(row)
        AccountBalance.objects.bulk_create(created)
        AccountBalance.objects.bulk_update(changed, ["balance_cents", "last_position"])

    def reset(self) -> None:
        AccountBalance.objects.all().delete()


register(Balances())

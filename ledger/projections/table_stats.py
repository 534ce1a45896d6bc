"""Table statistics per gaming day: drop, fills, credits, win, handle, coups, patrons.

win is read off the table's own accounts: Δ(tray + drop + colour_issued), leaving out the
movements that are not gaming (stocking the tray at ``TableOpened``, fills, credits), which
is the count room's ``win = drop + credits − fills + (closer − opener)`` (DESIGN.md).
"""

from ..models import TableDayStats
from . import Batch, register

# Movements of a table's accounts that are not gaming: stocking the tray and booking its
# counted opener or closer, fills and credits
# and their reversals, and the count moving the drop box's cash to the cage (issue #7).
NOT_GAMING = {
    "TableOpened",
    "TableClosed",
    "FillDelivered",
    "CreditDelivered",
    "FillReversed",
    "CreditReversed",
    "DropCounted",
    "DropCountReversed",
}
# The events that decide a stake: a settlement line, or a prison bet's release or loss.
DECIDING = ("BetSettled", "BetReleased", "BetLostInPrison", "BetReleasedOnClose")
WIN_ACCOUNTS = {"tray", "drop", "colour_issued"}


class TableStatistics:
    name = "table_stats"

    def apply(self, batch: Batch) -> None:
        rows: dict[tuple[str, object], TableDayStats] = {}

        def row(table: str, day) -> TableDayStats:
            key = (table, day)
            if key not in rows:
                rows[key] = TableDayStats.objects.select_for_update().filter(table=table, gaming_day=day).first() or (
                    TableDayStats(table=table, gaming_day=day)
                )
            return rows[key]

        legs = batch.postings_by_event
        for event in batch.events:
            data = event["data"] if isinstance(event["data"], dict) else {}
            day, event_type = event["gaming_day"], event["type"]
            for account, amount, _currency in legs.get(event["position"], ()):
                parts = account.split(":")
                if len(parts) != 3 or parts[0] != "table" or parts[2] not in WIN_ACCOUNTS:
                    continue
                stats = row(parts[1], day)
                if parts[2] == "drop" and amount > 0 and event_type not in NOT_GAMING:
                    stats.drop_cents += amount
                if event_type not in NOT_GAMING:
                    stats.win_cents += amount
            table = data.get("table")
            if not isinstance(table, str):
                continue
            if event_type in ("FillDelivered", "CreditDelivered", "FillReversed", "CreditReversed"):
                stats = row(table, day)
                field = "fills_cents" if event_type.startswith("Fill") else "credits_cents"
                sign = -1 if event_type.endswith("Reversed") else 1
                setattr(stats, field, getattr(stats, field) + sign * data.get("amount_cents", 0))
            elif event_type in DECIDING:
                stats = row(table, day)
                stats.bets += 1
                stats.handle_cents += data.get("stake_cents", 0)
                if data.get("patron") and data["patron"] not in stats.patrons:
                    stats.patrons = [*stats.patrons, data["patron"]]
            elif event_type == "RoundSettled":
                stats = row(table, day)
                stats.coups += 1
                stats.first_coup_at = min(filter(None, [stats.first_coup_at, event["occurred_at"]]))
                stats.last_coup_at = max(filter(None, [stats.last_coup_at, event["occurred_at"]]))
        for stats in rows.values():
            stats.save()

    def reset(self) -> None:
        TableDayStats.objects.all().delete()


register(TableStatistics())

"""Table statistics per gaming day: drop, fills, credits, win, handle, coups, patrons.

win is read off the table's own accounts: Δ(tray + drop + colour_issued), leaving out the
movements that are not gaming (stocking the tray at ``TableOpened``, fills, credits), which
is the count room's ``win = drop + credits − fills + (closer − opener)`` (DESIGN.md).
"""

from fractions import Fraction

from django.db import connection

from ..jsoncodec import loads
from ..models import TableDayStats
from .registry import Batch, register, truncate
from .reversals import DECIDING, REVERSED, undone

# Movements of a table's accounts that are not gaming: stocking the tray and booking its
# counted opener or closer, fills and credits
# and their reversals, and the count moving the drop box's cash to the cage.
NOT_GAMING = {
    "TableOpened",
    "TableClosed",
    "FillDelivered",
    "CreditDelivered",
    "FillReversed",
    "CreditReversed",
    "DropCounted",
    "DropCountReversed",
    "MarkerTransferred",  # a table marker leaves the drop for the cage: not play
    # A marker paid at the table: the chips or cash taken settle a debt, they were not played.
    "MarkerPaidAtTable",
    # Front money drawn at the table: chips leave the tray against the cage's deposit, as a
    # credit slip takes them to the cage: the table did not lose them at play.
    "FrontMoneyDrawn",
}
# The events that decide a stake: a settlement line, or a prison bet's release or loss.
WIN_ACCOUNTS = {"tray", "drop", "colour_issued"}
# A front money draw counts with the credits (its chips left the tray for the cage's book, the
# deposit), so that win = drop + credits − fills + (closer − opener) still holds at that table.
FILLS_AND_CREDITS = {"FillDelivered", "CreditDelivered", "FillReversed", "CreditReversed", "FrontMoneyDrawn"}


# The events whose own data counts (the postings of every event count, above).
COUNTED = (*FILLS_AND_CREDITS, *DECIDING, "RoundSettled")


class TableStatistics:
    name = "table_stats"

    def apply(self, batch: Batch) -> None:
        fold = _Fold(stored=True)
        fold.feed(batch)
        for stats in fold.finished():
            stats.save()

    def rebuilder(self) -> "_Fold":
        return _SummedFold() if connection.vendor == "postgresql" else _Fold(stored=False)

    def reset(self) -> None:
        truncate(TableDayStats)


def _table_legs(batch: Batch) -> list[tuple[int, str, int]]:
    """The batch's postings to ``table:…`` accounts: ``(position, account, amount)``. (All
    of the postings read into Python were a third of the statistics' time in a rebuild, and
    summing them in SQL joined with their events cost the server more.)"""
    rows = batch.postings().filter(account__startswith="table:").values_list("event_id", "account", "amount_cents")
    return list(rows.order_by())


class _Fold:
    """The statistics of the table-days a run of batches touches, folded in memory.

    ``stored``: start each table-day from its row in the database (a catch-up), or from zero
    (a rebuild, into an emptied table: its rows are inserted once, in ``finish``).
    """

    def __init__(self, *, stored: bool) -> None:
        self.stored = stored
        self.rows: dict[tuple[str, object], TableDayStats] = {}
        self.players: dict[tuple[str, object], set[str]] = {}  # ``patrons`` as a set: `in` a list was O(n)
        self.accounts: dict[str, tuple[str, str] | None] = {}  # account -> (table, kind) or None
        # Σ stake per house edge and table-day (as the ratings): one Fraction product per edge.
        self.stakes: dict[tuple[str, object], dict[object, int]] = {}

    def row(self, table: str, day) -> TableDayStats:
        key = (table, day)
        stats = self.rows.get(key)
        if stats is None:
            if self.stored:
                stats = TableDayStats.objects.select_for_update().filter(table=table, gaming_day=day).first()
            stats = self.rows[key] = stats or TableDayStats(table=table, gaming_day=day)
            self.players[key] = {p for p in stats.patrons if isinstance(p, str)}
        return stats

    def read(self, batch: Batch) -> None:
        batch.events  # noqa: B018
        batch.memo("table_stats.legs", _table_legs)
        batch.events_of(*COUNTED)
        batch.events_of(REVERSED)

    def account(self, account: str) -> tuple[str, str] | None:
        """``(table, kind)`` of a table's win account (``table:R1:drop``), else None."""
        if account not in self.accounts:
            parts = account.split(":")
            win = len(parts) == 3 and parts[0] == "table" and parts[2] in WIN_ACCOUNTS
            self.accounts[account] = (parts[1], parts[2]) if win else None
        return self.accounts[account]

    def feed(self, batch: Batch) -> None:
        rows, row = self.rows, self.row
        events = {event["position"]: event for event in batch.events}
        for position, account, amount in batch.memo("table_stats.legs", _table_legs):
            table_kind = self.account(account)
            if table_kind is None:
                continue
            event = events[position]
            day = event["gaming_day"]
            stats = rows.get((table_kind[0], day)) or row(table_kind[0], day)
            if event["type"] not in NOT_GAMING:
                if table_kind[1] == "drop" and amount > 0:
                    stats.drop_cents += amount
                stats.win_cents += amount
        for event in batch.events_of(*COUNTED):
            data = event["data"]
            if not isinstance(data, dict):
                continue
            table = data.get("table")
            if not isinstance(table, str):
                continue
            day, event_type = event["gaming_day"], event["type"]
            if event_type in FILLS_AND_CREDITS:
                stats = row(table, day)
                field = "fills_cents" if event_type.startswith("Fill") else "credits_cents"
                sign = -1 if event_type.endswith("Reversed") else 1
                setattr(stats, field, getattr(stats, field) + sign * data.get("amount_cents", 0))
            elif event_type in DECIDING:
                stats = rows.get((table, day)) or row(table, day)
                stats.bets += 1
                stake = data.get("stake_cents", 0)
                stats.handle_cents += stake
                by_edge = self.stakes.setdefault((table, day), {})
                edge = data.get("house_edge", "0")
                by_edge[edge] = by_edge.get(edge, 0) + stake
                patron = data.get("patron")
                if not patron:
                    continue
                if isinstance(patron, str):
                    players = self.players[table, day]
                    if patron in players:
                        continue
                    players.add(patron)
                elif patron in stats.patrons:
                    continue
                stats.patrons = [*stats.patrons, patron]
            elif event_type == "RoundSettled":
                stats = row(table, day)
                stats.coups += 1
                stats.first_coup_at = min(filter(None, [stats.first_coup_at, event["occurred_at"]]))
                stats.last_coup_at = max(filter(None, [stats.last_coup_at, event["occurred_at"]]))
        self._take_back(undone(batch))

    def _take_back(self, events: list[dict]) -> None:
        """A reversed coup's decided bets out of its table-day again (``reversals``): bets,
        handle and the stakes its theoretical win is reckoned on. The coup stays counted (it was
        played, then reversed), and so do its patrons."""
        for event in events:
            data = event["data"]
            if not isinstance(data, dict) or not isinstance(data.get("table"), str):
                continue
            table, day = data["table"], event["gaming_day"]
            stats = self.row(table, day)
            stake = data.get("stake_cents", 0)
            stats.bets -= 1
            stats.handle_cents -= stake
            by_edge = self.stakes.setdefault((table, day), {})
            edge = data.get("house_edge", "0")
            by_edge[edge] = by_edge.get(edge, 0) - stake

    def finished(self) -> list[TableDayStats]:
        """The rows, their theoretical win brought up to date (exact, a fraction of cents)."""
        edges: dict[object, Fraction] = {}
        for key, by_edge in self.stakes.items():
            stats = self.rows[key]
            theoretical = Fraction(stats.theoretical_win)
            for edge, staked in by_edge.items():
                if edge not in edges:
                    try:
                        edges[edge] = Fraction(str(edge))
                    except (ValueError, ZeroDivisionError):
                        edges[edge] = Fraction(0)
                theoretical += staked * edges[edge]
            stats.theoretical_win = str(theoretical)
        self.stakes = {}
        return list(self.rows.values())

    def finish(self) -> None:
        TableDayStats.objects.bulk_create(self.finished(), batch_size=1000)


# A batch's statistics summed per table-day by PostgreSQL, by the rules of ``_Fold.feed``: the
# same sums without decoding each event in Python, in one round trip a batch.
# Rows "w": (table, day, win, drop) of the table's win accounts' postings; rows "e": the counted
# events grouped by (table, day, type, edge, patron) with their count, Σ stake, Σ amount, first
# position and first / last time. A table-day any row names gets its row, as in ``_Fold``.
_SUMS = """
SELECT 'w', split_part(p.account, ':', 2), e.gaming_day, NULL, NULL, NULL, 0::bigint,
       COALESCE(sum(p.amount_cents) FILTER (WHERE e.type <> ALL(%(not_gaming)s)), 0)::bigint,
       COALESCE(sum(p.amount_cents) FILTER (
           WHERE e.type <> ALL(%(not_gaming)s) AND split_part(p.account, ':', 3) = 'drop' AND p.amount_cents > 0
       ), 0)::bigint,
       NULL::bigint, NULL::timestamptz, NULL::timestamptz
FROM ledger_event e JOIN ledger_posting p ON p.event_id = e.position
WHERE e.position > %(after)s AND e.position <= %(upto)s AND p.event_id > %(after)s AND p.event_id <= %(upto)s
  AND e.position <> ALL(%(left_out)s::bigint[])
  AND p.account LIKE 'table:%%' AND split_part(p.account, ':', 3) = ANY(%(win_accounts)s)
  AND p.account NOT LIKE 'table:%%:%%:%%:%%'
GROUP BY 2, 3
UNION ALL
SELECT 'e', tbl, gaming_day, type, edge, patron, count(*), sum(stake)::bigint, sum(amount)::bigint,
       min(position), min(occurred_at), max(occurred_at)
FROM (  -- the few fields first: the grouping then sorts narrow rows, not the documents
    SELECT data->>'table' AS tbl, gaming_day, type, COALESCE(data->>'house_edge', '0') AS edge,
           (data->'patron')::text AS patron, COALESCE((data->>'stake_cents')::bigint, 0) AS stake,
           COALESCE((data->>'amount_cents')::bigint, 0) AS amount, position, occurred_at
    FROM ledger_event
    WHERE position > %(after)s AND position <= %(upto)s AND type = ANY(%(counted)s)
      AND position <> ALL(%(left_out)s::bigint[])
      AND jsonb_typeof(data) = 'object' AND jsonb_typeof(data->'table') = 'string'
    OFFSET 0
) counted
GROUP BY 2, 3, 4, 5, 6
"""


def _sums(batch: Batch) -> list[tuple]:
    params = {
        "after": batch.after,
        "upto": batch.upto,
        "not_gaming": sorted(NOT_GAMING),
        "win_accounts": sorted(WIN_ACCOUNTS),
        "counted": list(COUNTED),
        "left_out": batch.left_out,
    }
    with connection.cursor() as cursor:
        cursor.execute(_SUMS, params)
        return cursor.fetchall()


class _SummedFold(_Fold):
    """A rebuild's fold on PostgreSQL: the batch's sums per table-day (``_SUMS``, read ahead on
    the second connection) added up, instead of decoding every event in Python."""

    def __init__(self) -> None:
        super().__init__(stored=False)

    def read(self, batch: Batch) -> None:
        batch.memo("table_stats.sums", _sums)
        batch.events_of(REVERSED)

    def feed(self, batch: Batch) -> None:
        row, players = self.row, []
        for kind, table, day, event_type, edge, patron, count, staked, amount, first_at, first, last in batch.memo(
            "table_stats.sums", _sums
        ):
            stats = row(table, day)
            if kind == "w":
                stats.win_cents += staked
                stats.drop_cents += amount
            elif event_type in FILLS_AND_CREDITS:
                field = "fills_cents" if event_type.startswith("Fill") else "credits_cents"
                sign = -1 if event_type.endswith("Reversed") else 1
                setattr(stats, field, getattr(stats, field) + sign * amount)
            elif event_type in DECIDING:
                stats.bets += count
                stats.handle_cents += staked
                by_edge = self.stakes.setdefault((table, day), {})
                by_edge[edge] = by_edge.get(edge, 0) + staked
                if patron is not None:
                    players.append((first_at, table, day, patron))
            elif event_type == "RoundSettled":
                stats.coups += count
                stats.first_coup_at = min(filter(None, [stats.first_coup_at, first]))
                stats.last_coup_at = max(filter(None, [stats.last_coup_at, last]))
        players.sort()  # by first position: the order they joined
        for _, table, day, patron in players:
            self._join(table, day, loads(patron))
        self._take_back(undone(batch))

    def _join(self, table: str, day, patron) -> None:
        """``patron`` into the table-day's ``patrons`` once, in the order of first play."""
        if not patron:
            return
        stats = self.rows[table, day]
        if isinstance(patron, str):
            seen = self.players[table, day]
            if patron in seen:
                return
            seen.add(patron)
        elif patron in stats.patrons:
            return
        stats.patrons = [*stats.patrons, patron]


register(TableStatistics())

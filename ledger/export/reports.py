"""Default report CSVs built from the ledger alone (replaced by richer ones where an app has them).

- ``tables.csv``: per table, the movement of each of its accounts over the day's range — the
  cash into the drop box, the tray's change, stakes still on the layout or in prison — with the
  coups, bets, handle and win of the ``TableDayStats`` projection for that day.
- ``cage.csv``: every event of the range that moved the cage's cash or chips.
- ``aml.csv``: a header only; the cage registers the real one (``cashier.aml_export``).
"""

from collections import defaultdict

from django.conf import settings
from django.db.models import Sum

from ..accounts import CAGE_CASH, CAGE_CHIPS
from ..hashing import iso_utc
from ..models import Posting, TableDayStats
from .registry import ExportContext, register_csv

CHUNK = 5000
TABLE_PARTS = ("drop", "tray", "layout", "prison", "colour_issued")


@register_csv("tables.csv")
def tables_csv(ctx: ExportContext):
    yield [
        "table",
        "currency",
        *(f"{part}_change_cents" for part in TABLE_PARTS),
        "coups",
        "bets",
        "handle_cents",
        "win_cents",
    ]
    moved: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(TABLE_PARTS, 0))
    sums = (
        Posting.objects.filter(event_id__gte=ctx.first, event_id__lte=ctx.last, account__startswith="table:")
        .values_list("account", "currency")
        .order_by("account", "currency")
    )
    for account, currency, total in sums.annotate(total=Sum("amount_cents")).iterator(chunk_size=CHUNK):
        _, table, part = account.split(":", 2)
        if part in TABLE_PARTS:
            moved[(table, currency)][part] += total
    stats = {s.table: s for s in TableDayStats.objects.filter(gaming_day=ctx.day)}
    house = settings.CASINO_CURRENCY  # a table without movements is reported in the house currency
    keys = set(moved) | {(table, house) for table in stats.keys() - {table for table, _ in moved}}
    for table, currency in sorted(keys):
        row = stats.get(table)
        yield [
            table,
            currency,
            *(moved[(table, currency)][part] for part in TABLE_PARTS),
            row.coups if row else 0,
            row.bets if row else 0,
            row.handle_cents if row else 0,
            row.win_cents if row else 0,
        ]


@register_csv("cage.csv")
def cage_csv(ctx: ExportContext):
    yield ["position", "occurred_at", "type", "actor", "transaction", "patron", "table", "cash_cents", "chips_cents"]
    legs = (
        Posting.objects.filter(event_id__gte=ctx.first, event_id__lte=ctx.last, account__in=[CAGE_CASH, CAGE_CHIPS])
        .order_by("event_id", "id")
        .values_list(
            "event_id",
            "event__occurred_at",
            "event__type",
            "event__actor",
            "event__correlation_id",
            "event__data",
            "account",
            "amount_cents",
        )
    )
    current, row = None, None
    for position, occurred_at, type_, actor, correlation, data, account, amount in legs.iterator(chunk_size=CHUNK):
        if position != current:
            if row is not None:
                yield row
            data = data if isinstance(data, dict) else {}
            current = position
            row = [
                position,
                iso_utc(occurred_at),
                type_,
                actor,
                correlation,
                data.get("patron", ""),
                data.get("table", ""),
                0,
                0,
            ]
        row[7 if account == CAGE_CASH else 8] += amount
    if row is not None:
        yield row


@register_csv("aml.csv")
def aml_csv(ctx: ExportContext):
    yield ["record", "note"]

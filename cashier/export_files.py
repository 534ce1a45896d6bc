"""The cage's files of the gaming-day export (``ledger.export.registry``).

``tables.csv`` and ``cage.csv`` are the rows of the table games daily report and of the cage
accountability report (``cashier.reports``: per table and period, per shift — bounded by the
floor, not by the day's events). ``aml.csv`` lists the AML decisions and each patron's cash
totals. Rows, in ledger order, then the totals: ``record`` is ``identity_checked``, ``transaction_logged``
(the multiple-transaction log: 3,000 EUR or more), ``aggregate_flagged`` (for a report),
``refused`` (identity missing), or ``day_total`` (one per patron and direction with cash that
day: every kind of cash transaction of his, ``patrons.visits.CASH_EVENTS``, as the
thresholds count them). Amounts are in currency units (``amount``, ``threshold``) with a
``currency`` column, as in the other report files (``cashier.spreadsheet``). Identity (name, document) is filled only
when the requester is entitled to it (``include_identity``: auditor, cage supervisor);
otherwise ``identity_status`` says ``withheld``. An erased identity shows ``erased``: the
ledger and the other files are unchanged.
"""

from django.conf import settings
from django.db.models import Q

from ledger.accounts import ANONYMOUS_PATRON
from ledger.export.registry import ExportContext, register_csv
from ledger.models import Event
from patrons.models import Patron
from patrons.services.aml import CASH_EVENTS, DECISION_EVENTS, identity_on_file
from patrons.visits import cash_event_filter

from . import spreadsheet
from .reports import cage_accountability_report, table_games_daily_report
from .spreadsheet import units

RECORDS = {
    "AmlIdentityChecked": "identity_checked",
    "AmlTransactionLogged": "transaction_logged",
    "AmlAggregateFlagged": "aggregate_flagged",
    "AmlTransactionRefused": "refused",
}
HEADER = [
    "record",
    "gaming_day",
    "patron",
    "direction",
    "amount",
    "currency",
    "transactions",
    "threshold",
    "position",
    "transaction",
    "channel",
    "identity_status",
    "identity_name",
    "identity_document",
]


def _report_rows(report: dict):
    """The report as a spreadsheet-ready table (``cashier.spreadsheet``: amounts in currency units)."""
    header, body = spreadsheet.table(report)
    yield header
    yield from body


@register_csv("tables.csv")
def tables_csv(ctx: ExportContext):
    yield from _report_rows(table_games_daily_report(ctx.day))


@register_csv("cage.csv")
def cage_csv(ctx: ExportContext):
    yield from _report_rows(cage_accountability_report(ctx.day))


class _Identities:
    """Patron identities looked up once each (bounded by the patrons of the day, not its events)."""

    def __init__(self, include: bool):
        self.include, self.cache = include, {}

    def __call__(self, code: str) -> list[str]:
        if code not in self.cache:
            patron = Patron.objects.filter(code=code).first()
            if patron is None or code == ANONYMOUS_PATRON:
                status, name, document = "anonymous", "", ""
            elif identity_on_file(patron):
                status, name, document = "on_file", patron.name, patron.document
            elif patron.name or patron.document:
                status, name, document = "incomplete", patron.name, patron.document
            elif Event.objects.filter(stream=f"aml/{code}", type="PatronIdentityErased").exists():
                status, name, document = "erased", "", ""
            else:
                status, name, document = "none", "", ""
            if not self.include and status in ("on_file", "incomplete"):
                status, name, document = "withheld", "", ""
            self.cache[code] = [status, name, document]
        return self.cache[code]


@register_csv("aml.csv")
def aml_csv(ctx: ExportContext):
    yield HEADER
    identity = _Identities(ctx.include_identity)
    totals: dict[tuple[str, str, str], list[int]] = {}
    events = (
        Event.objects.filter(cash_event_filter() | Q(type__in=DECISION_EVENTS))
        .filter(position__gte=ctx.first, position__lte=ctx.last)
        .order_by("position")
        .values_list("position", "type", "gaming_day", "data")
    )
    for position, type_, day, data in events.iterator(chunk_size=5000):
        patron = data.get("patron", "")
        if type_ in CASH_EVENTS:
            key = (day.isoformat(), patron, CASH_EVENTS[type_][0])
            total = totals.setdefault(key, [0, 0])
            total[0] += data["amount_cents"]
            total[1] += 1
            continue
        yield [
            RECORDS[type_],
            data["gaming_day"],
            patron,
            data["direction"],
            units(data["amount_cents"]),
            settings.CASINO_CURRENCY,
            1,
            units(data["threshold_cents"]),
            position,
            data.get("transaction", ""),
            data["channel"],
            *identity(patron),
        ]
    for (day, patron, direction), (amount, count) in sorted(totals.items()):
        yield ["day_total", day, patron, direction, units(amount), settings.CASINO_CURRENCY, count, "", "", "", ""] + [
            *identity(patron)
        ]

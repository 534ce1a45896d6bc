"""Outstanding markers and front money, from the markers' rows and the ledger.

One row per marker not yet paid (``kind`` "marker") and one per patron holding front money
(``kind`` "front_money"); cents; times UTC. ``totals`` sums each kind, and checks them against
the ledger's own accounts (``cage:markers`` at the cage, the tables' drops holding table
markers not yet transferred, ``cage:deposits``).
"""

from __future__ import annotations

from datetime import date

from django.db.models import Q

from ledger import accounts, store
from ledger.models import Posting

from .credit_models import CreditLine, Marker
from .reports import _envelope

COLUMNS = [
    "patron",
    "kind",
    "serial",
    "issued_at",
    "where",
    "amount_cents",
    "paid_cents",
    "outstanding_cents",
    "credit_limit_cents",
    "age_days",
]


def credit_outstanding_report(day: date) -> dict:
    """Markers outstanding and front money held, as of now (``day`` names the report)."""
    limits = dict(CreditLine.objects.values_list("patron__code", "limit_cents"))
    rows = []
    owed = Marker.objects.exclude(state__in=[Marker.State.PAID, Marker.State.VOIDED])  # a voided one owes nothing
    for marker in owed.select_related("patron").order_by("year", "number"):
        rows.append(
            {
                "patron": marker.patron.code,
                "kind": "marker",
                "serial": marker.serial,
                "issued_at": marker.issued_at.isoformat(),
                "where": f"table {marker.table_code}" if marker.state == Marker.State.AT_TABLE else "cage",
                "amount_cents": marker.amount_cents,
                "paid_cents": marker.paid_cents,
                "outstanding_cents": marker.outstanding_cents,
                "credit_limit_cents": limits.get(marker.patron.code),
                "age_days": (day - marker.gaming_day).days,
            }
        )
    deposits = (
        Posting.objects.filter(account__startswith="patron:", account__endswith=":deposit")
        .values_list("account")
        .order_by("account")
    )
    for (account,) in deposits.distinct():
        held = store.balance(account)
        if held:
            code = account.split(":")[1]
            rows.append(
                {
                    "patron": code,
                    "kind": "front_money",
                    "serial": None,
                    "issued_at": None,
                    "where": "cage",
                    "amount_cents": held,
                    "paid_cents": None,
                    "outstanding_cents": held,
                    "credit_limit_cents": limits.get(code),
                    "age_days": None,
                }
            )
    at_tables = Marker.objects.filter(state=Marker.State.AT_TABLE)
    totals = {
        "markers_outstanding_cents": sum(r["outstanding_cents"] for r in rows if r["kind"] == "marker"),
        "front_money_cents": sum(r["outstanding_cents"] for r in rows if r["kind"] == "front_money"),
        "ledger_cage_markers_cents": store.balance(accounts.CAGE_MARKERS),
        # What the tables' drops hold: a part paid at the table left the drop.
        "markers_at_tables_cents": sum(m.outstanding_cents for m in at_tables.filter(~Q(table_code=""))),
        "ledger_cage_deposits_cents": -store.balance(accounts.CAGE_DEPOSITS),
    }
    return _envelope("Outstanding markers and front money", day, day, COLUMNS, rows, totals=totals)

"""``ledger replay-check``: the ratings and table statistics read models against a rebuild of
them from the events.

Like the balances (``ledger.balance_check``), these rows are projections that nothing in the
hash chain covers: a raw ``UPDATE`` of ``ledger_patrondayrating`` would inflate a patron's
theoretical win (and his comps), one of ``ledger_tabledaystats`` a table's hold. The check
catches both up, rebuilds them from position 0 beside the live rows, compares every field, and
rolls all of it back: it writes nothing. It holds the two projections' checkpoint locks while it
runs (a catch-up worker waits), about as long as ``manage.py ledger rebuild`` of the two.
"""

from collections.abc import Iterable

from django.db import transaction

from . import projections
from .models import PatronDayRating, TableDayStats
from .replay import Difference, compare, register

CHECKED = {
    "ratings": ("patron day rating", PatronDayRating, ("patron", "gaming_day")),
    "table_stats": ("table day statistics", TableDayStats, ("table", "gaming_day")),
}


class _RolledBack(Exception):
    """Raised to leave the transaction that rebuilt the read models, undoing it."""


def _rows(model, key: tuple[str, str]) -> dict[str, dict]:
    fields = [f.name for f in model._meta.concrete_fields if f.name not in ("id", *key)]
    rows = {}
    for row in model.objects.values(*key, *fields):
        name = " ".join(str(row.pop(k)) for k in key)
        if isinstance(row.get("patrons"), list):
            row["patrons"] = sorted(row["patrons"])  # a set, in whatever order it was folded
        rows[name] = row
    return rows


@register
def check_projection_rows() -> Iterable[Difference]:
    """Each field of each ratings and table statistics row that differs from the same row
    rebuilt from the events; a row on one side only is a difference too."""
    live: dict[str, dict] = {}
    rebuilt: dict[str, dict] = {}
    try:
        with transaction.atomic():
            for name in CHECKED:
                projections.catch_up(name)
            live = {name: _rows(model, key) for name, (_, model, key) in CHECKED.items()}
            projections.rebuild(list(CHECKED))
            rebuilt = {name: _rows(model, key) for name, (_, model, key) in CHECKED.items()}
            raise _RolledBack
    except _RolledBack:
        pass
    return [d for name, (kind, _, _) in CHECKED.items() for d in compare(kind, live[name], rebuilt[name])]

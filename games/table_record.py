"""A table's rules as its sealed events set them, and the check every command that reads them
from the row makes first.

``games_table.rules`` is a row the application's database role can UPDATE: a maximum raised
there with raw SQL would let a bet through that the table's recorded limits refuse, and a
rules change would seal the raised figure into its ``before`` and ``after``. The rules in
force are those of the table stream's latest ``TableOpened`` (``rules``) or
``TableRulesChanged`` (``after``), when that event is the application's (``ledger.event_seals``):
every locked read of a table or a coup (``games.selectors``) compares the row with it and
refuses a difference (``StateConflict``, 409, field ``rules``), nothing written.

The hot path: the bet placement's one statement reads the latest event's position, hash and
seal beside the row; the event itself is read and its seal checked once a process (the
rules of a table change a few times a day), then each placement costs a dictionary lookup and
a comparison of two small dicts.
"""

from __future__ import annotations

from ledger.errors import StateConflict
from ledger.event_seals import SEAL_FIELDS, sealed_rows
from ledger.models import Event

from .models import Table

RULES_EVENTS = ("TableOpened", "TableRulesChanged")
# The SQL of the latest such event's (position, hash, seal) of table ``t`` (the bet placement's
# statement); an index lookup on (stream, version), read backwards.
LATEST_RULES_SQL = (
    "(SELECT json_build_array(e.position, e.hash, e.seal) FROM ledger_event e "
    "WHERE e.stream = 'table/' || t.code AND e.type IN ('TableOpened', 'TableRulesChanged') "
    "ORDER BY e.version DESC LIMIT 1)"
)

_checked: dict[tuple, dict | None] = {}  # (position, hash, seal) -> the sealed rules, or None
_CHECKED_MAX = 10_000


def _rules_of(event_type: str, data: dict) -> dict:
    return data["rules"] if event_type == "TableOpened" else data["after"]


def latest_key(code: str) -> tuple | None:
    """(position, hash, seal) of the table's latest rules-bearing event, None when it has none."""
    return (
        Event.objects.filter(stream=f"table/{code}", type__in=RULES_EVENTS)
        .order_by("-version")
        .values_list("position", "hash", "seal")
        .first()
    )


def recorded_rules(code: str, latest: tuple | list | None) -> dict | None:
    """The rules the table's latest rules-bearing event (``latest``: its position, hash and
    seal) sets, when that event is the application's; None otherwise (none, or one written
    around the application)."""
    if latest is None:
        return None
    key = tuple(latest)
    if key in _checked:
        return _checked[key]
    position, hash_, seal_ = key
    rows = Event.objects.filter(stream=f"table/{code}", position=position, hash=hash_, seal=seal_).values_list(
        *SEAL_FIELDS, "type", "data"
    )
    rules = next((_rules_of(event_type, data) for event_type, data in sealed_rows(rows)), None)
    if len(_checked) >= _CHECKED_MAX:
        _checked.clear()
    _checked[key] = rules
    return rules


def rules_as_recorded(table: Table, latest: tuple | list | None = ..., /) -> None:
    """``StateConflict`` (409, field ``rules``) when the table's row holds other rules than its
    sealed events set. ``latest``: the (position, hash, seal) of its latest rules-bearing event
    when the caller read it already (None: it has none); otherwise it is looked up (one indexed
    query)."""
    if latest is ...:
        latest = latest_key(table.code)
    recorded = recorded_rules(table.code, latest)
    if recorded is None:
        raise StateConflict(
            f"table {table.code} has no rules of the application's in its ledger events: nothing is "
            "played at it until they are (see ledger verify and ledger replay-check)",
            field="rules",
        )
    if table.rules == recorded:
        return
    row = table.rules if isinstance(table.rules, dict) else {}
    differing = sorted(name for name in set(row) | set(recorded) if row.get(name) != recorded.get(name))
    raise StateConflict(
        f"table {table.code}'s rules differ from its ledger events ({', '.join(differing) or 'rules'}): "
        "they were changed outside the application, nothing is played or paid by them (see ledger "
        "replay-check)",
        field="rules",
    )

"""Audit trails: a readable timeline per patron, per table and per round.

Every event that names a ``patron``, a ``table`` or a ``round`` in its data gets one line, in
each of those timelines at once, with its position and hash so an auditor can go back to the ledger.
"""

from collections.abc import Iterator

from django.db import connection, models
from django.db.models import OuterRef, QuerySet, Subquery

from ..models import AuditEntry, Event
from .registry import Batch, register, truncate

_SCOPES = AuditEntry.SCOPES
_COLUMNS = ("position", *_SCOPES, "type", "hash", "occurred_at", "gaming_day")
_KEY_LENGTH = AuditEntry._meta.get_field("patron").max_length


def _key(value: object) -> str | None:
    """A timeline's key as the event's data gives it: non-empty text that fits the column (codes
    are 20 characters at most, a round id 36), else no line there: one event of odd data must
    not stop the projection (tests/integration/test_audit_trail.py). ``_KEYED`` is the same
    rule in SQL."""
    return value if type(value) is str and 0 < len(value) <= _KEY_LENGTH else None


def _lines(batch: Batch) -> Iterator[tuple]:
    """The batch's audit lines, as rows of ``_COLUMNS``, in position order: one an event that
    names a patron, a table or a round."""
    for event in batch.events:
        data = event["data"]
        if type(data) is not dict:
            continue
        patron, table, round_ = _key(data.get("patron")), _key(data.get("table")), _key(data.get("round"))
        if patron or table or round_:
            yield (
                event["position"],
                patron,
                table,
                round_,
                event["type"],
                event["hash"],
                event["occurred_at"],
                event["gaming_day"],
            )


def _keyed(name: str) -> str:
    return (
        f"CASE WHEN jsonb_typeof(data->'{name}') = 'string' AND length(data->>'{name}') BETWEEN 1 AND {_KEY_LENGTH}"
        f" THEN data->>'{name}' END"
    )


# ``_lines`` in SQL: the server copies a batch's lines from the events it holds, where the
# rebuild used to decode each event in Python, format its summary and COPY the line back
# (three quarters of the audit's time). The words are made when a line is read.
_INSERT = f"""
INSERT INTO {AuditEntry._meta.db_table} ({", ".join(f'"{column}"' for column in _COLUMNS)})
SELECT position, patron, "table", round, type, hash, occurred_at, gaming_day FROM (
    SELECT position, {_keyed("patron")} AS patron, {_keyed("table")} AS "table", {_keyed("round")} AS round,
           type, hash, occurred_at, gaming_day
    FROM ledger_event
    WHERE position > %s AND position <= %s AND position <> ALL(%s::bigint[]) AND jsonb_typeof(data) = 'object'
) keyed
WHERE patron IS NOT NULL OR "table" IS NOT NULL OR round IS NOT NULL
"""


class AuditTrails:
    name = "audit"

    def apply(self, batch: Batch) -> None:
        if connection.vendor == "postgresql":
            batch.settle()
            with connection.cursor() as cursor:
                cursor.execute(_INSERT, [batch.after, batch.upto, batch.left_out])
        else:
            AuditEntry.objects.bulk_create(
                [AuditEntry(**dict(zip(_COLUMNS, row, strict=True))) for row in _lines(batch)], batch_size=2000
            )

    def rebuilder(self) -> "_Rebuild":
        return _Rebuild(self)

    def reset(self) -> None:
        truncate(AuditEntry)


class _Rebuild:
    """``apply`` per batch, the timelines' indexes dropped first and built once at the end
    (PostgreSQL)."""

    def __init__(self, projector: AuditTrails) -> None:
        self.projector = projector
        self.indexes: list[str] | None = None  # the definitions of the timelines' indexes, dropped

    def feed(self, batch: Batch) -> None:
        if connection.vendor == "postgresql" and self.indexes is None:
            batch.settle()
            self.indexes = _drop_timeline_indexes()
        self.projector.apply(batch)

    def finish(self) -> None:
        if self.indexes:
            with connection.cursor() as cursor:
                for definition in self.indexes:
                    cursor.execute(definition)


def timeline(scope: str, key: str) -> QuerySet:
    """The lines of one timeline (``scope`` one of ``AuditEntry.SCOPES``), oldest first, each
    with its event's ``data`` (for ``games.rules.event_words.line(line.type, line.data)``): the words are made
    when read, from the event the line points to, so a wording fixed here reads fixed in every
    line at once, without a rebuild."""
    data = Event.objects.filter(position=OuterRef("position")).values("data")[:1]
    return (
        AuditEntry.objects.filter(**{scope: key})
        .order_by("position")
        .annotate(data=Subquery(data, output_field=models.JSONField()))
    )


# The audit table's indexes but its primary key that this connection's role may drop (it owns
# the table: not so for the application role of deploy/postgres_roles.sql, whose rebuilds keep
# them up to date line by line).
_DROPPABLE_INDEXES = """
SELECT i.indexname, i.indexdef FROM pg_indexes i
JOIN pg_class c ON c.relname = i.indexname AND c.relnamespace = to_regnamespace(i.schemaname)
JOIN pg_index x ON x.indexrelid = c.oid
WHERE i.tablename = %s AND i.schemaname = current_schema() AND NOT x.indisprimary AND NOT x.indisunique
  AND pg_has_role(c.relowner, 'USAGE')
ORDER BY i.indexname
"""


def _drop_timeline_indexes() -> list[str]:
    """Drop the audit table's droppable indexes (``_DROPPABLE_INDEXES``) inside the rebuild's
    transaction (which has just emptied the table), and return their definitions for
    ``finish`` to build them again: built once over the loaded lines they cost the server less
    than half of keeping them up to date line by line (100,000 lines: 0.77 s loaded with them,
    0.20 s + 0.25 s to build them after). A rollback brings them back."""
    with connection.cursor() as cursor:
        cursor.execute(_DROPPABLE_INDEXES, [AuditEntry._meta.db_table])
        found = cursor.fetchall()
        for name, _ in found:
            cursor.execute(f"DROP INDEX {connection.ops.quote_name(name)}")
    return [definition for _, definition in found]


register(AuditTrails())

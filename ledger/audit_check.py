"""``ledger replay-check`` and the scheduled walk: the audit trails against the events.

An audit line is a projection: nothing in the hash chain covers it, and a raw ``DELETE`` of a
patron's lines hid his events from the auditor's patron trail while every check said nothing.
Each line must be the one the projector makes of its event (``ledger.projections.audit``: its
keys, type and hash), and each event that names a patron, a table or a round up to the
projection's checkpoint must have its line. PostgreSQL (the projector's own SQL rule); SQLite,
the demo's, is not checked here.
"""

from collections.abc import Iterable

from django.db import connection

from . import disowned
from .models import AuditEntry, ProjectionCheckpoint
from .projections.audit import _keyed
from .replay import Difference, register

# The lines the projector would make of the events up to the checkpoint, beside the live ones.
_DIFFERING = f"""
WITH expected AS (
    SELECT position, patron, "table", round, type, hash FROM (
        SELECT position, {_keyed("patron")} AS patron, {_keyed("table")} AS "table", {_keyed("round")} AS round,
               type, hash
        FROM ledger_event
        WHERE position <= %s AND position <> ALL(%s::bigint[]) AND jsonb_typeof(data) = 'object'
    ) keyed
    WHERE patron IS NOT NULL OR "table" IS NOT NULL OR round IS NOT NULL
)
SELECT coalesce(e.position, a.position), e.position IS NULL, a.position IS NULL
  FROM expected e
  FULL JOIN (SELECT * FROM {AuditEntry._meta.db_table} WHERE position <= %s) a ON a.position = e.position
 WHERE e.position IS NULL OR a.position IS NULL
    OR (e.patron, e."table", e.round, e.type, e.hash) IS DISTINCT FROM (a.patron, a."table", a.round, a.type, a.hash)
 ORDER BY 1
 LIMIT %s
"""
SHOWN = 20  # lines named; a deleted trail is hundreds


@register
def check_audit_trails() -> Iterable[Difference]:
    """Each audit line missing for its event, left for no event, or not its event's (keys, type,
    hash), up to the audit projection's checkpoint; the first ``SHOWN``."""
    if connection.vendor != "postgresql":
        return []
    upto = ProjectionCheckpoint.objects.filter(name="audit").values_list("position", flat=True).first() or 0
    with connection.cursor() as cursor:
        cursor.execute(_DIFFERING, [upto, sorted(disowned.positions()), upto, SHOWN])
        rows = cursor.fetchall()
    found = []
    for position, no_event, no_line in rows:
        if no_line:
            found.append(Difference("audit line", str(position), "(object)", "missing", "has events"))
        elif no_event:
            found.append(Difference("audit line", str(position), "(object)", "exists", "no events"))
        else:
            found.append(Difference("audit line", str(position), "keys, type or hash", "changed", "its event's"))
    return found

"""Records in the database that name a ledger position: none may lie beyond the head.

Signed checkpoints prove a cut tail only up to the last one signed; events appended since then
could be deleted (by a superuser, behind the triggers' back) and the chain would still walk
from 1 to its new, shorter head. But each appended event leaves marks elsewhere: the request
that appended it (``IdempotencyRecord.position``), the audit trail's row (``AuditEntry``), the
projections that applied it (``ProjectionCheckpoint``, ``AccountBalance.last_position``), a
seal's export, the last verification's head. A forger must find and rewrite every one of them
too; ``verify_chain`` reports the first it finds.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Max, Model

from .models import (
    AccountBalance,
    AuditEntry,
    ChainVerification,
    CheckpointRecord,
    GamingDayExport,
    IdempotencyRecord,
    ProjectionCheckpoint,
)


@dataclass(frozen=True)
class Witness:
    """``what`` recorded ``position``: a position the ledger no longer reaches."""

    what: str
    position: int

    def __str__(self) -> str:
        return f"{self.what} recorded position {self.position}"


# (words for a reader, model, the field holding a position)
_WITNESSES: tuple[tuple[str, type[Model], str], ...] = (
    ("a command's idempotency record", IdempotencyRecord, "position"),
    ("the audit trail", AuditEntry, "position"),
    ("a projection's checkpoint", ProjectionCheckpoint, "position"),
    ("an account balance", AccountBalance, "last_position"),
    ("a sealed day's export", GamingDayExport, "seal_position"),
    ("a signed checkpoint's record", CheckpointRecord, "position"),
    ("an earlier verification", ChainVerification, "head_position"),
)


def beyond(head_position: int) -> list[Witness]:
    """Each kind of record whose highest position is beyond ``head_position`` (the ledger's
    last event), with that position; empty when the ledger reaches every one. One aggregate
    query a kind."""
    found = []
    for what, model, field in _WITNESSES:
        highest = model.objects.aggregate(highest=Max(field))["highest"]
        if highest is not None and highest > head_position:
            found.append(Witness(what, highest))
    return found

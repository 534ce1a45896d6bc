"""Celery tasks: they take ids (or nothing) and call a service."""

import functools
import logging

from celery import shared_task
from django.db import DatabaseError

from . import checkpoints, outage, projections, rebuilds, scheduled_export, verify
from .timeouts import long_statements

logger = logging.getLogger(__name__)


def _skipped_while_database_unavailable(task):
    """A periodic task that meets the database out of reach returns None instead of failing:
    beat runs it again in seconds, and the outage is logged once (``ledger.outage``), not as a
    traceback every run."""

    @functools.wraps(task)
    def run(*args, **kwargs):
        try:
            return task(*args, **kwargs)
        except DatabaseError as exc:
            if not outage.unreachable(exc):
                raise
            outage.noted_unavailable(exc)
            return None

    return run


@shared_task(name="ledger.tasks.catch_up_projections")
@_skipped_while_database_unavailable
def catch_up_projections() -> dict[str, int]:
    """Catch every projection up with the ledger; idempotent (a redelivery applies nothing).
    Then a checkpoint of the head once LEDGER_CHECKPOINT_EVENTS events came after the last."""
    applied = projections.catch_up_all()
    try:
        checkpoints.write_if_due()
    except OSError:  # the projections are caught up all the same; beat's checkpoint task retries
        logger.exception("could not write the ledger checkpoint to %s", checkpoints.directory())
    return applied


@shared_task(name="ledger.tasks.write_checkpoint")
@_skipped_while_database_unavailable
def write_checkpoint() -> int | None:
    """Sign the ledger's head into LEDGER_CHECKPOINT_DIR if it moved (beat: every
    LEDGER_CHECKPOINT_INTERVAL_SECONDS), then log an ERROR naming recorded checkpoint files
    that are gone. Returns the position anchored, or None."""
    written = checkpoints.write_checkpoint()
    missing = checkpoints.missing_files()
    if missing:  # checkpointing carries on; the gap is said each time, never silently
        logger.error(
            "%d ledger checkpoint file(s) recorded as written are missing from %s (deleted, renamed or moved): %s",
            len(missing),
            checkpoints.directory(),
            ", ".join(missing[:5]),
        )
    return written.position if written else None


@shared_task(name="ledger.tasks.verify_chain")
@_skipped_while_database_unavailable
def verify_chain() -> bool:
    """Walk the whole chain against this ledger's checkpoints and record the result (beat:
    every LEDGER_VERIFY_INTERVAL_SECONDS), as ``manage.py ledger verify`` does: a row edited with
    the triggers off is then on every page's banner (``ledger.context_processors``) and fails the
    readiness probe. Returns whether the chain was whole."""
    with long_statements():
        return verify.verify_and_record().ok


@shared_task(name="ledger.tasks.seal_and_export_closed_days")
@_skipped_while_database_unavailable
def seal_and_export_closed_days() -> list[dict]:
    """Seal and export every closed gaming day not yet exported, to CASINO_EXPORT_DIR (beat: every
    CASINO_EXPORT_INTERVAL_SECONDS). Idempotent; a day's failure is recorded and logged, not raised.
    Returns the days worked on (``ledger.scheduled_export``); the long statement budget."""
    with long_statements():
        return scheduled_export.seal_and_export_closed_days()


@shared_task(name="ledger.tasks.rebuild_projection")
def rebuild_projection(name: str) -> int:
    """Rebuild projection ``name`` from position 0 in one transaction, its progress written to
    its ``ProjectionRebuild`` row (``ledger.rebuilds``); sent one a projection, as a group, by
    ``rebuilds.rebuild_request``. Returns the position rebuilt to; an error fails the task and
    is recorded on the row. The long statement budget (``ledger.timeouts``)."""
    with long_statements():
        return rebuilds.rebuild_run(name=name)

"""Projections: read models built only from the ledger's events (DESIGN.md §Projections).

Each projector keeps a checkpoint (the last position it applied) and advances it in the same
transaction as its rows, so running it twice, or in two workers at once, applies each event
once (C18): the checkpoint row is locked ``FOR UPDATE`` while a batch is applied, and a
worker killed mid-batch rolls the whole batch back.

Why no event is skipped (C16): ``ledger.store.append`` serialises writers, so a position
is visible only after every lower one has committed. The runner still refuses to read past
a hole in the positions (it stops before it), so even a future writer that broke that rule
could not make a projector skip an event.
"""

import gc
import logging
import queue
import sys
import threading
from collections.abc import Callable, Iterable

from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from .. import seal_scan
from ..models import Event, ProjectionCheckpoint
from .registry import REGISTRY, Batch, Projector, Rebuilder, _ApplyEachBatch, _settle, names
from .registry import truncate as truncate  # the projections' own, also asked of the package

logger = logging.getLogger(__name__)

BATCH = 5000
SWITCH_INTERVAL = 0.001  # seconds: the GIL's switch interval during a rebuild (``rebuild``)


def _checkpoint_for_update(name: str) -> ProjectionCheckpoint:
    found = ProjectionCheckpoint.objects.select_for_update().filter(name=name).first()
    if found is not None:  # every catch-up but a projection's very first: one statement
        return found
    try:
        with transaction.atomic():
            ProjectionCheckpoint.objects.get_or_create(name=name)
    except IntegrityError:  # another worker created it first
        pass
    return ProjectionCheckpoint.objects.select_for_update().get(name=name)


def _head() -> int:
    """The last position any row holds (``Event.chain``: a forged event is no hole either)."""
    return Event.chain.aggregate(p=Max("position"))["p"] or 0


def _next_batch(after: int, size: int, head: int | None = None) -> Batch | None:
    """The next run of contiguous committed positions after ``after`` (at most ``size``), up to
    ``head`` (default: the ledger's head, read now). Every row counts here (``Event.chain``): an
    event the application did not write is no hole, the batch's reads leave it out
    (``ledger.disowned``)."""
    head = _head() if head is None else head
    upto = min(head, after + size)
    if upto <= after:
        return None
    found = Event.chain.filter(position__gt=after, position__lte=upto).count()
    if found != upto - after:  # a hole: stop right before it (see the module docstring)
        positions = Event.chain.filter(position__gt=after, position__lte=upto).order_by("position")
        for expected, position in enumerate(positions.values_list("position", flat=True), start=after + 1):
            if position != expected:
                upto = expected - 1
                break
        if upto <= after:
            return None
    return Batch(after, upto)


def catch_up(
    name: str,
    *,
    batch: int = BATCH,
    max_batches: int | None = None,
    on_batch: Callable[[int], None] | None = None,
    head: int | None = None,
) -> int:
    """Apply every committed event after ``name``'s checkpoint; returns how many were applied.
    Each batch commits with its checkpoint; ``on_batch(events)`` is told after each commit.
    With ``head`` (a position the caller read, the seals scanned up to it: ``catch_up_all``)
    it stops there; without, at the head the last batch found."""
    projector = REGISTRY[name]
    applied = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            checkpoint = _checkpoint_for_update(name)
            tip = _head() if head is None else head
            work = _next_batch(checkpoint.position, batch, tip)
            if work is None:
                return applied
            if head is None:
                # After the batch's bounds, so that every event in it was scanned: one written
                # around the application is never folded in (``Batch.left_out``).
                seal_scan.refresh()
            projector.apply(work)
            checkpoint.position = work.upto
            checkpoint.save(update_fields=["position"])
        applied += work.size
        batches += 1
        if on_batch is not None:
            on_batch(work.size)
        if work.upto >= tip:
            # The head it set out for is reached. A command committed since published its own
            # catch-up (ledger.commands), which starts after it: no transaction more to find that.
            return applied
    return applied


def catch_up_all(*, batch: int = BATCH) -> dict[str, int]:
    """Catch every projection up to the ledger's head as read when it starts: ``{name: events
    applied}``. A projection already there costs nothing; when all are (a catch-up task whose
    events another one applied: several processes publish one per burst each), two reads and
    no lock. The seals are scanned once, up to that head, for all of them."""
    head = _head()
    at = dict(ProjectionCheckpoint.objects.filter(name__in=list(REGISTRY)).values_list("name", "position"))
    behind = [name for name in REGISTRY if at.get(name, 0) < head]
    if behind:
        seal_scan.refresh()  # after the head was read: every event up to it is scanned
    applied = dict.fromkeys(REGISTRY, 0)
    for name in behind:
        applied[name] = catch_up(name, batch=batch, head=head)
    return applied


def reset(which: Iterable[str] | None = None) -> list[str]:
    """Empty the named read models (default: all) and set their checkpoints to 0, in one
    transaction; catching up then rebuilds them batch by batch, each batch committed, so a
    rebuild stopped half-way resumes where it stopped (``manage.py ledger rebuild``). Readers
    see the read models filling up meanwhile. Returns the names."""
    chosen = list(dict.fromkeys(which or names()))
    with transaction.atomic():
        checkpoints = [_checkpoint_for_update(name) for name in sorted(chosen)]  # one lock order
        for checkpoint in checkpoints:
            REGISTRY[checkpoint.name].reset()
            checkpoint.position = 0
            checkpoint.save(update_fields=["position"])
    return chosen


def rebuild(
    which: Iterable[str] | None = None, *, batch: int = BATCH, on_batch: Callable[[int], None] | None = None
) -> dict[str, int]:
    """Drop the named projections (default: all) and replay them from position 0.

    One transaction and one pass over the ledger: each batch is read and decoded once and fed
    to every named projector (they used to replay it one after the other, each reading and
    decoding every event again). Readers see the old read models until the commit,
    never a half-built one; a catch-up worker waits on the checkpoint locks meanwhile, then
    carries on from the rebuilt position.
    """
    chosen = list(dict.fromkeys(which or names()))
    projectors = [REGISTRY[name] for name in chosen]
    # The cyclic garbage collector is paused for the pass: every decoded event allocates a few
    # dicts and lists, which triggered collections that rescanned the whole batch held in
    # memory, over and over (JSON decoding cost three times as much). Nothing here
    # makes cycles; reference counting frees the batches as they go.
    collecting = gc.isenabled()
    gc.disable()
    # The read-ahead thread waits on the server a few times a batch and each time wants the
    # GIL back while the folds hold it: after the default 5 ms switch interval, it fell
    # behind and the folds waited for it in turn. 1 ms: a rebuild ran a tenth faster.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        return _rebuild(chosen, projectors, batch, on_batch)
    finally:
        sys.setswitchinterval(interval)
        if collecting:
            gc.enable()


def _rebuild(
    chosen: list[str], projectors: list[Projector], batch: int, on_batch: Callable[[int], None] | None = None
) -> dict[str, int]:
    with transaction.atomic():
        # One lock order, so two rebuilds of overlapping sets cannot deadlock.
        checkpoints = [_checkpoint_for_update(name) for name in sorted(chosen)]
        folds: list[Rebuilder] = []
        for projector in projectors:
            projector.reset()
            rebuilder = getattr(projector, "rebuilder", None)
            folds.append(rebuilder() if rebuilder else _ApplyEachBatch(projector))
        readers = [fold.read for fold in folds if hasattr(fold, "read")]
        head = Event.chain.aggregate(p=Max("position"))["p"] or 0
        seal_scan.refresh()  # after the head: every event up to it scanned (``Batch.left_out``)
        ahead = None
        if connection.vendor == "postgresql" and head > batch:
            ahead = _ReadAhead(head, batch, readers)
        # Work left running on this connection across batches: the audit's COPY stays open
        # while every batch comes from the read-ahead, so the server stores the lines while
        # Python folds the next batches (closing it each batch made Python wait for it).
        pending: list[Callable[[], None]] = []
        position = 0
        try:
            while True:
                work = ahead.next() if ahead else None
                if work is None:  # read here: no read-ahead, or it has stopped
                    _settle(pending)
                    work = _next_batch(position, batch)
                    if work is None:
                        break
                    for read in readers:  # before the first fold opens a COPY
                        read(work)
                work._pending = pending
                for fold in folds:
                    fold.feed(work)
                position = work.upto
                if on_batch is not None:
                    on_batch(work.size)
            _settle(pending)
        except BaseException:
            _abandon(pending)
            raise
        finally:
            if ahead:
                ahead.close()
        for fold in folds:
            fold.finish()
        for checkpoint in checkpoints:
            checkpoint.position = position
            checkpoint.save(update_fields=["position"])
    return dict.fromkeys(chosen, position)


def _abandon(pending: list[Callable[[], None]]) -> None:
    """Finish what is left running after an error, so the transaction can roll it back."""
    while pending:
        try:
            pending.pop(0)()
        except Exception:  # the error being raised already says what went wrong
            logger.debug("after a failed rebuild", exc_info=True)


class _ReadAhead:
    """Reads a rebuild's next batches (what each projector reads: ``Rebuilder.read``) on a
    second connection, in a thread, while the projectors fold the current one: the server
    turns the next events' jsonb into text and sums their postings meanwhile (a rebuild
    spent a fifth of its time waiting for that).

    It sees only committed events: at the first batch it finds incomplete (a hole, or events
    appended by the rebuild's own transaction, as in a test) it stops, and the rebuild reads
    from there on its own connection. A complete batch is exactly what that connection would
    read: events are never changed, and positions are unique.
    """

    def __init__(self, upto: int, size: int, readers: list[Callable[[Batch], None]]) -> None:
        self.batches: queue.Queue[Batch | None] = queue.Queue(maxsize=2)
        self.stopping = threading.Event()
        self.stopped = False
        self.thread = threading.Thread(target=self._run, args=(upto, size, readers), name="projections-read-ahead")
        self.thread.start()

    def _run(self, upto: int, size: int, readers: list[Callable[[Batch], None]]) -> None:
        try:
            after = 0
            while after < upto and not self.stopping.is_set():
                work = Batch(after, min(upto, after + size))
                for read in readers:
                    read(work)
                if not work.complete():
                    break
                self._put(work)
                after = work.upto
        except Exception:  # the rebuild reads on and meets the error itself, if it is one
            logger.warning("projection read-ahead stopped", exc_info=True)
        finally:
            self._put(None)
            connection.close()  # this thread's own connection

    def _put(self, item: Batch | None) -> None:
        while not self.stopping.is_set():
            try:
                self.batches.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def next(self) -> Batch | None:
        """The next batch, or None once the read-ahead has stopped."""
        if self.stopped:
            return None
        work = self.batches.get()
        self.stopped = work is None
        return work

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()


def lag() -> list[dict]:
    """Per projector: ``{"projection", "checkpoint", "head", "lag"}`` in positions."""
    head = _head()
    checkpoints = dict(ProjectionCheckpoint.objects.values_list("name", "position"))
    return [
        {
            "projection": name,
            "checkpoint": checkpoints.get(name, 0),
            "head": head,
            "lag": head - checkpoints.get(name, 0),
        }
        for name in REGISTRY
    ]


# Registration order is the catch-up order.
from . import balances, audit, table_stats, ratings  # noqa: E402, F401, I001

"""The transaction around every write command: lock, idempotency, append, after-commit work.

Services write through ``ledger_command`` (Zulip's actions layer, STYLE.md): it opens the
outermost, durable transaction, takes the ledger writer lock *before* the service reads any
state (so the balance and state checks it makes still hold at commit — cases C13, C19),
and resolves idempotency keys under that same lock (so two identical requests racing each
other append once — case C15)::

    with ledger_command(actor=actor, idempotency_key=key, request={...}) as cmd:
        if cmd.replayed:
            return cmd.result
        ... checks, model changes ...
        cmd.append(stream=..., expected_version=..., events=[...])
        return cmd.finish({...})
"""

import hashlib
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from django.db import transaction

from . import later_entries, metrics, seal_scan, store
from .errors import IdempotencyKeyReused, InvalidInput
from .hashing import fingerprint
from .models import Event, IdempotencyRecord
from .tasks_by_name import task

logger = logging.getLogger(__name__)


@dataclass
class Command:
    actor: str
    idempotency_key: str | None
    fingerprint: str
    replayed: bool = False
    result: dict | None = None
    appended: list[Event] = field(default_factory=list)

    def append(
        self,
        *,
        stream: str,
        expected_version: int,
        events: Sequence[store.NewEvent],
        correlation_id: str = "",
        causation_id: str = "",
        also: Sequence[tuple[str, Sequence]] = (),
        tip: store.Tip | None = None,
    ) -> list[Event]:
        """``ledger.store.append`` with this command's actor; the key goes on its first event
        (``also``, ``tip``: see ``store.append``; a tip is good for the command's first append only)."""
        if tip is not None and self.appended:
            raise RuntimeError("the tip was read before this command's earlier append")
        saved = store.append(
            stream=stream,
            expected_version=expected_version,
            events=later_entries.stamped(events),  # a paper record entered after an outage
            actor=self.actor,
            correlation_id=correlation_id,
            causation_id=causation_id,
            idempotency_key=None if self.appended else self.idempotency_key,
            writer_locked=True,  # ledger_command took it first thing in this transaction
            also=also,
            tip=tip,
        )
        self.appended.extend(saved)
        return saved

    def finish(self, result: dict) -> dict:
        """Record ``result`` (JSON, no floats) as the answer to every retry of this request."""
        if self.idempotency_key:
            IdempotencyRecord.objects.create(
                key=self.idempotency_key,
                fingerprint=self.fingerprint,
                result=result,
                position=self.appended[0].position if self.appended else None,
            )
        self.result = result
        return result


def idempotency_key_valid(key: object) -> bool:
    """Whether ``key`` can be an idempotency key: a string of 1 to 200 characters without NUL
    or a lone surrogate (PostgreSQL refuses NUL in a text value, UTF-8 cannot encode a lone
    surrogate: either would be a 500, on any command)."""
    return (
        isinstance(key, str)
        and 1 <= len(key) <= 200
        and "\x00" not in key
        and not any("\ud800" <= c <= "\udfff" for c in key)
    )


# IdempotencyRecord.key and Event.idempotency_key hold 200 characters.
KEY_STORED_MAX = 200


def scoped_key(actor: str, key: str) -> str:
    """The key as recorded: the actor's own (``"<actor> <key>"``; a name holds no space), so a
    key one person chose never blocks, nor tells anything to, another who picks the same one.
    A key too long to fit beside the name is recorded by its SHA-256 (first 40 hex digits)."""
    scoped = f"{actor} {key}"
    if len(scoped) <= KEY_STORED_MAX:
        return scoped
    return f"{actor} sha256:{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:40]}"


# The idempotency keys answered from their record while ``replays_noted`` watches (a form's page
# says "already recorded" instead of pretending it recorded it again).
_replays: ContextVar[set[str] | None] = ContextVar("ledger_replays", default=None)


@contextmanager
def replays_noted() -> Iterator[set[str]]:
    """Collect, in the set it yields, the idempotency keys of the commands run in this block
    that were answered from their record (a retry, a double click, a resent form) rather than
    run again. Safe under a race: the key is noted under the writer lock, where a retry waiting
    for the first request finds its record."""
    seen: set[str] = set()
    token = _replays.set(seen)
    try:
        yield seen
    finally:
        _replays.reset(token)


# The command an inner command may run inside (``within``), for this thread or task only.
_outer: ContextVar[Command | None] = ContextVar("ledger_outer_command", default=None)


@contextmanager
def within(cmd: Command) -> Iterator[None]:
    """Let the service commands called in this block run inside ``cmd``'s transaction (each in
    a savepoint, under the writer lock ``cmd`` holds) instead of refusing to nest: an approval
    runs the act it approves this way, so the decision and the act commit together or not at all
    (``approvals.services``). Each inner command keeps its own actor (the maker of the act)."""
    token = _outer.set(cmd)
    try:
        yield
    finally:
        _outer.reset(token)


@contextmanager
def ledger_command(*, actor: str, request: dict, idempotency_key: str | None = None) -> Iterator[Command]:
    """Run one write command atomically; see the module docstring. ``request`` identifies it for idempotency.

    Inside ``within(outer)`` the command runs in a savepoint of ``outer``'s transaction (the
    writer lock already held); anywhere else a nested command is refused (``durable``)."""
    name = str(request.get("op", "unknown"))
    started = time.perf_counter()
    try:
        with _command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
            yield cmd
    except BaseException as error:
        metrics.commands.labels(name, "refused").inc()
        metrics.command_refusals.labels(name, metrics.refusal_reason(error)).inc()
        raise
    metrics.commands.labels(name, "replayed" if cmd.replayed else "committed").inc()
    metrics.command_seconds.labels(name).observe(time.perf_counter() - started)


@contextmanager
def _command(*, actor: str, request: dict, idempotency_key: str | None) -> Iterator[Command]:
    if idempotency_key is not None and not idempotency_key_valid(idempotency_key):
        raise InvalidInput("idempotency key must be 1 to 200 characters, without NUL", field="idempotency_key")
    outer = _outer.get()
    if outer is not None:
        _outer.set(None)  # one level: what the inner command calls does not nest again
        try:
            with transaction.atomic():
                # The outer command holds the retry's key and answers retries with its result.
                cmd = Command(actor=actor or "system", idempotency_key=None, fingerprint="")
                yield cmd
        finally:
            _outer.set(outer)
        return
    with transaction.atomic(durable=True):
        store.lock_writers()
        # What the command reads leaves out the events the application did not write: a row
        # inserted around it (postings crediting a patron) since this process last looked is
        # found now, under the lock, not at the next page read.
        seal_scan.refresh()
        cmd = Command(
            actor=actor or "system",
            idempotency_key=scoped_key(actor or "system", idempotency_key) if idempotency_key else None,
            fingerprint=fingerprint({"actor": actor, **request}),
        )
        if idempotency_key:
            # The actor's own key; a record of before keys were scoped answers under the key alone.
            # A key holding a space could name someone's scoped record ("<actor> <key>"): only
            # the actor's own is looked up for it, so nothing of another's answers or shows.
            previous = IdempotencyRecord.objects.filter(key=cmd.idempotency_key).first()
            if previous is None and " " not in idempotency_key:
                previous = IdempotencyRecord.objects.filter(key=idempotency_key).first()
            if previous is not None:
                if previous.fingerprint != cmd.fingerprint:
                    raise IdempotencyKeyReused(
                        "this idempotency key was already used for a different request",
                        field="idempotency_key",
                    )
                cmd.replayed, cmd.result = True, previous.result
                noted = _replays.get()
                if noted is not None:
                    noted.add(idempotency_key)
        yield cmd
        if cmd.appended:
            transaction.on_commit(_schedule_projections)


def projections_after_commit() -> None:
    """Enqueue the projection catch-up once the current transaction commits: for the rare
    append made outside ``ledger_command`` (e.g. a login event from Django's auth signals)."""
    transaction.on_commit(_schedule_projections)


# A busy process publishes one catch-up a window, each starting a window after the one before,
# instead of one per command (publishing cost 2 ms of a 15-ms bet placement). A catch-up reads
# up to the ledger's tip when it starts, so a commit made before a task's ETA is covered by
# that task; ``_MARGIN`` allows for the worker's clock running ahead of this one. Each task
# costs the worker 15-25 ms of CPU however few events it applies (one transaction a
# projection, the seal scan, the checkpoint's check): with a half-second window, and a second
# task sent before the first one started, each web process sent about three a second of a few
# events each (tests/benchmarks, section worker). A busy floor's projections follow within
# about a second; the pit boss's page refreshes every 3 s.
_WINDOW_SECONDS = 1.0
_MARGIN_SECONDS = 0.05


@dataclass
class _Publishing:
    last_start: float = float("-inf")  # time.monotonic() at which the latest task sent starts
    covered_until: float = float("-inf")  # commits before this are covered by a delayed task
    broker_down_until: float = float("-inf")  # no publishing attempt before this (a failure)
    destination: tuple = ()  # (broker, default queue) those tasks went to


_publishing = _Publishing()


def _destination() -> tuple[str, str]:
    """Where a catch-up sent now goes: the broker's URL and the default queue."""
    catch_up_projections = task("catch_up_projections")
    conf = catch_up_projections.app.conf
    return (conf.broker_url, conf.task_default_queue)


def _eager() -> bool:
    """Tasks run inline (no broker configured: the demo, most tests)."""
    catch_up_projections = task("catch_up_projections")
    return bool(catch_up_projections.app.conf.task_always_eager)


def _schedule_projections() -> None:
    """Publish the projection catch-up for the commit that just happened: at once when no task
    of this process starts within the window before now (an idle floor sees its projections
    follow within a task's run), else one task starting a window after the latest one, covering
    every commit until it starts. Eager mode (demo, tests without a broker) runs it inline
    every time."""
    # After commit the events are safe; a broker outage must not turn a committed command
    # into an error. Celery beat runs the same catch-up every few seconds anyway.
    catch_up_projections = task("catch_up_projections")
    now = time.monotonic()
    eager = _eager()
    if not eager:
        destination = _destination()
        if destination != _publishing.destination:
            # A task sent elsewhere (another broker or queue, e.g. a test's own worker queue) covers
            # nothing here: counting on it left a quick burst of commits with no catch-up at all.
            _publishing.last_start = _publishing.covered_until = float("-inf")
            _publishing.broker_down_until = float("-inf")
            _publishing.destination = destination
        if now < _publishing.covered_until:
            return
        if now < _publishing.broker_down_until:
            return  # the broker failed a moment ago: this command does not wait for it again
    try:
        if eager:
            # ``apply()``, not ``delay()``: an eager ``delay()`` sets Celery's process-wide "a join
            # would block" flag while the task runs and puts back what it found, so two threads
            # committing at once left it set and every later ``result.get()`` raised.
            catch_up_projections.apply()
        elif now - _publishing.last_start >= _WINDOW_SECONDS - _MARGIN_SECONDS:
            _send(None)
            _publishing.last_start = now
        else:
            countdown = _publishing.last_start + _WINDOW_SECONDS - now  # more than the margin
            _send(countdown)
            _publishing.last_start = now + countdown
            _publishing.covered_until = _publishing.last_start - _MARGIN_SECONDS
    except Exception:  # noqa: BLE001 - any broker/transport failure
        if eager:
            logger.warning("could not run the projection catch-up; beat will retry", exc_info=True)
            return
        first = _publishing.broker_down_until == float("-inf")
        _publishing.broker_down_until = now + _BROKER_DOWN_SECONDS
        if first:
            logger.warning(
                "could not enqueue the projection catch-up; no new attempt for %ss, beat will retry",
                _BROKER_DOWN_SECONDS,
                exc_info=True,
            )
        return
    _publishing.broker_down_until = float("-inf")


# A broker that is down costs a command one attempt, not Celery's retries (0.6 s to 6 s of
# reconnecting, in the request), and then none for this long: the floor plays at full speed
# while its projections wait for beat, which catches them up once the broker is back.
_BROKER_DOWN_SECONDS = 5.0
_CONNECT_TIMEOUT_SECONDS = 1.0
_connections = threading.local()  # a kombu connection is not shared between threads


def _send(countdown: float | None) -> None:
    """Publish one catch-up (after ``countdown`` seconds, or at once): one connection attempt
    and no publish retry, so a broker outage fails here at once. Raises what the transport
    raises."""
    catch_up_projections = task("catch_up_projections")
    app = catch_up_projections.app
    url = app.conf.broker_url
    held = getattr(_connections, "by_url", None)
    if held is None:
        held = _connections.by_url = {}
    connection = held.get(url)
    if connection is None:
        options = {**(app.conf.broker_transport_options or {}), "max_retries": 0}
        connection = held[url] = app.connection_for_write(
            transport_options=options, connect_timeout=_CONNECT_TIMEOUT_SECONDS
        )
    catch_up_projections.apply_async(countdown=countdown, retry=False, connection=connection)

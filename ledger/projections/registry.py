"""What a projection is (``Projector``, ``Rebuilder``), the batch of events it folds
(``Batch``), and the registry the projections add themselves to; the runner that catches them
up and rebuilds them is the package (``ledger.projections``)."""

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Protocol

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.db.models import Sum

from .. import disowned
from ..errors import StateConflict
from ..jsoncodec import JsonbBytesLoader, loads
from ..models import Event, Posting

EVENT_FIELDS = ("position", "type", "data", "occurred_at", "gaming_day", "hash")


@dataclass
class Batch:
    """The committed events ``after < position <= upto``, read lazily as plain rows.

    Projectors ask only for what they need: the balance projector never loads an event, it
    sums the postings in SQL; the others read ``events`` (dicts of ``EVENT_FIELDS``), some
    of them, or queries of their own (``memo``). Each is read once per batch, for every
    projector of a rebuild.
    """

    after: int
    upto: int
    _events_of_types: dict = field(default_factory=dict, repr=False)
    _pending: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _memo: dict = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return self.upto - self.after

    def defer(self, finish: Callable[[], None]) -> None:
        """Leave work running on the connection (a COPY the server is still storing) while
        the projectors fold in Python: ``finish`` is called before the batch next queries the
        database, and at the latest at the end of the batch, or of the rebuild (whose batches
        share one list)."""
        self._pending.append(finish)

    def settle(self) -> None:
        _settle(self._pending)

    def memo(self, key: str, compute: Callable[["Batch"], object]):
        """``compute(batch)``, once per batch: what a projector reads for itself, which a
        rebuild may read ahead (``Rebuilder.read``)."""
        if key not in self._memo:
            self.settle()
            self._memo[key] = compute(self)
        return self._memo[key]

    def complete(self) -> bool:
        """Whether this connection sees every position of the batch."""
        if "events" in self.__dict__:
            return len(self.events) == self.size
        self.settle()
        return self._range(Event.objects, "position").count() == self.size

    @property
    def left_out(self) -> list[int]:
        """The batch's positions the application did not write (``ledger.disowned``): the raw
        SQL reads leave them out as ``Event.objects`` does."""
        return sorted(p for p in disowned.positions() if self.after < p <= self.upto)

    def _range(self, queryset, key: str):
        return queryset.filter(**{f"{key}__gt": self.after, f"{key}__lte": self.upto})

    @cached_property
    def events(self) -> list[dict]:
        self.settle()
        if connection.vendor == "postgresql":
            return self._raw_events()
        return list(self._range(Event.objects, "position").order_by("position").values(*EVENT_FIELDS))

    def _raw_events(self, types: tuple[str, ...] = ()) -> list[dict]:
        """The same dicts as ``.values(*EVENT_FIELDS)``, without the ORM: a rebuild spent a
        third of its time in ``values()`` building rows and converting each column.
        The JSON is decoded here, once, as ``JSONField.from_db_value`` would."""
        sql = (
            f"SELECT {', '.join(EVENT_FIELDS)} FROM ledger_event "
            "WHERE position > %s AND position <= %s AND position <> ALL(%s::bigint[])"
        )
        params: list = [self.after, self.upto, self.left_out]
        if types:
            sql += " AND type = ANY(%s)"
            params.append(list(types))
        with connection.cursor() as cursor:
            if settings.USE_TZ and connection.timezone_name == "UTC":
                from psycopg.types.datetime import TimestamptzLoader

                # psycopg's own loader, in C: Django's subclass of it is pure Python and gives
                # the same aware UTC datetimes (the session's time zone is UTC) five times slower.
                cursor.cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
            cursor.cursor.adapters.register_loader("jsonb", JsonbBytesLoader)  # bytes, for orjson
            cursor.execute(sql + " ORDER BY position", params)
            rows = cursor.fetchall()
        return [
            {"position": p, "type": t, "data": loads(d), "occurred_at": at, "gaming_day": day, "hash": h}
            for p, t, d, at, day, h in rows
        ]

    def events_of(self, *types: str) -> list[dict]:
        """Only the events of ``types``: filtered in the database, or in the already read batch."""
        if types not in self._events_of_types:
            if "events" in self.__dict__:  # read once for another projector (a rebuild)
                wanted = set(types)
                self._events_of_types[types] = [e for e in self.events if e["type"] in wanted]
                return self._events_of_types[types]
            self.settle()
            if connection.vendor == "postgresql":
                self._events_of_types[types] = self._raw_events(types)
            else:
                rows = self._range(Event.objects, "position").filter(type__in=types).order_by("position")
                self._events_of_types[types] = list(rows.values(*EVENT_FIELDS))
        return self._events_of_types[types]

    def postings(self):
        """The batch's postings as a queryset (for aggregates in SQL)."""
        self.settle()
        return self._range(Posting.objects, "event_id")

    def account_totals(self) -> dict[tuple[str, str], int]:
        """Σ amount per (account, currency) over the batch's postings: one GROUP BY in the
        database (a batch of thousands of events is a few hundred accounts)."""
        return self.memo("account_totals", _account_totals)


def _account_totals(batch: Batch) -> dict[tuple[str, str], int]:
    rows = batch.postings().values("account", "currency").annotate(total=Sum("amount_cents"))
    return {(row["account"], row["currency"]): row["total"] for row in rows}


class Projector(Protocol):
    name: str

    def apply(self, batch: Batch) -> None:
        """Fold the batch's events into the read model (inside the checkpoint's transaction)."""

    def reset(self) -> None:
        """Delete every row of the read model."""


class Rebuilder(Protocol):
    """A projector's fold over every batch of a rebuild, into its emptied read model.

    A projector may offer one (``projector.rebuilder()``); it runs the same fold as ``apply``
    but keeps its rows in memory across batches (a few a table, patron or account) and writes
    them once in ``finish``, instead of reading and rewriting them every batch.
    """

    def read(self, batch: Batch) -> None:
        """Optional: read through ``batch`` what ``feed`` will need. It may run in another
        thread, ahead of ``feed``: it touches nothing but the batch."""

    def feed(self, batch: Batch) -> None: ...

    def finish(self) -> None: ...


class _ApplyEachBatch:
    """The rebuilder of a projector that has none of its own: ``apply`` per batch."""

    def __init__(self, projector: Projector) -> None:
        self.projector = projector

    def feed(self, batch: Batch) -> None:
        batch.settle()  # its ``apply`` may query the database
        self.projector.apply(batch)

    def finish(self) -> None:
        pass


REGISTRY: dict[str, Projector] = {}


def register(projector: Projector) -> Projector:
    REGISTRY[projector.name] = projector
    return projector


def names() -> list[str]:
    return list(REGISTRY)


# TRUNCATE waits for every session reading the table; meanwhile every reader queues behind it.
# A transaction left open on it (the auditor's role, a console) would stall all of them: the
# rebuild gives up after this long instead (``StateConflict``, nothing rebuilt).
TRUNCATE_LOCK_TIMEOUT = "10s"


def truncate(model) -> None:
    """Empty a read model: TRUNCATE on PostgreSQL (a DELETE of a million audit lines took
    seconds and left them dead in the table until a vacuum), DELETE elsewhere. Raises
    ``StateConflict`` (409) when another session holds the table longer than
    ``TRUNCATE_LOCK_TIMEOUT``."""
    if connection.vendor != "postgresql":
        model.objects.all().delete()
        return
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('lock_timeout')")
        (before,) = cursor.fetchone()
        cursor.execute("SELECT set_config('lock_timeout', %s, true)", [TRUNCATE_LOCK_TIMEOUT])
        try:
            with transaction.atomic():
                cursor.execute(f"TRUNCATE {connection.ops.quote_name(table)}")
        except OperationalError as exc:
            if getattr(getattr(exc, "__cause__", None), "sqlstate", None) != "55P03":  # lock_not_available
                raise
            raise StateConflict(
                f"{table} is held by another session (a transaction left open on it): the rebuild waited "
                f"{TRUNCATE_LOCK_TIMEOUT} and rebuilt nothing; try again once it is released",
                field="projections",
            ) from None
        finally:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [before])


def _settle(pending: list[Callable[[], None]]) -> None:
    while pending:
        pending.pop(0)()

"""Closing a gaming day: once every table that played it is closed and counted.

``ledger.gaming_day`` gives every event its gaming day (``GAMING_DAY_START`` in
``CASINO_TIMEZONE``). ``gaming_day_close`` appends ``GamingDayClosed`` on the stream
``gamingday/<YYYY-MM-DD>`` and then, when the sealing module exists, seals the day
(``ledger.seal.seal_gaming_day``), in its own transaction after this one commits.
"""

from datetime import date

from games.models import Table
from ledger.closed_days import gaming_day_closed
from ledger.commands import ledger_command
from ledger.errors import DomainError, StateConflict
from ledger.gaming_day import gaming_day_stream
from ledger.models import Event, Posting
from ledger.outage_forms import refuse_while_unentered
from ledger.seal import seal_gaming_day
from ledger.store import NewEvent
from staff.roles import Role, require_role

from .count_room import gaming_day_in_reach, live_count


def table_codes_active(start: date, end: date) -> list[str]:
    """Codes of the tables that played on a gaming day in [start, end], sorted: an event of
    their own stream (opened, closed, a buy-in) or a posting to one of their accounts (a coup
    of a table left open over the start of the day has only its round's events).

    Both reads are ``SELECT DISTINCT`` of one column: ``order_by()`` drops the models' default
    ordering, which Django would otherwise add to the DISTINCT columns (one row per event or
    posting: a busy table's day held in memory, the export's peak memory)."""
    streams = Event.objects.filter(gaming_day__range=(start, end), stream__startswith="table/").order_by()
    codes = {stream.split("/", 1)[1] for stream in streams.values_list("stream", flat=True).distinct()}
    postings = Posting.objects.filter(event__gaming_day__range=(start, end), account__startswith="table:")
    codes |= {account.split(":")[1] for account in postings.order_by().values_list("account", flat=True).distinct()}
    return sorted(codes)


def tables_of_day(day: date) -> list[str]:
    """Codes of the tables that played on gaming day ``day`` (``table_codes_active``)."""
    return table_codes_active(day, day)


def gaming_day_close(*, gaming_day: object, actor: str, idempotency_key: str | None = None) -> dict:
    """Close gaming day ``gaming_day`` (``YYYY-MM-DD``): a pit boss, cage supervisor or admin.

    Refused with ``StateConflict`` (409) when a table that played that day is still open or
    its drop is not counted, when an outage of that day is still going on or has a paper
    form not entered (``ledger.outage_forms``), when the day is already closed, or when it has not begun (closed
    ahead of time, it could never be closed, nor sealed at its close, once played); with
    ``InvalidInput`` (400) for a day before the previous one (``gaming_day_in_reach``). Returns ``{"gaming_day",
    "event", "tables", "sealed"}`` (``sealed``: the seal's result, or ``{"error", "detail"}``
    when it refused).
    """
    day = gaming_day_in_reach(gaming_day)
    require_role(actor, Role.PIT_BOSS, Role.CAGE_SUPERVISOR, Role.ADMIN, step="closing a gaming day")
    request = {"op": "gaming_day_close", "gaming_day": day.isoformat()}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        if gaming_day_closed(day) is not None:
            raise StateConflict(f"gaming day {day} is already closed", field="gaming_day")
        # Closed, the day takes no later entry any more: its outage's paper would never be entered.
        refuse_while_unentered(day, what="closed", field="gaming_day")
        tables = tables_of_day(day)
        still_open = sorted(
            Table.objects.filter(code__in=tables, state=Table.State.OPEN).values_list("code", flat=True)
        )
        if still_open:
            raise StateConflict(f"gaming day {day}: tables still open: {', '.join(still_open)}", field="gaming_day")
        uncounted = [code for code in tables if live_count(code, day) is None]
        if uncounted:
            raise StateConflict(f"gaming day {day}: drop not counted at {', '.join(uncounted)}", field="gaming_day")
        (event,) = cmd.append(
            stream=gaming_day_stream(day),
            expected_version=0,
            events=[NewEvent("GamingDayClosed", {"gaming_day": day.isoformat(), "tables": tables})],
        )
        result = cmd.finish({"gaming_day": day.isoformat(), "event": event.position, "tables": tables})
    if cmd.replayed:
        return result
    return result | {"sealed": _seal(day, actor)}


def _seal(day: date, actor: str):
    """Seal the closed day (``ledger.seal``).

    Called after the close has committed: sealing runs its own durable transaction. The
    result is the seal service's (JSON), or ``{"error", "detail"}`` if it refused.
    """
    try:
        return seal_gaming_day(day=day, actor=actor)
    except DomainError as exc:
        # The close has committed; a seal refused (e.g. a later day already sealed) is
        # reported with it rather than turning the committed close into an error.
        return {"error": exc.code, "detail": exc.message}

"""A patron rated by hand at a table (SHIFTS.md, pit boss §6): where no card reads him, the pit
boss writes what he saw — when the patron sat down, how long he played, his average bet and
his buy-in. Recorded as ``PatronRatedManually`` on the table's stream; no money moves (the
buy-in itself is a cash buy-in or a chip purchase of its own).

The event also carries what makes the rating count like a card-read one in the patron's day
(``ledger.projections.ratings``): the ``decisions`` he played (minutes × the game's usual
``decisions_per_hour``, ``settings.CASINO_DECISIONS_PER_HOUR``), each at his average bet, and
the table's ``house_edge`` under its rules in force, so his theoretical win is average bet ×
decisions × edge, and a later change of pace or rules never rewrites it.

Or timed at the table: ``patron_rating_start`` when he sits down (``RatingStarted``),
``patron_rating_stop`` when he leaves, which records the same ``PatronRatedManually`` with the
minutes measured between the two and the ``started`` event it ends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from core.ceilings import check_ceiling
from ledger.closed_days import gaming_day_closed
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.gaming_day import current_gaming_day, gaming_day_of
from ledger.store import NewEvent
from patrons.models import Patron
from patrons.selectors import patron_get
from staff.roles import Role, require_role

from ..models import Table
from ..selectors import running_rating, table_for_update
from ..theory import table_house_edge

MAX_MINUTES = 24 * 60


def now() -> datetime:
    """The service's clock (aware, UTC). Module-level so that tests can move time with monkeypatch."""
    return timezone.now()


def patron_rating_record(
    *,
    table: str,
    patron: str,
    time_in: datetime,
    minutes: int,
    average_bet_cents: int,
    buy_in_cents: int = 0,
    actor: str,
    started: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Rate identified patron ``patron`` at open table ``table`` by hand: sat down at ``time_in``
    (aware), played ``minutes`` (1 to 1,440), ``average_bet_cents`` (> 0), ``buy_in_cents``
    (≥ 0). Returns ``{"table", "patron", "time_in"`` (ISO 8601 UTC), ``"minutes",
    "average_bet_cents", "buy_in_cents", "decisions_per_hour", "decisions", "house_edge", "event"}``
    (and ``"started"``: the ``RatingStarted`` it ends, given by ``patron_rating_stop``).

    Raises ``RoleRequired`` (403: not a pit boss), ``InvalidInput`` (400 naming the field: a
    time in the future or unaware, a time in and minutes that end later than now (``time_in``),
    minutes or amounts out of range, the anonymous patron),
    ``NotFound`` (404: table or patron), ``StateConflict`` (409: the table is closed)."""
    require_role(actor, Role.PIT_BOSS, step="rating a patron")
    if not isinstance(time_in, datetime) or timezone.is_naive(time_in):
        raise InvalidInput("the time the patron sat down is needed", field="time_in")
    if time_in > now() + timedelta(minutes=1):
        raise InvalidInput("a patron cannot have sat down later than now", field="time_in")
    if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
        raise InvalidInput(f"time played is 1 to {MAX_MINUTES} minutes", field="minutes")
    _refuse_an_end_to_come(time_in, minutes)
    _refuse_a_closed_days_play(time_in)
    if type(average_bet_cents) is not int or average_bet_cents <= 0:
        raise InvalidInput("the average bet is a positive whole number of cents", field="average_bet_cents")
    if type(buy_in_cents) is not int or buy_in_cents < 0:
        raise InvalidInput("the buy-in is a whole number of cents, zero or more", field="buy_in_cents")
    if buy_in_cents:
        check_ceiling("buy_in", buy_in_cents, field="buy_in_cents")
    check_ceiling("buy_in", average_bet_cents, field="average_bet_cents")
    moment = time_in.astimezone(UTC)
    request = {
        "op": "patron_rating_record",
        "table": table,
        "patron": patron,
        "time_in": moment.isoformat(),
        "minutes": minutes,
        "average_bet_cents": average_bet_cents,
        "buy_in_cents": buy_in_cents,
    }
    if started is not None:
        request["started"] = started
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, who = _rated_at(table, patron)
        if started is not None:
            # Under the table's lock: a second stop of the same rating finds it stopped.
            running = running_rating(found.code, who.code)
            if running is None or running.position != started:
                raise StateConflict(f"no rating of {who.code} is running at {found.code}", field="patron")
        data = {
            "table": found.code,
            "patron": who.code,
            "time_in": request["time_in"],
            "minutes": minutes,
            "average_bet_cents": average_bet_cents,
            "buy_in_cents": buy_in_cents,
            **_decisions(found, minutes),
            **({"started": started} if started is not None else {}),
        }
        (event,) = cmd.append(
            stream=found.stream, expected_version=found.version, events=[NewEvent("PatronRatedManually", data)]
        )
        found.version = event.version
        found.save(update_fields=["version"])
        return cmd.finish(data | {"event": event.position})


def _rated_at(table: str, patron: str) -> tuple[Table, Patron]:
    """Open table ``table`` (locked) and identified patron ``patron``, as a rating needs them.
    Raises ``NotFound`` (404), ``InvalidInput`` (400: the anonymous patron), ``StateConflict``
    (409: the table is closed)."""
    found = table_for_update(table)
    who = patron_get(patron)
    if who.kind != Patron.Kind.IDENTIFIED:
        raise InvalidInput("only a patron known by name is rated", field="patron")
    if found.state != Table.State.OPEN:
        raise StateConflict(f"table {found.code} is closed", field="table")
    return found, who


def patron_rating_start(*, table: str, patron: str, actor: str, idempotency_key: str | None = None) -> dict:
    """Start timing identified patron ``patron`` at open table ``table`` (he sits down now):
    ``RatingStarted`` on the table's stream; ``patron_rating_stop`` ends it with his average bet.
    Returns ``{"table", "patron", "started_at"`` (ISO 8601 UTC), ``"event"}``.

    Raises ``RoleRequired`` (403: not a pit boss), ``InvalidInput`` (400: the anonymous patron),
    ``NotFound`` (404: table or patron), ``StateConflict`` (409: the table is closed, or his
    rating at this table runs already)."""
    require_role(actor, Role.PIT_BOSS, step="starting a patron's rating")
    request = {"op": "patron_rating_start", "table": table, "patron": patron}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found, who = _rated_at(table, patron)
        running = running_rating(found.code, who.code)
        if running is not None:
            since = running.occurred_at.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)).strftime("%H:%M")
            raise StateConflict(f"his rating at {found.code} runs since {since}: stop it first", field="patron")
        (event,) = cmd.append(
            stream=found.stream,
            expected_version=found.version,
            events=[NewEvent("RatingStarted", {"table": found.code, "patron": who.code})],
        )
        found.version = event.version
        found.save(update_fields=["version"])
        started_at = event.occurred_at.astimezone(UTC).isoformat()
        return cmd.finish({"table": found.code, "patron": who.code, "started_at": started_at, "event": event.position})


def patron_rating_stop(
    *,
    table: str,
    patron: str,
    average_bet_cents: int,
    buy_in_cents: int = 0,
    actor: str,
) -> dict:
    """Stop patron ``patron``'s running rating at ``table`` (he leaves now): recorded as
    ``patron_rating_record`` with the time measured, from its ``RatingStarted`` to now in whole
    minutes, and ``average_bet_cents`` and ``buy_in_cents`` as the pit boss saw them. Returns
    what ``patron_rating_record`` returns.

    Raises ``StateConflict`` (409: no rating of his runs at the table), ``InvalidInput`` (400:
    less than a minute played, on ``patron``; an amount out of range), and what
    ``patron_rating_record`` raises."""
    require_role(actor, Role.PIT_BOSS, step="stopping a patron's rating")
    code = patron.strip() if isinstance(patron, str) else patron
    running = running_rating(table, code) if isinstance(code, str) else None
    if running is None:
        raise StateConflict(f"no rating of {code} is running at {table}", field="patron")
    minutes = int((now() - running.occurred_at).total_seconds() // 60)
    if minutes < 1:
        raise InvalidInput("he has played less than a minute since his rating started: stop it later", field="patron")
    return patron_rating_record(
        table=table,
        patron=code,
        time_in=running.occurred_at,
        minutes=min(minutes, MAX_MINUTES),
        average_bet_cents=average_bet_cents,
        buy_in_cents=buy_in_cents,
        actor=actor,
        started=running.position,
    )


def _refuse_a_closed_days_play(time_in: datetime) -> None:
    """A rating counts in the gaming day it is recorded on: play that began on an earlier gaming
    day already closed (its figures final and sealed) is not added to today's. ``InvalidInput``
    on ``time_in``, naming that day and when today's began (the casino's zone)."""
    today = current_gaming_day(now())
    began = gaming_day_of(time_in, tz_name=settings.CASINO_TIMEZONE, start=settings.GAMING_DAY_START)
    if began >= today or gaming_day_closed(began) is None:
        return
    raise InvalidInput(
        f"a time in of {time_in.astimezone(ZoneInfo(settings.CASINO_TIMEZONE)):%Y-%m-%d %H:%M %Z} falls on gaming "
        f"day {began.isoformat()}, which is closed: rate today's play ({today.isoformat()}, from "
        f"{settings.GAMING_DAY_START}) only",
        field="time_in",
    )


def _refuse_an_end_to_come(time_in: datetime, minutes: int) -> None:
    """A rating records play that is over: sat down at ``time_in``, ``minutes`` played, he left
    by now. ``InvalidInput`` on ``time_in`` (the hours a person typed, in the casino's zone)."""
    moment = now()
    left = time_in + timedelta(minutes=minutes)
    if left <= moment:
        return
    zone = ZoneInfo(settings.CASINO_TIMEZONE)

    def hours(moment: datetime) -> str:
        return moment.astimezone(zone).strftime("%H:%M")

    raise InvalidInput(
        f"in at {hours(time_in)} and {minutes} minutes played end at {hours(left)}, later than now "
        f"({hours(moment)}): rate the play once it is over, or correct the time in or the minutes",
        field="time_in",
    )


def _decisions(table: Table, minutes: int) -> dict:
    """``{"decisions_per_hour", "decisions", "house_edge"}`` of ``minutes`` at ``table``: the
    decisions at least 1 (he was rated: he played), the edge as text (a fraction of the stake,
    as ``BetSettled`` writes it; "0" for a game without one)."""
    pace = settings.CASINO_DECISIONS_PER_HOUR.get(table.game, 0)
    edge = table_house_edge(table.code)
    return {
        "decisions_per_hour": pace,
        "decisions": max(1, round(minutes * pace / 60)) if pace else 0,
        "house_edge": str(edge[0]) if edge else "0",
    }

"""A patron rated by hand at a table (SHIFTS.md, pit boss §6): where no card reads him, the pit
boss writes what he saw — when the patron sat down, how long he played, his average bet and
his buy-in. Recorded as ``PatronRatedManually`` on the table's stream; no money moves (the
buy-in itself is a cash buy-in or a chip purchase of its own).

The event also carries what makes the rating count like a card-read one in the patron's day
(``ledger.projections.ratings``): the ``decisions`` he played (minutes × the game's usual
``decisions_per_hour``, ``settings.CASINO_DECISIONS_PER_HOUR``), each at his average bet, and
the table's ``house_edge`` under its rules in force, so his theoretical win is average bet ×
decisions × edge, and a later change of pace or rules never rewrites it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.utils import timezone

from core.ceilings import check_ceiling
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, StateConflict
from ledger.store import NewEvent
from patrons.models import Patron
from patrons.selectors import patron_get
from staff.roles import Role, require_role

from ..models import Table
from ..selectors import table_for_update
from ..theory import table_house_edge

MAX_MINUTES = 24 * 60


def patron_rating_record(
    *,
    table: str,
    patron: str,
    time_in: datetime,
    minutes: int,
    average_bet_cents: int,
    buy_in_cents: int = 0,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Rate identified patron ``patron`` at open table ``table`` by hand: sat down at ``time_in``
    (aware), played ``minutes`` (1 to 1,440), ``average_bet_cents`` (> 0), ``buy_in_cents``
    (≥ 0). Returns ``{"table", "patron", "time_in"`` (ISO 8601 UTC), ``"minutes",
    "average_bet_cents", "buy_in_cents", "decisions_per_hour", "decisions", "house_edge", "event"}``.

    Raises ``RoleRequired`` (403: not a pit boss), ``InvalidInput`` (400 naming the field: a
    time in the future or unaware, minutes or amounts out of range, the anonymous patron),
    ``NotFound`` (404: table or patron), ``StateConflict`` (409: the table is closed)."""
    require_role(actor, Role.PIT_BOSS, step="rating a patron")
    if not isinstance(time_in, datetime) or timezone.is_naive(time_in):
        raise InvalidInput("the time the patron sat down is needed", field="time_in")
    if time_in > timezone.now() + timedelta(minutes=1):
        raise InvalidInput("a patron cannot have sat down later than now", field="time_in")
    if type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES:
        raise InvalidInput(f"time played is 1 to {MAX_MINUTES} minutes", field="minutes")
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
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = table_for_update(table)
        who = patron_get(patron)
        if who.kind != Patron.Kind.IDENTIFIED:
            raise InvalidInput("only a patron known by name is rated", field="patron")
        if found.state != Table.State.OPEN:
            raise StateConflict(f"table {found.code} is closed", field="table")
        data = {
            "table": found.code,
            "patron": who.code,
            "time_in": request["time_in"],
            "minutes": minutes,
            "average_bet_cents": average_bet_cents,
            "buy_in_cents": buy_in_cents,
            **_decisions(found, minutes),
        }
        (event,) = cmd.append(
            stream=found.stream, expected_version=found.version, events=[NewEvent("PatronRatedManually", data)]
        )
        found.version = event.version
        found.save(update_fields=["version"])
        return cmd.finish(data | {"event": event.position})


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

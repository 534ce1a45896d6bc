"""Drop boxes and the count room.

At the end of a gaming day each table's drop box is removed (``DropBoxRemoved``, one event
per box) and the count team counts its cash by banknote (``DropCounted``, two distinct
counters of the role count_team, neither of the two who removed the box). The expected drop
is the table's recorded cash buy-ins of that gaming day (the ``CashBuyIn`` events:
``table:<T>:drop +X``) and the markers paid there in cash (``MarkerPaidAtTable``, method cash);
the box's markers go to the cage on their own (``MarkerTransferred``). The count moves the
cash from the drop box to the cage, and the difference to the cage's over/short account::

    table:<T>:drop −expected, cage:cash +counted, cage:over_short +(expected − counted)

so the drop account is back to nothing and a short count shows as a debit of over/short.
A mistaken count is reversed (``DropCountReversed``, naming the count, approved by a pit boss
or cage supervisor) and the box counted again. Stream: ``drop/<table>/<gaming day>``.
"""

from datetime import date, timedelta

from django.conf import settings

from core.ceilings import check_ceiling
from core.denominations import cash_denominations, count_total
from games.models import Table
from ledger import accounts, store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.event_seals import sealed_events
from ledger.gaming_day import current_gaming_day
from ledger.models import Event
from ledger.store import Leg, NewEvent
from staff.roles import Role, RoleRequired, require_distinct, require_role

from .pit_shift import require_independent

APPROVERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR)
REMOVERS = (Role.PIT_BOSS, Role.COUNT_TEAM, Role.DROP_TEAM)


def parse_gaming_day(value: object, field: str = "gaming_day") -> date:
    """A gaming day from a ``date`` or an ISO ``YYYY-MM-DD`` string; ``InvalidInput`` otherwise."""
    if isinstance(value, date):
        return value
    if isinstance(value, str) and len(value) == 10:
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise InvalidInput("a gaming day is a date YYYY-MM-DD", field=field)


def gaming_day_in_reach(value: object, field: str = "gaming_day") -> date:
    """A gaming day a drop box removal, a drop count or its reversal, or a gaming-day close may
    name: the open (current) gaming day or, up to the setting ``CASINO_GAMING_DAY_LOOKBACK_DAYS``
    (default 1) before it, the previous one, whose boxes are removed and counted and which is
    closed once the next day has begun. Raises ``InvalidInput`` (400, ``field``) for a malformed
    day or one further back (a removal dated 2000-01-01 is junk), ``StateConflict``
    (409) for a day that has not begun (2099-12-30)."""
    day = parse_gaming_day(value, field)
    today = current_gaming_day()
    if day > today:
        raise StateConflict(f"gaming day {day} has not begun (the open gaming day is {today})", field=field)
    earliest = today - timedelta(days=max(0, int(getattr(settings, "CASINO_GAMING_DAY_LOOKBACK_DAYS", 1))))
    if day < earliest:
        raise InvalidInput(
            f"gaming day {day} is out of reach: the open gaming day is {today}, the earliest allowed {earliest}",
            field=field,
        )
    return day


def drop_stream(table: str, day: date) -> str:
    return f"drop/{table}/{day.isoformat()}"


# The cash a drop box holds: the buy-ins, and what a patron paid a marker with in cash at the
# table (``MarkerPaidAtTable``, method cash: into the drop box, as a buy-in's cash).
DROP_CASH = ("CashBuyIn", "MarkerPaidAtTable")
# The markers a drop box holds besides its cash (the drop is cash and markers): issued at the
# table (+), paid there or voided (−: the marker leaves the box).
MARKERS_IN_DROP = {"MarkerIssued": 1, "MarkerPaidAtTable": -1, "MarkerVoided": -1}


def marker_drop_events(events):
    """``events`` narrowed to those that move a marker into or out of a drop box
    (``MARKERS_IN_DROP``): a marker voided after the count moved it to the cage (``in_drop``
    false) had left the box already, and the box's count held it."""
    return events.filter(type__in=list(MARKERS_IN_DROP)).exclude(type="MarkerVoided", data__in_drop=False)


def drop_cash_events(events):
    """``events`` narrowed to the cash put in drop boxes (``DROP_CASH``): buy-ins, and markers
    paid in cash at a table."""
    return events.filter(type__in=DROP_CASH).exclude(type="MarkerPaidAtTable", data__method="chips")


def expected_drop_cents(table: str, day: date, *, upto: int | None = None, after: int = 0) -> int:
    """The cash the table's box should hold for gaming day ``day`` (cents): its recorded cash
    buy-ins and markers paid in cash at the table, those at ledger positions
    ``after < position <= upto`` (the box removed at ``upto`` holds those before it)."""
    events = drop_cash_events(Event.objects.filter(data__table=table, gaming_day=day, position__gt=after))
    if upto is not None:
        events = events.filter(position__lte=upto)
    return sum(events.values_list("data__amount_cents", flat=True))


def markers_in_drop_cents(table: str, start: date, end: date) -> int:
    """The markers the table's drop boxes of gaming days [start, end] hold besides cash (cents):
    issued at the table, less those paid there or voided (``MARKERS_IN_DROP``). The count moves
    them to the cage on their own (``MarkerTransferred``); the drop is cash and markers."""
    events = marker_drop_events(Event.objects.filter(data__table=table, gaming_day__range=(start, end)))
    return sum(MARKERS_IN_DROP[kind] * amount for kind, amount in events.values_list("type", "data__amount_cents"))


def box_removal(table: str, day: date) -> Event | None:
    """The ``DropBoxRemoved`` event of the table's box for ``day``, if it was removed."""
    return Event.objects.filter(stream=drop_stream(table, day), type="DropBoxRemoved").first()


def box_removers(table: str, day: date) -> list[str] | None:
    """The people who removed ``table``'s drop box for ``day`` as its sealed ``DropBoxRemoved``
    event names them (``removers``, two usernames; an older event without the list: its
    actor), or None when no event the application sealed records the removal
    (``ledger.event_seals.sealed_events``: a row changed with raw SQL names nobody)."""
    found = sealed_events(Event.objects.filter(stream=drop_stream(table, day), type="DropBoxRemoved"))
    if not found:
        return None
    data = found[0].data if isinstance(found[0].data, dict) else {}
    removers = data.get("removers")
    return [str(r) for r in removers] if isinstance(removers, list) and removers else [found[0].actor]


def refuse_removers_as_counters(table: str, day: date, counters: list) -> None:
    """Segregation of duties in the count room: whoever carried the box to the count room does
    not count it too. Raises ``RoleRequired`` (403) when one of ``counters`` is one of
    ``box_removers``, naming him; ``StateConflict`` (409, field ``table``) when no sealed event
    says who removed the box (its row was altered: ``manage.py ledger verify`` names it)."""
    removers = box_removers(table, day)
    if removers is None:
        raise StateConflict(
            f"the removal of the drop box of {table} for {day} is not the application's sealed event:"
            " who removed it cannot be told, so it cannot be counted (run `manage.py ledger verify`)",
            field="table",
        )
    for who in counters:
        if who in removers:
            raise RoleRequired(
                f"counting a drop box: {who} removed the drop box of {table} for {day}"
                f" (with {' and '.join(r for r in removers if r != who) or 'nobody'});"
                " two others of the count team count it"
            )


def live_count(table: str, day: date) -> Event | None:
    """The table's ``DropCounted`` event of ``day`` that no reversal cancelled, if any."""
    events = list(Event.objects.filter(stream=drop_stream(table, day)).order_by("position"))
    reversed_positions = {e.data["reverses"] for e in events if e.type == "DropCountReversed"}
    counts = [e for e in events if e.type == "DropCounted" and e.position not in reversed_positions]
    return counts[-1] if counts else None


def _table(code: object) -> Table:
    table = Table.objects.filter(code=code).first() if isinstance(code, str) else None
    if table is None:
        raise NotFound(f"no table {code!r}", field="table")
    return table


def drop_box_remove(
    *,
    table: str,
    gaming_day: object,
    actor: str,
    removers: list,
    idempotency_key: str | None = None,
) -> dict:
    """Record the removal of ``table``'s drop box for ``gaming_day`` (a pit boss, count team or
    drop team), by people independent of the table's pit shift that day (never its
    dealer nor its pit boss, ``pit_shift.table_shift``).

    ``removers``: the two people who removed it (distinct, the actor one of them, each holding
    one of those roles), recorded on the event: a drop box is never removed by one person
    (SHIFTS.md "Drop and count team"; the API has the second confirm from his own login).
    Returns ``{"table", "gaming_day", "event", "expected_cents"}``. Raises ``InvalidInput``
    (bad day or list), ``NotFound`` (table), ``RoleRequired`` (403: a role missing, the same
    person twice, the actor not a remover, a remover of the table's shift), ``StateConflict``
    (already removed).
    """
    day = gaming_day_in_reach(gaming_day)
    require_role(actor, *REMOVERS, step="removing a drop box")
    if not isinstance(removers, (list, tuple)) or len(removers) != 2 or not all(isinstance(r, str) for r in removers):
        raise InvalidInput("a drop box is removed by two people", field="removers")
    require_distinct("removing a drop box", removers[1], [("first remover", removers[0])])
    for who in removers:
        require_role(who, *REMOVERS, step="removing a drop box")
    if actor not in removers:
        raise RoleRequired("removing a drop box: the one who records it is one of the removers")
    request = {"op": "drop_box_remove", "table": table, "gaming_day": day.isoformat(), "removers": removers}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _table(table)
        require_independent(found.code, day, list(removers), step="removing a drop box")
        refuse_if_closed(day, what=f"the drop box of {found.code} can no longer be removed", field="gaming_day")
        stream = drop_stream(found.code, day)
        if store.stream_version(stream):
            raise StateConflict(f"the drop box of {found.code} for {day} is already removed", field="table")
        expected = expected_drop_cents(found.code, day)  # all recorded so far: this event closes the box
        (event,) = cmd.append(
            stream=stream,
            expected_version=0,
            events=[
                NewEvent(
                    "DropBoxRemoved",
                    {
                        "table": found.code,
                        "gaming_day": day.isoformat(),
                        "expected_cents": expected,
                        "removers": list(removers),
                    },
                )
            ],
        )
        return cmd.finish(
            {"table": found.code, "gaming_day": day.isoformat(), "event": event.position, "expected_cents": expected}
        )


def drop_count(
    *,
    table: str,
    gaming_day: object,
    cash: dict,
    counters: list,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """The count team's count of ``table``'s drop box for ``gaming_day``, by banknote.

    ``cash`` is ``{"<denomination cents>": notes}``; ``counters`` the two count-team users who
    counted (distinct; the actor is a count-team member too). Returns ``{"table",
    "gaming_day", "event", "counted_cents", "expected_cents", "variance_cents"}`` (variance =
    counted − expected). The counters are neither of the two who removed the box (its
    sealed ``DropBoxRemoved``: ``box_removers``), as a verifier is neither (``drop_recount``).
    Raises ``InvalidInput`` (negative or non-integer count, unknown denomination, not two
    counters), ``RoleRequired`` (403, like every "wrong person" refusal here: a counter
    without the role, the same counter twice, a counter who removed the box),
    ``StateConflict`` (box not removed, or already counted).
    """
    day = gaming_day_in_reach(gaming_day)
    notes, counted = count_total(cash, cash_denominations(), field="cash")
    check_ceiling("drop_count", counted, field="cash")
    if not isinstance(counters, (list, tuple)) or len(counters) != 2 or not all(isinstance(c, str) for c in counters):
        raise InvalidInput("a count names its two counters", field="counters")
    first, second = counters
    require_role(actor, Role.COUNT_TEAM, step="entering a drop count")
    for who in counters:
        require_role(who, Role.COUNT_TEAM, step="counting a drop box")
    require_distinct("counting a drop box", second, [("first counter", first)])
    request = {
        "op": "drop_count",
        "table": table,
        "gaming_day": day.isoformat(),
        "cash": notes,
        "counters": [*counters],
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _table(table)
        refuse_if_closed(day, what=f"no drop count of {found.code} can be added to it", field="gaming_day")
        stream = drop_stream(found.code, day)
        version = store.stream_version(stream)
        removal = box_removal(found.code, day)
        if removal is None:
            raise StateConflict(f"the drop box of {found.code} for {day} has not been removed", field="table")
        refuse_removers_as_counters(found.code, day, [first, second])
        if live_count(found.code, day) is not None:
            raise StateConflict(
                f"the drop box of {found.code} for {day} is already counted; reverse that count first", field="table"
            )
        # The box holds the cash of the buy-ins recorded before it was removed.
        expected = expected_drop_cents(found.code, day, upto=removal.position)
        legs = [
            Leg(account, amount)
            for account, amount in (
                (accounts.table_drop(found.code), -expected),
                (accounts.CAGE_CASH, counted),
                (accounts.CAGE_OVER_SHORT, expected - counted),
            )
            if amount
        ]
        data = {
            "table": found.code,
            "gaming_day": day.isoformat(),
            "denominations": notes,
            "counted_cents": counted,
            "expected_cents": expected,
            "variance_cents": counted - expected,
            "counters": [first, second],
        }
        (event,) = cmd.append(stream=stream, expected_version=version, events=[NewEvent("DropCounted", data, legs)])
        return cmd.finish(
            {
                "table": found.code,
                "gaming_day": day.isoformat(),
                "event": event.position,
                "counted_cents": counted,
                "expected_cents": expected,
                "variance_cents": counted - expected,
            }
        )


def drop_count_reverse(
    *, table: str, gaming_day: object, reason: str, approver: str, actor: str, idempotency_key: str | None = None
) -> dict:
    """Reverse the live drop count of ``table`` for ``gaming_day`` (storno), so it can be recounted.

    Appends ``DropCountReversed`` naming the count (``reverses``: its position) with its
    postings the other way round. Needs a reason and an approver (pit boss or cage
    supervisor) other than the actor. Returns ``{"table", "gaming_day", "event", "reverses"}``.
    Raises ``InvalidInput``, ``RoleRequired`` (403), ``StateConflict`` (nothing to reverse, or the day
    is closed: ``ledger.closed_days``).
    """
    day = gaming_day_in_reach(gaming_day)
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("a reversal needs a reason", field="reason")
    if not isinstance(approver, str) or not approver:
        raise InvalidInput("a reversal needs an approver (pit boss or cage supervisor)", field="approver")
    require_role(actor, Role.COUNT_TEAM, Role.PIT_BOSS, Role.CAGE_SUPERVISOR, step="reversing a drop count")
    require_role(approver, *APPROVERS, step="approving a count reversal")
    require_distinct("approving a count reversal", approver, [("signer", actor)])
    request = {"op": "drop_count_reverse", "table": table, "gaming_day": day.isoformat(), "reason": reason.strip()}
    request["approver"] = approver
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _table(table)
        refuse_if_closed(day, what=f"the drop count of {found.code} stands", field="gaming_day")
        original = live_count(found.code, day)
        if original is None:
            raise StateConflict(f"no count of {found.code} for {day} to reverse", field="table")
        legs = [Leg(p.account, -p.amount_cents, p.currency) for p in original.postings.all()]
        stream = drop_stream(found.code, day)
        (event,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            causation_id=str(original.position),
            events=[
                NewEvent(
                    "DropCountReversed",
                    {
                        "table": found.code,
                        "gaming_day": day.isoformat(),
                        "reverses": original.position,
                        "reason": reason.strip(),
                        "approved_by": approver,
                    },
                    legs,
                )
            ],
        )
        return cmd.finish(
            {"table": found.code, "gaming_day": day.isoformat(), "event": event.position, "reverses": original.position}
        )

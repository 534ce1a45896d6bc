"""Who worked a table's pit shift on a gaming day: the people the drop box's
removal must be independent of (25 CFR 543.17: neither the table's dealer nor its pit boss)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Q

from ledger.models import Event
from staff.models import DealerAssignment
from staff.roles import Role, RoleRequired, roles_of


def gaming_day_bounds(day: date) -> tuple[datetime, datetime]:
    """The UTC-aware start and end of gaming day ``day`` (the casino's zone and start hour)."""
    hour, minute = (int(part) for part in settings.GAMING_DAY_START.split(":"))
    start = datetime.combine(day, time(hour, minute), tzinfo=ZoneInfo(settings.CASINO_TIMEZONE))
    return start, start + timedelta(days=1)


def table_shift(table: str, day: date) -> dict[str, str]:
    """``{username: "dealer" | "pit boss"}`` of table ``table``'s shift on gaming day ``day``:
    the dealer and pit boss named on its opening and closing counts, the pit bosses who acted on
    its stream that day, its dealers' assignments overlapping the day and who made them."""
    people: dict[str, str] = {}
    for event in Event.objects.filter(stream=f"table/{table}", gaming_day=day).only("actor", "data", "type"):
        data = event.data if isinstance(event.data, dict) else {}
        for key, what in (("dealer", "dealer"), ("pit_boss", "pit boss")):
            if isinstance(data.get(key), str) and data[key]:
                people.setdefault(data[key], what)
        if Role.PIT_BOSS in roles_of(event.actor):
            people.setdefault(event.actor, "pit boss")
    start, end = gaming_day_bounds(day)
    assignments = DealerAssignment.objects.filter(table_code=table, started_at__lt=end).filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=start)
    )
    for dealer, assigned_by in assignments.values_list("dealer__username", "assigned_by"):
        people.setdefault(dealer, "dealer")
        people.setdefault(assigned_by, "pit boss")
    return people


def require_independent(table: str, day: date, people: list[str], *, step: str) -> None:
    """Raise ``RoleRequired`` (403) when one of ``people`` worked ``table``'s shift on ``day``."""
    shift = table_shift(table, day)
    for who in people:
        if who in shift:
            raise RoleRequired(
                f"{step}: {who} is the {shift[who]} of table {table} on {day}; an independent person is needed"
            )

"""Drop custody after the count: the verifier's blind recount and the master game
report signed by the count team.

- A verifier of the count team who was neither a counter nor a remover of the box recounts it
  (``drop_recount``) without being shown the first count: the answer tells him only whether
  his count agrees. Agreeing is ``DropCountVerified``; differing is ``DropRecountVariance``,
  a variance for investigation: the first count stands and nothing is posted or overwritten
  (a mistaken count is corrected by ``drop_count_reverse`` and a new count).
- Each member of the count team signs the day's master game report from his own session
  (``MasterGameReportSigned``, with the SHA-256 of the report's rows he saw).

Streams: ``drop/<table>/<gaming day>`` (the box's), ``mastergame/<gaming day>``.
"""

from __future__ import annotations

from core.denominations import cash_denominations, count_total
from ledger import store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import StateConflict
from ledger.models import Event
from ledger.store import NewEvent
from staff.roles import Role, RoleRequired, require_role

from ..custody_reports import master_game_rows, report_digest
from .count_room import _table, box_removal, drop_stream, gaming_day_in_reach, live_count

RECOUNT_EVENTS = ("DropCountVerified", "DropRecountVariance")


def _recount_of(stream: str, count: Event) -> Event | None:
    return (
        Event.objects.filter(stream=stream, type__in=RECOUNT_EVENTS, position__gt=count.position)
        .order_by("position")
        .first()
    )


def drop_recount(*, table: str, gaming_day: object, cash: dict, actor: str, idempotency_key: str | None = None) -> dict:
    """The verifier's blind recount of ``table``'s counted drop box for ``gaming_day``.

    ``cash`` ``{"<denomination cents>": notes}``; ``actor`` the verifier (count team, neither
    a counter of the count nor a remover of the box). Returns ``{"table", "gaming_day",
    "event", "recounted_cents", "agrees"}`` and never the first count's figures.

    Raises ``InvalidInput`` (400: a bad count or day), ``NotFound`` (404), ``RoleRequired``
    (403: not count team, a counter or remover), ``StateConflict`` (409: not counted yet,
    already recounted, the day closed)."""
    day = gaming_day_in_reach(gaming_day)
    notes, recounted = count_total(cash, cash_denominations(), field="cash")
    require_role(actor, Role.COUNT_TEAM, step="verifying a drop count")
    request = {"op": "drop_recount", "table": table, "gaming_day": day.isoformat(), "cash": notes}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        found = _table(table)
        refuse_if_closed(day, what=f"the drop of {found.code} can no longer be recounted", field="gaming_day")
        stream = drop_stream(found.code, day)
        count = live_count(found.code, day)
        if count is None:
            raise StateConflict(f"the drop box of {found.code} for {day} is not counted yet", field="table")
        if _recount_of(stream, count) is not None:
            raise StateConflict(f"the count of {found.code} for {day} is already verified", field="table")
        removal = box_removal(found.code, day)
        removers = set(removal.data.get("removers") or [removal.actor]) if removal else set()
        if actor in set(count.data.get("counters", [])) | {count.actor}:
            raise RoleRequired("verifying a drop count: the verifier is not one of its counters")
        if actor in removers:
            raise RoleRequired("verifying a drop count: the verifier did not remove the box")
        first = count.data["counted_cents"]
        agrees = recounted == first and notes == count.data.get("denominations")
        data = {
            "table": found.code,
            "gaming_day": day.isoformat(),
            "count_event": count.position,
            "denominations": notes,
            "recounted_cents": recounted,
            "first_counted_cents": first,
            "difference_cents": recounted - first,
            "verifier": actor,
        }
        event_type = "DropCountVerified" if agrees else "DropRecountVariance"
        (event,) = cmd.append(
            stream=stream, expected_version=store.stream_version(stream), events=[NewEvent(event_type, data)]
        )
        return cmd.finish(
            {
                "table": found.code,
                "gaming_day": day.isoformat(),
                "event": event.position,
                "recounted_cents": recounted,
                "agrees": agrees,
            }
        )


def master_game_sign(*, gaming_day: object, actor: str, idempotency_key: str | None = None) -> dict:
    """A member of the count team signs the master game report of ``gaming_day`` (his own
    session: the actor is the signer). Returns ``{"gaming_day", "signer", "digest", "event"}``.

    Raises ``RoleRequired`` (403: not count team), ``StateConflict`` (409: nothing counted that
    day, or he already signed this version of the report)."""
    day = gaming_day_in_reach(gaming_day)
    require_role(actor, Role.COUNT_TEAM, step="signing the master game report")
    with ledger_command(
        actor=actor, request={"op": "master_game_sign", "gaming_day": day.isoformat()}, idempotency_key=idempotency_key
    ) as cmd:
        if cmd.replayed:
            return cmd.result
        rows = master_game_rows(day)
        if not rows:
            raise StateConflict(f"no drop box was removed on {day}: nothing to sign", field="gaming_day")
        digest = report_digest(rows)
        stream = f"mastergame/{day.isoformat()}"
        signed = Event.objects.filter(stream=stream, type="MasterGameReportSigned", actor=actor, data__digest=digest)
        if signed.exists():
            raise StateConflict(f"{actor} has already signed this master game report", field="gaming_day")
        data = {"gaming_day": day.isoformat(), "signer": actor, "digest": digest, "tables": len(rows)}
        (event,) = cmd.append(
            stream=stream,
            expected_version=store.stream_version(stream),
            events=[NewEvent("MasterGameReportSigned", data)],
        )
        return cmd.finish({"gaming_day": day.isoformat(), "signer": actor, "digest": digest, "event": event.position})

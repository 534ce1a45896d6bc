"""The patron's self-limit: his own maximum bet (responsible gaming, RULES.md §Baccarat).

"A player may lower his own maximum bet; he may change it once a week (reset Friday midnight
US Eastern time) and it applies to every game."

Choices made here, where the sheet leaves room:
- **Once a week** means at most one ``SelfLimitSet`` per patron in each week, the week running
  from Friday 00:00 America/New_York to the next Friday 00:00 (zoneinfo, so the UTC instant
  moves with daylight saving time: 05:00 UTC under EST, 04:00 UTC under EDT). The first setting
  counts as that week's change: a patron who sets a limit on Wednesday may change it again
  from Friday 00:00 New York, not on Thursday.
- **Lower or raise**: the first setting is any positive amount; a later change may lower *or*
  raise it (the sheet says he "may change it once a week"; the weekly lock is what guards
  against raising it on impulse). There is no removal: a very high limit has that effect, and
  it too waits for the weekly reset.
- The anonymous patron (``anon``, shared by all unrated play) cannot set one: a limit there
  would bind every anonymous player.
- The limit caps the **total** a patron stakes in one bet placement (one request), whatever
  the game; each game's placement calls ``check_self_limit`` with that total.

The event names the patron by code only (DESIGN.md §The ledger: no personal data in events).
"""

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from basis.money import format_cents
from ledger.accounts import ANONYMOUS_PATRON
from ledger.commands import ledger_command
from ledger.errors import BetRefused, Conflict, InvalidInput, NotFound
from ledger.models import Event
from ledger.replay import Difference, compare
from ledger.store import MAX_CENTS, NewEvent, stream_version

from ..models import Patron, SelfLimit

NEW_YORK = ZoneInfo("America/New_York")
FRIDAY = 4  # date.weekday()
EVENT_TYPE = "SelfLimitSet"


def now() -> datetime:
    """The service's clock (aware, UTC). Module-level so that tests can move time with monkeypatch."""
    return datetime.now(UTC)


def _moment(value: datetime | None) -> datetime:
    # ``now()`` is looked up at call time (the parameter named ``now`` of the services shadows it).
    moment = now() if value is None else value
    if not isinstance(moment, datetime) or moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime")
    return moment.astimezone(UTC)


def _new_york_midnight(day: date) -> datetime:
    # Midnight always exists and is never ambiguous in New York (the DST changes happen at
    # 02:00 on a Sunday), so building it from the wall clock is exact.
    return datetime.combine(day, time(0), tzinfo=NEW_YORK).astimezone(UTC)


def week_start_of(moment: datetime) -> datetime:
    """The start (UTC) of the self-limit week holding ``moment``: the last Friday 00:00 New York at or before it."""
    local = moment.astimezone(NEW_YORK)
    return _new_york_midnight(local.date() - timedelta(days=(local.weekday() - FRIDAY) % 7))


def next_reset_after(week_start: datetime) -> datetime:
    """The next Friday 00:00 New York (UTC) after the week starting at ``week_start``.

    Seven calendar days on the New York wall clock, not 168 hours: the week that holds a DST
    change is 167 (March) or 169 (November) hours long.
    """
    return _new_york_midnight(week_start.astimezone(NEW_YORK).date() + timedelta(days=7))


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _eur(cents: int) -> str:
    return format_cents(cents)  # with CASINO_CURRENCY


def _when(moment: datetime) -> str:
    """``2025-03-14 04:00 UTC (2025-03-14 00:00 EDT, New York)``."""
    local = moment.astimezone(NEW_YORK)
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC ({local:%Y-%m-%d %H:%M %Z}, New York)"


def _shape(code: str, max_bet_cents: int, week_start: datetime) -> dict:
    return {
        "patron": code,
        "max_bet_cents": max_bet_cents,
        "week_start": _iso(week_start),
        "next_change_from": _iso(next_reset_after(week_start)),
    }


def _patron(code: object) -> Patron:
    patron = Patron.objects.filter(code=code).first() if isinstance(code, str) else None
    if patron is None:
        raise NotFound(f"no patron {code!r}", field="patron")
    return patron


def self_limit_set(
    *,
    patron: str,
    max_bet_cents: int,
    actor: str,
    now: datetime | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """Set the patron's own maximum bet to ``max_bet_cents`` (integer cents, > 0), at ``now``
    (default: the module clock ``now()``).

    Returns ``{"patron", "max_bet_cents", "week_start", "next_change_from"}`` (times ISO 8601
    UTC): the week of this change and the Friday 00:00 New York from which he may change it
    again. Appends ``SelfLimitSet {patron, max_bet_cents, week_start}`` on ``patron/<code>``.

    Raises ``InvalidInput`` (field ``max_bet_cents``: not a positive whole number of cents;
    field ``patron``: the anonymous patron), ``NotFound`` (404, field ``patron``: no such
    patron), ``Conflict`` (409: he already set it this week; the message says when he may next).
    """
    if type(max_bet_cents) is not int or not 0 < max_bet_cents <= MAX_CENTS:
        raise InvalidInput(
            f"the self-limit must be a positive whole number of cents, at most {MAX_CENTS}", field="max_bet_cents"
        )
    moment = _moment(now)
    request = {"op": "self_limit_set", "patron": patron, "max_bet_cents": max_bet_cents}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        who = _patron(patron)
        if who.code == ANONYMOUS_PATRON:
            raise InvalidInput(
                "the anonymous patron (unrated play) cannot set a self-limit; register the patron first",
                field="patron",
            )
        week_start = week_start_of(moment)
        # Read under the ledger writer lock (taken by ledger_command): two changes racing each
        # other are serialised, so only one of them can be this week's change.
        current = SelfLimit.objects.filter(pk=who.code).first()
        if current is not None and current.week_start >= week_start:
            raise Conflict(
                f"patron {who.code} already set his self-limit this week (it is {_eur(current.max_bet_cents)}); "
                f"it may be changed once a week, and next from {_when(next_reset_after(current.week_start))}"
            )
        stream = f"patron/{who.code}"
        cmd.append(
            stream=stream,
            expected_version=stream_version(stream),
            events=[
                NewEvent(
                    EVENT_TYPE,
                    {"patron": who.code, "max_bet_cents": max_bet_cents, "week_start": _iso(week_start)},
                    # The instant that decided the week, so an auditor can recompute week_start.
                    occurred_at=moment,
                )
            ],
        )
        SelfLimit.objects.update_or_create(
            patron=who, defaults={"max_bet_cents": max_bet_cents, "week_start": week_start, "set_at": moment}
        )
        return cmd.finish(_shape(who.code, max_bet_cents, week_start))


def self_limit_get(patron: str, *, now: datetime | None = None) -> dict | None:
    """The patron's self-limit, or None when he has set none.

    ``{"patron", "max_bet_cents", "week_start", "next_change_from", "may_change_now"}``: the
    week of the last change, the reset from which he may change it again (possibly already
    past) and whether he may change it at ``now`` (default: the module clock). Raises
    ``NotFound`` (field ``patron``) for an unknown patron.
    """
    limit = SelfLimit.objects.filter(pk=patron).first() if isinstance(patron, str) else None
    if limit is None:
        _patron(patron)  # an unknown patron is a 404 of its own, not "no limit"
        return None
    result = _shape(limit.patron_id, limit.max_bet_cents, limit.week_start)
    result["may_change_now"] = _moment(now) >= next_reset_after(limit.week_start)
    return result


_READ = object()  # check_self_limit's default: look the limit up


def check_self_limit(
    patron_code: str,
    stake_cents: int,
    *,
    table: str | None = None,
    round_id: object = None,
    field: str = "stake_cents",
    limit_cents: int | None | object = _READ,
) -> None:
    """Refuse a bet placement whose total stake ``stake_cents`` is over the patron's own limit.

    A pure read: one primary-key lookup (``SelfLimit`` is keyed by the patron's code). A stake
    equal to the limit is accepted; a patron with no limit (and the anonymous patron) is not
    limited. Raises ``BetRefused`` (an ``InvalidInput``, 400 on ``field``, kind ``self_limit``)
    naming the limit in EUR and carrying ``table`` (code) and ``round_id`` when the caller gives
    them, so that the floor can record the refusal (``games.services.refusals``).
    ``limit_cents``: the limit when the caller read it already in the same transaction (None:
    he has none), as roulette's ``bet_placement_reads`` does.
    """
    limit = limit_cents
    if limit is _READ:
        limit = SelfLimit.objects.filter(pk=patron_code).values_list("max_bet_cents", flat=True).first()
    if limit is not None and stake_cents > limit:
        raise BetRefused(
            f"a bet of {_eur(stake_cents)} is over patron {patron_code}'s own limit of {_eur(limit)} "
            "(responsible gaming self-limit)",
            kind="self_limit",
            stake_cents=stake_cents,
            field=field,
            table=table,
            round_id=round_id,
            patron=patron_code,
        )


def check_self_limits() -> list[Difference]:
    """``ledger replay-check``: each patron's limit and week from his last ``SelfLimitSet``."""
    replayed: dict[str, dict] = {}
    for data in Event.objects.filter(type=EVENT_TYPE).order_by("position").values_list("data", flat=True):
        replayed[data["patron"]] = {"max_bet_cents": data["max_bet_cents"], "week_start": data["week_start"]}
    live = {
        s.patron_id: {"max_bet_cents": s.max_bet_cents, "week_start": _iso(s.week_start)}
        for s in SelfLimit.objects.all()
    }
    return list(compare("self_limit", live, replayed))

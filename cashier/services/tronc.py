"""Tips (tronc): tip boxes counted into the staff pool and the pool shared out.

A tip box is a table's (``{"table": "R1"}``) or a dealer's own toke box (``{"dealer":
"dealer7"}``). It is counted, by denomination of value chips and of cash, by at least two
employees in the presence of a manager (a pit boss or cage supervisor who counts nothing);
the command's actor is one of them. The count is the tips book's line (event ``TipsCounted``)
and posts the tips to the pool (DESIGN.md: "tips: patron −t, tronc +t")::

    patron:anon:chips −chips, tronc +chips      (value chips given by patrons, unattributed)
    external:cash −cash,      tronc +cash       (banknotes and coins given by patrons)

The pool is shared out (``TroncShared``) by points: each share is ⌊pool × points / total
points⌋ cents, the cents left by the rounding stay in the pool for the next share-out. A
person's points are given in the request or, by default, the setting
``CASINO_TRONC_POINTS_BY_ROLE`` (the highest of the roles he holds). The share-out pays the
staff: ``tronc −shared, external:cash +shared``.

Streams: ``tips/<box>/<gaming day>`` (one count per box and gaming day; a second is 409),
``tronc/shares``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model

from core.denominations import cash_denominations, chip_denominations, count_total
from games.models import Table
from ledger import accounts, store
from ledger.closed_days import refuse_if_closed
from ledger.commands import ledger_command
from ledger.errors import InvalidInput, NotFound, StateConflict
from ledger.store import Leg, NewEvent
from staff.roles import Role, RoleRequired, require_role, roles_of

from .count_room import gaming_day_in_reach

MANAGERS = (Role.PIT_BOSS, Role.CAGE_SUPERVISOR)
SHARE_OUT = (Role.CAGE_SUPERVISOR,)
SHARES_STREAM = "tronc/shares"
MIN_COUNTERS = 2
MAX_PEOPLE = 500


def points_by_role() -> dict[str, int]:
    """The points scheme: role → points a share-out gives a holder (setting
    ``CASINO_TRONC_POINTS_BY_ROLE``, its defaults in ``casino/settings.py``)."""
    return dict(settings.CASINO_TRONC_POINTS_BY_ROLE)


def _box(box: object) -> tuple[str, str]:
    """``("table", "R1")`` or ``("dealer", "dealer7")`` from the request's ``box``."""
    if not isinstance(box, dict) or len(box) != 1:
        raise InvalidInput('a tip box is {"table": "<code>"} or {"dealer": "<username>"}', field="box")
    ((kind, code),) = box.items()
    if kind == "table":
        if not isinstance(code, str) or not Table.objects.filter(code=code).exists():
            raise NotFound(f"no such table: {code}", field="box")
    elif kind == "dealer":
        if not isinstance(code, str) or Role.DEALER not in roles_of(code):
            raise InvalidInput(f"{code} is not an active dealer", field="box")
    else:
        raise InvalidInput('a tip box is {"table": "<code>"} or {"dealer": "<username>"}', field="box")
    return kind, code


def _people(names: object, field: str, minimum: int) -> list[str]:
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise InvalidInput("a list of usernames", field=field)
    if len(set(names)) != len(names):
        raise RoleRequired(f"{field}: the same person twice; segregation of duties needs distinct people")
    if len(names) < minimum:
        raise InvalidInput(f"at least {minimum} people", field=field)
    if len(names) > MAX_PEOPLE:
        raise InvalidInput(f"at most {MAX_PEOPLE} people", field=field)
    return list(names)


def tips_count(
    *,
    box: dict,
    gaming_day: object,
    chips: dict,
    cash: dict,
    counters: list,
    manager: str,
    actor: str,
    idempotency_key: str | None = None,
) -> dict:
    """Count a tip box for ``gaming_day`` into the tronc and the tips book.

    ``chips`` and ``cash`` are counts ``{"<denomination cents>": pieces}``; ``counters`` at
    least two distinct employees (each holding a role; a dealer never counts his own toke
    box); ``manager`` a pit boss or cage supervisor who is not a counter; ``actor`` (the
    authenticated user) is a counter or the manager. Returns ``{"box", "gaming_day", "event",
    "chips_cents", "cash_cents", "total_cents", "counters", "manager"}``.

    Raises ``InvalidInput`` (400: a bad count, box or list), ``NotFound`` (404: no such table),
    ``RoleRequired`` (403: a counter without a role, a manager without the role, the manager
    or a person twice, the actor neither counter nor manager, the dealer counting his own
    box), ``StateConflict`` (409: the box already counted that day, or the day closed)."""
    kind, code = _box(box)
    day = gaming_day_in_reach(gaming_day)
    chip_lines, chips_cents = count_total(chips, chip_denominations(), field="chips")
    cash_lines, cash_cents = count_total(cash, cash_denominations(), field="cash")
    if chips_cents + cash_cents == 0:
        raise InvalidInput("an empty tip box is not entered in the tips book", field="chips")
    names = _people(counters, "counters", MIN_COUNTERS)
    for who in names:
        if not roles_of(who):
            raise RoleRequired(f"counting tips: {who} holds no role (an active employee counts)")
    if kind == "dealer" and code in names:
        raise RoleRequired(f"counting tips: {code} may not count his own toke box")
    require_role(manager, *MANAGERS, step="witnessing a tips count")
    if manager in names:
        raise RoleRequired(f"counting tips: {manager} is a counter; the manager counts nothing")
    if actor not in (*names, manager):
        raise RoleRequired("counting tips: the one who enters the count is a counter or the manager")
    request = {
        "op": "tips_count",
        "box": f"{kind}:{code}",
        "gaming_day": day.isoformat(),
        "chips": chip_lines,
        "cash": cash_lines,
        "counters": names,
        "manager": manager,
    }
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        refuse_if_closed(day, what="no tips count can be added to it", field="gaming_day")
        stream = f"tips/{kind}:{code}/{day.isoformat()}"
        if store.stream_version(stream):
            raise StateConflict(f"the tip box of {kind} {code} for {day} is already counted", field="box")
        legs = [
            leg
            for leg in (
                Leg(accounts.patron_chips(accounts.ANONYMOUS_PATRON), -chips_cents),
                Leg(accounts.EXTERNAL_CASH, -cash_cents),
                Leg(accounts.TRONC, chips_cents + cash_cents),
            )
            if leg.amount_cents
        ]
        data = {
            "box": {kind: code},
            "gaming_day": day.isoformat(),
            "chips": chip_lines,
            "cash": cash_lines,
            "chips_cents": chips_cents,
            "cash_cents": cash_cents,
            "total_cents": chips_cents + cash_cents,
            "counters": names,
            "manager": manager,
        }
        (event,) = cmd.append(stream=stream, expected_version=0, events=[NewEvent("TipsCounted", data, legs)])
        result = {k: data[k] for k in ("box", "gaming_day", "chips_cents", "cash_cents", "total_cents")}
        return cmd.finish({**result, "event": event.position, "counters": names, "manager": manager})


def _points(shares: object) -> dict[str, int]:
    """``{username: points}`` from ``[{"username", "points"?}, ...]`` (points default: the scheme)."""
    if not isinstance(shares, (list, tuple)) or not shares:
        raise InvalidInput("the staff who share the pool: a non-empty list", field="staff")
    if len(shares) > MAX_PEOPLE:
        raise InvalidInput(f"at most {MAX_PEOPLE} people", field="staff")
    scheme = points_by_role()
    points: dict[str, int] = {}
    for line in shares:
        if not isinstance(line, dict) or not isinstance(line.get("username"), str):
            raise InvalidInput('each line is {"username": ..., "points": ...}', field="staff")
        name = line["username"]
        if name in points:
            raise InvalidInput(f"{name} is listed twice", field="staff")
        if get_user_model().objects.filter(username=name).first() is None:
            raise NotFound(f"no such user: {name}", field="staff")
        held = roles_of(name)
        if not held:
            raise InvalidInput(f"{name} is not an active employee", field="staff")
        given = line.get("points")
        if given is None:
            given = max((scheme.get(role, 0) for role in held), default=0)
        if type(given) is not int or not 0 <= given <= 1_000:
            raise InvalidInput("points are a whole number from 0 to 1000", field="staff")
        points[name] = given
    if not sum(points.values()):
        raise InvalidInput("the staff listed hold no points under the scheme", field="staff")
    return points


def tronc_share(*, staff: list, actor: str, idempotency_key: str | None = None) -> dict:
    """Share the whole pool (the ``tronc`` balance) out to ``staff`` by points.

    ``staff`` is ``[{"username", "points" (optional, default: the scheme by role)}]``. Each
    share is ⌊pool × points / total⌋ cents; what the rounding leaves stays in the pool.
    Returns ``{"event", "pool_cents", "shared_cents", "carried_cents", "total_points",
    "shares": [{"username", "points", "share_cents"}]}``.

    Raises ``RoleRequired`` (403) unless ``actor`` is a cage supervisor, ``InvalidInput`` (400:
    field ``staff``), ``NotFound`` (404), ``StateConflict`` (409: the pool is empty)."""
    require_role(actor, *SHARE_OUT, step="sharing the tronc out")
    points = _points(staff)
    request = {"op": "tronc_share", "staff": sorted(points.items())}
    with ledger_command(actor=actor, request=request, idempotency_key=idempotency_key) as cmd:
        if cmd.replayed:
            return cmd.result
        pool = store.balance(accounts.TRONC)
        if pool <= 0:
            raise StateConflict("the tronc is empty: nothing to share", field="staff")
        total = sum(points.values())
        shares = [
            {"username": name, "points": p, "share_cents": pool * p // total} for name, p in sorted(points.items())
        ]
        shared = sum(line["share_cents"] for line in shares)
        data = {
            "pool_cents": pool,
            "shared_cents": shared,
            "carried_cents": pool - shared,
            "total_points": total,
            "shares": shares,
        }
        legs = [Leg(accounts.TRONC, -shared), Leg(accounts.EXTERNAL_CASH, shared)] if shared else []
        version = store.stream_version(SHARES_STREAM)
        (event,) = cmd.append(
            stream=SHARES_STREAM, expected_version=version, events=[NewEvent("TroncShared", data, legs)]
        )
        return cmd.finish({"event": event.position, **data})

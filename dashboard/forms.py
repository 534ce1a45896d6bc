"""What the pit boss's forms send beyond amounts and counts (``core.typed_amounts``): minutes,
times, classic stud's limits.

Every refusal is an ``InvalidInput`` naming the field, in words saying how to type it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.utils import timezone

from basis.money import format_cents
from games.rules.classic_stud import MAX_CAP
from ledger.errors import InvalidInput

_DIGITS = re.compile(r"[0-9]+")
_TIME = re.compile(r"([01]?[0-9]|2[0-3])[:h]([0-5][0-9])")


def whole_number(text: object, *, field: str, most: int = 24 * 60) -> int:
    """A whole number from 1 to ``most`` typed in ASCII digits; ``InvalidInput`` naming ``field``."""
    raw = text.strip() if isinstance(text, str) else ""
    if not _DIGITS.fullmatch(raw) or not 1 <= int(raw[:6]) <= most:
        raise InvalidInput(f"a whole number of minutes from 1 to {most}", field=field)
    return int(raw)


def local_time(text: object, *, field: str) -> datetime:
    """``"14:05"`` (or ``14h05``), today in the casino's zone (the active one), as an aware
    datetime; a time later than now is yesterday's. ``InvalidInput`` naming ``field``."""
    raw = text.strip() if isinstance(text, str) else ""
    match = _TIME.fullmatch(raw)
    if not match:
        raise InvalidInput("a time of day, hours and minutes: 14:05", field=field)
    now = timezone.localtime()
    moment = now.replace(hour=int(match.group(1)), minute=int(match.group(2)), second=0, microsecond=0)
    if moment > now:  # a table is rated after the play: a time still to come was yesterday's
        moment -= timedelta(days=1)
    return moment


def stud_limits(in_force: dict, typed: dict, rounds: tuple[str, ...]) -> dict:
    """Classic stud's limits as its rule options: ``in_force`` and ``typed`` map
    ``base_stake_cents`` and each of ``rounds`` (a round's most, cents) to cents (``typed``: the
    fields changed). Returns the options that change, ``{"base_stake_cents", "caps"}`` (caps as
    multiples of the base stake, as the engine keeps them). ``InvalidInput`` naming the round
    whose most is not a whole number of base stakes."""
    base = typed.get("base_stake_cents", in_force.get("base_stake_cents"))
    if not isinstance(base, int) or base <= 0:
        raise InvalidInput("type the base stake", field="base_stake_cents")
    caps = []
    for option in rounds:
        most = typed.get(option, in_force.get(option))
        if not isinstance(most, int) or most < base or most % base:
            raise InvalidInput(
                f"a whole number of base stakes ({format_cents(base)} each), at least one",
                field=option,
            )
        if most // base > MAX_CAP:
            raise InvalidInput(f"at most {MAX_CAP:,} base stakes: {format_cents(base * MAX_CAP)}", field=option)
        caps.append(most // base)
    current = in_force.get("base_stake_cents")
    mosts = [in_force.get(option) for option in rounds]
    readable = isinstance(current, int) and current > 0 and all(isinstance(m, int) for m in mosts)
    before = [m // current for m in mosts] if readable else None
    rules = {}
    if base != current:
        rules["base_stake_cents"] = base
    if caps != before:
        rules["caps"] = caps
    return rules
